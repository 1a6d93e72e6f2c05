package qasm_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/qjobs/quantum/qasm"
	"github.com/qjobs/quantum/sim"
)

// The compiler reads the simplest gate calls straight from the source
// (fastGate) and gives up, to the parser, on anything else. These are
// the pieces of calls it must read as the parser does, or hand on: every
// gate name there is, other names, parameters and operands of the shapes
// it takes and around them, and the blanks, newlines and comments that
// may come between their tokens.
var (
	fastNames = append(sim.StdGateNames(),
		// Braket's names, its own gates, and names that are no gate
		"cnot", "ccnot", "phaseshift", "cphaseshift", "si", "ti", "v", "vi", "i", "xx", "yy", "zz", "gpi", "gpi2", "ms",
		"U", "CX", "gphase", "g", "f", "th", "q", "nosuch", "inv", "pow", "ctrl", "measure", "reset", "barrier", "pragma",
		"int", "qubit", "end", "OPENQASM", "include", "h2", "H")
	fastParams = []string{
		"0.5", "3", "-2", "-0.5", "0", "-0", "00", "007", "0.0", "5.", ".5", "1.5.3", "1e-3", "1E3", "0x10", "0b1", "1_000", "1_0.5",
		"2ns", "1im", "99999999999999999999", "18446744073709551615", "9223372036854775808", "9007199254740992",
		"9007199254740991", "-9007199254740991", "-9223372036854775808", "-18446744073709551615", "4503599627370496*2", "4503599627370496*1.5", "9007199254740991+1",
		"0.12345678901234567890123", "123456789012345678.5", "0.7853981633974483", "3.141592653589793", "9007199254740993.",
		"12345678901234567890", "123456789012345678901.5", "18446744073709551616", "1844674407370955161.6", "0.000000000000000000000001", "1" + strings.Repeat("0", 400) + ".5",
		"pi", "-pi", "tau", "euler", "π", "pi/2", "-pi/4", "2*pi", "pi+1", "1-pi", "pi - 2", "pi\n/2", "-\npi", "- pi",
		"1/0", "0/0", "-1/0", "pi/0.0", "pi/2*3", "pi**2", "pi*-1", "pi+=1", "pi-=1", "-=1", "->", "--pi", "- -1", "+pi",
		"pi /* c */ / 2", "pi//c\n/2", "pi/ /2", "pi/\t2", "(pi)", "pi/(2)", "sin(pi)", "pi[0]", "pi@", "pi/", "/2", "-",
		"th", "-th", "th*2", "2/th", "an", "an/2", "inf", "nan", "nosuch", "q", "g", "int", "true", "measure q", "pragma",
		"pi ", " pi", "pi\r", "piπ", "pié", "1é", "$0", "\"s\"", "",
	}
	fastOperands = []string{
		"q[0]", "q[3]", "q[4]", "q[-1]", "q[00]", "q[01]", "q[1.0]", "q[0x1]", "q[1_0]", "q[1e0]", "q[0+1]", "q[{0}]",
		"q[0:1]", "q[99999999999999999999]", "q[18446744073709551616]", "q[18446744073709551617]", "q[18446744073709551615]", "q[ 1 ]", "q [2]", "q\n[1]", "q[1]\n", "q[\t2]",
		"q[/*c*/1]", "q[1]//c\n", "q", "r", "r[0]", "s", "s[1]", "th", "an", "nosuch", "nosuch[0]", "pragma", "pragma[0]",
		"int[0]", "int", "measure q[0]", "$0", "q[0]é", "qé[0]", "q[0", "q]", "(q[0])", "q[0] ++ q[1]", "",
	}
	// the headers the calls are compiled after, each declaring q, r, s,
	// th and an for the calls to use
	fastHeaders = []string{
		"OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[4];\nqreg r[1];\nqreg s[2];\ncreg c[2];\n",
		"OPENQASM 2.0;\nqreg q[4];\nqreg r[1];\n",
		"OPENQASM 3.0;\nqubit[4] q;\nqubit r;\nqubit[2] s;\nfloat th = 0.25;\nangle[8] an = pi/2;\nqubit pragma;\nqubit[2] int;\n",
		"OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[4] q;\nqubit r;\nqubit[2] s;\nconst float th = -1.5;\nint an = 3;\n" +
			"gate g(a) x { rz(a) x; }\ndef f(qubit a) { h a; }\n",
		"qubit[4] q; qubit r; float th = 1e308 * 10; gate rzx(a) x, y { rz(a) y; } gate h2 x { h x; }\n" +
			"float true = 0.5; qubit measure; qubit[2] s;\n",
	}
	fastSeps = []string{" ", "", "\t", "\n", "  \n\t", "/*c*/", "//c\n", "\r\n"}
	// the shapes fastGate takes, for calls that get past their first
	// parameter or operand more often
	fastGoodParams   = []string{"pi/2", "-0.25", "th", "3", "-pi/4", "an", "an/2", "2*th", "1/0", "0.1234", "true", "measure", "-0.7853981633974483", "1.5707963267948966/3"}
	fastGoodOperands = []string{"q[0]", "q[1]", "q[3]", "r", "s[1]", "r[0]", "measure"}
)

// fastCall writes a call of name with the parameters and operands,
// separated as sep says: sep[0] after the name, sep[1] around commas,
// sep[2] before the semicolon.
func fastCall(name string, params, operands []string, parens bool, sep [3]string) string {
	var b strings.Builder
	b.WriteString(name)
	b.WriteString(sep[0])
	if parens || len(params) > 0 {
		b.WriteString("(" + strings.Join(params, ","+sep[1]) + ")" + sep[0])
	}
	b.WriteString(strings.Join(operands, sep[1]+","+sep[1]))
	b.WriteString(sep[2] + ";")
	return b.String()
}

// sameFastAsGeneral compiles src with fastGate and without it and fails
// unless the two give the same circuit, charges and error, at the default
// limits and at each MaxBytes and MaxOps in the ranges given (from, to;
// 0 for none) below what the compile takes.
func sameFastAsGeneral(t *testing.T, src string, budgets, opsBudgets int) {
	t.Helper()
	sameBothWays(t, src)
	opts := qasm.Options{MaxQubits: 20, MaxBytes: 4 << 20, MaxLoopIterations: 1000}
	_, need, err := qasm.CompileGeneral(src, opts)
	if err != nil {
		return
	}
	compare := func(o qasm.Options) {
		t.Helper()
		fast, fc, ferr := qasm.CompileCharged(context.Background(), src, o)
		general, gc, gerr := qasm.CompileGeneral(src, o)
		if fmt.Sprint(ferr) != fmt.Sprint(gerr) || fc != gc {
			t.Fatalf("MaxBytes %d, MaxOps %d: with fastGate %v, %d bytes charged\nwithout: %v, %d bytes\nprogram: %q", o.MaxBytes, o.MaxOps, ferr, fc, gerr, gc, src)
		}
		if ferr == nil && render(fast) != render(general) {
			t.Fatalf("MaxBytes %d: fastGate changes the circuit:\n%s\nwithout:\n%s\nprogram: %q", o.MaxBytes, render(fast), render(general), src)
		}
	}
	for d := range budgets {
		o := opts
		o.MaxBytes = need - int64(d)
		compare(o)
	}
	for n := range opsBudgets {
		o := opts
		o.MaxOps = n + 1
		compare(o)
	}
}

func TestFastGateAsGeneral(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 1))
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	n := 6000
	if testing.Short() {
		n = 1000
	}
	for i := range n {
		name := pick(fastNames)
		np, nq := r.IntN(5), 1+r.IntN(4)
		if g, ok := sim.LookupGate(name); ok && r.IntN(4) != 0 {
			np, nq = g.NumParams, g.NumQubits
		}
		var params, operands []string
		for range np {
			if r.IntN(2) == 0 {
				params = append(params, pick(fastGoodParams))
			} else {
				params = append(params, pick(fastParams))
			}
		}
		for range nq {
			if r.IntN(4) != 0 {
				operands = append(operands, pick(fastGoodOperands))
			} else {
				operands = append(operands, pick(fastOperands))
			}
		}
		seps := [3]string{" ", "", ""}
		if r.IntN(3) == 0 {
			seps = [3]string{pick(fastSeps), pick(fastSeps), pick(fastSeps)}
		}
		call := fastCall(name, params, operands, r.IntN(8) == 0, seps)
		// between other statements, after a simple call, and before one
		// on the same line
		src := pick(fastHeaders) + "h q[1];\n" + call + "\ncx q[0], q[2];\n;" + call + " x q[0]; " + call + "\n"
		budgets := 0
		if i%10 == 0 {
			budgets = 64
		}
		sameFastAsGeneral(t, src, budgets, 0)
	}
}

// Every gate the compiler knows, with the parameters and qubits it takes
// and others, in each kind of program, spaced in each way in turn: the
// calls fastGate places, and those it must leave to the parser.
func TestFastGateEveryGate(t *testing.T) {
	k := 0
	for _, name := range fastNames {
		for np := range 5 {
			for nq := 1; nq <= 4; nq++ {
				params := []string{"pi/2", "-0.25", "th", "3"}[:np]
				operands := []string{"q[0]", "r", "q[3]", "s[1]"}[:nq]
				for _, header := range fastHeaders {
					sep := fastSeps[k%len(fastSeps)]
					k++
					call := fastCall(name, params, operands, false, [3]string{sep, sep, sep})
					sameFastAsGeneral(t, header+call+"\n"+call+"\n", 0, 0)
				}
			}
		}
	}
}

// Every parameter and operand above, in calls of the right shape
// otherwise.
func TestFastGateEveryPiece(t *testing.T) {
	for _, header := range fastHeaders {
		for _, p := range append(fastParams, fastGoodParams...) {
			sameFastAsGeneral(t, header+"rz("+p+") q[0];\nu3(0.5,"+p+", "+p+") q[1]; cu1( "+p+" ) r, q[2];\n", 0, 0)
		}
		for _, o := range append(fastOperands, fastGoodOperands...) {
			sameFastAsGeneral(t, header+"h "+o+";\ncx q[0], "+o+"; cx "+o+" , q[3];\n", 0, 0)
		}
	}
}

// The budget runs out within a statement fastGate would read, at each of
// its charges, and within the next; the operations run out at each.
func TestFastGateAtTheLimits(t *testing.T) {
	for _, body := range []string{
		"u3(pi/2,0.1234,-pi/4) q[3];\ncx q[0],q[1];\nrz(-th*2) r;\nccx q[0], q[1], q[2];\n",
		strings.Repeat("h q[0];\n", 200) + "measure q -> c;\n" + strings.Repeat("x q[1];\n", 100),
		"h q[0]; h q; cx q[0], q[0]; rz(1/0) q[1]; u3(1,2,3) q[4];",
	} {
		src := fastHeaders[0] + body
		sameFastAsGeneral(t, src, 300, 320)
		src = fastHeaders[2] + strings.ReplaceAll(body, "-> c", "")
		sameFastAsGeneral(t, src, 300, 320)
	}
	src := straightLine(3000)
	sameFastAsGeneral(t, src, 20, 0)
}

// fastGate remembers a few names: a program of many, its registers,
// variables and gates, makes it forget some while it reads a call.
func TestFastGateManyNames(t *testing.T) {
	r := rand.New(rand.NewPCG(26, 2))
	var b strings.Builder
	b.WriteString("OPENQASM 3.0;\n")
	for i := range 40 {
		fmt.Fprintf(&b, "qubit[3] r%d;\nqubit s%d;\nfloat f%d = %d.25;\n", i, i, i, i)
	}
	gates := []string{"h", "x", "sdg", "rz", "ry", "u2", "u3", "cx", "cz", "cp", "crz", "cu1", "swap", "ccx", "cswap", "rzz"}
	for range 3000 {
		name := gates[r.IntN(len(gates))]
		g, _ := sim.LookupGate(name)
		var params, operands []string
		for range g.NumParams {
			params = append(params, fmt.Sprintf("f%d", r.IntN(40)))
		}
		for i := range g.NumQubits {
			if r.IntN(2) == 0 {
				operands = append(operands, fmt.Sprintf("s%d", r.IntN(40)))
			} else {
				operands = append(operands, fmt.Sprintf("r%d[%d]", r.IntN(40), i))
			}
		}
		b.WriteString(fastCall(name, params, operands, false, [3]string{" ", "", ""}) + "\n")
	}
	sameFastAsGeneral(t, b.String(), 0, 0)
}

// The calls of the benchmarks' programs, and the simple ones of others,
// all take fastGate; the others none (nor a call over two lines, nor one
// after a comment).
func TestFastGateTaken(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want int
	}{
		{straightLine(1000), 1000},
		{"OPENQASM 3;\nqubit[3] q;\nfloat th = 0.5;\nh q[0];;\n  ;rz(th/2) q[1] ;\nU(pi, -pi/2, 1e3) q[2];cx q[0],\nq[1]; ccx q[0], q[1], q[2];\n" +
			"rz(sin(th)) q[0];\nh q;\nctrl @ x q[0], q[1];\nx q[0]; // a comment\nx q[1];\n", 4},
		// as Qiskit writes its basis gates
		{"OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[4];\nrz(-0.7853981633974483) q[3];\nsx q[2];\ncx q[1],q[3];\nrz(1.5707963267948966) q[0];\nx q[1];\n", 5},
	} {
		if n, err := qasm.FastGates(tc.src); n != tc.want || err != nil {
			t.Errorf("fastGate placed %d calls (%v), want %d, of %q", n, err, tc.want, tc.src)
		}
	}
	// Each header compiles, so that the calls after it are compared. (A
	// statement after one that ends in "}" is read by the parser, which
	// has buffered it.)
	for _, h := range fastHeaders {
		if n, err := qasm.FastGates(h + "U(0.5, 0, pi) q[0]; CX q[1], q[2];"); n < 1 || err != nil {
			t.Errorf("fastGate placed %d calls (%v), want 1 or 2, of %q", n, err, h)
		}
	}
}

// A name that comes to mean something else halfway through a program.
func TestFastGateNamesChange(t *testing.T) {
	for _, src := range []string{
		"OPENQASM 3.0;\nqubit[2] q;\nrzx(0.5) q[0], q[1];\ngate rzx(a) x, y { rz(a) y; }\nrzx(0.5) q[0], q[1];\n",
		"OPENQASM 3.0;\nqubit[3] q;\nlet a = q[0];\nh a;\nlet a = q[2];\nh a;\nx a;\n",
		"OPENQASM 3.0;\nqubit[3] q;\nfloat th = 0.5;\nrz(th) q[0];\nth = 2.5;\nrz(th) q[0];\nth += 1;\nrz(-th/2) q[1];\n",
		"OPENQASM 2.0;\nqreg q[2];\nU(0.1, 0.2, 0.3) q[0];\ninclude \"qelib1.inc\";\nu3(0.1, 0.2, 0.3) q[0];\nh q[1];\n",
		"OPENQASM 2.0;\nqreg q[2];\nh q[0];\n",
	} {
		sameFastAsGeneral(t, src, 0, 0)
	}
}

// Names that the lexer or the parser read as more than a name, where a
// register has them.
func TestFastGateOddNames(t *testing.T) {
	header := fastHeaders[2]
	for _, call := range []string{
		"h\npragma ;", "h\npragma\t;", "h\npragma;", "h pragma ;", "cx q[0],\npragma ;", "cx q[0],\npragma\n;",
		"h int[0];", "h int;", "h int [1];", "cx int[0], int[1];", "rz(pragma) q[0];", "rz(\npragma ) q[0];",
	} {
		sameFastAsGeneral(t, header+call+"\n", 0, 0)
	}
}

func FuzzFastGateAsGeneral(f *testing.F) {
	for i, p := range fastParams {
		f.Add(fastNames[i%len(fastNames)], p, fastOperands[i%len(fastOperands)], fastSeps[i%len(fastSeps)], uint8(i))
	}
	f.Fuzz(func(t *testing.T, name, param, operand, sep string, shape uint8) {
		if len(name)+len(param)+len(operand)+len(sep) > 1<<10 {
			return
		}
		params := []string{param, "pi/2", param}[:shape%4]
		operands := []string{operand, "q[1]", operand}[:1+shape/4%3]
		call := fastCall(name, params, operands, shape&16 != 0, [3]string{sep, sep, ""})
		header := fastHeaders[int(shape>>5)%len(fastHeaders)]
		sameFastAsGeneral(t, header+call+"\n"+call+"\nh q[0];\n", 0, 0)
	})
}
