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
