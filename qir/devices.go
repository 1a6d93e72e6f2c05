package qir

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"

	"github.com/qjobs/quantum/sim"
)

// The two devices the interpreter runs on.

// tracer writes the program's quantum operations into a sim circuit. It
// works for a program whose operations are the same every shot: one that
// never reads a measured result. A read stops it with errDynamic.
type tracer struct {
	circ    sim.Circuit
	bitOf   []int // result id → the classical bit of its latest measurement, −1 none
	records []int // classical bits in record order; −1 a result never measured
	maxOps  int
	// bytes is what the circuit holds so far, against maxTraceBytes.
	bytes int64
	// resets is, by qubit, the index in circ.Ops of the qubit's latest
	// reset when nothing has touched the qubit since, else −1.
	resets []int
}

// maxTraceBytes bounds the memory of a traced circuit: past it the
// program runs shot by shot, which holds no circuit.
const maxTraceBytes = 64 << 20

// opBytes is what an operation without an extension holds.
var opBytes = int(sim.Op{}.Bytes())

// errTraceLong stops a trace past maxOps: the program runs shot by shot.
var errTraceLong = errors.New("the program's trace is too long")

func (t *tracer) add(op sim.Op) error {
	if t.bytes += op.Bytes(); len(t.circ.Ops) >= t.maxOps || t.bytes > maxTraceBytes {
		return errTraceLong
	}
	t.circ.Ops = append(t.circ.Ops, op)
	return nil
}

func (t *tracer) gate(op sim.Op) error {
	for i := range op.NumTargets() {
		t.touch(op.TargetAt(i))
	}
	for i := range op.NumControls() {
		t.touch(op.ControlAt(i).Qubit)
	}
	return t.add(op)
}

// touch marks an operation on q: a reset before it is not the last.
func (t *tracer) touch(q int) {
	if q < len(t.resets) {
		t.resets[q] = -1
	}
}

func (t *tracer) measure(q, r int) error {
	t.touch(q)
	for len(t.bitOf) <= r {
		t.bitOf = append(t.bitOf, -1)
	}
	t.bitOf[r] = t.circ.NumClbits
	t.circ.NumClbits++
	return t.add(sim.MeasureOp(q, t.bitOf[r]))
}

func (t *tracer) reset(q int) error {
	if err := t.add(sim.ResetOp(q)); err != nil {
		return err
	}
	for len(t.resets) <= q {
		t.resets = append(t.resets, -1)
	}
	t.resets[q] = len(t.circ.Ops) - 1
	return nil
}

// withoutLastResets is ops without the resets that end their qubit's
// operations. Such a reset changes no measurement's outcome, since it acts
// on its qubit alone and nothing reads the qubit after; left in, it would
// make the circuit run shot by shot, and MQT ends every program by
// releasing (resetting) its qubits.
func (t *tracer) withoutLastResets(ops []sim.Op) []sim.Op {
	var drop []int
	for _, i := range t.resets {
		if i >= 0 {
			drop = append(drop, i)
		}
	}
	if len(drop) == 0 {
		return ops
	}
	slices.Sort(drop)
	out := ops[:drop[0]]
	for k, i := range drop {
		end := len(ops)
		if k+1 < len(drop) {
			end = drop[k+1]
		}
		out = append(out, ops[i+1:end]...)
	}
	return out
}

func (t *tracer) bit(r int) int {
	if r < 0 || r >= len(t.bitOf) {
		return -1
	}
	return t.bitOf[r]
}

func (t *tracer) read(r int) (bool, error) {
	if t.bit(r) < 0 {
		return false, nil // never written: 0, the same every shot
	}
	return false, errDynamic
}

func (t *tracer) record(r int) error {
	if r == resultOne {
		return errDynamic // a constant 1 bit: rare enough to run shot by shot
	}
	if len(t.records) >= maxRecords {
		return fmt.Errorf("more than %d results recorded in a shot", maxRecords)
	}
	t.records = append(t.records, t.bit(r))
	return nil
}

// maxRecords bounds the results a shot records: the width of a count's key.
const maxRecords = 1 << 16

// circuit finishes the trace: recorded result i becomes classical bit i,
// the other measurements' bits follow. ok is false when the records do
// not map onto bits one to one (a result recorded twice, or records but
// no measurement): the program then runs shot by shot.
func (t *tracer) circuit(qubits int) (c *sim.Circuit, resultBits int, ok bool) {
	c = &t.circ
	c.NumQubits = qubits
	nrec := len(t.records)
	measured := false
	for _, op := range c.Ops {
		measured = measured || op.Kind == sim.OpMeasure
	}
	if nrec == 0 {
		// Nothing recorded: every qubit is measured at the end, qubit i
		// into bit i, after the program's own measurements' bits.
		remap := func(b int) int { return b + qubits }
		for i := range c.Ops {
			if op := &c.Ops[i]; op.Kind == sim.OpMeasure {
				op.SetBit(remap(op.Bit()))
			}
		}
		n := c.NumClbits
		for q := range qubits {
			c.Ops = append(c.Ops, sim.MeasureOp(q, q))
		}
		c.NumClbits = n + qubits
		return c, qubits, true
	}
	if !measured {
		return nil, 0, false
	}
	c.Ops = t.withoutLastResets(c.Ops)
	newBit := make([]int, c.NumClbits)
	for i := range newBit {
		newBit[i] = -1
	}
	for k, b := range t.records {
		if b >= 0 {
			if newBit[b] >= 0 {
				return nil, 0, false
			}
			newBit[b] = k
		}
	}
	next := nrec
	for i := range newBit {
		if newBit[i] < 0 {
			newBit[i] = next
			next++
		}
	}
	for i := range c.Ops {
		if op := &c.Ops[i]; op.Kind == sim.OpMeasure {
			op.SetBit(newBit[op.Bit()])
		}
	}
	// Records of never-measured results are bits nothing writes: 0.
	c.NumClbits = next
	return c, nrec, true
}

// live runs shots on a state vector.
type live struct {
	ctx context.Context
	st  sim.ShotState
	rng *rand.Rand
	res []bool // result values by id
	rec []byte // this shot's records, '0' or '1', in record order
	// force, when set, chooses measurement outcomes instead of rng: the
	// exact enumeration of a program's outcomes in tests.
	force func(q int) (bool, error)
	work  *work
	// noise, when not nil, is the device's noise model: its channels
	// after each gate, its readout errors on each measurement.
	noise    *sim.PreparedNoise
	noiseOps []sim.Op
}

// passes charges k passes over the state.
func (l *live) passes(k int) error { return l.work.charge(l.st.Work(k)) }

func (l *live) gate(op sim.Op) error {
	if err := l.passes(1); err != nil {
		return err
	}
	if err := l.st.ApplyOp(l.ctx, op); err != nil || l.noise == nil {
		return err
	}
	l.noiseOps = l.noise.AppendNoise(l.noiseOps[:0], &op)
	for i := range l.noiseOps {
		n := &l.noiseOps[i]
		qs := make([]int, n.NumTargets())
		for j := range qs {
			qs[j] = n.TargetAt(j)
		}
		// A branch's probabilities take a pass, applying it another.
		if err := l.passes(2); err != nil {
			return err
		}
		if err := l.st.ApplyChannel(l.ctx, n.Channel(), l.rng, qs...); err != nil {
			return err
		}
	}
	return nil
}

// misread is the bit a measurement of q records when it found one: wrong
// with the noise model's readout error of q.
func (l *live) misread(q int, one bool) bool {
	if l.noise == nil || l.force != nil {
		return one
	}
	if r := l.noise.ReadoutError(q); r > 0 && l.rng.Float64() < r {
		return !one
	}
	return one
}

func (l *live) outcome(q int) (bool, error) {
	if l.force != nil {
		return l.force(q)
	}
	return l.st.Measure(l.ctx, q, l.rng)
}

func (l *live) measure(q, r int) error {
	if err := l.passes(2); err != nil {
		return err
	}
	one, err := l.outcome(q)
	if err != nil {
		return err
	}
	one = l.misread(q, one)
	for len(l.res) <= r {
		l.res = append(l.res, false)
	}
	l.res[r] = one
	return nil
}

func (l *live) reset(q int) error {
	if err := l.passes(3); err != nil {
		return err
	}
	if l.force == nil {
		return l.st.ResetQubit(l.ctx, q, l.rng)
	}
	one, err := l.force(q)
	if err != nil || !one {
		return err
	}
	x, _ := sim.LookupGate("x")
	op, _ := x.Op(nil, q)
	return l.gate(op)
}

func (l *live) read(r int) (bool, error) {
	if r < 0 || r >= len(l.res) {
		return false, nil
	}
	return l.res[r], nil
}

func (l *live) record(r int) error {
	if len(l.rec) >= maxRecords {
		return fmt.Errorf("more than %d results recorded in a shot", maxRecords)
	}
	b, _ := l.read(r)
	if r == resultOne {
		b = true
	}
	c := byte('0')
	if b {
		c = '1'
	}
	l.rec = append(l.rec, c)
	return nil
}

// key is the shot's count key: recorded result 0 rightmost; with no
// records, every qubit measured now, qubit 0 rightmost.
func (l *live) key() (string, error) {
	if len(l.rec) == 0 {
		for q := range l.st.NumQubits() {
			one, err := l.outcome(q)
			if err != nil {
				return "", err
			}
			one = l.misread(q, one)
			c := byte('0')
			if one {
				c = '1'
			}
			l.rec = append(l.rec, c)
		}
	}
	k := make([]byte, len(l.rec))
	for i, c := range l.rec {
		k[len(k)-1-i] = c
	}
	return string(k), nil
}
