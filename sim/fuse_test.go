package sim_test

import (
	"context"
	"math/cmplx"
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
				c.Append(sim.BarrierOp())
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
	forced.Append(sim.SetBitsOp([]int{0}, 0).WithIf(sim.BitIs(1, true)))
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
		if err := want.ApplyGate(op.Gate()); err != nil {
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

// Long runs are where fusion merges most: one block of thousands of gates,
// blocks merging into the largest, wide diagonal blocks. Fused and unfused
// simulation must agree on them, for every width.
func TestFusionLongRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(51, 52))
	const gates = 12_000
	tests := []struct {
		name  string
		n     int
		gate  func() sim.Gate
		width []int
	}{
		{"one qubit", 1, func() sim.Gate { return randomGateOn(rng, 1) }, []int{0, 1, 2}},
		{"two qubits", 2, func() sim.Gate { return randomGateOn(rng, 2) }, []int{0, 1, 2, 3}},
		{"diagonal on 8 qubits", 8, func() sim.Gate { return randomDiagonalGate(rng, 8) }, []int{0, 1, 2}},
		{"diagonal and general on 10 qubits", 10, func() sim.Gate {
			if rng.IntN(8) == 0 {
				return randomGate(rng, 10)
			}
			return randomDiagonalGate(rng, 10)
		}, []int{0, 2, 3}},
		{"random on 4 qubits", 4, func() sim.Gate { return randomGateOn(rng, 4) }, []int{0, 1, 2, 3, 4, 6, 100}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &sim.Circuit{NumQubits: tc.n}
			for range gates {
				c.Apply(tc.gate())
			}
			want, err := sim.SimulateWith(context.Background(), c, sim.Options{FusionWidth: -1})
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tc.width {
				got, err := sim.SimulateWith(context.Background(), c, sim.Options{FusionWidth: w})
				if err != nil {
					t.Fatal(err)
				}
				// 12,000 gates of rounding: far above 1e-16, far below a
				// wrong gate.
				assertAmplitudes(t, got.Amplitudes(), want.Amplitudes(), 1e-9)
			}
		})
	}
}

// randomDiagonalGate draws a diagonal gate: a phase, RZ, or a diagonal on
// two or three targets, with random controls, some negated.
func randomDiagonalGate(rng *rand.Rand, n int) sim.Gate {
	qs := rng.Perm(n)
	var g sim.Gate
	switch rng.IntN(3) {
	case 0:
		g = sim.Gate{Name: "phase", Matrix: sim.GlobalPhase(rng.Float64() * 6)}
	case 1:
		g = sim.Gate{Name: "rz", Matrix: sim.RZ(rng.Float64() * 6), Targets: qs[:1]}
	default:
		k := min(2+rng.IntN(2), n)
		d := 1 << k
		g = sim.Gate{Name: "diag", Matrix: make([]complex128, d*d), Targets: qs[:k]}
		for r := range d {
			g.Matrix[r*d+r] = cmplx.Exp(complex(0, rng.Float64()*6))
		}
	}
	rest := qs[len(g.Targets):]
	for _, q := range rest[:rng.IntN(min(len(rest), 3)+1)] {
		g.Controls = append(g.Controls, sim.Control{Qubit: q, Negated: rng.IntN(3) == 0})
	}
	return g
}

// randomGateOn draws a gate of any kernel kind on n qubits, for n as low
// as 1: a controlled phase, a diagonal, anti-diagonal or general 1-qubit
// gate, a 2-qubit diagonal, permutation or general gate, with random
// controls on the other qubits.
func randomGateOn(rng *rand.Rand, n int) sim.Gate {
	qs := rng.Perm(n)
	var g sim.Gate
	switch kind := rng.IntN(7); {
	case kind == 0 || n == 1 && kind >= 4:
		g = sim.Gate{Name: "u", Matrix: sim.U3(rng.Float64()*6, rng.Float64()*6, rng.Float64()*6), Targets: qs[:1]}
	case kind == 1:
		g = sim.Gate{Name: "rz", Matrix: sim.RZ(rng.Float64() * 6), Targets: qs[:1]}
	case kind == 2:
		g = sim.Gate{Name: "y", Matrix: []complex128{0, cmplx.Exp(complex(0, rng.Float64())), cmplx.Exp(complex(0, rng.Float64())), 0}, Targets: qs[:1]}
	case kind == 3:
		g = sim.Gate{Name: "phase", Matrix: sim.GlobalPhase(rng.Float64() * 6)}
	case kind == 4:
		g = sim.Gate{Name: "diag", Matrix: make([]complex128, 16), Targets: qs[:2]}
		for r := range 4 {
			g.Matrix[r*4+r] = cmplx.Exp(complex(0, rng.Float64()*6))
		}
	case kind == 5:
		g = sim.Gate{Name: "perm", Matrix: make([]complex128, 16), Targets: qs[:2]}
		for r, c := range rng.Perm(4) {
			g.Matrix[r*4+c] = cmplx.Exp(complex(0, rng.Float64()*6))
		}
	default:
		g = sim.Gate{Name: "u2q", Matrix: randomUnitary(rng, 4), Targets: qs[:2]}
	}
	rest := qs[len(g.Targets):]
	for _, q := range rest[:rng.IntN(len(rest)+1)] {
		g.Controls = append(g.Controls, sim.Control{Qubit: q, Negated: rng.IntN(3) == 0})
	}
	return g
}

// In layers of h on every qubit then cx q,q+1, fusion keeps the block of
// h q when cx q-1,q closes the block before it: n−1 blocks a layer at
// width 2, where closing every touched block would leave each cx alone
// (2n−2).
func TestFusionKeepsABlockThatFits(t *testing.T) {
	const n, layers = 10, 3
	var gates []*sim.Gate
	for range layers {
		for q := range n {
			g := stdGate("h", nil, q)
			gates = append(gates, &g)
		}
		for q := range n - 1 {
			g := stdGate("cx", nil, q, q+1)
			gates = append(gates, &g)
		}
	}
	got, err := sim.FuseGates(context.Background(), gates, 2, sim.DefaultDiagonalFusionWidth)
	if err != nil {
		t.Fatal(err)
	}
	if got != layers*(n-1) {
		t.Errorf("%d kernels, want %d", got, layers*(n-1))
	}
}

// On 16 qubits and more the default fusion picks its width by the cost
// model; whatever it picks must end in the unfused state.
func TestAutoFusionMatchesUnfused(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 32))
	for _, c := range []*sim.Circuit{hcxLayers(16, 3), qftCircuit(16), randomLayers(17, 4)} {
		for range 100 {
			c.Apply(randomGate(rng, c.NumQubits))
		}
		for _, p := range []sim.Precision{sim.Double, sim.Single} {
			want, err := sim.SimulateWith(context.Background(), c, sim.Options{FusionWidth: -1, Precision: p})
			if err != nil {
				t.Fatal(err)
			}
			got, err := sim.SimulateWith(context.Background(), c, sim.Options{Precision: p})
			if err != nil {
				t.Fatal(err)
			}
			tol := 1e-20
			if p == sim.Single {
				tol = 1e-10
			}
			for i, a := range want.Amplitudes() {
				if d := got.Amplitude(i) - a; real(d)*real(d)+imag(d)*imag(d) > tol {
					t.Fatalf("%d qubits, %s: amplitude %d = %v, want %v", c.NumQubits, p, i, got.Amplitude(i), a)
				}
			}
		}
	}
}
