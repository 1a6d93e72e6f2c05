package sim_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// must returns the channel a constructor built, failing the test on its
// error.
func must(t *testing.T) func(*sim.Channel, error) *sim.Channel {
	return func(ch *sim.Channel, err error) *sim.Channel {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return ch
	}
}

// Every parameter out of its range (decisions.md, Braket's ranges) is a
// ChannelParamError naming the channel, the parameter, its position and
// its range; the ends of each range are in it.
func TestChannelRanges(t *testing.T) {
	one := func(f func(float64) (*sim.Channel, error)) func(p []float64) (*sim.Channel, error) {
		return func(p []float64) (*sim.Channel, error) { return f(p[0]) }
	}
	build := map[string]func(p []float64) (*sim.Channel, error){
		"bit_flip":               one(sim.BitFlip),
		"phase_flip":             one(sim.PhaseFlip),
		"depolarizing":           one(sim.Depolarizing),
		"two_qubit_depolarizing": one(sim.TwoQubitDepolarizing),
		"two_qubit_dephasing":    one(sim.TwoQubitDephasing),
		"amplitude_damping":      one(sim.AmplitudeDamping),
		"phase_damping":          one(sim.PhaseDamping),
		"pauli_channel": func(p []float64) (*sim.Channel, error) {
			return sim.PauliChannel(p[0], p[1], p[2])
		},
		"generalized_amplitude_damping": func(p []float64) (*sim.Channel, error) {
			return sim.GeneralizedAmplitudeDamping(p[0], p[1])
		},
	}
	nan := math.NaN()
	tests := []struct {
		channel string
		params  []float64
		bad     string  // the parameter at fault, "" when the channel is valid
		index   int     // its position
		max     float64 // its range's top
	}{
		{"bit_flip", []float64{0}, "", 0, 0},
		{"bit_flip", []float64{0.5}, "", 0, 0},
		{"bit_flip", []float64{0.5000001}, "p", 0, 0.5},
		{"bit_flip", []float64{-1e-9}, "p", 0, 0.5},
		{"bit_flip", []float64{nan}, "p", 0, 0.5},
		{"phase_flip", []float64{0.5}, "", 0, 0},
		{"phase_flip", []float64{0.51}, "p", 0, 0.5},
		{"phase_flip", []float64{-0.1}, "p", 0, 0.5},
		{"depolarizing", []float64{0.75}, "", 0, 0},
		{"depolarizing", []float64{0.76}, "p", 0, 0.75},
		{"depolarizing", []float64{-0.01}, "p", 0, 0.75},
		{"two_qubit_depolarizing", []float64{15.0 / 16}, "", 0, 0},
		{"two_qubit_depolarizing", []float64{0.94}, "p", 0, 15.0 / 16},
		{"two_qubit_depolarizing", []float64{-0.5}, "p", 0, 15.0 / 16},
		{"two_qubit_dephasing", []float64{0.75}, "", 0, 0},
		{"two_qubit_dephasing", []float64{0.8}, "p", 0, 0.75},
		{"two_qubit_dephasing", []float64{math.Inf(-1)}, "p", 0, 0.75},
		{"amplitude_damping", []float64{1}, "", 0, 0},
		{"amplitude_damping", []float64{1.01}, "gamma", 0, 1},
		{"amplitude_damping", []float64{-0.01}, "gamma", 0, 1},
		{"phase_damping", []float64{1}, "", 0, 0},
		{"phase_damping", []float64{2}, "gamma", 0, 1},
		{"phase_damping", []float64{-2}, "gamma", 0, 1},
		{"generalized_amplitude_damping", []float64{1, 0}, "", 0, 0},
		{"generalized_amplitude_damping", []float64{0, 1}, "", 0, 0},
		{"generalized_amplitude_damping", []float64{1.5, 0.5}, "gamma", 0, 1},
		{"generalized_amplitude_damping", []float64{-0.5, 0.5}, "gamma", 0, 1},
		{"generalized_amplitude_damping", []float64{0.5, 1.5}, "p", 1, 1},
		{"generalized_amplitude_damping", []float64{0.5, -0.5}, "p", 1, 1},
		{"pauli_channel", []float64{1, 0, 0}, "", 0, 0},
		{"pauli_channel", []float64{0.1, 0.2, 0.7}, "", 0, 0}, // sums past 1 in float64, by rounding
		{"pauli_channel", []float64{1.1, 0, 0}, "px", 0, 1},
		{"pauli_channel", []float64{0, -0.1, 0}, "py", 1, 1},
		{"pauli_channel", []float64{0, 0, 1.2}, "pz", 2, 1},
		{"pauli_channel", []float64{0.5, 0.3, 0.3}, "px + py + pz", -1, 1},
	}
	for _, tc := range tests {
		ch, err := build[tc.channel](tc.params)
		if tc.bad == "" {
			if err != nil || ch.Name() != tc.channel {
				t.Errorf("%s%v: %v, want a channel", tc.channel, tc.params, err)
			}
			continue
		}
		var pe *sim.ChannelParamError
		if !errors.As(err, &pe) || !errors.Is(err, sim.ErrInvalidChannel) {
			t.Errorf("%s%v: %v, want a ChannelParamError", tc.channel, tc.params, err)
			continue
		}
		if pe.Channel != tc.channel || pe.Param != tc.bad || pe.Index != tc.index || pe.Min != 0 || pe.Max != tc.max {
			t.Errorf("%s%v: %+v, want %s (argument %d) in [0, %v]", tc.channel, tc.params, pe, tc.bad, tc.index, tc.max)
		}
		if msg := err.Error(); !strings.Contains(msg, tc.channel+": "+tc.bad+" = ") || !strings.Contains(msg, "outside [0, ") {
			t.Errorf("%s%v: message %q names neither the parameter nor its range", tc.channel, tc.params, msg)
		}
	}
}

// Kraus takes one- and two-qubit channels whose matrices preserve the
// trace, and names the rule any other breaks.
func TestKrausRejects(t *testing.T) {
	h := complex(1/math.Sqrt2, 0)
	tests := []struct {
		name string
		mats [][]complex128
		want string // in the message
	}{
		{"no matrices", nil, "no matrices"},
		{"3×3", [][]complex128{make([]complex128, 9)}, "2×2 (one qubit) or 4×4 (two qubits)"},
		{"8×8: three qubits", [][]complex128{make([]complex128, 64)}, "2×2 (one qubit) or 4×4 (two qubits)"},
		{"sizes differ", [][]complex128{mI, make([]complex128, 16)}, "matrix 1 has 16 entries, matrix 0 has 4"},
		{"not trace preserving", [][]complex128{scale(mI, 0.9)}, "Σ K†K is not the identity"},
		{"a hair over the tolerance", [][]complex128{scale(mI, math.Sqrt(1+3e-9))}, "does not preserve the trace"},
		{"not trace preserving, two qubits", [][]complex128{kron(mX, mI), kron(mI, mZ)}, "Σ K†K is not the identity"},
		{"too many", [][]complex128{scale(mI, 0.5), scale(mI, 0.5), scale(mX, 0.5), scale(mY, 0.5), scale(mZ, 0)}, "at most 4"},
		{"not a number", [][]complex128{{complex(math.NaN(), 0), 0, 0, 1}}, "not a finite number"},
		{"infinite", [][]complex128{{1, 0, 0, complex(0, math.Inf(1))}}, "not a finite number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := sim.Kraus(tc.mats...)
			if !errors.Is(err, sim.ErrInvalidChannel) || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "invalid channel: kraus: ") {
				t.Fatalf("got %v, want ErrInvalidChannel saying %q", err, tc.want)
			}
		})
	}
	// Within the tolerance, and exactly: accepted.
	for _, mats := range [][][]complex128{
		{scale(mI, math.Sqrt(1+5e-10))},
		{{h, h, h, -h}},
		{kron(mX, mH)},
		{scale(mI, 0.5), scale(mX, 0.5), scale(mY, 0.5), scale(mZ, 0.5)},
	} {
		if _, err := sim.Kraus(mats...); err != nil {
			t.Errorf("Kraus(%v): %v", mats, err)
		}
	}
}

// Kraus copies its matrices: changing them after does not change the
// channel.
func TestKrausCopies(t *testing.T) {
	m := []complex128{1, 0, 0, 1}
	ch, err := sim.Kraus(m)
	if err != nil {
		t.Fatal(err)
	}
	m[0] = 5
	if k := ch.Kraus(); k[0][0] != 1 {
		t.Fatalf("the channel holds %v after its argument changed", k[0])
	}
	ch.Kraus()[0][0] = 7
	if k := ch.Kraus(); k[0][0] != 1 {
		t.Fatalf("Kraus() returned the channel's own matrix")
	}
}

// A noise operation's qubits are checked as a gate's: in range, distinct,
// and as many as its channel acts on.
func TestNoiseOpValidation(t *testing.T) {
	ch := must(t)
	one, two := ch(sim.Depolarizing(0.1)), ch(sim.TwoQubitDepolarizing(0.1))
	tests := []struct {
		name string
		op   sim.Op
		want string // "" for a valid operation
	}{
		{"one qubit", sim.NoiseOp(one, 2), ""},
		{"two qubits", sim.NoiseOp(two, 2, 0), ""},
		{"conditional", sim.NoiseOp(one, 1).WithIf(sim.BitIs(0, true)), ""},
		{"two qubits to a one-qubit channel", sim.NoiseOp(one, 0, 1), `channel "depolarizing" acts on 1 qubit(s), given 2`},
		{"one qubit to a two-qubit channel", sim.NoiseOp(two, 1), `channel "two_qubit_depolarizing" acts on 2 qubit(s), given 1`},
		{"none", sim.NoiseOp(one), "acts on 1 qubit(s), given 0"},
		{"four", sim.NoiseOp(two, 0, 1, 2, 3), "acts on 2 qubit(s), given 4"},
		{"a qubit twice", sim.NoiseOp(two, 1, 1), `channel "two_qubit_depolarizing" uses qubit 1 twice`},
		{"out of range", sim.NoiseOp(one, 3), "qubit 3 out of range [0, 3)"},
		{"negative", sim.NoiseOp(two, 0, -1), "qubit -1 out of range"},
		{"no channel", sim.NoiseOp(nil, 0), "without a channel"},
		{"a zero channel", sim.NoiseOp(&sim.Channel{}, 0), "without a channel"},
		{"with controls", sim.NoiseOp(one, 0).WithControls(sim.Control{Qubit: 1}), "has controls"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &sim.Circuit{NumQubits: 3, NumClbits: 1}
			c.Append(tc.op)
			err := c.Validate()
			if tc.want == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, sim.ErrInvalidCircuit) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "operation 0 (noise)") {
				t.Fatalf("got %v, want ErrInvalidCircuit saying %q", err, tc.want)
			}
		})
	}
}

// A noise operation holds its channel and qubits in its 56 bytes and one
// extension; its accessors read them back.
func TestNoiseOpAccessors(t *testing.T) {
	ch := must(t)(sim.TwoQubitDephasing(0.2))
	op := sim.NoiseOp(ch, 4, 1).WithPos(3, 7)
	if op.Kind != sim.OpNoise || op.Kind.String() != "noise" || op.Channel() != ch {
		t.Fatalf("kind %s, channel %v", op.Kind, op.Channel())
	}
	if op.NumTargets() != 2 || op.TargetAt(0) != 4 || op.TargetAt(1) != 1 || op.NumControls() != 0 {
		t.Fatalf("qubits %d: %d, %d", op.NumTargets(), op.TargetAt(0), op.TargetAt(1))
	}
	if l, c := op.Pos(); l != 3 || c != 7 {
		t.Fatalf("position %d:%d", l, c)
	}
	if g := sim.MeasureOp(0, 0); g.Channel() != nil {
		t.Fatal("a measurement has a channel")
	}
	if ch.String() != "two_qubit_dephasing(0.2)" || ch.NumQubits() != 2 || ch.Params()[0] != 0.2 {
		t.Fatalf("%s on %d qubits, params %v", ch, ch.NumQubits(), ch.Params())
	}
	if s := must(t)(sim.Kraus(mI)).String(); s != "kraus(1 matrices)" {
		t.Fatalf("%s", s)
	}
	if ch.Bytes() < 16*16*4 {
		t.Fatalf("a two-qubit channel of four Kraus matrices holds %d bytes", ch.Bytes())
	}
	if n := sim.PauliName(2|3<<2, 2); n != "YZ" {
		t.Fatalf("PauliName = %s, want YZ (target 0 first)", n)
	}
}
