package sim_test

import (
	"context"
	"fmt"

	"github.com/qjobs/quantum/sim"
)

// A Bell pair: exact amplitudes from Simulate, counts from Run.
func Example() {
	h, _ := sim.LookupGate("h")
	cx, _ := sim.LookupGate("cx")
	hq0, _ := h.Gate(nil, 0)
	cx01, _ := cx.Gate(nil, 0, 1)

	c := &sim.Circuit{NumQubits: 2, NumClbits: 2}
	c.Apply(hq0).Apply(cx01).Measure(0, 0).Measure(1, 1)

	state, err := sim.Simulate(context.Background(), c, sim.Limits{})
	if err != nil {
		panic(err)
	}
	for i, p := range state.Probabilities() {
		fmt.Printf("P(%02b) = %.2f\n", i, p)
	}

	seed := uint64(42)
	res, err := sim.Run(context.Background(), c, sim.Options{Shots: 1000, Seed: &seed})
	if err != nil {
		panic(err)
	}
	fmt.Println("outcomes:", len(res.Counts), "total:", res.Counts["00"]+res.Counts["11"])
	// Output:
	// P(00) = 0.50
	// P(01) = 0.00
	// P(10) = 0.00
	// P(11) = 0.50
	// outcomes: 2 total: 1000
}

// Mid-circuit measurement and a classical condition: the circuit runs once
// per shot with real collapse.
func ExampleRun_conditional() {
	h, _ := sim.LookupGate("h")
	x, _ := sim.LookupGate("x")
	hq0, _ := h.Gate(nil, 0)
	xq1, _ := x.Gate(nil, 1)

	c := &sim.Circuit{NumQubits: 2, NumClbits: 2}
	c.Apply(hq0).Measure(0, 0)
	c.If(sim.BitIs(0, true), sim.GateOp(xq1)) // copy the outcome to qubit 1
	c.Measure(1, 1)

	seed := uint64(1)
	res, _ := sim.Run(context.Background(), c, sim.Options{Shots: 100, Seed: &seed})
	fmt.Println("per shot:", res.PerShot, "agreeing shots:", res.Counts["00"]+res.Counts["11"])
	// Output:
	// per shot: true agreeing shots: 100
}

// Fractional powers of gates, as OpenQASM's pow(k) @ modifier needs.
func ExampleMatPow() {
	x, _ := sim.LookupGate("x")
	sx, _ := sim.MatPow(x.Matrix(), 0.5)
	for _, v := range sx {
		fmt.Printf("(%.1f%+.1fi) ", real(v), imag(v)+0) // +0 turns -0 into 0
	}
	fmt.Println()
	// Output:
	// (0.5+0.5i) (0.5-0.5i) (0.5-0.5i) (0.5+0.5i)
}

// A Bell pair with a noise model after every gate, as the built-in devices
// apply one: depolarizing(0.01) after a one-qubit gate,
// two_qubit_depolarizing(0.02) after a two-qubit gate. The exact density
// matrix gives the probabilities (8 of the 15 Paulis break the pair:
// 0.02·8/15); Run says which method it chose and why.
func ExampleNoiseOp() {
	depolarizing, _ := sim.Depolarizing(0.01)
	twoQubit, _ := sim.TwoQubitDepolarizing(0.02)
	c := &sim.Circuit{NumQubits: 2}
	c.ApplyStd("h", nil, 0).Append(sim.NoiseOp(depolarizing, 0))
	c.ApplyStd("cx", nil, 0, 1).Append(sim.NoiseOp(twoQubit, 0, 1))

	rho, err := sim.SimulateDensityMatrix(context.Background(), c, sim.Options{})
	if err != nil {
		panic(err)
	}
	for i, p := range rho.Probabilities() {
		fmt.Printf("P(%02b) = %.4f\n", i, p)
	}

	seed := uint64(7)
	res, err := sim.Run(context.Background(), c, sim.Options{Shots: 1000, Seed: &seed})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Method, "-", res.MethodReason)
	// Output:
	// P(00) = 0.4947
	// P(01) = 0.0053
	// P(10) = 0.0053
	// P(11) = 0.4947
	// stabilizer - all gates Clifford
}
