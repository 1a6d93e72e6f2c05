package sim_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// depolKraus is depolarizing(p) written from decisions.md.
func depolKraus(p float64) [][]complex128 {
	return [][]complex128{scale(mI, sq(1-p)), scale(mX, sq(p/3)), scale(mY, sq(p/3)), scale(mZ, sq(p/3))}
}

// twoDepolKraus is two_qubit_depolarizing(p) written from decisions.md.
func twoDepolKraus(p float64) [][]complex128 {
	terms := map[[2]int]float64{{0, 0}: 1 - p}
	for i := 1; i < 16; i++ {
		terms[[2]int{i / 4, i % 4}] = p / 15
	}
	return twoQubitKraus(terms)
}

// modelStep is a standard gate of the circuit and its matrix for the
// reference (on qubits in the order given, qubit j bit j).
type modelStep struct {
	name   string
	params []float64
	qubits []int
	m      []complex128
}

var modelSteps = []modelStep{
	{"h", nil, []int{0}, mH},
	{"ry", []float64{1.1}, []int{2}, ry(1.1)},
	{"cx", nil, []int{0, 1}, cx01},
	{"u3", []float64{0.9, 0.3, 1.7}, []int{1}, u(0.9, 0.3, 1.7)},
	{"cx", nil, []int{2, 0}, cx01},
	{"rx", []float64{0.6}, []int{2}, rx(0.6)},
	{"cx", nil, []int{1, 2}, cx01},
}

// A noise model's channels land after the gates its rules say, as a
// reference that applies them by hand computes: a rule for two-qubit gates
// before a rule for every gate (the built-in depolarizing model), and
// rules by qubit and by name (a calibration's).
func TestNoiseModelMatchesReference(t *testing.T) {
	ch := must(t)
	type noisy struct {
		kraus  [][]complex128
		qubits []int
	}
	cases := []struct {
		name  string
		model *sim.NoiseModel
		// after says which channels follow step i, as the test reads the
		// model's definition.
		after func(i int, s modelStep) []noisy
	}{
		{"two-qubit rule first", &sim.NoiseModel{Rules: []sim.NoiseRule{
			{Qubits: 2, Channel: ch(sim.TwoQubitDepolarizing(0.2))},
			{Channel: ch(sim.Depolarizing(0.1))},
		}}, func(i int, s modelStep) []noisy {
			if len(s.qubits) == 2 {
				return []noisy{{twoDepolKraus(0.2), s.qubits}}
			}
			return []noisy{{depolKraus(0.1), s.qubits}}
		}},
		{"one-qubit channel after every gate", &sim.NoiseModel{Rules: []sim.NoiseRule{
			{Channel: ch(sim.Depolarizing(0.15))},
		}}, func(i int, s modelStep) []noisy {
			var out []noisy
			for _, q := range s.qubits {
				out = append(out, noisy{depolKraus(0.15), []int{q}})
			}
			return out
		}},
		// Ten channels of error probability 0.5: five errors a shot, too
		// many to group shots by their errors (patterns.go), so each shot
		// runs a trajectory of its own.
		{"strong, a trajectory a shot", &sim.NoiseModel{Rules: []sim.NoiseRule{
			{Channel: ch(sim.Depolarizing(0.5))},
		}}, func(i int, s modelStep) []noisy {
			var out []noisy
			for _, q := range s.qubits {
				out = append(out, noisy{depolKraus(0.5), []int{q}})
			}
			return out
		}},
		{"by qubit, by pair and by name", &sim.NoiseModel{Rules: []sim.NoiseRule{
			{On: []int{0, 2}, Channel: ch(sim.TwoQubitDepolarizing(0.3))},
			{Gates: []string{"rx"}, Channel: ch(sim.Depolarizing(0.25))},
			{Qubits: 1, On: []int{2}, Channel: ch(sim.Depolarizing(0.05))},
			{Qubits: 1, On: []int{0}, Channel: ch(sim.Depolarizing(0.2))},
		}}, func(i int, s modelStep) []noisy {
			switch {
			case len(s.qubits) == 2 && (s.qubits[0] == 2 && s.qubits[1] == 0):
				return []noisy{{twoDepolKraus(0.3), s.qubits}}
			case s.name == "rx":
				return []noisy{{depolKraus(0.25), s.qubits}}
			case len(s.qubits) == 1 && s.qubits[0] == 2:
				return []noisy{{depolKraus(0.05), s.qubits}}
			case len(s.qubits) == 1 && s.qubits[0] == 0:
				return []noisy{{depolKraus(0.2), s.qubits}}
			}
			return nil // qubit 1's gates and the other pairs: no rule
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := &sim.Circuit{NumQubits: 3}
			ref := newRefBuilder(3)
			for i, s := range modelSteps {
				c.ApplyStd(s.name, s.params, s.qubits...)
				ref.ops = append(ref.ops, refOp{kraus: [][]complex128{s.m}, qubits: s.qubits})
				for _, n := range tc.after(i, s) {
					ref.ops = append(ref.ops, refOp(n))
				}
			}
			want := ref.rho()
			opts := sim.Options{Noise: tc.model}
			got, err := sim.SimulateDensityMatrix(context.Background(), c, opts)
			if err != nil {
				t.Fatal(err)
			}
			assertRho(t, got, want, 1e-9)
			if len(c.Ops) != len(modelSteps) {
				t.Fatalf("the circuit changed: %d operations", len(c.Ops))
			}
			const shots = 20_000
			probs := refProbs(want, 3)
			for _, m := range []sim.Method{sim.MethodStateVector, sim.MethodDensityMatrix} {
				r := run(t, c, sim.Options{Shots: shots, Seed: seed(5), Method: m, Noise: tc.model})
				chiSquared(t, r.Counts, probs, shots)
			}
		})
	}
}

// A readout error changes the bit recorded, not the qubit: a qubit
// measured 1 with a readout error of 0.3 reads 0 three times in ten, and a
// second measurement of it, or one after an X, still sees the state it
// was left in. Every method gives the same distribution.
func TestReadoutError(t *testing.T) {
	const shots = 20_000
	terminal := (&sim.Circuit{NumQubits: 2, NumClbits: 3}).ApplyStd("x", nil, 0).ApplyStd("ry", []float64{0.8}, 1).
		Append(sim.MeasureOp(0, 0).WithReadoutError(0.3), sim.MeasureOp(0, 1), sim.MeasureOp(1, 2).WithReadoutError(0.1))
	p1 := math.Pow(math.Sin(0.4), 2)
	q1 := p1*0.9 + (1-p1)*0.1 // qubit 1 reads 1
	terminalProbs := map[string]float64{"011": 0.7 * (1 - q1), "010": 0.3 * (1 - q1), "111": 0.7 * q1, "110": 0.3 * q1}
	midCircuit := (&sim.Circuit{NumQubits: 1, NumClbits: 2}).ApplyStd("x", nil, 0).
		Append(sim.MeasureOp(0, 0).WithReadoutError(0.3)).ApplyStd("x", nil, 0).Measure(0, 1)
	cases := []struct {
		name    string
		c       *sim.Circuit
		probs   map[string]float64
		methods []sim.Method
	}{
		{"terminal", terminal, terminalProbs, []sim.Method{sim.MethodAuto, sim.MethodStateVector, sim.MethodDensityMatrix}},
		{"mid-circuit", midCircuit, map[string]float64{"01": 0.7, "00": 0.3}, []sim.Method{sim.MethodAuto, sim.MethodStateVector}},
	}
	for _, tc := range cases {
		for _, m := range tc.methods {
			t.Run(tc.name+"/"+m.String(), func(t *testing.T) {
				r := run(t, tc.c, sim.Options{Shots: shots, Seed: seed(3), Method: m})
				chiSquared(t, r.Counts, tc.probs, shots)
			})
		}
	}
}

// A model's readout errors reach the measurements Run adds to a circuit
// that measures nothing, on the state vector and the density matrix.
func TestReadoutErrorOfFinalMeasurements(t *testing.T) {
	const shots = 20_000
	c := (&sim.Circuit{NumQubits: 2, NumClbits: 1}).ApplyStd("ry", []float64{0.8}, 0)
	model := &sim.NoiseModel{ReadoutError: map[int]float64{0: 0.25, 1: 0.1, 7: 0.5}}
	p1 := math.Pow(math.Sin(0.4), 2)
	q0 := p1*0.75 + (1-p1)*0.25
	probs := map[string]float64{"00": (1 - q0) * 0.9, "01": q0 * 0.9, "10": (1 - q0) * 0.1, "11": q0 * 0.1}
	for _, m := range []sim.Method{sim.MethodAuto, sim.MethodStateVector, sim.MethodDensityMatrix} {
		t.Run(m.String(), func(t *testing.T) {
			r := run(t, c, sim.Options{Shots: shots, Seed: seed(8), Method: m, Noise: model})
			chiSquared(t, r.Counts, probs, shots)
		})
	}
	r := run(t, c, sim.Options{Shots: 100, Seed: seed(8), Noise: &sim.NoiseModel{}})
	if r.Method != sim.MethodStateVector || r.PerShot {
		t.Fatalf("an empty model ran as %s (per shot %v), want the sampled state vector", r.Method, r.PerShot)
	}
}

// Apply keeps jumps on the operations they pointed at, puts a gate's
// condition and position on its channels, and leaves the circuit alone.
func TestNoiseModelApply(t *testing.T) {
	ch := must(t)
	dep := ch(sim.Depolarizing(0.1))
	cond := sim.BitIs(0, false)
	c := &sim.Circuit{NumQubits: 2, NumClbits: 1}
	c.Append(sim.ResetOp(0))
	hg, _ := sim.LookupGate("h")
	h, _ := hg.Op(nil, 0)
	c.Append(h.WithPos(3, 5), sim.MeasureOp(0, 0))
	cxg, _ := sim.LookupGate("cx")
	cx, _ := cxg.Op(nil, 0, 1)
	c.Append(cx.WithIf(cond).WithPos(4, 1), sim.JumpOp(1).WithIf(cond), sim.MeasureOp(1, 0))
	model := &sim.NoiseModel{Rules: []sim.NoiseRule{{Channel: dep}}, ReadoutError: map[int]float64{1: 0.2}}
	got, err := model.Apply(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	kinds := make([]string, len(got.Ops))
	for i, op := range got.Ops {
		kinds[i] = op.Kind.String()
	}
	want := "reset gate noise measure gate noise noise jump measure"
	if strings.Join(kinds, " ") != want {
		t.Fatalf("ops %v, want %s", kinds, want)
	}
	if got.Ops[6].JumpTarget() != 1 {
		t.Fatalf("jump to %d, want 1 (the h)", got.Ops[6].JumpTarget())
	}
	for i, w := range []struct {
		qubit, line, col int
		cond             bool
	}{{0, 3, 5, false}, {0, 4, 1, true}, {1, 4, 1, true}} {
		op := got.Ops[[]int{2, 5, 6}[i]]
		l, col := op.Pos()
		if op.TargetAt(0) != w.qubit || l != w.line || col != w.col || (op.Cond() == cond) != w.cond || op.Channel() != dep {
			t.Fatalf("noise op %d: qubit %d at %d:%d, condition %v", i, op.TargetAt(0), l, col, op.Cond())
		}
	}
	if got.Ops[3].ReadoutError() != 0 || got.Ops[8].ReadoutError() != 0.2 {
		t.Fatalf("readout errors %v, %v", got.Ops[3].ReadoutError(), got.Ops[8].ReadoutError())
	}
	if len(c.Ops) != 6 || c.Ops[4].JumpTarget() != 1 {
		t.Fatal("Apply changed its circuit")
	}
	// The loop runs until qubit 0 reads 1, whatever the noise does.
	r := run(t, c, sim.Options{Shots: 200, Seed: seed(2), Noise: &sim.NoiseModel{Rules: []sim.NoiseRule{{Channel: dep}}}})
	for k := range r.Counts {
		if k != "0" && k != "1" {
			t.Fatalf("counts %v", r.Counts)
		}
	}
}

// A model that cannot be applied is an error that says why, from Run as
// from Apply, before anything runs.
func TestNoiseModelInvalid(t *testing.T) {
	ch := must(t)
	two := ch(sim.TwoQubitDepolarizing(0.1))
	one := ch(sim.BitFlip(0.1))
	cases := []struct {
		name  string
		model sim.NoiseModel
		want  string
	}{
		{"no channel", sim.NoiseModel{Rules: []sim.NoiseRule{{Qubits: 1}}}, "noise rule 0 has no channel"},
		{"two-qubit channel after one-qubit gates", sim.NoiseModel{Rules: []sim.NoiseRule{{Channel: one}, {Qubits: 1, Channel: two}}},
			"noise rule 1: a 2-qubit channel cannot follow gates on 1 qubits"},
		{"two-qubit channel on three", sim.NoiseModel{Rules: []sim.NoiseRule{{On: []int{0, 1, 2}, Channel: two}}},
			"noise rule 0: a 2-qubit channel cannot follow gates on the 3 qubits [0 1 2]"},
		{"a qubit twice", sim.NoiseModel{Rules: []sim.NoiseRule{{On: []int{1, 1}, Channel: two}}}, "qubits [1 1] are not distinct"},
		{"negative width", sim.NoiseModel{Rules: []sim.NoiseRule{{Qubits: -1, Channel: one}}}, "qubits -1 is negative"},
		{"readout over 1", sim.NoiseModel{ReadoutError: map[int]float64{3: 1.5}}, "readout error 1.5 of qubit 3 is not a probability"},
		{"readout NaN", sim.NoiseModel{ReadoutError: map[int]float64{0: math.NaN()}}, "is not a probability"},
	}
	c := (&sim.Circuit{NumQubits: 1}).ApplyStd("h", nil, 0)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, err := range []error{
				tc.model.Validate(),
				func() error {
					_, err := sim.Run(context.Background(), c, sim.Options{Shots: 1, Noise: &tc.model})
					return err
				}(),
			} {
				if !errors.Is(err, sim.ErrInvalidChannel) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("got %v, want %q", err, tc.want)
				}
			}
		})
	}
	bad := sim.MeasureOp(0, 0).WithReadoutError(-0.1)
	if _, err := sim.Run(context.Background(), (&sim.Circuit{NumQubits: 1, NumClbits: 1}).Append(bad), sim.Options{Shots: 1}); err == nil ||
		!strings.Contains(err.Error(), "readout error -0.1 is not a probability") {
		t.Fatalf("got %v", err)
	}
}

// MemoryNeed counts the noisy circuit: its channels' operations, and the
// method its noise makes Run choose.
func TestMemoryNeedWithNoise(t *testing.T) {
	ch := must(t)
	c := &sim.Circuit{NumQubits: 10}
	for i := range 1000 {
		c.ApplyStd("rx", []float64{0.5}, i%10) // not Clifford: not for the stabilizer
	}
	model := &sim.NoiseModel{Rules: []sim.NoiseRule{{Channel: ch(sim.Depolarizing(0.01))}}}
	applied, err := model.Apply(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	need := sim.MemoryNeed(c, sim.Options{Shots: 10, Noise: model})
	if want := sim.MemoryNeed(applied, sim.Options{Shots: 10}) + int64(len(applied.Ops))*56; need != want {
		t.Fatalf("MemoryNeed %d with the model, want %d: the noisy circuit's need and its operations", need, want)
	}
	m, reason, err := c.Method(sim.Options{Shots: 10, Noise: model})
	if err != nil || m != sim.MethodStateVector || !strings.Contains(reason, "trajectories") {
		t.Fatalf("method %s (%q, %v)", m, reason, err)
	}
	m, _, err = c.Method(sim.Options{Shots: 1 << 20, Noise: model})
	if err != nil || m != sim.MethodDensityMatrix {
		t.Fatalf("method %s (%v), want densitymatrix for many shots", m, err)
	}
}
