package sim_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// No gate is fused across a channel: H, full amplitude damping, H gives
// |+⟩ whatever fusion does, where H·H fused into the identity would leave
// |0⟩ (decisions.md: every gate as written gets its noise). The density
// matrix fuses its doubled gates and channels together, which is exact.
func TestNoGateFusedAcrossChannel(t *testing.T) {
	damp := must(t)(sim.AmplitudeDamping(1))
	c := &sim.Circuit{NumQubits: 2}
	c.Apply(stdGate("h", nil, 0)).Apply(stdGate("h", nil, 1)).Append(sim.NoiseOp(damp, 0)).Apply(stdGate("h", nil, 0)).Apply(stdGate("h", nil, 1))
	const shots = 4000
	probs := map[string]float64{"00": 0.5, "01": 0.5}
	for _, m := range []sim.Method{sim.MethodStateVector, sim.MethodDensityMatrix} {
		for _, w := range []int{0, 2, 4} {
			t.Run(fmt.Sprintf("%s/width=%d", m, w), func(t *testing.T) {
				r := run(t, c, sim.Options{Shots: shots, Seed: seed(5), Method: m, FusionWidth: w})
				chiSquared(t, r.Counts, probs, shots)
			})
		}
	}
}

// Trajectories run with mid-circuit measurement, classical control, reset
// and conditional noise, where the density matrix cannot: the counts
// follow the probabilities worked out by hand.
func TestTrajectoriesWithControl(t *testing.T) {
	const (
		theta = 1.1  // RY on qubit 0
		pFlip = 0.2  // bit flip on qubit 0
		gamma = 0.3  // amplitude damping on qubit 1, when it holds |1⟩
		pZ    = 0.15 // phase flip between two H on qubit 0, after its reset
		pDep  = 0.6  // depolarizing on qubit 2 when bit 1 reads 1: X or Y flip it, 2/3 of p
	)
	ch := must(t)
	c := &sim.Circuit{NumQubits: 3, NumClbits: 4}
	c.Apply(stdGate("ry", []float64{theta}, 0)).Append(sim.NoiseOp(ch(sim.BitFlip(pFlip)), 0)).Measure(0, 0)
	c.If(sim.BitIs(0, true), sim.GateOp(stdGate("x", nil, 1)))
	c.Append(sim.NoiseOp(ch(sim.AmplitudeDamping(gamma)), 1)).Measure(1, 1)
	c.Reset(0).Apply(stdGate("h", nil, 0)).Append(sim.NoiseOp(ch(sim.PhaseFlip(pZ)), 0)).Apply(stdGate("h", nil, 0)).Measure(0, 2)
	c.If(sim.BitIs(1, true), sim.NoiseOp(ch(sim.Depolarizing(pDep)), 2)).Measure(2, 3)

	p1 := math.Pow(math.Sin(theta/2), 2)
	b0 := p1*(1-pFlip) + (1-p1)*pFlip
	probs := map[string]float64{}
	for k := range 16 {
		bit := func(i int) bool { return k>>i&1 == 1 }
		p := b0
		if !bit(0) {
			p = 1 - b0
		}
		switch {
		case !bit(0) && bit(1):
			p = 0
		case bit(0) && bit(1):
			p *= 1 - gamma
		case bit(0):
			p *= gamma
		}
		if bit(2) {
			p *= pZ
		} else {
			p *= 1 - pZ
		}
		flip := 0.0
		if bit(1) {
			flip = 2 * pDep / 3
		}
		if bit(3) {
			p *= flip
		} else {
			p *= 1 - flip
		}
		probs[fmt.Sprintf("%04b", k)] = p
	}
	const shots = 40_000
	r := run(t, c, sim.Options{Shots: shots, Seed: seed(9)})
	if r.Method != sim.MethodStateVector || !r.PerShot {
		t.Fatalf("ran as %s, per shot %v", r.Method, r.PerShot)
	}
	chiSquared(t, r.Counts, probs, shots)
}

// The density matrix applies resets as channels, anywhere before the
// measurements, exactly.
func TestDensityMatrixResets(t *testing.T) {
	damp := must(t)(sim.AmplitudeDamping(0.3))
	dampK := [][]complex128{{1, 0, 0, complex(math.Sqrt(0.7), 0)}, {0, complex(math.Sqrt(0.3), 0), 0, 0}}
	b := newRefBuilder(3)
	b.gate(u(0.9, 0.3, 1.7), 0).gate(mH, 1).gate(cx01, 1, 2).gate(cx01, 0, 1)
	b.reset(1).noise(damp, dampK, 0).gate(mH, 1).gate(cx01, 2, 1).reset(2).gate(ry(0.8), 2).gate(cx01, 0, 2)
	got, err := sim.SimulateDensityMatrix(context.Background(), b.c, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	assertRho(t, got, b.rho(), 1e-9)
	const shots = 20_000
	for _, m := range []sim.Method{sim.MethodDensityMatrix, sim.MethodStateVector} {
		r := run(t, b.c, sim.Options{Shots: shots, Seed: seed(2), Method: m})
		chiSquared(t, r.Counts, refProbs(b.rho(), 3), shots)
	}
}

// Single precision runs both methods too, to its own accuracy.
func TestNoiseSinglePrecision(t *testing.T) {
	var tc channelCase
	for _, c := range channelCases(t) {
		if c.name == "kraus, two qubits, complex" {
			tc = c
		}
	}
	b := noisyCircuit(tc)
	want := b.rho()
	got, err := sim.SimulateDensityMatrix(context.Background(), b.c, sim.Options{Precision: sim.Single})
	if err != nil {
		t.Fatal(err)
	}
	assertRho(t, got, want, 1e-6)
	const shots = 20_000
	r := run(t, b.c, sim.Options{Shots: shots, Seed: seed(4), Precision: sim.Single, Method: sim.MethodStateVector})
	chiSquared(t, r.Counts, refProbs(want, 3), shots)
}

// dampedLayers is a circuit of n qubits on which every channel kind runs:
// H on every qubit, then amplitude damping (drawn by the expectation
// pass), depolarizing (a Pauli drawn) and CX between neighbours.
func dampedLayers(t *testing.T, n int) *sim.Circuit {
	t.Helper()
	damp, dep := must(t)(sim.AmplitudeDamping(0.2)), must(t)(sim.TwoQubitDepolarizing(0.3))
	c := &sim.Circuit{NumQubits: n}
	for q := range n {
		c.Apply(stdGate("h", nil, q)).Append(sim.NoiseOp(damp, q))
	}
	for q := 0; q+1 < n; q++ {
		c.Apply(stdGate("cx", nil, q, q+1)).Append(sim.NoiseOp(dep, q, q+1))
	}
	return c
}

// A seed gives the same counts again, whatever the number of workers (the
// expectation pass adds its chunks in order); another seed others.
func TestTrajectoriesReproducible(t *testing.T) {
	const n = 17 // two chunks of the expectation pass, which workers share
	ch := must(t)
	damp, gad, dep := ch(sim.AmplitudeDamping(0.3)), ch(sim.GeneralizedAmplitudeDamping(0.4, 0.3)), ch(sim.TwoQubitDepolarizing(0.5))
	c := &sim.Circuit{NumQubits: n, NumClbits: 4}
	for q := range n {
		c.Apply(stdGate("ry", []float64{0.3 + 0.1*float64(q)}, q))
	}
	c.Append(sim.NoiseOp(damp, n-1), sim.NoiseOp(gad, 0), sim.NoiseOp(dep, 3, n-2))
	c.Apply(stdGate("cx", nil, n-1, 0)).Append(sim.NoiseOp(damp, 0))
	c.Measure(0, 0).Measure(3, 1).Measure(n-2, 2).Measure(n-1, 3)
	opts := sim.Options{Shots: 12, Seed: seed(3), Method: sim.MethodStateVector, Workers: 1}
	a := run(t, c, opts)
	opts.Workers = 2
	b := run(t, c, opts)
	if !maps.Equal(a.Counts, b.Counts) {
		t.Fatalf("one seed, two results:\n%v\n%v", a.Counts, b.Counts)
	}
	opts.Seed = seed(4)
	if e := run(t, c, opts); maps.Equal(a.Counts, e.Counts) {
		t.Fatal("two seeds gave the same 12 shots")
	}
}

// State.ApplyChannel draws a branch on the state, checks its qubits, and
// leaves the state normalised.
func TestApplyChannel(t *testing.T) {
	s, err := sim.NewState(3, sim.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	if err := s.ApplyGate(stdGate("x", nil, 2)); err != nil {
		t.Fatal(err)
	}
	if err := s.ApplyChannel(ctx, must(t)(sim.AmplitudeDamping(1)), rng, 2); err != nil {
		t.Fatal(err)
	}
	if s.Probability(0) < 1-1e-12 {
		t.Fatalf("full damping left %v", s.Probabilities())
	}
	if err := s.ApplyChannel(ctx, must(t)(sim.PauliChannel(0, 1, 0)), rng, 1); err != nil {
		t.Fatal(err)
	}
	if p := s.Probability(2); p < 1-1e-12 {
		t.Fatalf("a certain Y on qubit 1 left %v", s.Probabilities())
	}
	if err := s.ApplyChannel(ctx, must(t)(sim.AmplitudeDamping(0.4)), rng, 1); err != nil {
		t.Fatal(err)
	}
	if n := s.Norm(); math.Abs(n-1) > 1e-12 {
		t.Fatalf("norm %v", n)
	}
	for _, qs := range [][]int{{0, 1}, {3}, {}} {
		if err := s.ApplyChannel(ctx, must(t)(sim.BitFlip(0.1)), rng, qs...); !errors.Is(err, sim.ErrInvalidCircuit) {
			t.Errorf("qubits %v: %v", qs, err)
		}
	}
}

// A trajectory applies Kraus matrices unscaled and divides by the norm
// they leave: 1,500 generalized amplitude dampings in a row, each a branch
// of probability 0.6 or 0.4, would take it under any float64 (a typical
// trajectory's is 1e-438) were it not scaled back on the way; the outcome
// follows the last one's, 0 with probability p.
func TestTrajectoryNormStaysInRange(t *testing.T) {
	gad := must(t)(sim.GeneralizedAmplitudeDamping(1, 0.6))
	if gad.IsPauli() {
		t.Fatal("the test needs a channel drawn by its expectation")
	}
	c := &sim.Circuit{NumQubits: 1, NumClbits: 1}
	c.Apply(stdGate("h", nil, 0))
	for range 1500 {
		c.Append(sim.NoiseOp(gad, 0))
	}
	c.Measure(0, 0)
	const shots = 300
	r := run(t, c, sim.Options{Shots: shots, Seed: seed(8), Method: sim.MethodStateVector})
	chiSquared(t, r.Counts, map[string]float64{"0": 0.6, "1": 0.4}, shots)
}

// A trajectory's terminal measurements are drawn at once, as one
// measurement of the final state: a qubit measured twice gives one value,
// a bit measured into twice keeps the last, a bit never measured reads 0,
// and a jump into the middle of them measures from there one by one.
func TestTrajectoryTerminalMeasurements(t *testing.T) {
	const shots = 20_000
	flip := must(t)(sim.BitFlip(0.2))
	flipK := [][]complex128{scale(mI, math.Sqrt(0.8)), scale(mX, math.Sqrt(0.2))}
	b := newRefBuilder(3)
	b.gate(ry(1.1), 0).gate(ry(0.7), 1).gate(cx01, 0, 2).noise(flip, flipK, 2).noise(flip, flipK, 0).gate(mH, 1)
	rho := refProbs(b.rho(), 3)
	c := b.c
	c.NumClbits = 5
	c.Measure(2, 0).Measure(0, 1).Measure(2, 2).Measure(1, 3).Measure(0, 3) // bit 3 ends with qubit 0; bit 4 never written
	probs := map[string]float64{}
	for key, p := range rho { // key: qubit 2, 1, 0
		q2, q0 := key[0], key[2]
		probs[string([]byte{'0', q0, q2, q0, q2})] += p
	}
	r := run(t, c, sim.Options{Shots: shots, Seed: seed(12), Method: sim.MethodStateVector})
	chiSquared(t, r.Counts, probs, shots)

	s0, s1, p := math.Pow(math.Sin(1.1/2), 2), math.Pow(math.Sin(0.7/2), 2), 0.2
	j := &sim.Circuit{NumQubits: 2, NumClbits: 3}
	j.Apply(stdGate("ry", []float64{1.1}, 0)).Append(sim.NoiseOp(flip, 0)).Apply(stdGate("ry", []float64{0.7}, 1))
	j.Measure(0, 2).Append(sim.JumpOp(6).WithIf(sim.BitIs(2, true))).Measure(1, 0).Measure(0, 1)
	a := s0*(1-p) + (1-s0)*p
	r = run(t, j, sim.Options{Shots: shots, Seed: seed(13)})
	chiSquared(t, r.Counts, map[string]float64{"110": a, "000": (1 - a) * (1 - s1), "001": (1 - a) * s1}, shots)
}

// On 12 qubits (vector kernels) channels drawn by the state take their
// probabilities from half the state or the whole, and apply their
// branches as a controlled factor or a matrix, by the qubit: each qubit
// here starts in RY(θ)|0⟩ and takes one channel, so its marginal is known
// in closed form.
func TestTrajectoryMarginals(t *testing.T) {
	ch := must(t)
	sin2 := func(theta float64) float64 { return math.Pow(math.Sin(theta/2), 2) }
	gadP1 := func(s, gamma, p float64) float64 { return p*(1-gamma)*s + (1-p)*(s+gamma*(1-s)) }
	var onQ11 [][]complex128 // amplitude damping on qubit 11 (target 0), nothing on qubit 2
	for _, k := range [][]complex128{{1, 0, 0, complex(math.Sqrt(0.7), 0)}, {0, complex(math.Sqrt(0.3), 0), 0, 0}} {
		onQ11 = append(onQ11, kron(mI, k))
	}
	tests := []struct {
		q     int
		theta float64
		op    sim.Op
		p1    float64
	}{
		{11, 1.9, sim.NoiseOp(ch(sim.Kraus(onQ11...)), 11, 2), sin2(1.9) * 0.7},
		{7, 1.2, sim.NoiseOp(ch(sim.GeneralizedAmplitudeDamping(0.4, 0.3)), 7), gadP1(sin2(1.2), 0.4, 0.3)},
		{6, 1.0, sim.NoiseOp(ch(sim.AmplitudeDamping(0.6)), 6), sin2(1.0) * 0.4},
		{8, math.Pi / 2, sim.NoiseOp(ch(sim.GeneralizedAmplitudeDamping(0.9, 0)), 8), gadP1(0.5, 0.9, 0)}, // K2 = diag(√(1−γ), 1)
		{2, 0.8, sim.NoiseOp(ch(sim.AmplitudeDamping(0.5)), 2), sin2(0.8) * 0.5},
		{0, 2.5, sim.NoiseOp(ch(sim.AmplitudeDamping(0.2)), 0), sin2(2.5) * 0.8},
		{4, 2.0, sim.NoiseOp(ch(sim.PauliChannel(0.1, 0.2, 0.3)), 4), sin2(2.0)*0.7 + (1-sin2(2.0))*0.3},
	}
	c := &sim.Circuit{NumQubits: 12, NumClbits: len(tests)}
	for _, tc := range tests {
		c.Apply(stdGate("ry", []float64{tc.theta}, tc.q))
	}
	for _, tc := range tests {
		c.Append(tc.op)
	}
	for b, tc := range tests {
		c.Measure(tc.q, b)
	}
	const shots = 4000
	r := run(t, c, sim.Options{Shots: shots, Seed: seed(14)})
	if r.Method != sim.MethodStateVector {
		t.Fatalf("ran as %s", r.Method)
	}
	for b, tc := range tests {
		ones := 0
		for key, n := range r.Counts {
			if key[len(key)-1-b] == '1' {
				ones += n
			}
		}
		chiSquared(t, map[string]int{"0": shots - ones, "1": ones}, map[string]float64{"0": 1 - tc.p1, "1": tc.p1}, shots)
	}
}
