package sim_test

import (
	"context"
	"errors"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/qjobs/quantum/internal/noiseref"
	"github.com/qjobs/quantum/sim"
)

// The sparse method's state is the state vector's, amplitude by amplitude,
// on random circuits of every kind of gate: diagonal, monomial, dense,
// controlled and negated controls.
func TestSparseMatchesStateVector(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for trial := range 40 {
		n := 3 + rng.IntN(6) // randomGate takes up to 3 qubits
		c := &sim.Circuit{NumQubits: n}
		for range 30 {
			c.Apply(randomGate(rng, n))
		}
		want, err := sim.Simulate(context.Background(), c, sim.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := sim.SparseAmplitudes(context.Background(), c, sim.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 1 << n {
			if d := cmplx.Abs(got[uint64(i)] - want.Amplitude(i)); d > 1e-10 {
				t.Fatalf("trial %d, %d qubits: amplitude %d is %v, want %v", trial, n, i, got[uint64(i)], want.Amplitude(i))
			}
		}
		for i := range got {
			if i >= 1<<n {
				t.Fatalf("an amplitude at %d, past %d qubits", i, n)
			}
		}
	}
}

// Counts of the sparse method are samples of the exact distribution, for
// a terminal circuit (sampled once) and for one with a mid-circuit
// measurement, classical control, a reset, noise and a readout error (run
// shot by shot), against the reference of internal/noiseref.
func TestSparseCounts(t *testing.T) {
	const shots = 20_000
	dep := must(t)(sim.Depolarizing(0.2))
	damp := must(t)(sim.AmplitudeDamping(0.3))
	dyn := &sim.Circuit{NumQubits: 3, NumClbits: 3}
	dyn.ApplyStd("h", nil, 0).Append(sim.NoiseOp(dep, 0)).Append(sim.MeasureOp(0, 0).WithReadoutError(0.1)).
		If(sim.BitIs(0, true), sim.GateOp(stdGate("x", nil, 1))).ApplyStd("ry", []float64{0.7}, 2).
		Append(sim.NoiseOp(damp, 2)).ApplyStd("cx", nil, 2, 1).Reset(0).ApplyStd("h", nil, 0).
		Measure(1, 1).Measure(2, 2)
	reset := [][]complex128{{1, 0, 0, 0}, {0, 1, 0, 0}}
	ref := noiseref.New(3).Gate(noiseref.H, 0).Channel(noiseref.Depolarizing(0.2), 0).Measure(0, 0, 0.1).
		GateIf(0, true, noiseref.X, 1).Gate(noiseref.RY(0.7), 2).Channel(noiseref.AmplitudeDamping(0.3), 2).
		Gate(noiseref.CX, 2, 1).Channel(reset, 0).Gate(noiseref.H, 0).Measure(1, 1, 0).Measure(2, 2, 0)

	terminal := (&sim.Circuit{NumQubits: 3}).ApplyStd("h", nil, 0).ApplyStd("cx", nil, 0, 2).ApplyStd("t", nil, 2).
		ApplyStd("ry", []float64{1.1}, 1).ApplyStd("cz", nil, 1, 2).ApplyStd("h", nil, 2)
	sv, err := sim.Simulate(context.Background(), terminal, sim.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	terminalProbs := map[string]float64{}
	for i, p := range sv.Probabilities() {
		if p > 1e-15 {
			terminalProbs[noiseref.BitString(uint64(i), 3)] = p
		}
	}
	for _, tc := range []struct {
		name    string
		c       *sim.Circuit
		probs   map[string]float64
		perShot bool
	}{
		{"terminal", terminal, terminalProbs, false},
		{"dynamic and noisy", dyn, ref.Probabilities(3), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := run(t, tc.c, sim.Options{Shots: shots, Seed: seed(4), Method: sim.MethodSparse})
			if r.Method != sim.MethodSparse || r.PerShot != tc.perShot {
				t.Fatalf("ran as %s, per shot %v", r.Method, r.PerShot)
			}
			chiSquared(t, r.Counts, tc.probs, shots)
			again := run(t, tc.c, sim.Options{Shots: shots, Seed: seed(4), Method: sim.MethodSparse})
			wantMapsEqual(t, again.Counts, r.Counts)
		})
	}
}

func wantMapsEqual(t *testing.T, got, want map[string]int) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("counts %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("counts %v, want %v", got, want)
		}
	}
}

// GHZ on 64 qubits with a T on each: two nonzero amplitudes however many
// qubits, chosen by auto because no state vector holds them; counts only
// all zeros and all ones, about half each.
func TestSparseGHZ64(t *testing.T) {
	c := &sim.Circuit{NumQubits: 64, NumClbits: 64}
	c.ApplyStd("h", nil, 0)
	for q := range 63 {
		c.ApplyStd("cx", nil, q, q+1)
	}
	for q := range 64 {
		c.ApplyStd("t", nil, q).Measure(q, q)
	}
	opts := sim.Options{Shots: 10_000, Seed: seed(9), Limits: sim.Limits{MaxQubits: 64}}
	if need := sim.MemoryNeed(c, opts); need > 64<<20 {
		t.Fatalf("MemoryNeed %d for two amplitudes", need)
	}
	r := run(t, c, opts)
	if r.Method != sim.MethodSparse || !strings.Contains(r.MethodReason, "64 qubits") {
		t.Fatalf("ran as %s (%q)", r.Method, r.MethodReason)
	}
	zeros, ones := strings.Repeat("0", 64), strings.Repeat("1", 64)
	if len(r.Counts) != 2 || math.Abs(float64(r.Counts[zeros]-r.Counts[ones])) > 400 {
		t.Fatalf("counts %v", r.Counts)
	}
}

// A state that does not stay sparse fails when its nonzero amplitudes
// pass what the budget holds, naming the count; a state vector's limits
// still hold for statevector.
func TestSparseOverBudget(t *testing.T) {
	c := &sim.Circuit{NumQubits: 40}
	for q := range 40 {
		c.ApplyStd("ry", []float64{0.3}, q) // not Clifford: not for the stabilizer
	}
	lim := sim.Limits{MaxQubits: 40, MemoryBudget: 1 << 20}
	_, err := sim.Run(context.Background(), c, sim.Options{Shots: 1, Limits: lim})
	if !errors.Is(err, sim.ErrMemoryBudget) || !strings.Contains(err.Error(), "the sparse state reached 7596 nonzero amplitudes, more than the 7594 the memory budget leaves room for (949.2 KiB at 128 bytes each)") {
		t.Fatalf("got %v", err)
	}
	_, err = sim.Run(context.Background(), c, sim.Options{Shots: 1, Limits: lim, Method: sim.MethodStateVector})
	if !errors.Is(err, sim.ErrMemoryBudget) {
		t.Fatalf("statevector on 40 qubits: %v", err)
	}
	_, err = sim.Run(context.Background(), &sim.Circuit{NumQubits: 65}, sim.Options{Shots: 1, Method: sim.MethodSparse})
	if !errors.Is(err, sim.ErrTooManyQubits) {
		t.Fatalf("sparse on 65 qubits: %v", err)
	}
}

// Random programs with mid-circuit measurement, reset, classical control
// and noise: the sparse method's counts are samples of the exact
// distribution of the reference (internal/noiseref), at fixed seeds.
func TestSparseRandomDynamic(t *testing.T) {
	const shots = 20_000
	rng := rand.New(rand.NewPCG(8, 9))
	dep := must(t)(sim.Depolarizing(0.15))
	reset := [][]complex128{{1, 0, 0, 0}, {0, 1, 0, 0}}
	for trial := range 12 {
		n := 2 + rng.IntN(3)
		nbits := 3
		c := &sim.Circuit{NumQubits: n, NumClbits: nbits}
		ref := noiseref.New(n)
		for range 12 {
			switch kind := rng.IntN(6); kind {
			case 0, 1:
				q := rng.IntN(n)
				m := randomUnitary(rng, 2)
				c.Apply(sim.Gate{Name: "u", Matrix: m, Targets: []int{q}})
				ref.Gate(m, q)
			case 2:
				qs := rng.Perm(n)[:2]
				m := randomUnitary(rng, 4)
				c.Apply(sim.Gate{Name: "u2", Matrix: m, Targets: qs})
				ref.Gate(m, qs...)
			case 3:
				q, b := rng.IntN(n), rng.IntN(nbits)
				c.Measure(q, b)
				ref.Measure(q, b, 0)
			case 4:
				q := rng.IntN(n)
				if rng.IntN(2) == 0 {
					c.Reset(q)
					ref.Channel(reset, q)
				} else {
					c.Append(sim.NoiseOp(dep, q))
					ref.Channel(noiseref.Depolarizing(0.15), q)
				}
			case 5:
				q, b := rng.IntN(n), rng.IntN(nbits)
				c.If(sim.BitIs(b, true), sim.GateOp(stdGate("x", nil, q)))
				ref.GateIf(b, true, noiseref.X, q)
			}
		}
		q, b := rng.IntN(n), rng.IntN(nbits)
		c.Measure(q, b)
		ref.Measure(q, b, 0)
		r := run(t, c, sim.Options{Shots: shots, Seed: seed(uint64(trial)), Method: sim.MethodSparse})
		chiSquared(t, r.Counts, ref.Probabilities(nbits), shots)
	}
}
