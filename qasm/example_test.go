package qasm_test

import (
	"context"
	"fmt"

	"github.com/qjobs/quantum/qasm"
	"github.com/qjobs/quantum/sim"
)

func Example() {
	src := `
OPENQASM 3.0;
include "stdgates.inc";
input float theta;
qubit[2] q;
bit[2] c;
ry(theta) q[0];
ctrl @ x q[0], q[1];
c = measure q;
`
	circ, err := qasm.Compile(src, qasm.Options{MaxQubits: 20, Inputs: map[string]any{"theta": 1.5707963267948966}})
	if err != nil {
		fmt.Println(err)
		return
	}
	state, err := sim.Simulate(context.Background(), circ, sim.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(circ.NumQubits, "qubits")
	for i, p := range state.Probabilities() {
		fmt.Printf("%02b %.2f\n", i, p)
	}

	_, err = qasm.Compile("OPENQASM 3;\nqubit q;\nh r;", qasm.Options{})
	fmt.Println(err)
	// Output:
	// 2 qubits
	// 00 0.50
	// 01 0.00
	// 10 0.00
	// 11 0.50
	// 3:3: undefined qubit register "r"
}

// A pragma of Amazon Braket's applies a noise channel where it stands: a
// one-qubit channel to each qubit named, a two-qubit one to the pair (its
// first qubit the high bit of a kraus matrix's index).
func Example_noise() {
	src := `
OPENQASM 3.0;
qubit[2] q;
h q[0];
cnot q[0], q[1];
#pragma braket noise depolarizing(0.1) q[0], q[1]
#pragma braket noise kraus([[1, 0], [0, 0.9486832980505138]], [[0, 0.31622776601683794], [0, 0]]) q[1]
`
	circ, err := qasm.Compile(src, qasm.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, op := range circ.Ops {
		if op.Kind == sim.OpNoise {
			line, _ := op.Pos()
			fmt.Printf("line %d: %v on qubit %d\n", line, op.Channel(), op.TargetAt(0))
		}
	}
	rho, err := sim.SimulateDensityMatrix(context.Background(), circ, sim.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, p := range rho.Probabilities() {
		fmt.Printf("%02b %.4f\n", i, p)
	}

	_, err = qasm.Compile("qubit q;\n#pragma braket noise bit_flip(0.7) q", qasm.Options{})
	fmt.Println(err)
	// Output:
	// line 6: depolarizing(0.1) on qubit 0
	// line 6: depolarizing(0.1) on qubit 1
	// line 7: kraus(2 matrices) on qubit 1
	// 00 0.4440
	// 01 0.1060
	// 10 0.0560
	// 11 0.3940
	// 2:31: bit_flip: p = 0.7 is outside [0, 0.5]
}
