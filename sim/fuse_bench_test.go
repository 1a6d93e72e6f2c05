package sim_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// fuseRuns are the circuits fusion must stay near-linear on: a long run on
// one qubit (one block of every gate), on two (the same with a 4×4
// product), a diagonal run on 8 (one wide diagonal block), and random gates
// on 4 qubits (blocks that merge and close all the time).
var fuseRuns = []struct {
	name  string
	gates func(n int) []*sim.Gate
}{
	{"one-qubit", oneQubitRun},
	{"two-qubit", twoQubitRun},
	{"diagonal8", diagonalRun},
	{"mixed4", func(n int) []*sim.Gate { return mixedRun(n, 4) }},
}

func oneQubitRun(n int) []*sim.Gate {
	names := []string{"h", "t", "sx", "s"}
	gs := make([]*sim.Gate, n)
	for i := range gs {
		g := stdGate(names[i%len(names)], nil, 0)
		gs[i] = &g
	}
	return gs
}

func twoQubitRun(n int) []*sim.Gate {
	gs := make([]*sim.Gate, n)
	for i := range gs {
		var g sim.Gate
		switch i % 3 {
		case 0:
			g = stdGate("h", nil, i%2)
		case 1:
			g = stdGate("cx", nil, i%2, 1-i%2)
		default:
			g = stdGate("rz", []float64{float64(i)}, 1)
		}
		gs[i] = &g
	}
	return gs
}

func diagonalRun(n int) []*sim.Gate {
	gs := make([]*sim.Gate, n)
	for i := range gs {
		var g sim.Gate
		if i%2 == 0 {
			g = stdGate("rz", []float64{float64(i)}, i%8)
		} else {
			g = stdGate("cz", nil, i%8, (i+3)%8)
		}
		gs[i] = &g
	}
	return gs
}

func mixedRun(n, qubits int) []*sim.Gate {
	rng := rand.New(rand.NewPCG(uint64(n), 7))
	gs := make([]*sim.Gate, n)
	for i := range gs {
		a := rng.IntN(qubits)
		b := (a + 1 + rng.IntN(qubits-1)) % qubits
		var g sim.Gate
		switch rng.IntN(5) {
		case 0:
			g = stdGate("h", nil, a)
		case 1:
			g = stdGate("rz", []float64{rng.Float64()}, a)
		case 2:
			g = stdGate("cx", nil, a, b)
		case 3:
			g = stdGate("cp", []float64{rng.Float64()}, a, b)
		default:
			g = stdGate("u3", []float64{rng.Float64(), rng.Float64(), rng.Float64()}, a)
		}
		gs[i] = &g
	}
	return gs
}

// BenchmarkFuseRun fuses 10^4, 10^5 and 10^6 gates with the default widths:
// ns/gate should stay flat as the run grows.
func BenchmarkFuseRun(b *testing.B) {
	for _, r := range fuseRuns {
		for _, n := range []int{10_000, 100_000, 1_000_000} {
			gs := r.gates(n)
			b.Run(fmt.Sprintf("%s/gates=%d", r.name, n), func(b *testing.B) {
				for b.Loop() {
					if _, err := sim.FuseGates(context.Background(), gs, sim.DefaultFusionWidth, sim.DefaultDiagonalFusionWidth); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/gate")
			})
		}
	}
}
