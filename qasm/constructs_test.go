package qasm_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/qjobs/quantum/qasm"
	"github.com/qjobs/quantum/sim"
)

// TestConstructsCompile checks that each construct is accepted and lowers
// to the expected number of each kind of operation.
func TestConstructsCompile(t *testing.T) {
	tests := []struct {
		name           string
		src            string
		qubits, clbits int
		kinds          map[sim.OpKind]int
	}{
		{"byte-order mark and CRLF", "\ufeffOPENQASM 3;\r\nqubit q;\r\nh q;\r\n", 1, 0, map[sim.OpKind]int{sim.OpGate: 1}},
		// found by the fuzzer: φ+λ at 10^7 rounds past sim's unitarity tolerance
		{"huge angles", "qubit[2] q; u3(1, 70000000, .1) q[0]; cu(1e9, -3e8, 5e7, 1e12) q[1], q[0];", 2, 0, map[sim.OpKind]int{sim.OpGate: 2}},
		{"comments", "// line\n/* block\n comment */ qubit q; h q; // trailing", 1, 0, map[sim.OpKind]int{sim.OpGate: 1}},
		{"number literals", "qubit q; rx(0x1F + 0b101 + 0o17 + 1_000 + 1.5e-3 + .5) q;", 1, 0, map[sim.OpKind]int{sim.OpGate: 1}},
		{"unicode constants", "qubit q; rx(π + τ + ℇ) q; float θ = 1; ry(θ) q;", 1, 0, map[sim.OpKind]int{sim.OpGate: 2}},
		{"timing is ignored", "stretch g; duration d = 100ns; qubit[2] q; delay[2*g] q[0]; delay[d] q; box[1us] { h q[0]; } x q[1];", 2, 0, map[sim.OpKind]int{sim.OpGate: 2}},
		{"calibrations are skipped", "defcalgrammar \"openpulse\"; cal { extern port d0; } defcal x $0 { play drive($0), gaussian(...); } qubit q; x q;", 1, 0, map[sim.OpKind]int{sim.OpGate: 1}},
		{"pragmas and annotations", "pragma braket verbatim\n#pragma foo\nqubit q;\n@bind x\nh q;", 1, 0, map[sim.OpKind]int{sim.OpGate: 1}},
		{"extern declared but unused", "extern f(int[32]) -> bit; qubit q; h q;", 1, 0, map[sim.OpKind]int{sim.OpGate: 1}},
		{"output and registers", "output bit[2] c; creg d[3]; bit e; qubit[2] q; c = measure q; d[0] = measure q[1]; e = measure q[0];", 2, 6, map[sim.OpKind]int{sim.OpMeasure: 4}},
		{"measure arrow", "qreg q[2]; creg c[2]; measure q -> c; measure q[0] -> c[1];", 2, 2, map[sim.OpKind]int{sim.OpMeasure: 3}},
		{"reset and barrier", "qubit[3] q; reset q; barrier q[0], q[2]; barrier;", 3, 0, map[sim.OpKind]int{sim.OpReset: 3, sim.OpBarrier: 2}},
		{"arrays and sizeof", "array[int[8], 3] a = {1, 2, 3}; array[float[64], 2, 2] m = {{0.1, 0.2}, {0.3, 0.4}}; qubit q; for int i in [0:sizeof(a) - 1] { rx(a[i] * m[1][0] + m[0, 1]) q; } a[1] = 5; rx(a[1]) q;", 1, 0, map[sim.OpKind]int{sim.OpGate: 4}},
		{"for over an array", "array[float[64], 3] th = {0.1, 0.2, 0.3}; qubit q; for float t in th { rz(t) q; }", 1, 0, map[sim.OpKind]int{sim.OpGate: 3}},
		{"bit operations", "bit[4] b = \"1010\"; bit[4] d = b >> 1; d = d | (b & \"0011\"); d[0] = ~d[0]; d ^= \"1111\"; qubit q; if (d == 0) x q;", 1, 8, map[sim.OpKind]int{sim.OpGate: 0}},
		{"casts", "bit[8] b = bit[8](200); int[8] i = int[8](b); uint[4] u = 18; angle[16] a = 1.5; bool z = bool(u); qubit q; if (i == -56 && u == 2 && z) x q;", 1, 8, map[sim.OpKind]int{sim.OpGate: 1}},
		{"measured condition lowers to Op.If", "qubit[2] q; bit c; c = measure q[0]; if (c) { x q[1]; h q[1]; }", 2, 1, map[sim.OpKind]int{sim.OpMeasure: 1, sim.OpGate: 2, sim.OpJump: 0}},
		{"measured if/else lowers to jumps", "qubit[2] q; bit c; c = measure q[0]; if (c == 1) { x q[1]; } else { h q[1]; }", 2, 1, map[sim.OpKind]int{sim.OpMeasure: 1, sim.OpGate: 2, sim.OpJump: 2}},
		// The first pass is known to run (c starts at 0) and is unrolled;
		// the rest is a loop of jumps.
		{"runtime while", "qubit q; bit c; while (c == 0) { h q; c = measure q; }", 1, 1, map[sim.OpKind]int{sim.OpGate: 2, sim.OpMeasure: 2, sim.OpJump: 2}},
		{"qasm2 if", "OPENQASM 2.0; include \"qelib1.inc\"; qreg q[1]; creg c[2]; measure q[0] -> c[1]; if (c == 2) x q[0];", 1, 2, map[sim.OpKind]int{sim.OpGate: 1, sim.OpMeasure: 1}},
		{"gate with loop in body", "gate ent q0, q1, q2 { for uint i in [0:1] { cx q0, q1; } cx q1, q2; } qubit[3] q; ent q[0], q[1], q[2];", 3, 0, map[sim.OpKind]int{sim.OpGate: 3}},
		{"end", "qubit q; h q; end; x q;", 1, 0, map[sim.OpKind]int{sim.OpGate: 1}},
		{"alias rebinding in a loop", "qubit[3] q; let io = q[0]; for uint i in [1:2] { let io = q[i]; h io; } x io;", 3, 0, map[sim.OpKind]int{sim.OpGate: 3}},
		{"subroutine called like a gate", "def f(int n, qubit[2] r) { for int i in [1:n] { cx r[0], r[1]; } } qubit[2] q; f(2) q; f(1, q);", 2, 0, map[sim.OpKind]int{sim.OpGate: 3}},
		{"inputs", "input int n; input bool flip; input bit[2] pat; input angle th; qubit[2] q; for int i in [1:n] { rx(th) q[0]; } if (flip) x q[1]; if (pat == 2) z q[0];", 2, 2, map[sim.OpKind]int{sim.OpGate: 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := qasm.Compile(tt.src, qasm.Options{Inputs: map[string]any{"n": 3, "flip": true, "pat": "10", "th": 0.5}})
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			if c.NumQubits != tt.qubits || c.NumClbits != tt.clbits {
				t.Errorf("%d qubits and %d bits, want %d and %d", c.NumQubits, c.NumClbits, tt.qubits, tt.clbits)
			}
			got := map[sim.OpKind]int{}
			for _, op := range c.Ops {
				got[op.Kind]++
			}
			for k, n := range tt.kinds {
				if got[k] != n {
					t.Errorf("%d %s operations, want %d (all: %v)", got[k], k, n, got)
				}
			}
		})
	}
}

// TestRegisterLayout checks that registers take classical bits in the
// order they are declared, and that CompileProgram reports them.
func TestRegisterLayout(t *testing.T) {
	p, err := qasm.CompileProgram(`OPENQASM 3; qubit[3] q; bit[2] a; bit b; bit[3] c;
		for int i in [0:1] { bit scratch = measure q[0]; }
		c = measure q; a[1] = measure q[2]; b = measure q[1];`, qasm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []qasm.Register{{"a", 0, 2}, {"b", 2, 1}, {"c", 3, 3}}
	if len(p.Registers) != len(want) {
		t.Fatalf("registers %v, want %v", p.Registers, want)
	}
	for i := range want {
		if p.Registers[i] != want[i] {
			t.Fatalf("registers %v, want %v", p.Registers, want)
		}
	}
	if p.OutputBits != 6 || p.Circuit.NumClbits != 7 {
		t.Fatalf("%d output bits of %d, want 6 of 7", p.OutputBits, p.Circuit.NumClbits)
	}
	var bits []int
	for _, op := range p.Circuit.Ops {
		if op.Kind == sim.OpMeasure {
			bits = append(bits, op.Bit())
		}
	}
	wantBits := []int{6, 6, 3, 4, 5, 1, 2}
	for i := range wantBits {
		if bits[i] != wantBits[i] {
			t.Fatalf("measured into %v, want %v", bits, wantBits)
		}
	}
}

func TestInputKinds(t *testing.T) {
	src := "input int n; input float th; qubit q; for int i in [1:n] { rx(th) q; }"
	tests := []struct {
		name   string
		inputs map[string]any
		gates  int
		err    string
	}{
		{"float64 from JSON", map[string]any{"n": 2.0, "th": 0.1}, 2, ""},
		{"json.Number", map[string]any{"n": json.Number("3"), "th": json.Number("0.25")}, 3, ""},
		{"Go integers", map[string]any{"n": int64(1), "th": 1}, 1, ""},
		{"missing", map[string]any{"th": 1}, 0, `no value given for input "n"`},
		{"wrong kind", map[string]any{"n": []int{1}, "th": 1}, 0, `input "n": a value of type []int is not supported`},
		{"not a number", map[string]any{"n": json.Number("x"), "th": 1}, 0, `input "n": "x" is not a number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := qasm.Compile(src, qasm.Options{Inputs: tt.inputs})
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Ops) != tt.gates {
				t.Fatalf("%d operations, want %d", len(c.Ops), tt.gates)
			}
		})
	}
}
