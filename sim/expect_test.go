package sim_test

import (
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// The reduced density matrix a trajectory draws its branches from is
// Σ a(r, rest)·conj(a(c, rest)) over the other qubits, for targets low
// and high, in either order, on one worker or two, whole or its diagonal
// alone: on 17 qubits, whose pass is cut into two chunks.
func TestReducedDensity(t *testing.T) {
	const n = 17
	s, err := sim.NewState(n, sim.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for q := range n {
		if err := s.ApplyGate(sim.Gate{Matrix: u(rng.Float64()*3, rng.Float64()*3, rng.Float64()*3), Targets: []int{q}}); err != nil {
			t.Fatal(err)
		}
		if q > 0 {
			if err := s.ApplyGate(stdGate("cx", nil, q-1, q)); err != nil {
				t.Fatal(err)
			}
		}
	}
	amps := s.Amplitudes()
	for _, targets := range [][]int{{0}, {2}, {5}, {6}, {15}, {16}, {3, 16}, {16, 0}, {2, 9}, {1, 0}, {15, 16}} {
		d := 1 << len(targets)
		want := make([]complex128, d*d)
		for i, a := range amps {
			r := 0
			for j, q := range targets {
				r |= (i >> q & 1) << j
			}
			for c := range d {
				k := i // i with the targets set to c
				for j, q := range targets {
					k = k&^(1<<q) | (c>>j&1)<<q
				}
				want[r*d+c] += a * cmplx.Conj(amps[k])
			}
		}
		for _, workers := range []int{1, 2} {
			for _, diagOnly := range []bool{false, true} {
				got := s.ReducedDensity(targets, diagOnly, workers)
				for r := range d {
					for c := range d {
						if diagOnly && r != c {
							continue
						}
						if e := cmplx.Abs(got[r*d+c] - want[r*d+c]); e > 1e-12 {
							t.Fatalf("targets %v, %d workers, diagonal only %v: ρ[%d][%d] = %v, want %v", targets, workers, diagOnly, r, c, got[r*d+c], want[r*d+c])
						}
					}
				}
			}
		}
	}
}
