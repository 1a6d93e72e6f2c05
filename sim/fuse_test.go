package sim_test

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// Fused circuits must end in the same state as unfused ones, whatever the
// width, on random circuits that mix every kernel kind and barriers.
func TestFusionMatchesUnfused(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	for trial := range 20 {
		n := 3 + rng.IntN(6)
		c := &sim.Circuit{NumQubits: n}
		for range 150 {
			if rng.IntN(30) == 0 {
				c.Append(sim.Op{Kind: sim.OpBarrier})
				continue
			}
			c.Apply(randomGate(rng, n))
		}
		want, err := sim.SimulateWith(context.Background(), c, sim.Options{FusionWidth: -1})
		if err != nil {
			t.Fatal(err)
		}
		for _, width := range []int{1, 2, 3, 4, 5} {
			got, err := sim.SimulateWith(context.Background(), c, sim.Options{FusionWidth: width})
			if err != nil {
				t.Fatal(err)
			}
			for i, a := range want.Amplitudes() {
				if d := got.Amplitude(i) - a; real(d)*real(d)+imag(d)*imag(d) > 1e-20 {
					t.Fatalf("trial %d, %d qubits, width %d: amplitude %d = %v, want %v", trial, n, width, i, got.Amplitude(i), a)
				}
			}
		}
	}
}

// The per-shot path fuses the gates every shot shares; its counts must
// match the exact distribution too.
func TestFusedPrefixPerShot(t *testing.T) {
	c, probs := skewed(t)
	forced := &sim.Circuit{NumQubits: 3, NumClbits: 3}
	forced.Append(c.Ops...)
	forced.Append(sim.Op{Kind: sim.OpSetBits, Bits: []int{0}, Value: 0, If: sim.BitIs(1, true)})
	for _, width := range []int{-1, 2, 4} {
		r := run(t, forced, sim.Options{Shots: 20_000, Seed: seed(9), FusionWidth: width})
		if !r.PerShot {
			t.Fatal("expected the per-shot path")
		}
		// The conditional write clears bit 0 when bit 1 is set: fold the
		// exact distribution the same way.
		folded := map[string]float64{}
		for k, p := range probs {
			if k[1] == '1' {
				k = k[:2] + "0"
			}
			folded[k] += p
		}
		chiSquared(t, r.Counts, folded, 20_000)
	}
}

// Past the cache-block size, fused and blocked simulation must still match
// gates applied one by one.
func TestBlockedMatchesGateByGate(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	const n = 16
	c := &sim.Circuit{NumQubits: n}
	for i := range 120 {
		g := randomGate(rng, n)
		if i%3 != 0 { // mostly low qubits, so that long blocked runs form
			for j := range g.Targets {
				g.Targets[j] %= 14
			}
			g.Controls = nil
			if hasDup(g.Targets) {
				continue
			}
		}
		c.Apply(g)
	}
	got, err := sim.Simulate(context.Background(), c, sim.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	want, _ := sim.NewState(n, sim.Limits{})
	for _, op := range c.Ops {
		if err := want.ApplyGate(op.Gate); err != nil {
			t.Fatal(err)
		}
	}
	assertAmplitudes(t, got.Amplitudes(), want.Amplitudes(), 1e-10)
}

func hasDup(qs []int) bool {
	seen := map[int]bool{}
	for _, q := range qs {
		if seen[q] {
			return true
		}
		seen[q] = true
	}
	return false
}
