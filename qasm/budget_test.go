package qasm_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qjobs/quantum/internal/testenv"
	"github.com/qjobs/quantum/qasm"
)

// doublingGates defines gates g0 to gn, each applying the one before
// twice: a call of gn is 2^n gates.
func doublingGates(n int) string {
	var b strings.Builder
	b.WriteString("gate g0 a { x a; }\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "gate g%d a { g%d a; g%d a; }\n", i, i-1, i-1)
	}
	return b.String()
}

// allQubits is "q[0], q[1], ..., q[n-1]".
func allQubits(n int) string {
	var s []string
	for i := range n {
		s = append(s, fmt.Sprintf("q[%d]", i))
	}
	return strings.Join(s, ", ")
}

// loops opens two nested loops whose bodies read their variables, so that
// they unroll: a loop whose iterations all compile alike is kept as a loop
// (TestBombsKeptAsLoops compiles those).
const loops = "for int i in [0:99999] { for int j in [0:99999] { int ij = i + j; "

// bombs are small programs that expand without bound, one for each thing
// the compiler builds or repeats.
var bombs = []struct{ name, src string }{
	{"gate definitions that double", "qubit q;\n" + doublingGates(40) + "g40 q;"},
	{"nested loops of gates", "qubit q; " + loops + "x q; } }"},
	{"nested loops that emit nothing", loops + "int k = i * j; } }"},
	{"a loop over a wide register", "qubit[64] q; for int i in [0:99999] { int k = i; h q; }"},
	{"while loops", "qubit q; int i = 0; while (i < 99999) { int j = 0; while (j < 99999) { x q; j += 1; } i += 1; }"},
	{"pow of a five-qubit gate", "qubit[5] q; gate g a, b, c, d, e { h a; cx a, b; cx b, c; cx c, d; cx d, e; } " + loops + "pow(0.5) @ g q[0], q[1], q[2], q[3], q[4]; } }"},
	{"pow of a large integer", "qubit q; " + loops + "pow(1000000) @ x q; } }"},
	{"integer pow of a sequence", "qubit q; gate s a { x a; y a; } " + loops + "pow(32) @ s q; } }"},
	{"big ctrl counts", "qubit[64] q; " + loops + "ctrl(63) @ x " + allQubits(64) + "; } }"},
	{"ctrl of gates that double", "qubit[11] q;\n" + doublingGates(30) + "negctrl(10) @ g30 " + allQubits(11) + ";"},
	{"many modifiers on gates that double", "qubit q;\n" + doublingGates(24) + strings.Repeat("inv @ ", 200) + "g24 q;"},
	{"long arrays", "for int i in [0:99999] { array[int[64], 65536] a; a[0] = i; }"},
	{"arrays of arrays", "for int i in [0:99999] { array[float[64], 256, 256] m; m[0][0] = i; }"},
	{"wide bit registers", loops + "bit[65536] b; } }"},
	{"bit slices", "bit[65536] b; " + loops + "b[0:65535] = 0; } }"},
	{"a subroutine that doubles", "def f(int n) { if (n > 0) { f(n - 1); f(n - 1); } } f(90);"},
	{"measured angles enumerated", "qubit[2] q; angle[6] a; measure q[0] -> a[0]; " + loops + "u2(a, 0) q[1]; } }"},
	{"switches on a measured value", "qubit q; int c = measure q; " + loops + "switch (c) { case 0 { x q; } case 1 { y q; } default { z q; } } } }"},
	{"popcount of a wide register", "qubit q; bit[65000] b; b[0] = measure q; " + loops + "int n = popcount(b); } }"},
	{"casts of wide registers", "bit[30000] b; " + loops + "bit[30000] c = bit[30000](b); } }"},
	{"noise pragmas in nested loops", "qubit q; " + loops + "\n#pragma braket noise depolarizing(0.01) q\n} }"},
	{"two-qubit Kraus pragmas in nested loops", "qubit[2] q; " + loops + "\n#pragma braket noise kraus(" + krausCNOT + ") q[0], q[1]\n} }"},
	{"a noise channel for each iteration", "qubit q; " + loops + "\n#pragma braket noise bit_flip(i / 400000.0 + j / 400000000000.0) q\n} }"},
	{"many early exits", "qubit q; bit m; for int i in [0:9] { m = measure q; " + strings.Repeat("if (m) break; ", 8000) + "}"},
}

// allocated reports the bytes f allocates (runtime.MemStats.TotalAlloc):
// deterministic for a compile, as long as nothing else runs.
func allocated(f func()) uint64 {
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

const mib = 1 << 20

// TestBombsAreRefusedWithinBudget checks that each bomb is refused by
// MaxBytes, having allocated no more than DefaultMaxBytes and 16 MiB of
// slack (what the cost model does not charge, and the syntax tree).
func TestBombsAreRefusedWithinBudget(t *testing.T) {
	const slack = 16 * mib
	for _, b := range bombs {
		t.Run(b.name, func(t *testing.T) {
			var err error
			start := time.Now()
			n := allocated(func() { _, err = qasm.Compile(b.src, qasm.Options{}) })
			t.Logf("%.1f MiB allocated in %v", float64(n)/mib, time.Since(start).Round(time.Millisecond))
			var qe *qasm.Error
			if !errors.As(err, &qe) || !strings.Contains(qe.Msg, "more than 64 MiB of operations and compile-time data (MaxBytes)") {
				t.Fatalf("error %v, want one of MaxBytes", err)
			}
			if qe.Line == 0 {
				t.Fatalf("error %v has no position", err)
			}
			if n > qasm.DefaultMaxBytes+slack {
				t.Fatalf("allocated %.1f MiB, more than %d MiB and %d MiB of slack", float64(n)/mib, qasm.DefaultMaxBytes/mib, slack/mib)
			}
		})
	}
}

// TestChargesCoverAllocations checks the cost model: what a compile
// allocates beyond parsing stays within what it charged against MaxBytes,
// and a little slack for the compiler's fixed tables.
func TestChargesCoverAllocations(t *testing.T) {
	if raceEnabled {
		testenv.Optional(t, "the race detector changes what escapes to the heap")
	}
	const slack = 64 << 10
	type program struct {
		name, src string
		opts      qasm.Options
	}
	var programs []program
	for _, path := range corpusFiles(t) {
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		programs = append(programs, program{path, string(src), qasm.Options{}})
	}
	for i, src := range fuzzSeeds {
		programs = append(programs, program{fmt.Sprintf("seed %d", i), src, qasm.Options{}})
	}
	for _, b := range bombs {
		programs = append(programs, program{b.name, b.src, qasm.Options{MaxBytes: 8 * mib}})
	}
	for _, f := range linearFamilies {
		programs = append(programs, program{f.name, f.program(64 << 10), qasm.Options{}})
	}
	for _, p := range programs {
		var charged int64
		parsed := allocated(func() { _ = qasm.Parse(p.src) })
		total := allocated(func() { _, charged, _ = qasm.CompileCharged(context.Background(), p.src, p.opts) })
		if lowered := int64(total) - int64(parsed); lowered > charged+slack {
			t.Errorf("%s: lowering allocated %d bytes, charged %d", p.name, lowered, charged)
		}
	}
}

// linearFamilies generate programs that do not expand, of any size:
// their compile's cost should grow with the source and no faster.
var linearFamilies = []struct {
	name    string
	header  string
	unit    func(i int) string
	program func(size int) string
}{
	{name: "OpenQASM 2 gates", header: "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[16];\ncreg c[16];\n", unit: func(i int) string {
		switch i % 4 {
		case 0:
			return fmt.Sprintf("h q[%d];\n", i%16)
		case 1:
			return fmt.Sprintf("cx q[%d],q[%d];\n", i%16, (i+5)%16)
		case 2:
			return fmt.Sprintf("rz(%.6f) q[%d];\n", float64(i)*0.001, i%16)
		}
		return fmt.Sprintf("u3(pi/2,%.4f,-pi/4) q[%d];\n", float64(i)*0.01, i%16)
	}},
	{name: "short statements", header: "qubit q;\n", unit: func(i int) string { return "x q;" }},
	{name: "comments and blanks", header: "qubit q;\n", unit: func(i int) string { return "// a comment\n   \n/* more */\n" }},
	{name: "empty statements", unit: func(i int) string { return ";{};" }},
	{name: "classical declarations", header: "qubit q;\n", unit: func(i int) string { return fmt.Sprintf("int[32] v%d = %d * 3 + 1;\n", i, i) }},
	{name: "long expressions", header: "qubit q;\n", unit: func(i int) string {
		return "rx(" + strings.Repeat("1+", 150) + "1) q;\n"
	}},
	{name: "unary operators", header: "int x;\n", unit: func(i int) string { return "x = " + strings.Repeat("-", 150) + "1;\n" }},
	{name: "measured conditions", header: "qubit[2] q; bit[2] c;\n", unit: func(i int) string {
		return "c[0] = measure q[0]; if (c[0] == 1) { x q[1]; } else { h q[1]; }\n"
	}},
	{name: "one long statement", header: "qubit[2] q; barrier q[0]", unit: func(i int) string { return ", q[1]" }},
	{name: "noise pragmas", header: "qubit[4] q;\n", unit: func(i int) string {
		switch i % 4 {
		case 0:
			return fmt.Sprintf("#pragma braket noise depolarizing(0.01) q[%d]\n", i/4%4)
		case 1:
			return "#pragma braket noise two_qubit_depolarizing(0.02) q[0], q[3]\n"
		case 2:
			return "#pragma braket noise kraus([[0.6, 0], [0, 0.6]], [[0.48, -0.384 + 0.512im], [0.384 + 0.512im, 0.48]]) q[2]\n"
		}
		return "#pragma braket noise bit_flip(0.05) q\n"
	}},
	{name: "subroutine calls", header: "qubit q; def f(int a) -> int { return a + 1; }\nint x;\n", unit: func(i int) string {
		return "x = f(f(x));\n"
	}},
}

func init() {
	for i := range linearFamilies {
		f := &linearFamilies[i]
		f.program = func(size int) string {
			var b strings.Builder
			b.WriteString(f.header)
			for i := 0; b.Len() < size; i++ {
				b.WriteString(f.unit(i))
			}
			if f.name == "one long statement" {
				b.WriteString(";")
			}
			return b.String()
		}
	}
}

// The bounds of TestCompileCostIsLinear: what a compile allocates for a
// byte of source, beyond a fixed amount (the parser's first chunks of
// nodes, the compiler's tables).
const (
	parseBytesPerByte   = 64
	compileBytesPerByte = 256
	fixedBytes          = 256 << 10
)

// TestCompileCostIsLinear compiles programs of 1 KB to 1 MB from each
// family and checks that allocation grows in proportion to the source.
// Times are logged, not checked.
func TestCompileCostIsLinear(t *testing.T) {
	sizes := []int{1 << 10, 16 << 10, 256 << 10, 1 << 20}
	if testing.Short() || raceEnabled {
		sizes = sizes[:3]
	}
	for _, f := range linearFamilies {
		t.Run(f.name, func(t *testing.T) {
			for _, size := range sizes {
				src := f.program(size)
				var err error
				parsed := allocated(func() { err = qasm.Parse(src) })
				if err != nil {
					t.Fatalf("%d bytes: %v", len(src), err)
				}
				start := time.Now()
				// MaxBytes is out of the way: the largest programs hold
				// more operations than the default allows.
				total := allocated(func() { _, err = qasm.Compile(src, qasm.Options{MaxBytes: 1 << 30}) })
				elapsed := time.Since(start)
				if err != nil {
					t.Fatalf("%d bytes: %v", len(src), err)
				}
				t.Logf("%7d bytes: parse %5.1f B/B, compile %5.1f B/B, %5.2f µs/KB", len(src),
					float64(parsed)/float64(len(src)), float64(total)/float64(len(src)),
					float64(elapsed.Microseconds())/float64(len(src))*1024)
				if parsed > uint64(parseBytesPerByte*len(src)+fixedBytes) {
					t.Errorf("%d bytes: parsing allocated %d, more than %d a byte", len(src), parsed, parseBytesPerByte)
				}
				if total > uint64(compileBytesPerByte*len(src)+fixedBytes) {
					t.Errorf("%d bytes: compiling allocated %d, more than %d a byte", len(src), total, compileBytesPerByte)
				}
			}
		})
	}
}

// countingCtx is a context that is never done until Err has been called
// stopAt times: a deterministic cancellation in the middle of a compile.
// Done returns a channel, so that the compiler polls it.
type countingCtx struct {
	context.Context
	polls, stopAt int64
	done          chan struct{}
}

func newCountingCtx(stopAt int64) *countingCtx {
	return &countingCtx{Context: context.Background(), stopAt: stopAt, done: make(chan struct{})}
}

func (c *countingCtx) Done() <-chan struct{} { return c.done }

func (c *countingCtx) Err() error {
	if n := atomic.AddInt64(&c.polls, 1); c.stopAt > 0 && n >= c.stopAt {
		return context.Canceled
	}
	return nil
}

func TestCompileContext(t *testing.T) {
	big := linearFamilies[0].program(1 << 20)
	t.Run("cancelled before", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := qasm.CompileContext(ctx, big, qasm.Options{})
		checkStopped(t, err, context.Canceled)
	})
	t.Run("deadline passed", func(t *testing.T) {
		ctx, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
		defer cancel()
		_, err := qasm.CompileProgramContext(ctx, big, qasm.Options{})
		checkStopped(t, err, context.DeadlineExceeded)
	})
	t.Run("polled as it goes", func(t *testing.T) {
		// A megabyte of gates is some 200,000 tokens and 80,000
		// operations: at a look every 1024 steps, well over 200 looks.
		ctx := newCountingCtx(0)
		if _, err := qasm.CompileContext(ctx, big, qasm.Options{}); err != nil {
			t.Fatal(err)
		}
		if ctx.polls < 200 {
			t.Fatalf("the context was polled %d times", ctx.polls)
		}
		t.Logf("%d polls for %d bytes", ctx.polls, len(big))
	})
	tests := []struct{ name, src string }{
		{"while lexing", "qubit q;\n" + strings.Repeat(" ", 1<<20) + "x q;"},
		{"while parsing", big},
		{"while lowering", bombs[1].src},
		{"while expanding a gate", "qubit q;\n" + doublingGates(40) + "g40 q;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Stop at the fourth look: well into the phase the input
			// spends its time in.
			ctx := newCountingCtx(4)
			var err error
			n := allocated(func() { _, err = qasm.CompileContext(ctx, tt.src, qasm.Options{MaxBytes: 1 << 40}) })
			checkStopped(t, err, context.Canceled)
			if ctx.polls != 4 {
				t.Fatalf("the compile went on after the cancel: %d polls", ctx.polls)
			}
			t.Logf("stopped after %.1f MiB", float64(n)/mib)
		})
	}
}

func checkStopped(t *testing.T, err, want error) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Fatalf("error %v, want %v", err, want)
	}
	var qe *qasm.Error
	if errors.As(err, &qe) {
		t.Fatalf("a stopped compile returned an *Error: %v", err)
	}
}
