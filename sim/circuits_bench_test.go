package sim_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// hcxLayers is depth layers of H on every qubit followed by CX on every
// neighbour pair (q, q+1): the circuit of issue 17's comparison, whose
// CX chains leave little for fusion.
func hcxLayers(n, depth int) *sim.Circuit {
	c := &sim.Circuit{NumQubits: n}
	for range depth {
		for q := range n {
			c.Apply(stdGate("h", nil, q))
		}
		for q := 0; q+1 < n; q++ {
			c.Apply(stdGate("cx", nil, q, q+1))
		}
	}
	return c
}

// BenchmarkCircuits runs the whole circuits of bench/versus in both
// precisions, for profiles (-cpuprofile) and for before/after figures.
func BenchmarkCircuits(b *testing.B) {
	for _, n := range []int{20, 22} {
		for _, c := range []struct {
			name string
			c    *sim.Circuit
		}{{"qft", qftCircuit(n)}, {"hcx", hcxLayers(n, 10)}} {
			for _, p := range []sim.Precision{sim.Double, sim.Single} {
				for _, w := range []int{2, 3, 4, 0} {
					name := fmt.Sprintf("%s%d/%s", c.name, n, p)
					if w > 0 {
						name += fmt.Sprintf("/width=%d", w)
					}
					b.Run(name, func(b *testing.B) {
						for b.Loop() {
							if _, err := sim.SimulateWith(context.Background(), c.c, sim.Options{Precision: p, FusionWidth: w}); err != nil {
								b.Fatal(err)
							}
						}
					})
				}
			}
		}
	}
}
