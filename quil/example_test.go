package quil_test

import (
	"context"
	"fmt"

	"github.com/qjobs/quantum/quil"
	"github.com/qjobs/quantum/sim"
)

func Example() {
	src := `DECLARE ro BIT[2]
H 0
CNOT 0 1
MEASURE 0 ro[0]
MEASURE 1 ro[1]
`
	p, err := quil.Compile(context.Background(), src, quil.Options{MaxQubits: 30})
	if err != nil {
		fmt.Println(err)
		return
	}
	state, err := sim.Simulate(context.Background(), p.Circuit, sim.Limits{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, pr := range state.Probabilities() {
		fmt.Printf("%02b %.2f\n", i, pr)
	}
	// Output:
	// 00 0.50
	// 01 0.00
	// 10 0.00
	// 11 0.50
}

func ExampleCompile_error() {
	_, err := quil.Compile(context.Background(), "DECLARE ro BIT\nH 0\nCNOT 0\n", quil.Options{})
	fmt.Println(err)
	// Output: 3:6: CNOT acts on 2 qubits, got 1
}
