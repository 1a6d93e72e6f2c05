package qasm_test

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/qjobs/quantum/qasm"
	"github.com/qjobs/quantum/sim"
)

const tol = 1e-9

func compile(t *testing.T, src string) *sim.Circuit {
	t.Helper()
	c, err := qasm.Compile(src, qasm.Options{})
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, src)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("invalid circuit: %v", err)
	}
	return c
}

func amplitudes(t *testing.T, src string) []complex128 {
	t.Helper()
	s, err := sim.Simulate(context.Background(), compile(t, src), sim.Limits{})
	if err != nil {
		t.Fatalf("simulate: %v", err)
	}
	return s.Amplitudes()
}

func sameAmplitudes(t *testing.T, got, want []complex128) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d amplitudes, want %d", len(got), len(want))
	}
	for i := range got {
		if cmplx.Abs(got[i]-want[i]) > tol {
			t.Fatalf("amplitude %d: %v, want %v", i, got[i], want[i])
		}
	}
}

// prep puts three qubits into a state with no symmetry, so that two
// programs that agree on it agree as unitaries on the qubits they touch.
const prep = `OPENQASM 3.0;
include "stdgates.inc";
qubit[3] q;
U(0.3, 0.7, 1.1) q[0];
U(1.3, -0.4, 0.2) q[1];
U(2.1, 0.9, -1.5) q[2];
cx q[0], q[2];
ry(0.77) q[1];
`

func TestEquivalentPrograms(t *testing.T) {
	tests := []struct{ name, a, b string }{
		{"ctrl @ x is cx", "ctrl @ x q[0], q[1];", "cx q[0], q[1];"},
		{"inv @ s is sdg", "inv @ s q[1];", "sdg q[1];"},
		{"pow(0.5) @ x is sx", "pow(0.5) @ x q[2];", "sx q[2];"},
		{"pow(2) @ t is s", "pow(2) @ t q[0];", "s q[0];"},
		{"pow(-1) @ t is tdg", "pow(-1) @ t q[0];", "tdg q[0];"},
		{"pow(0.5) @ s is t", "pow(0.5) @ s q[0];", "t q[0];"},
		{"ctrl(2) @ x is ccx", "ctrl(2) @ x q[0], q[2], q[1];", "ccx q[0], q[2], q[1];"},
		{"ctrl @ ctrl @ x is ccx", "ctrl @ ctrl @ x q[2], q[0], q[1];", "ccx q[2], q[0], q[1];"},
		{"negctrl @ x", "negctrl @ x q[0], q[1];", "x q[0]; cx q[0], q[1]; x q[0];"},
		{"ctrl @ gphase is a phase", "ctrl @ gphase(pi/3) q[1];", "p(pi/3) q[1];"},
		{"ctrl @ inv @ gphase", "ctrl @ inv @ gphase(pi/3) q[1];", "p(-pi/3) q[1];"},
		{"gphase is global", "gphase(0.5); h q[0];", "U(pi/2, 0, pi) q[0]; gphase(0.5);"},
		{"inv @ user gate", "gate g(a) x, y { rx(a) x; cx x, y; s y; } inv @ g(0.4) q[0], q[1];", "sdg q[1]; cx q[0], q[1]; rx(-0.4) q[0];"},
		{"ctrl @ user gate", "gate g x { h x; t x; } ctrl @ g q[2], q[0];", "ch q[2], q[0]; ctrl @ t q[2], q[0];"},
		{"pow(0.5) @ inv @ x", "pow(0.5) @ inv @ x q[1];", "sx q[1];"},
		{"inv @ pow(0.5) @ x", "inv @ pow(0.5) @ x q[1];", "sxdg q[1];"},
		{"for loop unrolls", "for int i in [0:2] { h q[i]; rz(i * 0.1) q[i]; }", "h q[0]; rz(0) q[0]; h q[1]; rz(0.1) q[1]; h q[2]; rz(0.2) q[2];"},
		{"for over a set", "for int i in {2, 0} { x q[i]; }", "x q[2]; x q[0];"},
		{"descending range", "for uint i in [2:-1:0] { rx(i) q[i]; }", "rx(2) q[2]; rx(1) q[1]; rx(0) q[0];"},
		{"while with known bounds", "int n = 0; while (n < 3) { rx(0.2) q[n]; n += 1; }", "rx(0.2) q[0]; rx(0.2) q[1]; rx(0.2) q[2];"},
		{"break and continue", "for int i in [0:10] { if (i == 1) continue; if (i == 3) break; h q[i]; }", "h q[0]; h q[2];"},
		{"broadcast", "h q; cx q[0], q[1:2];", "h q[0]; h q[1]; h q[2]; cx q[0], q[1]; cx q[0], q[2];"},
		{"slices, sets and concatenation", "let a = q[{2, 0}] ++ q[1:1]; x a[0]; y a[1]; z a[2];", "x q[2]; y q[0]; z q[1];"},
		{"negative index", "h q[-1];", "h q[2];"},
		{"def with qubit and classical arguments", "def f(float a, qubit x, qubit[2] y) { rx(a) x; cx y[0], y[1]; } f(0.3, q[2], q[0:1]);", "rx(0.3) q[2]; cx q[0], q[1];"},
		{"def returning a value", "def sq(float a) -> float { return a * a; } rx(sq(0.5)) q[0];", "rx(0.25) q[0];"},
		{"const and math", "const float th = arccos(0) + sqrt(4) - exp(0) + log(1) + mod(7, 4) * tan(0);", ""},
		{"math functions", "rx(sin(1) + cos(2) + arcsin(0.5) + arctan(2)) q[0];", "rx(0.8414709848078965 + -0.4161468365471424 + 0.5235987755982989 + 1.1071487177940904) q[0];"},
		{"integer ops", "int a = 5; uint[4] b = 15; b <<= 1; rx(a % 3 + (a ** 2) / 5 + popcount(b) + rotl(b, 1)) q[0];", "rx(2 + 5 + 3 + 13) q[0];"},
		{"casts", "float f = 2.7; rx(int(f) + float(bool(3))) q[0];", "rx(3) q[0];"},
		{"if on constants", "bool t = true; if (t && !false) { x q[0]; } else { y q[0]; } if (1 > 2 || false) z q[1];", "x q[0];"},
		{"bit literal", `const bit[3] c = "101"; if (c == 5) x q[0]; if (c[1] == 1) x q[1];`, "x q[0];"},
		{"cu and cp", "cu(0.1, 0.2, 0.3, 0.4) q[0], q[1]; cp(0.5) q[1], q[2];", "ctrl @ gphase(0.4) q[0]; ctrl @ U(0.1, 0.2, 0.3) q[0], q[1]; ctrl @ p(0.5) q[1], q[2];"},
		{"local bits fold away", "for uint i in [0:2] { bit[4] s = bit[4](i); if (s[0] == 1) h q[i]; }", "h q[1];"},
		{"switch on a constant", "int k = 2; switch (k) { case 1 { x q[0]; } case 2, 3 { y q[0]; } default { z q[0]; } }", "y q[0];"},
		{"switch default", "switch (7) { case 1 { x q[0]; } default { z q[0]; } }", "z q[0];"},
		{"braket cphaseshift01", "cphaseshift01(0.4) q[0], q[2];", "x q[0]; cp(0.4) q[0], q[2]; x q[0];"},
		{"braket cphaseshift00", "cphaseshift00(0.4) q[1], q[2];", "x q[1]; x q[2]; cp(0.4) q[1], q[2]; x q[2]; x q[1];"},
		{"braket gpi and gpi2", "gpi(0.3) q[0]; gpi2(0.7) q[1];", "U(pi, 0.3, pi - 0.3) q[0]; U(pi/2, 0.7 - pi/2, pi/2 - 0.7) q[1];"},
		{"braket prx", "prx(0.7, 0.3) q[1];", "rz(-0.3) q[1]; rx(0.7) q[1]; rz(0.3) q[1];"},
		{"braket ms", "ms(0.4, 1.1, 0.9) q[2], q[0];", "rz(-0.4) q[2]; rz(-1.1) q[0]; rxx(0.9) q[2], q[0]; rz(0.4) q[2]; rz(1.1) q[0];"},
		{"braket cv", "cv q[1], q[2];", "ctrl @ sx q[1], q[2];"},
		{"braket xy and pswap", "xy(0.6) q[0], q[1]; pswap(0.2) q[1], q[2];", "rxx(-0.3) q[0], q[1]; ryy(-0.3) q[0], q[1]; swap q[1], q[2]; ctrl @ gphase(0.2) q[1]; ctrl @ gphase(0.2) q[2]; ctrl @ ctrl @ gphase(-0.4) q[1], q[2];"},
		{"box and delay are ignored", "box { delay[100ns] q[0]; h q[0]; } barrier q;", "h q[0];"},
		{"input-free program with pragma", "pragma something here\n@annotation foo\nh q[1];", "h q[1];"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameAmplitudes(t, amplitudes(t, prep+tt.a), amplitudes(t, prep+tt.b))
		})
	}
}

func TestProbabilities(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want []float64
	}{
		{"qasm2 bell", `OPENQASM 2.0; include "qelib1.inc"; qreg q[2]; creg c[2]; h q[0]; cx q[0],q[1]; measure q -> c;`, []float64{0.5, 0, 0, 0.5}},
		{"qasm2 U CX and expressions", `OPENQASM 2.0; qreg q[2]; U(2*pi/4^1, 0, -pi) q[0]; CX q[0], q[1];`, []float64{0.5, 0, 0, 0.5}},
		{"qasm2 user gate and broadcast", `OPENQASM 2.0; include "qelib1.inc"; gate flip(a) x { u3(a, 0, 0) x; } qreg q[2]; flip(pi) q;`, []float64{0, 0, 0, 1}},
		{"qasm3 register order", `OPENQASM 3; include "stdgates.inc"; qubit a; qubit[2] b; x b[1];`, []float64{0, 0, 0, 0, 1, 0, 0, 0}},
		{"physical qubits", `x $1; h $0;`, []float64{0, 0, 0.5, 0.5}},
		{"braket names without include", "OPENQASM 3.0; bit[2] b; qubit[2] q; h q[0]; cnot q[0], q[1]; b[0] = measure q[0]; b[1] = measure q[1];", []float64{0.5, 0, 0, 0.5}},
		{"ry angle", `include "stdgates.inc"; qubit q; ry(pi/3) q;`, []float64{0.75, 0.25}},
		{"input parameter", `include "stdgates.inc"; input float theta; qubit q; ry(theta) q;`, []float64{0.5, 0.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := qasm.Compile(tt.src, qasm.Options{Inputs: map[string]any{"theta": math.Pi / 2}})
			if err != nil {
				t.Fatal(err)
			}
			s, err := sim.Simulate(context.Background(), c, sim.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			got := s.Probabilities()
			if len(got) != len(tt.want) {
				t.Fatalf("%d probabilities, want %d", len(got), len(tt.want))
			}
			for i := range got {
				if math.Abs(got[i]-tt.want[i]) > tol {
					t.Fatalf("probabilities %v, want %v", got, tt.want)
				}
			}
		})
	}
}

// run compiles and runs src and returns its counts keyed by the low
// nbits bits (the program's own registers; scratch bits come after them).
func run(t *testing.T, src string, shots int, nbits int) map[string]int {
	t.Helper()
	c := compile(t, src)
	seed := uint64(12345)
	res, err := sim.Run(context.Background(), c, sim.Options{Shots: shots, Seed: &seed})
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	out := map[string]int{}
	for k, n := range res.Counts {
		out[k[len(k)-nbits:]] += n
	}
	return out
}

// chiSquared checks counts against probabilities; the threshold is the
// 0.999 quantile for the degrees of freedom used here (at most 7).
func chiSquared(t *testing.T, counts map[string]int, want map[string]float64, shots int) {
	t.Helper()
	for k := range counts {
		if want[k] == 0 {
			t.Fatalf("outcome %q has probability 0 but occurred %d times", k, counts[k])
		}
	}
	stat := 0.0
	for k, p := range want {
		e := p * float64(shots)
		d := float64(counts[k]) - e
		stat += d * d / e
	}
	limits := []float64{0, 10.83, 13.82, 16.27, 18.47, 20.52, 22.46, 24.32}
	if df := len(want) - 1; stat > limits[df] {
		t.Fatalf("chi-squared %.2f over %.2f: counts %v, want %v", stat, limits[df], counts, want)
	}
}

// distribution is a program and the probabilities of its low nbits
// classical bits.
type distribution struct {
	name  string
	src   string
	nbits int
	want  map[string]float64
}

func checkDistributions(t *testing.T, tests []distribution, shots int) {
	t.Helper()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			chiSquared(t, run(t, tt.src, shots, tt.nbits), tt.want, shots)
		})
	}
}

func TestMidCircuitControl(t *testing.T) {
	const shots = 4000
	tests := []distribution{
		{"qasm2 if", `OPENQASM 2.0; include "qelib1.inc"; qreg q[2]; creg c[2]; h q[0]; measure q[0] -> c[0]; if (c == 1) x q[1]; measure q[1] -> c[1];`,
			2, map[string]float64{"00": 0.5, "11": 0.5}},
		{"if else on a bit", `include "stdgates.inc"; qubit[2] q; bit a; bit b; h q[0]; a = measure q[0]; if (a) { ry(pi/3) q[1]; } else { x q[1]; } b = measure q[1];`,
			2, map[string]float64{"10": 0.5, "01": 0.375, "11": 0.125}},
		{"def returning measure", `include "stdgates.inc"; def m(qubit x) -> bit { ry(pi/3) x; return measure x; } qubit q; bit r; r = m(q);`,
			1, map[string]float64{"0": 0.75, "1": 0.25}},
		{"logic on bits", `include "stdgates.inc"; qubit[3] q; bit[2] c; bit r; h q[0]; h q[1]; c = measure q[0:1]; if (c[0] == 1 && !(c[1] == 1)) x q[2]; r = measure q[2];`,
			3, map[string]float64{"000": 0.25, "101": 0.25, "010": 0.25, "011": 0.25}},
		{"break under a measured condition", `include "stdgates.inc"; qubit[3] q; bit[3] c;
			for int i in [0:2] { h q[i]; c[i] = measure q[i]; if (c[i]) break; }`,
			3, map[string]float64{"001": 0.5, "010": 0.25, "100": 0.125, "000": 0.125}},
		{"continue under a measured condition", `include "stdgates.inc"; qubit[3] q; bit[3] c;
			for int i in [0:2] { h q[i]; c[i] = measure q[i]; if (c[i]) continue; x q[i]; c[i] = measure q[i]; }`,
			3, map[string]float64{"111": 1}},
		{"return under a measured condition", `include "stdgates.inc"; qubit[2] q; bit r; bit c;
			def f(qubit a, qubit b) -> bit { ry(2*pi/3) a; bit m = measure a; if (m) { return 0; } x b; return measure b; }
			r = f(q[0], q[1]); c = measure q[1];`,
			2, map[string]float64{"00": 0.75, "11": 0.25}},
		{"bool results", `include "stdgates.inc"; qubit[2] q; bit r;
			def g(qubit a) -> bool { h a; return measure a == 1; }
			if (g(q[0]) && g(q[1])) { r = 1; }`,
			1, map[string]float64{"0": 0.75, "1": 0.25}},
		{"switch on measured bits", `include "stdgates.inc"; qubit[3] q; bit[2] c; bit r;
			h q[0]; h q[1]; c = measure q[0:1];
			switch (c) { case 0 { x q[2]; } case 1, 2 { } default { ry(pi/3) q[2]; } }
			r = measure q[2];`,
			3, map[string]float64{"100": 0.25, "001": 0.25, "010": 0.25, "111": 0.0625, "011": 0.1875}},
		{"copying measured bits", `include "stdgates.inc"; qubit[2] q; bit[2] c; bit[2] d;
			h q; c = measure q; d = c;`,
			4, map[string]float64{"0000": 0.25, "0101": 0.25, "1010": 0.25, "1111": 0.25}},
		{"bool holding a measurement", `include "stdgates.inc"; qubit[2] q; bit m; bit r;
			h q[0]; bool ok = measure q[0]; m = ok; if (!ok) x q[1]; r = measure q[1];`,
			2, map[string]float64{"01": 0.5, "10": 0.5}},
		{"end under a measured condition", `include "stdgates.inc"; qubit[2] q; bit c; bit d;
			h q[0]; c = measure q[0]; if (c) end; x q[1]; d = measure q[1];`,
			2, map[string]float64{"01": 0.5, "10": 0.5}},
		{"both branches write the same", `include "stdgates.inc"; qubit[2] q; bit a; bit b; bit r;
			h q[0]; a = measure q[0]; if (a) { b = 1; } else { b = 1; } if (b) x q[1]; r = measure q[1];`,
			3, map[string]float64{"110": 0.5, "111": 0.5}},
		{"while whose condition measures", `include "stdgates.inc"; qubit q; qubit r; bit out;
			def flip(qubit a) -> bit { h a; return measure a; }
			while (flip(q) == 1) { x r; }
			out = measure r;`,
			1, map[string]float64{"0": 2.0 / 3, "1": 1.0 / 3}},
		{"repeat until success", `include "stdgates.inc"; qubit q; qubit r; bit m; bit out; bit done;
			while (!done) { reset q; ry(2*pi/3) q; m = measure q; if (m) done = true; }
			ry(pi/3) r; out = measure r;`,
			3, map[string]float64{"101": 0.75, "111": 0.25}},
	}
	checkDistributions(t, tests, shots)
}

// TestRepeatUntilSuccess runs the specification's repeat-until-success
// example: every shot must end with the flags cleared and output 0.
func TestRepeatUntilSuccess(t *testing.T) {
	src := `
include "stdgates.inc";
def segment(qubit[2] anc, qubit psi) -> bit[2] {
  bit[2] b;
  reset anc;
  h anc;
  ccx anc[0], anc[1], psi;
  s psi;
  ccx anc[0], anc[1], psi;
  z psi;
  h anc;
  measure anc -> b;
  return b;
}
qubit input_qubit;
qubit[2] ancilla;
bit[2] flags = "11";
bit output_qubit;
reset input_qubit;
h input_qubit;
while(int[2](flags) != 0) {
  flags = segment(ancilla, input_qubit);
}
rz(pi - arccos(3 / 5)) input_qubit;
h input_qubit;
output_qubit = measure input_qubit;
`
	counts := run(t, src, 2000, 3)
	if counts["000"] != 2000 {
		t.Fatalf("counts %v, want every shot 000", counts)
	}
}

func TestWhileNeverEnding(t *testing.T) {
	c := compile(t, `include "stdgates.inc"; qubit q; bit b = 1; while (b) { x q; b = measure q; x q; }`)
	seed := uint64(1)
	_, err := sim.Run(context.Background(), c, sim.Options{Shots: 1, Seed: &seed, MaxSteps: 10000})
	if err == nil || !strings.Contains(err.Error(), "step limit") {
		t.Fatalf("error %v, want the step limit", err)
	}
}

// TestRuntimeIntegers runs programs whose integer variables hold values
// computed from measurements, which sim computes per shot.
func TestRuntimeIntegers(t *testing.T) {
	const shots = 4000
	tests := []distribution{
		{"qiskit's switch_dummy", `OPENQASM 3.0;
include "stdgates.inc";
bit[2] c;
bit[1] r;
int switch_dummy;
qubit[3] q;
h q[0];
h q[1];
c[0] = measure q[0];
c[1] = measure q[1];
switch_dummy = c;
switch (switch_dummy) {
  case 0 {
    x q[2];
  }
  case 1, 2 {
  }
  default {
    ry(pi/3) q[2];
  }
}
r[0] = measure q[2];`,
			3, map[string]float64{"100": 0.25, "001": 0.25, "010": 0.25, "111": 0.0625, "011": 0.1875}},
		{"qiskit's first switch syntax", `OPENQASM 3;
include "stdgates.inc";
bit _bit0;
int switch_dummy;
qubit _qubit0;
h _qubit0;
_bit0 = measure _qubit0;
switch_dummy = _bit0;
switch (switch_dummy) {
  case 1: {
    x _qubit0;
  }
  break;
  case 0: {
    z _qubit0;
  }
  break;
}
_bit0 = measure _qubit0;`,
			1, map[string]float64{"0": 1}},
		{"counting ones", `include "stdgates.inc"; bit[2] res; qubit[3] q; bit c; int[32] n = 0;
			for int i in [0:2] { h q[i]; c = measure q[i]; n += int(c); }
			res = n;`,
			2, map[string]float64{"00": 1.0 / 8, "01": 3.0 / 8, "10": 3.0 / 8, "11": 1.0 / 8}},
		{"counting in a loop like t1.qasm", `include "stdgates.inc"; bit[3] res; qubit q; bit c0; int[32] counts0 = 0;
			for uint i in [1:4] { reset q; ry(2*pi/3) q; c0 = measure q; counts0 += uint[1](c0); }
			res = counts0;`,
			3, map[string]float64{"000": 1.0 / 256, "001": 12.0 / 256, "010": 54.0 / 256, "011": 108.0 / 256, "100": 81.0 / 256}},
		{"signed arithmetic", `include "stdgates.inc"; bit c; bit r; qubit q; int[4] x = -3;
			h q; c = measure q; if (c) { x = x * 2; } r = x < -4;`,
			2, map[string]float64{"00": 0.5, "11": 0.5}},
		{"registers compared and combined", `include "stdgates.inc"; bit eq; bit zero; bit[2] a; bit[2] b; qubit[4] q;
			h q[0]; cx q[0], q[2]; h q[1]; cx q[1], q[3];
			a = measure q[0:1]; b = measure q[2:3];
			eq = a == b; zero = (a ^ b) == 0;`,
			2, map[string]float64{"11": 1}},
		{"a while loop counts its tries", `include "stdgates.inc"; bit[2] t; qubit q; bit done; int tries = 0;
			while (!done) { tries += 1; reset q; h q; done = measure q; }
			if (tries > 3) { tries = 0; }
			t = tries;`,
			2, map[string]float64{"01": 0.5, "10": 0.25, "11": 0.125, "00": 0.125}},
		{"an int assigned in a branch", `include "stdgates.inc"; bit[2] r; qubit[2] q; int k = 1;
			h q; bit[2] m = measure q; if (m[0]) { k = 2; } if (m[1]) { k += 1; } r = k;`,
			2, map[string]float64{"01": 0.25, "10": 0.5, "11": 0.25}},
		{"popcount and rotl of measured bits", `include "stdgates.inc"; bit[2] n; bit[3] r; qubit[3] q; bit[3] m;
			x q[0]; h q[1]; m = measure q; n = popcount(m); r = rotl(m, 1);`,
			5, map[string]float64{"01001": 0.5, "11010": 0.5}},
		{"subroutines take and return measured integers", `include "stdgates.inc"; bit m; bit o; qubit[2] q;
			def g(qubit x) -> int[8] { bit r = measure x; return r + 1; }
			def f(int[8] n, qubit t) { if (n > 1) { x t; } }
			h q[0]; int[8] k = g(q[0]); f(k, q[1]); m = measure q[0]; o = measure q[1];`,
			2, map[string]float64{"00": 0.5, "11": 0.5}},
		{"a counter in a loop that breaks on a measurement", `include "stdgates.inc"; bit[3] r; qubit q; int n = 0;
			for int i in [0:5] { n += 1; reset q; h q; bit c = measure q; if (c) break; }
			r = n;`,
			3, map[string]float64{"001": 1.0 / 2, "010": 1.0 / 4, "011": 1.0 / 8, "100": 1.0 / 16, "101": 1.0 / 32, "110": 1.0 / 32}},
		{"an int returned under a measured condition", `include "stdgates.inc"; bit[2] r; qubit q;
			def f(qubit a) -> int { int k = 1; bit c = measure a; if (c) return k; k = 2; return k; }
			h q; r = f(q);`,
			2, map[string]float64{"01": 0.5, "10": 0.5}},
		{"arithmetic on a register", `include "stdgates.inc"; bit[3] r; qubit[2] q; bit[2] m;
			h q; m = measure q; r = (m * 3 + 1) % 5;`,
			3, map[string]float64{"001": 0.25, "100": 0.25, "010": 0.25, "000": 0.25}},
	}
	checkDistributions(t, tests, shots)
}

// TestMeasuredAngles runs iterative phase estimation the way the
// specification's ipe.qasm writes it: measured bits go into an angle
// register, which then corrects the phase of the next round. The phase
// 11/16 has four exact bits, so every shot must read 1011.
func TestMeasuredAngles(t *testing.T) {
	src := `include "stdgates.inc";
const float theta = 2*pi*11/16;
bit[4] out;
qubit a;
qubit r;
angle[4] c;
x r;
for int k in [4:-1:1] {
  reset a;
  h a;
  ctrl @ pow(2**(k-1)) @ phase(theta) a, r;
  inv @ phase(c) a;
  h a;
  measure a -> c[3];
  if (k > 1) { c >>= 1; }
}
out = c;`
	counts := run(t, src, 500, 4)
	if counts["1011"] != 500 {
		t.Fatalf("counts %v, want every shot 1011", counts)
	}
}

// TestMeasuredAngleGates checks a gate whose parameter is a measured
// angle against the same gate with the angle written out, both for a
// rotation (one conditional gate per bit) and for a gate that is not a
// one-parameter group (one conditional gate per value).
func TestMeasuredAngleGates(t *testing.T) {
	// Qubits 0 and 1 are measured as 1 and 0 into c: c is 2π·1/4 = π/2.
	const head = `include "stdgates.inc"; qubit[2] m; qubit[2] q; angle[2] c;
		x m[0]; measure m[0] -> c[0]; measure m[1] -> c[1];
		U(0.3, 0.7, 1.1) q[0]; U(1.3, -0.4, 0.2) q[1]; cx q[0], q[1];
		`
	tests := []struct{ name, measured, written string }{
		{"rotation", "crx(c) q[0], q[1]; inv @ rz(c) q[1];", "crx(pi/2) q[0], q[1]; rz(-pi/2) q[1];"},
		{"not a group", "u2(c, 0.4) q[0]; ctrl @ u3(0.2, c, 0.5) q[1], q[0];", "u2(pi/2, 0.4) q[0]; ctrl @ u3(0.2, pi/2, 0.5) q[1], q[0];"},
		{"measured angle arithmetic", "c += 3*pi/2; rz(c) q[0];", "rz(0) q[0];"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sameAmplitudes(t, executeOnce(t, head+tt.measured), executeOnce(t, head+tt.written))
		})
	}
}

// executeOnce runs one shot of a program whose measurements have certain
// outcomes and returns the final amplitudes.
func executeOnce(t *testing.T, src string) []complex128 {
	t.Helper()
	c := compile(t, src)
	s, err := sim.NewState(c.NumQubits, sim.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Execute(context.Background(), c, rand.New(rand.NewPCG(1, 2)), 0); err != nil {
		t.Fatal(err)
	}
	return s.Amplitudes()
}

// TestRuntimeIntegerKeepsItsValue checks that a variable given bits
// because a nested branch assigns it keeps its value on the shots that
// take neither branch.
func TestRuntimeIntegerKeepsItsValue(t *testing.T) {
	src := `include "stdgates.inc"; bit[3] r; qubit[2] q; int n = 5;
		h q; bit a = measure q[0]; bit b = measure q[1];
		if (a) { if (b) { n = 1; } else { n += 1; } }
		r = n;`
	counts := run(t, src, 4000, 3)
	chiSquared(t, counts, map[string]float64{"101": 0.5, "001": 0.25, "110": 0.25}, 4000)
}

// TestRunTimeMatchesCompileTime computes the same classical code twice:
// once on a register the compiler knows (m = "101") and once on the same
// bits measured at run time. The results must agree.
func TestRunTimeMatchesCompileTime(t *testing.T) {
	bodies := []string{
		"uint[3] a = m; if (int[3](a) < 0) { r = 1; }",
		"int[8] k = int[3](m); r = k;",
		"int[3] a = m; r = uint[8](a);",
		"int[3] a = m; r = bit[8](a);",
		"if ((m << 1) == 2) { r = 1; }",
		"r = m << 2; r[7] = m[2] | m[0];",
		"bool b = m; r = b;",
		"bool b = m + 0; r[1] = b;",
		"int[4] n = m; bool b = n; r = b;",
		"angle[3] a = m; if (a > 0.5) { r[0] = 1; } if (a == pi/4) { r[1] = 1; } if (a <= 5*pi/4) { r[2] = 1; } if (a != 3.0) { r[3] = 1; }",
		"angle[3] a = m; a = a * 2; if (a == pi/2) { r = 1; }",
		"angle[3] a = m; a += pi/4; if (a == 3*pi/2) { r = 1; }",
		"r = ~m;",
		"r = popcount(m) + rotl(m, 2);",
		"int[8] k = m; k -= 6; r = k >> 1;",
		"uint[8] u = m; u = u * 37 % 11; r = u;",
		"int[8] k = m; switch (k) { case 5 { r = 1; } case 2, 7 { r = 2; } default { r = 3; } }",
		"r = (m == 5) + (m > 3) * 2 + (m != 0) * 4;",
		"int[8] k = 1; for int i in [0:2] { if (m[i]) { k *= 3; } else { k -= 1; } } r = k;",
		// names declared inside a loop or subroutine are not the outer ones
		"int n = 3; for int i in [0:2] { if (m[i]) break; int n = 0; n = 7; } for int j in [1:n] { r += 1; }",
		"int n = 3; def f(bit a) -> int { if (a) return 1; int n = 0; n = 2; return n; } r = f(m[0]); for int j in [1:n] { r += 1; }",
		// returns that leave early from inside blocks and loops
		"def f(bit[3] a) -> uint[8] { uint[8] s = 0; for int i in [0:2] { s += i + 1; if (a[i]) return s; } return 99; } r = f(m);",
		"def f(bit a) -> int[8] { int k = 1; { if (a) return k; } k = 2; return k; } r = f(m[1]);",
		"def f(bit[3] a) -> int[8] { int k = 1; for int i in [0:2] { if (a[i]) return k; } k = 2; return k; } r = f(m);",
		"def f(bit a) -> int[8] { if (a) { end; } return 3; } r = f(m[0]);",
		// bit strings keep their width
		"r = ~(m | 0);",
		"if (~(m & 3) == 6) { r = 1; }",
		// angles count in steps of their register and compare as numbers
		"angle[3] a = m; a = a + 100; r = a;",
		"angle[3] a = m; if (a >= 1) { r[0] = 1; } if (a != 2) { r[1] = 1; } if (pi < a) { r[2] = 1; } a = 3 + a; a -= 2; r[4:6] = a;",
		"angle[3] a0 = m; angle[4] a = a0; r = a;",
		"angle[4] a0 = m; angle[2] a = a0; r = a;",
		"angle[3] a = m; r = bit[3](a);",
		"angle[3] a = m; a = a * 3; a = a << 1; r = a;",
		"def g(angle[4] x) -> angle[4] { return x + pi/8; } angle[3] a = m; r = g(a);",
	}
	for _, pattern := range []string{"101", "010", "111", "000"} {
		var xs string
		for i := range 3 {
			if pattern[2-i] == '1' {
				xs += fmt.Sprintf("x q[%d]; ", i)
			}
		}
		for _, body := range bodies {
			// bits 0-7 are r; the measure of z keeps sim from measuring
			// every qubit of a program without measurements instead
			head := `include "stdgates.inc"; bit[8] r; bit z; qubit[3] q; bit[3] m; `
			const tail = " z = measure q[0];"
			known := run(t, head+`m = "`+pattern+`"; `+body+tail, 1, 8)
			measured := run(t, head+xs+"m = measure q; "+body+tail, 1, 8)
			if fmt.Sprint(known) != fmt.Sprint(measured) {
				t.Errorf("m = %s: %s\ncompile time gives %v, run time %v", pattern, body, known, measured)
			}
		}
	}
}

// TestLoopLocalsStartAfresh checks that a variable declared in the body
// of a loop that runs again at run time is set again on every pass.
func TestLoopLocalsStartAfresh(t *testing.T) {
	src := `include "stdgates.inc"; bit[4] r; qubit q; bit m; x q; m = measure q;
		int[4] it = 0; int[4] total = 0;
		while (m) { int[4] local = 0; bit[2] fresh; if (it == 0) { local = 5; fresh = 3; }
			total += local + fresh; it += 1; if (it == 3) { m = 0; } }
		r = total;`
	if counts := run(t, src, 10, 4); counts["1000"] != 10 {
		t.Fatalf("counts %v, want 1000 (5 + 3 on the first pass only)", counts)
	}
}

func TestWideRegisterArithmetic(t *testing.T) {
	src := `include "stdgates.inc"; bit[70] r; qubit q; x q; r[0] = measure q; r = r[0:3] - 5;`
	counts := run(t, src, 1, 70)
	want := strings.Repeat("1", 67) + "100" // -4 in 70 bits
	if counts[want] != 1 {
		t.Fatalf("counts %v, want %s", counts, want)
	}
}
