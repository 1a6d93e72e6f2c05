package devices

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/sim"
)

// A job names its noise in runtimeOptions.noiseModel, one of its device's
// NoiseModels; the device says what each name is (Device.Noise, or the
// simulators' own models below), and the backend runs the program with
// that model written in after every gate (sim.NoiseModel). decisions.md,
// "Noise", fixes the names and strengths.

// NoiseIdeal is the model without noise, on every device that has models.
const NoiseIdeal = "ideal"

// SimulatorNoiseModels are the models of the built-in simulators, in the
// public SDK's names: each non-ideal one applies its channel with strength
// 0.01 after every gate, on each qubit the gate acts on, one qubit at a
// time; depolarizing applies two_qubit_depolarizing(0.02) to the pair
// after a two-qubit gate instead. A device of one's own that lists one of
// these names in NoiseModels without a model of its own in Noise gets it.
var SimulatorNoiseModels = []string{NoiseIdeal, "depolarizing", "amplitude_damping", "phase_damping", "bit_flip", "phase_flip"}

// Strengths of the simulators' models.
const (
	simulatorNoise         = 0.01
	simulatorTwoQubitNoise = 0.02
)

var simulatorModels = sync.OnceValue(func() map[string]*sim.NoiseModel {
	must := func(ch *sim.Channel, err error) *sim.Channel {
		if err != nil {
			panic(err) // fixed parameters within every range
		}
		return ch
	}
	every := func(ch *sim.Channel) *sim.NoiseModel {
		return &sim.NoiseModel{Rules: []sim.NoiseRule{{Channel: ch}}}
	}
	return map[string]*sim.NoiseModel{
		"depolarizing": {Rules: []sim.NoiseRule{
			{Qubits: 2, Channel: must(sim.TwoQubitDepolarizing(simulatorTwoQubitNoise))},
			{Channel: must(sim.Depolarizing(simulatorNoise))},
		}},
		"amplitude_damping": every(must(sim.AmplitudeDamping(simulatorNoise))),
		"phase_damping":     every(must(sim.PhaseDamping(simulatorNoise))),
		"bit_flip":          every(must(sim.BitFlip(simulatorNoise))),
		"phase_flip":        every(must(sim.PhaseFlip(simulatorNoise))),
	}
})

// SetUpNoise checks a device's noise models when it is registered and
// fills in what follows from the rest: a QPU with a calibration gets its
// calibration's model (calibrationModel) under its name, the default,
// when it has no models of its own or lists its name without defining
// it; models in Noise that NoiseModels does not list are listed after
// "ideal".
func SetUpNoise(d *qtype.Device) error {
	if d.DeviceType == qtype.DeviceQPU && d.Calibration != nil && d.Noise[d.Name] == nil &&
		(d.NoiseModels == nil && len(d.Noise) == 0 || slices.Contains(d.NoiseModels, d.Name)) {
		m, err := calibrationModel(d.Calibration)
		if err != nil {
			return err
		}
		d.Noise = maps.Clone(d.Noise)
		if d.Noise == nil {
			d.Noise = map[string]*sim.NoiseModel{}
		}
		d.Noise[d.Name] = m
		if d.NoiseModels == nil {
			d.NoiseModels = []string{NoiseIdeal, d.Name}
		}
		if d.DefaultNoiseModel == "" {
			d.DefaultNoiseModel = d.Name
		}
	}
	if d.NoiseModels == nil && len(d.Noise) > 0 {
		d.NoiseModels = append([]string{NoiseIdeal}, slices.Sorted(maps.Keys(d.Noise))...)
	}
	for name, m := range d.Noise {
		switch {
		case name == NoiseIdeal:
			return fmt.Errorf("noise: %q is no noise and has no model", NoiseIdeal)
		case !slices.Contains(d.NoiseModels, name):
			return fmt.Errorf("noise: model %q is not one of noiseModels %v", name, d.NoiseModels)
		case m == nil:
			return fmt.Errorf("noise: model %q is nil", name)
		}
		if err := m.Validate(); err != nil {
			return fmt.Errorf("noise: model %q: %w", name, err)
		}
	}
	for i, name := range d.NoiseModels {
		if slices.Contains(d.NoiseModels[:i], name) {
			return fmt.Errorf("noise: noiseModels lists %q twice", name)
		}
		// A device of another paradigm (an analog device) defines its
		// models in its own backend.
		gateModel := d.Paradigm == "" || d.Paradigm == "gate_model"
		if gateModel && name != NoiseIdeal && d.Noise[name] == nil && simulatorModels()[name] == nil {
			return fmt.Errorf("noise: model %q has no definition: Device.Noise has none and it is not one of the simulators' models (%s)", name, strings.Join(SimulatorNoiseModels, ", "))
		}
	}
	if d.DefaultNoiseModel != "" && !slices.Contains(d.NoiseModels, d.DefaultNoiseModel) {
		return fmt.Errorf("noise: the default model %q is not one of noiseModels %v", d.DefaultNoiseModel, d.NoiseModels)
	}
	return nil
}

// noiseOf returns the model a task runs with and its name: the one
// runtimeOptions.noiseModel names (create checked it is the device's),
// else the device's default; nil and "" for none or ideal.
func noiseOf(t qtype.Task) (*sim.NoiseModel, string) {
	name, _ := t.RuntimeOptions["noiseModel"].(string)
	if name == "" && t.Device != nil {
		name = t.Device.DefaultNoiseModel
	}
	if name == "" || name == NoiseIdeal || t.Device == nil {
		return nil, ""
	}
	if m := t.Device.Noise[name]; m != nil {
		return m, name
	}
	if m := simulatorModels()[name]; m != nil {
		return m, name
	}
	return nil, ""
}

// calibrationModel is a QPU's own noise, from its calibration document
// (decisions.md, "QPU devices"): depolarizing(rb) after each one-qubit
// gate on a qubit, rb its randomized-benchmarking error as it is;
// two_qubit_depolarizing(e) after each two-qubit gate on a coupled pair,
// e the largest error any of the pair's edges lists; each measured bit
// flipped with its qubit's readout error. Gates the document says nothing
// of (on three or more qubits, or on qubits or pairs without an entry)
// get depolarizing with the mean rb of the document on each qubit.
func calibrationModel(c *qtype.Calibration) (*sim.NoiseModel, error) {
	m := &sim.NoiseModel{ReadoutError: map[int]float64{}}
	var sum float64
	for _, q := range slices.Sorted(maps.Keys(c.Qubits)) {
		qc := c.Qubits[q]
		sum += qc.GateErrorRB
		if qc.ReadoutError != nil && *qc.ReadoutError > 0 {
			m.ReadoutError[q] = *qc.ReadoutError
		}
		if qc.GateErrorRB == 0 {
			continue
		}
		ch, err := cachedChannel(channelKey{"depolarizing", qc.GateErrorRB}, sim.Depolarizing)
		if err != nil {
			return nil, fmt.Errorf("calibration: qubit %d: gate error %v: %w", q, qc.GateErrorRB, err)
		}
		m.Rules = append(m.Rules, sim.NoiseRule{Qubits: 1, On: []int{q}, Channel: ch})
	}
	worst := map[[2]int]float64{}
	for _, e := range c.Edges {
		p := [2]int{min(e.Source, e.Target), max(e.Source, e.Target)}
		worst[p] = max(worst[p], e.Value)
	}
	for _, p := range slices.SortedFunc(maps.Keys(worst), cmpPair) {
		if worst[p] == 0 {
			continue
		}
		ch, err := cachedChannel(channelKey{"two_qubit_depolarizing", worst[p]}, sim.TwoQubitDepolarizing)
		if err != nil {
			return nil, fmt.Errorf("calibration: edge %d-%d: error %v: %w", p[0], p[1], worst[p], err)
		}
		m.Rules = append(m.Rules, sim.NoiseRule{Qubits: 2, On: []int{p[0], p[1]}, Channel: ch})
	}
	if len(c.Qubits) > 0 && sum > 0 {
		ch, err := cachedChannel(channelKey{"depolarizing", sum / float64(len(c.Qubits))}, sim.Depolarizing)
		if err != nil {
			return nil, fmt.Errorf("calibration: mean gate error %v: %w", sum/float64(len(c.Qubits)), err)
		}
		m.Rules = append(m.Rules, sim.NoiseRule{Channel: ch})
	}
	return m, nil
}

// Calibrations repeat their values (three significant digits, the same
// calibration at every start), and a two-qubit channel is 16 matrices:
// channels are built once per process, by value, and shared (a channel is
// never changed once built).
type channelKey struct {
	name string
	p    float64
}

var (
	channels    sync.Map // channelKey → *sim.Channel
	channelsLen atomic.Int64
)

// maxCachedChannels bounds the cache (a few MiB): past it, the devices of
// a process that registers calibrations by the thousand build their own.
const maxCachedChannels = 4096

func cachedChannel(k channelKey, build func(float64) (*sim.Channel, error)) (*sim.Channel, error) {
	if ch, ok := channels.Load(k); ok {
		return ch.(*sim.Channel), nil
	}
	ch, err := build(k.p)
	if err != nil || channelsLen.Load() >= maxCachedChannels {
		return ch, err
	}
	got, loaded := channels.LoadOrStore(k, ch)
	if !loaded {
		channelsLen.Add(1)
	}
	return got.(*sim.Channel), nil
}

func cmpPair(a, b [2]int) int {
	if a[0] != b[0] {
		return a[0] - b[0]
	}
	return a[1] - b[1]
}
