package sim

import (
	"context"
	"fmt"
)

// Static control flow. A circuit whose conditions and expressions read only
// bits that no measurement writes takes the same path on every shot: its
// jumps, its loops, its conditional gates go the same way whatever the
// outcomes. When its measurements are also terminal, as judged with its
// loops in mind, the state vector runs it once, as a stream: the classical
// operations are executed as they come, and the gates they reach are
// handed to fusion and applied a chunk of headChunk at a time, as the
// gates of a circuit without control are. The shots are then sampled from
// the final state. A loop of a million iterations is thus simulated once,
// not once per shot, and never held unrolled.
//
// Work is charged as the stream runs (steps.go): each operation it
// executes streamStepWork a step, each fused chunk its kernels' passes,
// against Options.MaxWork; the context is checked every ctxCheckEvery
// operations.
// Options.MaxSteps, the endless-loop detector of a shot, does not apply:
// the stream is the whole run, not a shot, and MaxWork bounds it (a loop
// that never ends fails with ErrWorkLimit).
//
// The other methods run such circuits as they run any circuit with
// classical control: the stabilizer, the sparse method and trajectories
// shot by shot (each shot bounded by MaxSteps), the density matrix not at
// all.

// sourceOne stands in a sampling source for a key bit that every shot
// ends with 1: a bit a classical operation of the stream wrote last.
const sourceOne = -2

// maxCondDepth bounds the nesting staticFlow follows in a condition or an
// expression (Validate's limits): past it the circuit is judged dynamic.
const maxCondDepth = maxExprDepth + 1

// staticFlow reports whether c's control flow is the same on every shot
// and its measurements are terminal with its loops taken into account: it
// resets nothing; no condition or expression reads a bit that a
// measurement writes; and after a measurement of a qubit nothing acts on
// it, where "after" includes whatever a jump back over the measurement
// runs again. It reads indices as they are (an index out of range makes
// the circuit not static) and allocates a few bits per qubit and
// classical bit.
func staticFlow(ctx context.Context, c *Circuit) (bool, error) {
	if c.NumClbits < 0 || c.NumClbits > MaxClbits || c.NumQubits < 0 {
		return false, nil
	}
	measured := newBitset(c.NumClbits)
	// lo is the first operation a jump back leads to: every operation from
	// there on may run after any operation inside such a loop.
	lo := len(c.Ops)
	tick := ticker{ctx: ctx}
	for i := range c.Ops {
		if err := tick.tick(); err != nil {
			return false, err
		}
		switch op := &c.Ops[i]; op.Kind {
		case OpReset:
			return false, nil
		case OpMeasure:
			if !measured.set(op.Bit()) {
				return false, nil
			}
		case OpJump:
			if t := op.JumpTarget(); t <= i {
				lo = max(min(lo, t), 0)
			}
		}
	}
	// fromLo: the qubits that operations from lo on act on.
	fromLo := newBitset(c.NumQubits)
	for i := range c.Ops {
		op := &c.Ops[i]
		nodes := 0
		if cond := op.Cond(); cond != nil && !condStatic(cond, measured, 0, &nodes) {
			return false, nil
		}
		if e := op.Expr(); e != nil && !exprStatic(e, measured, 0, &nodes) {
			return false, nil
		}
		if err := tick.step(1 + nodes); err != nil {
			return false, err
		}
		if i >= lo && (op.Kind == OpGate || op.Kind == OpNoise) {
			for j := range op.numQubits() {
				if !fromLo.set(op.qubitAt(j)) {
					return false, nil
				}
			}
		}
	}
	// Backwards, after holds the qubits that operations past the one seen
	// act on, and back the least target of the jumps back seen: a
	// measurement at or past it is inside a loop, and whatever runs from
	// lo on may run after it.
	after := newBitset(c.NumQubits)
	back := len(c.Ops)
	for i := len(c.Ops) - 1; i >= 0; i-- {
		if err := tick.tick(); err != nil {
			return false, err
		}
		op := &c.Ops[i]
		switch op.Kind {
		case OpJump:
			if t := op.JumpTarget(); t <= i {
				back = min(back, t)
			}
		case OpMeasure:
			q := op.Qubit()
			if q < 0 || q >= c.NumQubits || after.has(q) || back <= i && fromLo.has(q) {
				return false, nil
			}
		case OpGate, OpNoise:
			for j := range op.numQubits() {
				q := op.qubitAt(j)
				if !after.set(q) {
					return false, nil
				}
			}
		}
	}
	return true, nil
}

// condStatic and exprStatic report whether a condition or an expression
// reads no measured bit, within maxCondDepth levels and maxExprNodes nodes
// (counted in nodes) in all.
func condStatic(c *Condition, measured bitset, depth int, nodes *int) bool {
	if c == nil || depth > maxCondDepth || countNode(nodes) != nil {
		return false
	}
	for _, b := range c.Bits {
		if measured.has(b) {
			return false
		}
	}
	for _, a := range c.Args {
		if !condStatic(a, measured, depth+1, nodes) {
			return false
		}
	}
	return true
}

func exprStatic(e *Expr, measured bitset, depth int, nodes *int) bool {
	if e == nil || depth > maxCondDepth || countNode(nodes) != nil {
		return false
	}
	for _, b := range e.Bits {
		if measured.has(b) {
			return false
		}
	}
	if e.Cond != nil && !condStatic(e.Cond, measured, depth+1, nodes) {
		return false
	}
	for _, a := range e.Args {
		if !exprStatic(a, measured, depth+1, nodes) {
			return false
		}
	}
	return true
}

// bitset is a set of indices from 0 to its size.
type bitset struct {
	words []uint64
	n     int
}

func newBitset(n int) bitset { return bitset{make([]uint64, (n+63)/64), n} }

// set adds i and reports whether it is in range (nothing is added when it
// is not).
func (s bitset) set(i int) bool {
	if i < 0 || i >= s.n {
		return false
	}
	s.words[i/64] |= 1 << (i % 64)
	return true
}

// has reports whether i is in the set; an index out of range reads as in
// it, so that a check of it fails safe.
func (s bitset) has(i int) bool {
	if i < 0 || i >= s.n {
		return true
	}
	return s.words[i/64]>>(i%64)&1 == 1
}

// streamRun is what a run of a stream leaves besides the state: the
// classical bits as its operations left them, and for each bit the qubit
// whose measurement it received last, or −1 when an operation of the
// stream (or none) wrote it last.
type streamRun struct {
	clbits []bool
	source []int
}

// sources is the sampling source of each key bit from k.from to k.to
// (see sample): a measured qubit, or for a bit the classical operations
// wrote last its value, −1 for 0 and sourceOne for 1.
func (r *streamRun) sources(k keys) []int {
	out := make([]int, k.width())
	for b := range out {
		out[b] = r.source[k.from+b]
		if out[b] < 0 && r.clbits[k.from+b] {
			out[b] = sourceOne
		}
	}
	return out
}

// applyStream runs p's operations once from the first, following its
// jumps and conditions on the classical bits, and applies the gates they
// reach to s, fused between barriers a chunk of headChunk gates at a time.
// Each operation's steps are charged to budget (nil: no bound) before it
// runs, each chunk's kernels before they are applied.
func (p *prepared) applyStream(ctx context.Context, s *State, budget *workBudget) (*streamRun, error) {
	enter("stream")
	run := &streamRun{clbits: make([]bool, p.numClbits), source: make([]int, p.numClbits)}
	for i := range run.source {
		run.source[i] = -1
	}
	chunk := make([]*Op, 0, headChunk)
	var work int64 // charged since the last chunk was applied
	flush := func() error {
		if budget != nil {
			budget.left -= work
		}
		work = 0
		if len(chunk) == 0 {
			return nil
		}
		ks, err := fuseBest(ctx, chunk, s.n, p.fusion)
		chunk = chunk[:0]
		if err != nil {
			return err
		}
		if budget != nil {
			if err := budget.charge(headWork(ks, s.n)); err != nil {
				return err
			}
		}
		return s.applyAll(ctx, ks)
	}
	for n, pc := 0, 0; pc < len(p.ops); n++ {
		if n%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		op := &p.ops[pc]
		if work += op.work; budget != nil && work > budget.left {
			return nil, budget.exceeded()
		}
		pc++
		if c := op.Cond(); c != nil && !c.Eval(run.clbits) {
			continue
		}
		switch op.Kind {
		case OpGate:
			if chunk = append(chunk, op.Op); len(chunk) == headChunk {
				if err := flush(); err != nil {
					return nil, err
				}
			}
		case OpBarrier:
			if err := flush(); err != nil {
				return nil, err
			}
		case OpMeasure:
			// terminal: the shots sample it from the final state
			run.source[op.Bit()] = op.Qubit()
		case OpSetBits, OpCompute:
			if err := classical(op.Op, run.clbits, pc-1); err != nil {
				return nil, err
			}
			for _, b := range op.Bits() {
				run.source[b] = -1
			}
		case OpJump:
			pc = op.JumpTarget()
		default:
			return nil, fmt.Errorf("%w: %s in a circuit run once", ErrInvalidCircuit, opWhere(pc-1, op.Op))
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return run, ctx.Err()
}

// streamStepWork is the work of a step of a stream: executing an
// operation, and fusing it when it is a gate, whatever the state's size
// (its kernel's passes are charged apart, with its chunk). Measured on
// AMD EPYC, a classical step takes 30 to 60 ns and a gate 70 to 90 ns
// to fuse, where the unit of work is about a nanosecond: at 64 the default
// MaxWork ends a loop on one qubit that never ends in about a minute, as
// it ends one on 20 qubits.
const streamStepWork = 64

// streamCosts sets the work of each operation of a stream: streamStepWork
// for each of its steps (one, and one more per nodeCost nodes of its
// condition and expression).
func (p *prepared) streamCosts(ctx context.Context) error {
	tick := ticker{ctx: ctx}
	for i := range p.ops {
		op := &p.ops[i]
		nodes := evalNodes(op.Op)
		if err := tick.step(1 + nodes); err != nil {
			return err
		}
		op.cost = 1 + int64(nodes/nodeCost)
		op.work = streamStepWork * op.cost
	}
	return nil
}
