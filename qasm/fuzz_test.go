package qasm_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/qjobs/quantum/qasm"
)

func FuzzParse(f *testing.F) {
	// The corpus seeds the fuzzer, all but its few largest files: each
	// new input the fuzzer finds is minimised by rerunning it, and
	// minimising a 36 KB program stalls the fuzzer for a minute at a
	// time. TestCorpus compiles those files.
	if files, err := corpusPaths(); err == nil {
		for _, path := range files {
			if src, err := os.ReadFile(path); err == nil && len(src) <= 4<<10 {
				f.Add(string(src))
			}
		}
	}
	for _, s := range []string{
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
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		// A compile that runs away must show up as a failure the fuzzer
		// records, not as a stalled worker.
		watchdog := time.AfterFunc(5*time.Second, func() {
			panic(fmt.Sprintf("Compile ran for more than 5s on %q", src))
		})
		defer watchdog.Stop()
		c, err := qasm.Compile(src, qasm.Options{MaxQubits: 20, MaxOps: 100_000, MaxLoopIterations: 1000})
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
