package qasm

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The parser reads the parameters and operands most programs write
// without the expression parser (param, operand). Whatever it reads must
// be the tree the expression parser builds, and where that one fails, the
// same error; in both cases it must stop at the same token. These are
// the shapes it takes and, around them, those it must hand on: other
// operators and precedences, calls, indexes, numbers the parser refuses,
// broken expressions.
var shortcutParams = []string{
	"0.5", "3", "-2", "-0.5", "pi", "-pi", "theta", "π", "1e-3", ".5", "5.", "1e999", "0x10", "1_000", "1_0.5",
	"pi/2", "-pi/4", "2*pi", "pi+1", "1-pi", "a*b", "-a-b", "-1/-1", "2/0", "0.5*0.25",
	"pi/2*3", "-pi^2", "pi^2", "-pi**2", "2-1-1", "1/2/2", "1-2*3", "1*2-3", "1+2+3", "-(pi)", "(pi)/2",
	"pi/(2)", "--pi", "- -1", "+pi", "+1/2", "-+1", "sin(pi)/2", "pi/sin(1)", "a[0]", "a[0]/2", "2/a[1]",
	"pi%2", "1<<2", "1==1", "true", "-true", "false/2", "measure q", "int(1)", "int[8](1)/2", "durationof({x q;})",
	"2ns", "2ns/2", "1im", "-1im", "99999999999999999999", "-99999999999999999999", "1/99999999999999999999",
	"18446744073709551615", "0b2", "1..2", "1e", "pi/", "/2", "-", "", "pi 2", "pi/2 3", "(pi/2", "pi/2)",
	"pi/-", "*", "pi//x\n/2", "pi /* note */ / 2", "pi/ /* never closed", "99999999999999999999 /* never closed",
	"pi /* never closed", "true /* never closed", "\"s\"", "pi/\"s\"", "$0", "$0/2", "pi/$1", "1_/2", "a.b",
}

// shortcutOperands are gate operands, in the same spirit.
var shortcutOperands = []string{
	"q", "q[0]", "q[15]", "r", "q[0+1]", "q[-1]", "q[0][0]", "q[0:1]", "q[{0,1}]", "q[0,1]", "q[0.5]", "q[a]",
	"q[99999999999999999999]", "q[99999999999999999999 /* never closed", "q[0 /* never closed", "q[0] /* never closed",
	"q[0) /* never closed", "q[", "q[]", "q[0", "q]", "int", "int[4]", "int[4](q)", "true", "measure q", "$0",
	"$0[0]", "q ++ r", "(q)", "0", "q[0x1]", "q[0_1]",
}

// parseBothWays parses src as a program of the version with the
// shortcuts and without, and reports how the two differ, or "".
func parseBothWays(src string, version int) string {
	src = fmt.Sprintf("OPENQASM %d.0;\n%s", version, src)
	var out [2]string
	for i, general := range []bool{false, true} {
		stmts, v, phys, err := parse(src, newPoller(context.Background()), general)
		// the trees, deeply (%#v would print pointers)
		out[i] = fmt.Sprintf("%s\nversion %d, physical %v, error: %v", dump(reflect.ValueOf(stmts)), v, phys, err)
	}
	if out[0] != out[1] {
		return fmt.Sprintf("with the shortcuts:\n%s\nwithout:\n%s", out[0], out[1])
	}
	return ""
}

// dump writes a syntax tree with everything its nodes hold.
func dump(v reflect.Value) string {
	switch v.Kind() {
	case reflect.Invalid:
		return "nil"
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return "nil"
		}
		return dump(v.Elem())
	case reflect.Struct:
		var b strings.Builder
		b.WriteString(v.Type().Name() + "{")
		for i := range v.NumField() {
			fmt.Fprintf(&b, "%s:%s ", v.Type().Field(i).Name, dump(v.Field(i)))
		}
		return b.String() + "}"
	case reflect.Slice:
		var b strings.Builder
		fmt.Fprintf(&b, "[%d:", v.Len())
		for i := range v.Len() {
			b.WriteString(dump(v.Index(i)) + " ")
		}
		return b.String() + "]"
	case reflect.Float64:
		// the bits: -0 and 0 differ
		return fmt.Sprintf("%v(%x)", v.Float(), v.Float())
	case reflect.String:
		return fmt.Sprintf("%q", v.String())
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return fmt.Sprint(v.Int())
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return fmt.Sprint(v.Uint())
	case reflect.Bool:
		return fmt.Sprint(v.Bool())
	case reflect.Complex128:
		return fmt.Sprint(v.Complex())
	}
	panic("dump: a node holds a " + v.Kind().String())
}

// shortcutStatements places a parameter or an operand in the statements
// that read them.
func shortcutStatements(param, operand string) []string {
	return []string{
		"rz(" + param + ") q[0];",
		"U(" + param + ", " + param + ", " + param + ") q;",
		"g(1, " + param + ",2) q, r;",
		"g(" + param + ");",
		"ctrl @ rz(" + param + ") q[0], q[1];",
		"h " + operand + ";",
		"cx " + operand + ", " + operand + ";",
		"cx q[1], " + operand + ";\nh q;",
		"rz(" + param + ") " + operand + ";",
		// a pragma takes the rest of its line
		"#pragma braket noise depolarizing(" + param + ") " + operand,
		"#pragma braket noise pauli_channel(0.1, " + param + ", 0) q[0], " + operand + "\nh q;",
		"#pragma braket noise kraus([[1, 0], [0, 1]]) " + operand,
	}
}

func TestShortcutsAsGeneral(t *testing.T) {
	n := max(len(shortcutParams), len(shortcutOperands))
	for i := range n {
		param, operand := shortcutParams[i%len(shortcutParams)], shortcutOperands[i%len(shortcutOperands)]
		for _, src := range shortcutStatements(param, operand) {
			for _, v := range []int{2, 3} {
				if d := parseBothWays(src, v); d != "" {
					t.Errorf("OpenQASM %d, %q:\n%s", v, src, d)
				}
			}
		}
	}
	// At the nesting limit, where the expression parser refuses one
	// level more: the shortcuts must refuse it too.
	for _, n := range []int{98, 99, 100} {
		for _, src := range shortcutStatements("pi/2", "q[0]") {
			src = strings.Repeat("{", n) + src + strings.Repeat("}", n)
			if d := parseBothWays(src, 3); d != "" {
				t.Errorf("%d blocks deep, %q:\n%s", n, src, d)
			}
		}
	}
}

func FuzzShortcutsAsGeneral(f *testing.F) {
	for i, s := range shortcutParams {
		f.Add(s, shortcutOperands[i%len(shortcutOperands)])
	}
	f.Fuzz(func(t *testing.T, param, operand string) {
		if len(param)+len(operand) > 4<<10 {
			return
		}
		for _, src := range shortcutStatements(param, operand) {
			for _, v := range []int{2, 3} {
				if d := parseBothWays(src, v); d != "" {
					t.Fatalf("OpenQASM %d, %q:\n%s", v, src, d)
				}
			}
		}
	})
}

// lexInto reads plain decimals itself and hands anything more to
// scanNumber: every string of a few characters that a number may start
// with and continue into must be lexed the same either way.
func TestLexNumbersAsGeneral(t *testing.T) {
	var grow func(s string, alphabet []string, depth int)
	grow = func(s string, alphabet []string, depth int) {
		if depth == 0 {
			if d := lexBothWays(s); d != "" {
				t.Fatalf("%q:\n%s", s, d)
			}
			return
		}
		for _, c := range alphabet {
			grow(s+c, alphabet, depth-1)
		}
	}
	all := []string{"0", "1", "9", ".", "_", "e", "E", "+", "-", "x", "b", "o", "i", "m", "s", "n", "d", "t", "u", "µ", "a", " ", ";", "é"}
	few := []string{"0", "1", ".", "_", "e", "+", "x", "s", "µ", ";"}
	for _, start := range []string{"0", "1", "9", ".5", "1.", "0x", "1e"} {
		grow(start, all, 2)
		grow(start, few, 3)
	}
}

// wrapAngle skips math.Remainder for the angles it would leave as they
// are; it must agree with it everywhere, at the edges most of all.
func TestWrapAngleAsRemainder(t *testing.T) {
	xs := []float64{0, math.Copysign(0, -1), 1, -1, math.Pi, 2 * math.Pi, -2 * math.Pi, 4 * math.Pi, 6 * math.Pi, 1e7, -1e300,
		math.SmallestNonzeroFloat64, math.MaxFloat64, math.Inf(1), math.Inf(-1), math.NaN()}
	for _, x := range []float64{2 * math.Pi, 4 * math.Pi} {
		for _, d := range []float64{math.Inf(1), math.Inf(-1)} {
			y := x
			for range 4 {
				y = math.Nextafter(y, d)
				xs = append(xs, y, -y)
			}
		}
	}
	for i := range 1000 {
		xs = append(xs, float64(i)*0.013-6.5)
	}
	// near the multiples of 2π, where the nearest multiple of 4π turns
	// over and the rounded quotient may be one off, and at random
	for k := range 2000 {
		x := float64(k-1000) * 2 * math.Pi
		for _, d := range []float64{math.Inf(1), math.Inf(-1)} {
			y := x
			for range 3 {
				y = math.Nextafter(y, d)
				xs = append(xs, y)
			}
		}
		xs = append(xs, x, x*(1+1e-15), float64(k)*1e9*math.Pi, math.Ldexp(float64(k), 30))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 100000 {
		xs = append(xs, (r.Float64()-0.5)*math.Ldexp(1, r.IntN(50)))
	}
	for _, x := range xs {
		got, want := wrapAngle(x), math.Remainder(x, 4*math.Pi)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("wrapAngle(%v) = %v, math.Remainder gives %v", x, got, want)
		}
	}
}

// lexBothWays lexes src by lexInto, which reads the common tokens
// itself, in batches of each size up to a few, and by next alone, and
// reports how they differ, or "".
func lexBothWays(src string) string {
	show := func(toks []token, err *Error) string {
		var b strings.Builder
		for _, t := range toks {
			fmt.Fprintf(&b, "%d %q %v\n", t.kind, t.text, t.pos)
		}
		return fmt.Sprintf("%s%v", b.String(), err)
	}
	var want []token
	lx := newLexer(src, newPoller(context.Background()))
	wantErr := catch(func() {
		for {
			want = append(want, lx.next())
			if want[len(want)-1].kind == tEOF {
				return
			}
		}
	})
	var got []token
	for n := 1; n <= 5; n++ {
		got = got[:0]
		lx := newLexer(src, newPoller(context.Background()))
		err := catch(func() {
			for len(got) == 0 || got[len(got)-1].kind != tEOF {
				lx.lexInto(&got, n)
			}
		})
		if !slices.Equal(got, want) || fmt.Sprint(err) != fmt.Sprint(wantErr) {
			return fmt.Sprintf("lexInto, %d at a time:\n%s\nnext:\n%s", n, show(got, err), show(want, wantErr))
		}
	}
	return ""
}

// lexerSeeds are the corpus's programs and some of every token.
func lexerSeeds(tb testing.TB) []string {
	srcs := []string{
		"a+=b->c<<=d**e**=f++g--h&&i||j!=k==l<=m>=n<o>p%q^r~s!t&u|v=w",
		"x/=y//comment\nz/*c*/w/ \t2 1.5e3 0x1F 0b11 0o7 1_0 2ns 3µs 4im .5 5. 1..2",
		"pragma x\n#pragma y\n@ann z\npragma\npragmas q;\n  pragma a\n$3 $ \"s\" '01' π τ ℇ é1 a€ 1a",
		"\ufeffOPENQASM 3; h q; /* never closed",
		"a\rb\fc\vd;'never closed\n'",
	}
	err := filepath.WalkDir("../testdata/corpus", func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.HasSuffix(path, ".qasm") {
			var src []byte
			src, err = os.ReadFile(path)
			srcs = append(srcs, string(src))
		}
		return err
	})
	if err != nil {
		tb.Fatal(err)
	}
	return srcs
}

func TestLexerAsGeneral(t *testing.T) {
	for _, src := range lexerSeeds(t) {
		if d := lexBothWays(src); d != "" {
			t.Errorf("%q:\n%s", src, d)
		}
	}
}

func FuzzLexerAsGeneral(f *testing.F) {
	for _, s := range lexerSeeds(f) {
		if len(s) <= 4<<10 {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		if d := lexBothWays(src); d != "" {
			t.Fatalf("%q:\n%s", src, d)
		}
	})
}

// plainDecimal reads the decimals it takes as strconv.ParseFloat does,
// bit for bit.
func TestPlainDecimalAsParseFloat(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	srcs := []string{"0.0", "0.", ".0", "1.5", "0.1", "0.123000", "9007199254740991.", "9007199254740992.",
		"0.9007199254740991", "1.0000000000000000000001", "0.0000000000000000000001", "123456789.123456",
		"", ".", "1..2", "1e5", "1_0.5", "12a"}
	for range 200000 {
		digits := r.IntN(18) + 1
		b := make([]byte, 0, digits+1)
		for range digits {
			b = append(b, byte('0'+r.IntN(10)))
		}
		at := r.IntN(digits + 1)
		srcs = append(srcs, string(b[:at])+"."+string(b[at:]))
	}
	for _, s := range srcs {
		got, ok := plainDecimal(s)
		if !ok {
			continue
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Errorf("plainDecimal(%q) = %v, ParseFloat gives %v, %v", s, got, want, err)
		}
	}
}

func FuzzPlainDecimalAsParseFloat(f *testing.F) {
	f.Add("0.123000")
	f.Add("9007199254740991.5")
	f.Fuzz(func(t *testing.T, s string) {
		got, ok := plainDecimal(s)
		if !ok {
			return
		}
		want, err := strconv.ParseFloat(s, 64)
		if err != nil || math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("plainDecimal(%q) = %v, ParseFloat gives %v, %v", s, got, want, err)
		}
	})
}
