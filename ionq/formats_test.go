package ionq_test

import (
	"context"
	"maps"
	"math"
	"testing"

	"github.com/qjobs/quantum/qasm"
	"github.com/qjobs/quantum/quil"
	"github.com/qjobs/quantum/sim"
)

// One circuit written in OpenQASM 3, Quil and IonQ JSON: the same state,
// and the same counts for a seed, under the same keys.
func TestOneCircuitInThreeFormats(t *testing.T) {
	qasm3 := `OPENQASM 3.0;
include "stdgates.inc";
qubit[3] q;
bit[3] c;
h q[0];
cx q[0], q[1];
rx(0.3) q[2];
cz q[1], q[2];
ry(1.1) q[0];
swap q[1], q[2];
t q[2];
sdg q[0];
ccx q[0], q[2], q[1];
c = measure q;
`
	quilSrc := `DECLARE ro BIT[3]
H 0
CNOT 0 1
RX(0.3) 2
CZ 1 2
RY(1.1) 0
SWAP 1 2
T 2
DAGGER S 0
CCNOT 0 2 1
MEASURE 0 ro[0]
MEASURE 1 ro[1]
MEASURE 2 ro[2]
`
	ionqSrc := `{"qubits": 3, "circuit": [
	{"gate": "h", "target": 0},
	{"gate": "cnot", "control": 0, "target": 1},
	{"gate": "rx", "target": 2, "rotation": 0.3},
	{"gate": "z", "control": 1, "target": 2},
	{"gate": "ry", "target": 0, "rotation": 1.1},
	{"gate": "swap", "targets": [1, 2]},
	{"gate": "t", "target": 2},
	{"gate": "si", "target": 0},
	{"gate": "x", "controls": [0, 2], "target": 1}
]}`
	q3, err := qasm.Compile(qasm3, qasm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ql, err := quil.Compile(context.Background(), quilSrc, quil.Options{})
	if err != nil {
		t.Fatal(err)
	}
	io := compile(t, ionqSrc)
	circuits := map[string]*sim.Circuit{"qasm3": q3, "quil": ql.Circuit, "ionq": io.Circuit}
	bits := map[string]int{"qasm3": 3, "quil": ql.ResultBits, "ionq": io.Qubits}

	var wantProbs []float64
	var wantCounts map[string]int
	for _, name := range []string{"qasm3", "quil", "ionq"} {
		c := circuits[name]
		s, err := sim.Simulate(context.Background(), c, sim.Limits{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		seed := uint64(2026)
		res, err := sim.Run(context.Background(), c, sim.Options{Shots: 4000, Seed: &seed, ResultBits: bits[name]})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if wantProbs == nil {
			wantProbs, wantCounts = s.Probabilities(), res.Counts
			continue
		}
		for i, p := range s.Probabilities() {
			if math.Abs(p-wantProbs[i]) > 1e-12 {
				t.Fatalf("%s: P(%03b) = %v, OpenQASM 3 gives %v", name, i, p, wantProbs[i])
			}
		}
		if !maps.Equal(res.Counts, wantCounts) {
			t.Fatalf("%s: counts %v, OpenQASM 3 gives %v", name, res.Counts, wantCounts)
		}
	}
}
