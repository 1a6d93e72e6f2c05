package sim_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// stdGHZ is GHZ on n qubits with standard gate ops (as front ends build
// them), measured by Run for want of a measurement.
func stdGHZ(n int) *sim.Circuit {
	c := &sim.Circuit{NumQubits: n}
	c.ApplyStd("h", nil, 0)
	for q := 1; q < n; q++ {
		c.ApplyStd("cx", nil, q-1, q)
	}
	return c
}

// randomCliffordCircuit is n qubits and gates random gates among h, s,
// sdg, x, z, sx, cx, cz and swap, measured at the end.
func randomCliffordCircuit(n, gates int) *sim.Circuit {
	rng := rand.New(rand.NewPCG(100, uint64(gates)))
	one := []string{"h", "s", "sdg", "x", "z", "sx"}
	two := []string{"cx", "cz", "swap"}
	c := &sim.Circuit{NumQubits: n, NumClbits: n}
	for range gates {
		if rng.IntN(2) == 0 {
			c.ApplyStd(one[rng.IntN(len(one))], nil, rng.IntN(n))
		} else {
			qs := rng.Perm(n)[:2]
			c.ApplyStd(two[rng.IntN(len(two))], nil, qs[0], qs[1])
		}
	}
	for q := range n {
		c.Measure(q, q)
	}
	return c
}

func benchRun(b *testing.B, c *sim.Circuit, opts sim.Options) {
	b.Helper()
	opts.Seed = seed(1)
	for b.Loop() {
		r, err := sim.Run(context.Background(), c, opts)
		if err != nil {
			b.Fatal(err)
		}
		if r.Method != opts.Method && opts.Method != sim.MethodAuto {
			b.Fatalf("ran as %s", r.Method)
		}
	}
}

// GHZ on 1,000 qubits, a million shots: the reference run, then 15,625
// words of frames per operation.
func BenchmarkStabilizerGHZ1000(b *testing.B) {
	benchRun(b, stdGHZ(1000), sim.Options{Shots: 1_000_000, Method: sim.MethodStabilizer})
}

// 100 qubits, 10,000 random Clifford gates, 1,000 shots.
func BenchmarkStabilizerRandom100(b *testing.B) {
	benchRun(b, randomCliffordCircuit(100, 10_000), sim.Options{Shots: 1000, Method: sim.MethodStabilizer})
}

// GHZ on 10,000 qubits, 1,000 shots: a 50 MB tableau and one random
// measurement over all of it.
func BenchmarkStabilizerGHZ10000(b *testing.B) {
	benchRun(b, stdGHZ(10_000), sim.Options{Shots: 1000, Method: sim.MethodStabilizer})
}

// GHZ on 24 qubits, a million shots, on both methods.
func BenchmarkGHZ24(b *testing.B) {
	for _, m := range []sim.Method{sim.MethodStabilizer, sim.MethodStateVector} {
		b.Run(m.String(), func(b *testing.B) {
			benchRun(b, stdGHZ(24), sim.Options{Shots: 1_000_000, Method: m})
		})
	}
}

// The same circuit shot by shot on the tableau (a condition forces it),
// for the cost of classical control.
func BenchmarkStabilizerPerShot100(b *testing.B) {
	c := randomCliffordCircuit(100, 1000)
	c.If(sim.BitIs(0, true), sim.GateOp(stdGate("x", nil, 0)))
	benchRun(b, c, sim.Options{Shots: 1000, Method: sim.MethodStabilizer})
}
