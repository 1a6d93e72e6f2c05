package sim_test

import (
	"context"
	"errors"
	"maps"
	"strings"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// goldenCircuits are circuits without noise whose counts at seed 7 were
// recorded with the simulator before it had methods (commit 8775395):
// sampled, shot by shot, and measured by Run for want of a measurement.
func goldenCircuits() map[string]*sim.Circuit {
	sampled := &sim.Circuit{NumQubits: 3, NumClbits: 3}
	sampled.Apply(stdGate("ry", []float64{0.7}, 0)).Apply(stdGate("ry", []float64{1.9}, 1)).Apply(stdGate("cry", []float64{2.5}, 1, 2)).Apply(stdGate("crx", []float64{1.1}, 0, 2))
	sampled.Measure(0, 2).Measure(1, 1).Measure(2, 0)
	perShot := &sim.Circuit{NumQubits: 3, NumClbits: 3}
	perShot.Apply(stdGate("h", nil, 0)).Apply(stdGate("ry", []float64{1.2}, 1)).Measure(0, 0).Reset(0).Apply(stdGate("h", nil, 0))
	perShot.If(sim.BitIs(0, true), sim.GateOp(stdGate("x", nil, 2))).Apply(stdGate("cx", nil, 1, 2)).Measure(0, 1).Measure(2, 2)
	noMeasure := &sim.Circuit{NumQubits: 4}
	noMeasure.Apply(stdGate("h", nil, 0)).Apply(stdGate("rx", []float64{0.4}, 3)).Apply(stdGate("cx", nil, 0, 1)).Apply(stdGate("ry", []float64{2.2}, 2))
	return map[string]*sim.Circuit{"sampled": sampled, "perShot": perShot, "noMeasure": noMeasure}
}

// A circuit without noise runs as it always has, by default and on the
// state vector asked for: the same counts for the same seed.
func TestNoiselessRunsUnchanged(t *testing.T) {
	golden := map[string]map[string]int{
		"sampled":   {"000": 286, "010": 49, "011": 542, "100": 35, "101": 11, "110": 24, "111": 53},
		"perShot":   {"000": 173, "001": 91, "010": 157, "011": 69, "100": 88, "101": 161, "110": 91, "111": 170},
		"noMeasure": {"0000": 93, "0011": 101, "0100": 367, "0111": 398, "1000": 3, "1011": 1, "1100": 21, "1111": 16},
	}
	for name, c := range goldenCircuits() {
		for _, m := range []sim.Method{sim.MethodAuto, sim.MethodStateVector} {
			t.Run(name+"/"+m.String(), func(t *testing.T) {
				r := run(t, c, sim.Options{Shots: 1000, Seed: seed(7), Method: m})
				if !maps.Equal(r.Counts, golden[name]) {
					t.Fatalf("counts %v, want %v", r.Counts, golden[name])
				}
				if r.Method != sim.MethodStateVector || r.PerShot != (name == "perShot") {
					t.Fatalf("ran as %s, per shot %v", r.Method, r.PerShot)
				}
				if (m == sim.MethodAuto) != (r.MethodReason != "") {
					t.Fatalf("reason %q for method %s", r.MethodReason, m)
				}
			})
		}
	}
}

// What auto chooses, and why, by the circuit and the limits.
func TestAutoMethod(t *testing.T) {
	// Amplitude damping is not a mixture of unitaries: its shots run a
	// trajectory each. Depolarizing is, and its shots are grouped by the
	// errors they draw, so only those that draw one count.
	damp := must(t)(sim.AmplitudeDamping(0.1))
	dep := must(t)(sim.Depolarizing(0.1))
	// ry(0.3) is not Clifford: these circuits are not for the stabilizer.
	noisyWith := func(ch *sim.Channel, n int) *sim.Circuit {
		c := &sim.Circuit{NumQubits: n}
		for q := range n {
			c.Apply(stdGate("ry", []float64{0.3}, q)).Append(sim.NoiseOp(ch, q))
		}
		return c
	}
	noisy := func(n int) *sim.Circuit { return noisyWith(damp, n) }
	notClifford := func(c *sim.Circuit) *sim.Circuit {
		return &sim.Circuit{NumQubits: c.NumQubits, NumClbits: c.NumClbits, Ops: append([]sim.Op{sim.GateOp(stdGate("t", nil, 0))}, c.Ops...)}
	}
	cliffordNoisy := &sim.Circuit{NumQubits: 3}
	for q := range 3 {
		cliffordNoisy.Apply(stdGate("h", nil, q)).Append(sim.NoiseOp(dep, q))
	}
	midCircuit := noisy(2)
	midCircuit.NumClbits = 1
	midCircuit.Measure(0, 0).Apply(stdGate("x", nil, 0))
	controlled := noisy(2)
	controlled.NumClbits = 1
	controlled.Measure(0, 0).If(sim.BitIs(0, true), sim.GateOp(stdGate("x", nil, 1)))
	withReset := noisy(3)
	withReset.Reset(1).Apply(stdGate("h", nil, 1))

	tests := []struct {
		name   string
		c      *sim.Circuit
		shots  int
		lim    sim.Limits
		want   sim.Method
		reason string
	}{
		{"Clifford", hadamards(5, 5, false), 10, sim.Limits{}, sim.MethodStabilizer, "all gates Clifford"},
		{"Clifford, per shot", hadamards(5, 5, true), 10, sim.Limits{}, sim.MethodStabilizer, "all gates Clifford"},
		{"Clifford and Pauli noise", cliffordNoisy, 1000, sim.Limits{}, sim.MethodStabilizer, "all gates Clifford"},
		{"no noise", notClifford(hadamards(5, 5, false)), 10, sim.Limits{}, sim.MethodStateVector, "no noise"},
		{"no noise, per shot", notClifford(hadamards(5, 5, true)), 10, sim.Limits{}, sim.MethodStateVector, "no noise"},
		{"small and noisy", noisy(3), 1000, sim.Limits{}, sim.MethodDensityMatrix, "noise on 3 qubits: the density matrix fits the memory budget"},
		{"3·2^n shots", noisy(3), 24, sim.Limits{}, sim.MethodDensityMatrix, "density matrix"},
		{"fewer", noisy(3), 23, sim.Limits{}, sim.MethodStateVector, "noise on 3 qubits, 23 shots: quantum trajectories cost less than a density matrix"},
		// 0.3 errors a shot: 1 − e^−0.3 of 93 shots is 24.1 that draw one.
		{"3·2^n shots that draw an error", noisyWith(dep, 3), 93, sim.Limits{}, sim.MethodDensityMatrix, "density matrix"},
		{"fewer that draw an error", noisyWith(dep, 3), 92, sim.Limits{}, sim.MethodStateVector, "noise on 3 qubits, 92 shots: quantum trajectories cost less than a density matrix"},
		{"a reset is a channel", withReset, 1000, sim.Limits{}, sim.MethodDensityMatrix, "density matrix"},
		{"at the size limit", noisy(sim.AutoDensityMaxQubits), 3 << sim.AutoDensityMaxQubits, sim.Limits{}, sim.MethodDensityMatrix, "density matrix"},
		{"past it", noisy(sim.AutoDensityMaxQubits + 1), 10, sim.Limits{}, sim.MethodStateVector, "over 12 for a density matrix: quantum trajectories"},
		{"ρ over the budget", noisy(8), 1024, sim.Limits{MemoryBudget: 16 << 16}, sim.MethodStateVector, "exceeds the limits: quantum trajectories"},
		{"ρ within the budget", noisy(8), 1024, sim.Limits{MemoryBudget: 16<<16 + 16<<8}, sim.MethodDensityMatrix, "density matrix"},
		{"mid-circuit measurement", midCircuit, 1000, sim.Limits{}, sim.MethodStateVector, "mid-circuit measurement or classical control: quantum trajectories"},
		{"classical control", controlled, 1000, sim.Limits{}, sim.MethodStateVector, "quantum trajectories"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := sim.Options{Shots: tc.shots, Seed: seed(1), Limits: tc.lim}
			m, reason, err := tc.c.Method(opts)
			if err != nil || m != tc.want || !strings.Contains(reason, tc.reason) {
				t.Fatalf("Method: %s, %q, %v; want %s, %q", m, reason, err, tc.want, tc.reason)
			}
			if tc.c.NumQubits == sim.AutoDensityMaxQubits {
				return // 256 MiB for ρ: what Method says is enough
			}
			r := run(t, tc.c, opts)
			if r.Method != m || r.MethodReason != reason {
				t.Fatalf("ran as %s (%q), Method said %s (%q)", r.Method, r.MethodReason, m, reason)
			}
			if perShot := tc.c.PerShot(); m != sim.MethodStabilizer && r.PerShot != (perShot && m == sim.MethodStateVector) {
				t.Fatalf("PerShot() = %v on the state vector, the run on %s says %v", perShot, m, r.PerShot)
			}
		})
	}
}

// A method that cannot run a circuit, one not implemented and an unknown
// one are ErrMethod errors that say why; the limits of the density matrix
// are those of a state of 2n qubits.
func TestMethodRefusals(t *testing.T) {
	dep := must(t)(sim.Depolarizing(0.1))
	mid := &sim.Circuit{NumQubits: 2, NumClbits: 1}
	mid.Apply(stdGate("h", nil, 0)).Measure(0, 0).Append(sim.NoiseOp(dep, 0))
	jump := &sim.Circuit{NumQubits: 1, NumClbits: 1}
	jump.Append(sim.JumpOp(1))
	resetAfter := &sim.Circuit{NumQubits: 1, NumClbits: 1}
	resetAfter.Measure(0, 0).Reset(0)
	small := &sim.Circuit{NumQubits: 10}
	small.Append(sim.NoiseOp(dep, 9))
	tGate := &sim.Circuit{NumQubits: 2}
	tGate.Apply(stdGate("h", nil, 0)).Apply(stdGate("t", nil, 1))

	tests := []struct {
		name   string
		c      *sim.Circuit
		opts   sim.Options
		is     error
		reason string
	}{
		{"measured, then noise", mid, sim.Options{Method: sim.MethodDensityMatrix}, sim.ErrMethod, "operation 2 (noise) acts on qubit 0 after its measurement"},
		{"classical control", jump, sim.Options{Method: sim.MethodDensityMatrix}, sim.ErrMethod, "operation 0 (jump) is classical control; statevector runs it"},
		{"reset after a measurement", resetAfter, sim.Options{Method: sim.MethodDensityMatrix}, sim.ErrMethod, "operation 1 (reset) acts on qubit 0 after its measurement"},
		{"stabilizer", tGate, sim.Options{Method: sim.MethodStabilizer}, sim.ErrMethod, "gate t (operation 1) is not a Clifford gate"},
		{"unknown", small, sim.Options{Method: 42}, sim.ErrMethod, "unknown method 42"},
		{"ρ over the budget", small, sim.Options{Method: sim.MethodDensityMatrix, Limits: sim.Limits{MemoryBudget: 1 << 20}}, sim.ErrMemoryBudget, "the density matrix of 10 qubits needs 16.02 MiB, the budget is 1 MiB"},
		{"over MaxQubits", small, sim.Options{Method: sim.MethodDensityMatrix, Limits: sim.Limits{MaxQubits: 9}}, sim.ErrTooManyQubits, "10 qubits requested, the limit is 9"},
		{"over the hard limit", &sim.Circuit{NumQubits: 30}, sim.Options{Method: sim.MethodDensityMatrix, Limits: sim.Limits{MemoryBudget: 1 << 62}}, sim.ErrMemoryBudget, "4^30 amplitudes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Shots = 10
			_, err := sim.Run(context.Background(), tc.c, tc.opts)
			if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.reason) {
				t.Fatalf("got %v, want %v saying %q", err, tc.is, tc.reason)
			}
			if tc.is == sim.ErrMethod {
				if _, _, err := tc.c.Method(tc.opts); !errors.Is(err, sim.ErrMethod) {
					t.Fatalf("Method said %v", err)
				}
			}
		})
	}
	if _, err := sim.SimulateDensityMatrix(context.Background(), mid, sim.Options{}); !errors.Is(err, sim.ErrMethod) {
		t.Fatalf("SimulateDensityMatrix of a mid-circuit measurement: %v", err)
	}
	if _, err := sim.Simulate(context.Background(), small, sim.Limits{}); !errors.Is(err, sim.ErrInvalidCircuit) || !strings.Contains(err.Error(), "SimulateDensityMatrix") {
		t.Fatalf("Simulate of a noisy circuit: %v", err)
	}
}

// Every name of runtimeOptions.method parses to its method and back; any
// other is an error listing them.
func TestParseMethod(t *testing.T) {
	for _, name := range []string{"auto", "statevector", "densitymatrix", "stabilizer", "sparse"} {
		m, err := sim.ParseMethod(name)
		if err != nil || m.String() != name {
			t.Errorf("ParseMethod(%q) = %s, %v", name, m, err)
		}
	}
	_, err := sim.ParseMethod("trajectories")
	if !errors.Is(err, sim.ErrMethod) || !strings.Contains(err.Error(), "auto, statevector, densitymatrix, stabilizer, sparse") {
		t.Fatalf("got %v", err)
	}
	if s := sim.Method(9).String(); s != "Method(9)" {
		t.Fatalf("%s", s)
	}
}
