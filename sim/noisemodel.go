package sim

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
)

// A device's noise is not in the program: a noise model says which
// channels follow which gates and how often a measurement records the
// wrong bit, and Run writes them into the circuit (Options.Noise) before it
// chooses a method, so every method runs them exactly as it runs channels
// the program wrote itself.

// NoiseModel is a device's noise: channels after gates (Rules) and wrong
// bits from measurements (ReadoutError).
type NoiseModel struct {
	// Rules say which channel follows a gate: the first rule that matches
	// the gate, in order; a gate no rule matches gets no noise. Barriers,
	// measurements, resets and the program's own channels get none.
	Rules []NoiseRule
	// ReadoutError maps a qubit to the probability that a measurement of
	// it records the opposite bit (see Op.WithReadoutError), the final
	// measurements of a circuit that measures nothing included.
	ReadoutError map[int]float64
}

// NoiseRule puts a channel after the gates it matches: every gate as the
// circuit holds it, one at a time, none merged or cancelled away first.
type NoiseRule struct {
	// Gates, when not empty, are the names of the gates the rule matches,
	// as Op.GateName gives them ("h", "cx", "inv @ s", …).
	Gates []string
	// Qubits, when above 0, matches gates on that many qubits, controls
	// included.
	Qubits int
	// On, when not empty, matches gates on exactly these qubits (in any
	// order): how a calibration gives each qubit and coupling its own.
	On []int
	// Channel is applied after a matched gate: a one-qubit channel on each
	// of the gate's qubits in turn; a wider one on the gate's qubits, its
	// controls first then its targets (qubit j of the channel is the
	// gate's j-th), and only after gates on that many qubits.
	Channel *Channel
}

// MaxNoisyOps bounds the operations of a circuit with its noise model's
// channels written in: past it Run fails before it allocates them.
const MaxNoisyOps = 1 << 21

// Validate checks the rules: each has a channel; a rule with a channel on
// k > 1 qubits matches only gates on k qubits; On lists distinct
// qubits; readout errors are probabilities.
func (m *NoiseModel) Validate() error {
	for i, r := range m.Rules {
		if r.Channel == nil {
			return fmt.Errorf("%w: noise rule %d has no channel", ErrInvalidChannel, i)
		}
		k := r.Channel.NumQubits()
		switch {
		case r.Qubits < 0:
			return fmt.Errorf("%w: noise rule %d: qubits %d is negative", ErrInvalidChannel, i, r.Qubits)
		case k > 1 && r.Qubits > 0 && r.Qubits != k:
			return fmt.Errorf("%w: noise rule %d: a %d-qubit channel cannot follow gates on %d qubits", ErrInvalidChannel, i, k, r.Qubits)
		case k > 1 && len(r.On) > 0 && len(r.On) != k:
			return fmt.Errorf("%w: noise rule %d: a %d-qubit channel cannot follow gates on the %d qubits %v", ErrInvalidChannel, i, k, len(r.On), r.On)
		}
		for j, q := range r.On {
			if q < 0 || slices.Contains(r.On[:j], q) {
				return fmt.Errorf("%w: noise rule %d: qubits %v are not distinct qubits", ErrInvalidChannel, i, r.On)
			}
		}
	}
	for q, p := range m.ReadoutError {
		if !(p >= 0 && p <= 1) {
			return fmt.Errorf("%w: readout error %v of qubit %d is not a probability in [0, 1]", ErrInvalidChannel, p, q)
		}
	}
	return nil
}

// PreparedNoise is a validated noise model indexed for its lookups, one
// per gate: what a front end that applies gates one at a time (QIR's
// interpreter) holds for a run. The model must not change while it is.
type PreparedNoise struct {
	m *NoiseModel
	// byQubits lists, in order, the rules whose On is the key's one or two
	// qubits (the smaller first, then the larger; −1 for none); others,
	// the rules without On or with more qubits in it.
	byQubits map[[2]int][]int
	others   []int
}

// Prepare validates m and indexes its rules.
func (m *NoiseModel) Prepare() (*PreparedNoise, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	p := &PreparedNoise{m: m, byQubits: map[[2]int][]int{}}
	for i, r := range m.Rules {
		switch len(r.On) {
		case 1:
			k := [2]int{r.On[0], -1}
			p.byQubits[k] = append(p.byQubits[k], i)
		case 2:
			k := [2]int{min(r.On[0], r.On[1]), max(r.On[0], r.On[1])}
			p.byQubits[k] = append(p.byQubits[k], i)
		default:
			p.others = append(p.others, i)
		}
	}
	return p, nil
}

// ReadoutError is the model's readout error of qubit q.
func (p *PreparedNoise) ReadoutError(q int) float64 { return p.m.ReadoutError[q] }

// match returns the first rule that matches gate, nil for none.
func (p *PreparedNoise) match(gate *Op) *NoiseRule {
	first := -1
	try := func(list []int) {
		for _, i := range list {
			if first >= 0 && i > first {
				return
			}
			if p.m.Rules[i].matches(gate) {
				first = i
				return
			}
		}
	}
	switch w := gate.numQubits(); w {
	case 1:
		try(p.byQubits[[2]int{gate.qubitAt(0), -1}])
	case 2:
		a, b := gate.qubitAt(0), gate.qubitAt(1)
		try(p.byQubits[[2]int{min(a, b), max(a, b)}])
	}
	try(p.others)
	if first < 0 {
		return nil
	}
	return &p.m.Rules[first]
}

func (r *NoiseRule) matches(gate *Op) bool {
	w := gate.numQubits()
	k := r.Channel.NumQubits()
	return !(r.Qubits > 0 && r.Qubits != w || k > 1 && k != w ||
		len(r.Gates) > 0 && !slices.Contains(r.Gates, gate.GateName()) ||
		len(r.On) > 0 && !sameQubits(r.On, gate))
}

func sameQubits(on []int, gate *Op) bool {
	if len(on) != gate.numQubits() {
		return false
	}
	for j := range on {
		if !slices.Contains(on, gate.qubitAt(j)) {
			return false
		}
	}
	return true
}

// gateQubits appends gate's qubits, controls first then targets, as a
// program names them.
func gateQubits(dst []int, gate *Op) []int {
	for j := range gate.NumControls() {
		dst = append(dst, gate.ControlAt(j).Qubit)
	}
	for j := range gate.NumTargets() {
		dst = append(dst, gate.TargetAt(j))
	}
	return dst
}

// AppendNoise appends to dst the noise operations that follow gate, each
// under the gate's condition and at its position.
func (p *PreparedNoise) AppendNoise(dst []Op, gate *Op) []Op {
	return p.appendNoise(dst, gate, nil)
}

// noiseTemplate keys the noise operations Apply copies: a channel under a
// condition, whose extension all its copies share.
type noiseTemplate struct {
	ch   *Channel
	cond *Condition
}

// appendNoise is AppendNoise, copying the operations from templates (nil:
// built afresh) so that a million noise operations do not each allocate
// an extension of their own.
func (p *PreparedNoise) appendNoise(dst []Op, gate *Op, templates map[noiseTemplate]Op) []Op {
	if gate.Kind != OpGate {
		return dst
	}
	r := p.match(gate)
	if r == nil {
		return dst
	}
	var buf [8]int
	qs := gateQubits(buf[:0], gate)
	emit := func(qubits ...int) {
		key := noiseTemplate{r.Channel, gate.Cond()}
		op, ok := templates[key]
		if !ok {
			op = NoiseOp(r.Channel, qubits...).WithIf(key.cond)
			if templates != nil {
				templates[key] = op
			}
		}
		op.setQubits(qubits, nil)
		op.line, op.col = gate.line, gate.col
		dst = append(dst, op)
	}
	if r.Channel.NumQubits() > 1 {
		emit(qs...)
		return dst
	}
	for _, q := range qs {
		emit(q)
	}
	return dst
}

// added counts the operations the model adds after c's gates, and says
// whether any of c's measurements gets a readout error.
func (p *PreparedNoise) added(ctx context.Context, c *Circuit) (n int, readout bool, err error) {
	tick := ticker{ctx: ctx}
	for i := range c.Ops {
		if err := tick.tick(); err != nil {
			return 0, false, err
		}
		op := &c.Ops[i]
		switch op.Kind {
		case OpGate:
			if r := p.match(op); r != nil {
				if r.Channel.NumQubits() > 1 {
					n++
				} else {
					n += op.numQubits()
				}
			}
		case OpMeasure:
			readout = readout || p.m.ReadoutError[op.Qubit()] > 0
		}
	}
	return n, readout, nil
}

// Apply returns c with the model written in: its channels after the gates
// they follow, its readout errors on the measurements (jumps still land
// on the operations they did). c is not changed. It fails when the model
// is invalid or the result would hold more than MaxNoisyOps operations,
// before allocating them.
func (m *NoiseModel) Apply(ctx context.Context, c *Circuit) (*Circuit, error) {
	p, err := m.Prepare()
	if err != nil {
		return nil, err
	}
	added, _, err := p.added(ctx, c)
	if err != nil {
		return nil, err
	}
	if total := len(c.Ops) + added; total > MaxNoisyOps {
		return nil, fmt.Errorf("%w: with its noise model's channels the circuit has %d operations, over the limit of %d", ErrInvalidCircuit, total, MaxNoisyOps)
	}
	out := &Circuit{NumQubits: c.NumQubits, NumClbits: c.NumClbits, Ops: make([]Op, 0, len(c.Ops)+added)}
	// at[i] is where c's operation i lands; jumps are moved there after.
	var at []int32
	if slices.ContainsFunc(c.Ops, func(op Op) bool { return op.Kind == OpJump }) {
		at = make([]int32, len(c.Ops)+1)
	}
	templates := make(map[noiseTemplate]Op)
	tick := ticker{ctx: ctx}
	for i := range c.Ops {
		if err := tick.tick(); err != nil {
			return nil, err
		}
		if at != nil {
			at[i] = int32(len(out.Ops))
		}
		op := c.Ops[i]
		if op.Kind == OpMeasure {
			if r := m.ReadoutError[op.Qubit()]; r > 0 {
				op = op.WithReadoutError(r)
			}
		}
		out.Ops = append(out.Ops, op)
		out.Ops = p.appendNoise(out.Ops, &op, templates)
	}
	if at != nil {
		at[len(c.Ops)] = int32(len(out.Ops))
		for i := range out.Ops {
			if op := &out.Ops[i]; op.Kind == OpJump {
				if t := op.JumpTarget(); t >= 0 && t <= len(c.Ops) {
					op.SetJumpTarget(int(at[t]))
				}
			}
		}
	}
	return out, nil
}

// withNoise returns c with opts.Noise written in (c itself without one),
// and whether the measurements Run adds at the end of a circuit that
// measures nothing get readout errors.
func withNoise(ctx context.Context, c *Circuit, opts Options) (*Circuit, bool, error) {
	m := opts.Noise
	if m == nil {
		return c, false, nil
	}
	noisy, err := m.Apply(ctx, c)
	if err != nil {
		return nil, false, err
	}
	end := false
	if !c.hasMeasure() {
		for q, r := range m.ReadoutError {
			end = end || r > 0 && q < c.NumQubits
		}
	}
	return noisy, end, nil
}

// readoutsOf returns, for each bit of a key, the readout error of the
// measurement whose outcome it holds (as sourcesOf), or nil when none has
// one.
func readoutsOf(c *Circuit, extra []Op, k keys) []float64 {
	r := make([]float64, c.NumClbits+len(extra))
	any := false
	for _, ops := range [][]Op{c.Ops, extra} {
		for i := range ops {
			if op := &ops[i]; op.Kind == OpMeasure {
				r[op.Bit()] = op.ReadoutError()
				any = any || r[op.Bit()] > 0
			}
		}
	}
	if !any {
		return nil
	}
	return r[k.from:k.to]
}

// misreadCounts flips each bit of each shot's key with its readout error
// (bit i of a key is its (i+1)-th character from the right), shot by
// shot: the readout errors of a run whose outcomes were drawn without
// them.
func misreadCounts(ctx context.Context, counts map[string]int, readout []float64, rng *rand.Rand, lim outcomeLimit) (map[string]int, error) {
	out := make(map[string]int, len(counts))
	keys := slices.Sorted(maps.Keys(counts)) // a seed gives the same counts
	buf := make([]byte, len(readout))
	tick := ticker{ctx: ctx}
	for _, k := range keys {
		for range counts[k] {
			if err := tick.step(len(readout)); err != nil {
				return nil, err
			}
			copy(buf, k)
			for i, r := range readout {
				if r > 0 && rng.Float64() < r {
					buf[len(buf)-1-i] ^= '0' ^ '1'
				}
			}
			if _, seen := out[string(buf)]; !seen && len(out) >= lim.max {
				return nil, lim.err()
			}
			out[string(buf)]++
		}
	}
	return out, nil
}

// OnQubits returns m for a circuit of the qubits given, qubit i of it
// being qubits[i] here: the model of a circuit Compact renumbered. Rules
// on a qubit not among them are left out (no gate can match them); m is
// not changed.
func (m *NoiseModel) OnQubits(qubits []int) *NoiseModel {
	to := make(map[int]int, len(qubits))
	for i, q := range qubits {
		to[q] = i
	}
	out := &NoiseModel{Rules: make([]NoiseRule, 0, len(m.Rules))}
rules:
	for _, r := range m.Rules {
		if len(r.On) > 0 {
			on := make([]int, len(r.On))
			for j, q := range r.On {
				n, ok := to[q]
				if !ok {
					continue rules
				}
				on[j] = n
			}
			r.On = on
		}
		out.Rules = append(out.Rules, r)
	}
	for q, p := range m.ReadoutError {
		if n, ok := to[q]; ok {
			if out.ReadoutError == nil {
				out.ReadoutError = map[int]float64{}
			}
			out.ReadoutError[n] = p
		}
	}
	return out
}
