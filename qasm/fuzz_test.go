package qasm_test

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"testing"
	"time"

	"github.com/qjobs/quantum/internal/testenv"
	"github.com/qjobs/quantum/qasm"
)

// fuzzSeeds are programs that cover the language, and inputs that once
// went wrong.
var fuzzSeeds = []string{
	"OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q;\ncx q[0],q[1];\nmeasure q -> c;\nif (c == 3) x q[0];",
	"include \"stdgates.inc\";\nqubit[3] q;\nctrl @ inv @ pow(0.5) @ x q[0], q[1];\nnegctrl(2) @ h q[0], q[1], q[2];",
	"qubit q; bit b; while (!b) { h q; b = measure q; }",
	"def f(qubit x) -> bit { h x; return measure x; } qubit q; bit r = f(q); if (r) { gphase(pi); } else { U(1,2,3) q; }",
	"int i = 0; for int j in [0:2:10] { i += j; } float x = sin(i) ** 2; let a = $0 ++ $1;",
	"array[float[64], 2, 2] m = {{1, 2}, {3, 4}}; m[1][0] = popcount(rotl(0b1011, 2)); box { delay[10ns] $0; }",
	"gate g(a, b) x, y { rx(a) x; for uint i in [0:1] { cp(b * i) x, y; } } qubit[2] q; g(1, 2) q[0], q[1];",
	"bit[4] c = \"0101\"; c <<= 1; c[0] = c[3] ^ c[2]; switch",
	// Inputs that once ran for seconds: nested loops that emit
	// nothing, fractional powers of wide gates, big arrays updated in
	// a loop.
	"qubit q; for int i in [0:999] { for int j in [0:999] { int k = i * j; } }",
	"qubit[6] q; gate g a,b,c,d,e,f { h a; cx a,b; cx e,f; } for int i in [0:99] { pow(0.3) @ g q[0],q[1],q[2],q[3],q[4],q[5]; }",
	"array[int[8], 65536] a; for int i in [0:999] { a[i] = 1; }",
	"qubit[2] q; bit c; switch (c) { case 0 { x q[0]; } default { } } cphaseshift10(0.1) q[0], q[1]; gpi2(1) q[1];",
	// Classical values measured at run time: integers, angles, the
	// switch Qiskit writes.
	"qubit[2] q; bit[2] c = measure q; int[8] n = -3; n += c * 2 - (c >> 1); if (n % 3 == 1 && c != n) { x q[0]; } bit[8] o = ~n;",
	"qubit a; angle[3] c; measure a -> c[2]; c >>= 1; c += pi / 4; rz(c) a; u2(c, 0) a; int switch_dummy; switch_dummy = c;\nswitch (switch_dummy) { case 1: { x a; } break; default: { } break; }",
	"qubit q; bit d; int t = 0; while (!d) { t += 1; d = measure q; if (t > 3) { t = 0; } }",
	"qubit q; bit[3] m = measure q; angle[3] a = m; angle[4] b = a + 100; if (pi < b) { rz(b - pi/8) q; } b = b * 3 << 1; bit[8] r = bit[4](b) | ~(m | 0); def g(angle[4] x) -> angle[4] { { if (m[0]) return x; } end; }",
	"qubit q; int n = 0; for int i in [0:5] { n += 1; bit c = measure q; if (c) break; int[4] l = n; } def f(qubit a) -> int { int k = 1; if (measure a) return k; k = 2; return k; } bit[70] r; r = f(q) - n;",
	// Noise pragmas: each takes the rest of its line.
	"qubit[2] q; bit[2] c; h q[0];\n#pragma braket noise depolarizing(0.1) q[0]\ncnot q[0], q[1];\n#pragma braket noise two_qubit_depolarizing(0.05) q[0], q[1]\nfor int i in [0:3] {\n#pragma braket noise bit_flip(0.01 * i) q\n}\nif (c[0]) {\n#pragma braket noise pauli_channel(0.1, 0, pi/40) q[1]\n}\nc = measure q;",
	"qubit[2] q;\n#pragma braket noise kraus([[0.6, 0], [0, 0.6]], [[0.48, -0.384 + 0.512im], [0.384 + 0.512im, 0.48]]) q\n#pragma braket noise kraus([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]) q[1], q[0]\ndef f(qubit a) {\n#pragma braket noise amplitude_damping(0.2) a\n}\nf(q[0]); f(q[1]);\n#pragma braket verbatim",
	"x $1;\n#pragma braket noise generalized_amplitude_damping(0.1, 0.9) $0, $1\n#pragma braket noise phase_damping(2) $0",
}

// deepSeeds are the deep inputs of TestDeepInputs, at sizes around the
// limits instead of a million: the fuzzer starts from the shapes that
// once overflowed the stack.
func deepSeeds() []string {
	return []string{
		"qubit q; rx(" + rep("1+", 199) + "1) q;",
		"qubit q; rx(" + rep("1+", 200) + "1) q;",
		"float x = " + rep("2**", 250) + "2;",
		"int x = " + rep("-", 250) + "1; int y = " + rep("~", 150) + "1; bool z = " + rep("!", 150) + "true;",
		"float x = " + rep("(", 201) + "1" + rep(")", 201) + ";",
		rep("{", 120) + rep("}", 120),
		"qubit q; bit c = measure q; " + rep("if (c) h q; else ", 120) + "x q;",
		"array[int[8], 1] a; int x = " + rep("a[", 150) + "0" + rep("]", 150) + ";",
		"qubit[2] q; h q" + rep("[0:1]", 210) + ";",
		doublingGates(12) + "qubit q; g12 q;",
		"def f(int a) -> int { return a; } int x = " + rep("f(", 150) + "1" + rep(")", 150) + ";",
		"def f(int n) { " + rep("{", 95) + " f(n + 1); " + rep("}", 95) + " } f(0);",
		"int x = " + rep("int(", 150) + "1" + rep(")", 150) + "; " + rep("array[", 50) + "int[8]" + rep(", 1]", 50) + " a;",
		"array[int[8], " + rep("1, ", 20) + "1] a; complex[" + rep("complex[", 30) + "float" + rep("]", 31) + " z;",
		"float x = " + rep("sin(", 150) + "1" + rep(")", 150) + "; qubit q; bit b = " + rep("measure ", 150) + "q;",
		"qubit q; " + rep("ctrl @ ", 201) + "x q; " + rep("inv @ ", 200) + "x q;",
		"qubit[2] q; let a = q" + rep(" ++ q", 210) + ";",
		"array[int[8], 1] a = " + rep("{", 150) + "1" + rep("}", 150) + ";",
		"qubit q; int c = measure q; switch (c) {" + rep(" case 1 { x q; }", 300) + " default { } }",
		"qubit q; bit[65000] b; b[0] = measure q; int n = popcount(b); if (n == 1) x q;",
		"qubit q; bit a = measure q; bool x = a" + rep(" == a", 150) + "; bool y = (a == a)" + rep(" ^ (a == a)", 50) + "; if (x) h q;",
		"for int i in [-9223372036854775808:9223372036854775807] { } qubit[18446744073709551615] q; array[int, 65536, 281474976710656] a;",
	}
}

func FuzzParse(f *testing.F) {
	// The corpus seeds the fuzzer, all but its few largest files: each
	// new input the fuzzer finds is minimised by rerunning it, and
	// minimising a 36 KB program stalls the fuzzer for a minute at a
	// time. TestCorpus compiles those files.
	for _, path := range corpusFiles(f) {
		if src, err := os.ReadFile(path); err == nil && len(src) <= 4<<10 {
			f.Add(string(src))
		}
	}
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	for _, s := range deepSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		// A compile that runs away must show up as a failure the fuzzer
		// records, not as a stalled worker.
		watchdog := time.AfterFunc(5*time.Second, func() {
			panic(fmt.Sprintf("Compile ran for more than 5s on %q", src))
		})
		defer watchdog.Stop()
		c, err := qasm.Compile(src, qasm.Options{MaxQubits: 20, MaxOps: 100_000, MaxLoopIterations: 1000, MaxBytes: 16 << 20})
		if err != nil {
			if _, ok := err.(*qasm.Error); !ok {
				t.Fatalf("error of type %T", err)
			}
			return
		}
		if c.NumQubits > 20 {
			t.Fatalf("%d qubits past the limit", c.NumQubits)
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("compiled to an invalid circuit: %v", err)
		}
	})
}

// FuzzCompileCost checks the bounds on what a compile costs, whatever
// the input: parsing allocates in proportion to the source, lowering
// within what it charged against MaxBytes (and a little slack), and the
// charges stay within MaxBytes.
func FuzzCompileCost(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	// Large seeds stall the fuzzer while it minimises what it finds from
	// them, as in FuzzParse.
	for _, s := range deepSeeds() {
		if len(s) <= 8<<10 {
			f.Add(s)
		}
	}
	for _, b := range bombs {
		if len(b.src) <= 8<<10 {
			f.Add(b.src)
		}
	}
	const maxBytes, slack = 4 << 20, 256 << 10
	f.Fuzz(func(t *testing.T, src string) {
		if raceEnabled {
			testenv.Optional(t, "the race detector changes what escapes to the heap")
		}
		watchdog := time.AfterFunc(5*time.Second, func() {
			panic(fmt.Sprintf("Compile ran for more than 5s on %q", src))
		})
		defer watchdog.Stop()
		var stats [3]runtime.MemStats
		var charged int64
		runtime.ReadMemStats(&stats[0])
		perr := qasm.Parse(src)
		runtime.ReadMemStats(&stats[1])
		_, charged, err := qasm.CompileCharged(context.Background(), src, qasm.Options{MaxQubits: 20, MaxBytes: maxBytes, MaxLoopIterations: 1000})
		runtime.ReadMemStats(&stats[2])
		if err != nil {
			if _, ok := err.(*qasm.Error); !ok {
				t.Fatalf("error of type %T", err)
			}
		}
		if perr != nil && err == nil {
			t.Fatalf("parsing failed (%v) but compiling did not", perr)
		}
		parsed := stats[1].TotalAlloc - stats[0].TotalAlloc
		total := stats[2].TotalAlloc - stats[1].TotalAlloc
		if charged > maxBytes {
			t.Fatalf("charged %d bytes, more than MaxBytes", charged)
		}
		if parsed > uint64(parseBytesPerByte*len(src)+fixedBytes) {
			t.Fatalf("parsing %d bytes allocated %d", len(src), parsed)
		}
		if lowered := int64(total) - int64(parsed); lowered > charged+slack {
			t.Fatalf("lowering allocated %d bytes, charged %d", lowered, charged)
		}
	})
}
