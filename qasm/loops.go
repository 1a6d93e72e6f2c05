package qasm

import (
	"math"
	"math/bits"

	"github.com/qjobs/quantum/sim"
)

// Loops kept as loops. Unrolled, a for loop costs what all its iterations
// emit, so a million iterations of one gate would be a million operations.
// A loop whose iterations all lower to the same operations needs them only
// once: its body, run as many times as the loop says by a counter in
// classical bits and a jump back, which sim follows (and, when no
// measurement steers the jump, runs once for every shot). The compile then
// stores the body once and MaxOps and MaxBytes count what is stored;
// MaxLoopIterations no longer bounds such a loop: sim bounds the work it
// does when it runs (Options.MaxWork).
//
// Whether the iterations lower alike is decided by lowering them, not by
// reading the body. Lowering is deterministic: an iteration's operations
// and the state it leaves follow from the compiler's state when it
// starts. So when an iteration begins and ends in the same state, and
// nothing else it could depend on changed, every later iteration lowers
// to the same operations:
//
//   - it did not read the loop's variable (the one thing that differs from
//     iteration to iteration);
//   - it wrote no compile-time variable of a scope around the body;
//   - it handed out no classical bit that was not handed out before;
//   - what is known of every bit at compile time is what it was before
//     it: the known values that fold conditions away;
//   - its operations jump only within themselves or to their end.
//
// The first iteration is tried this way, cheaply (by counting writes of
// what is known, rather than comparing it); a body that only applies
// gates passes, and the loop is that first iteration run n times. When the
// first iteration changed what is known (a bit measured, a register
// reset), the second is tried against the first by comparing everything
// known: iterations 2 to n are then the second one, run n−1 times.
// Otherwise the loop unrolls as it always did. An iteration that passes
// and emits nothing ends the loop there: every later one would emit
// nothing as well.
//
// A body that holds break, continue, return or end (its own, not an inner
// loop's) is unrolled: they leave the body from the middle. So is a loop
// inside a gate definition, which is unitary and holds no jumps, and a
// small loop (keepOps) that emits something: unrolled, its gates fuse and
// run without a classical step between them, and every method runs it as
// it always has.
//
// A kept loop is, after its body:
//
//	ctr = ctr + 1
//	jump top if ctr != n
//	ctr = 0
//
// Its counter is bits of its own, by the depth of for loops it sits in, so
// that a loop inside another's body counts with other bits; every kept
// loop leaves its counter at 0, as every shot starts. The counters are
// handed out apart from the other bits, so a second iteration of an outer
// loop whose inner loop took a counter in the first hands out nothing new.

// keepOps is the size from which a loop is kept as a loop when it can be:
// its iterations times what one emits. Below it the loop unrolls.
const keepOps = 4096

// trial is an iteration of a loop on trial: the compiler's state when it
// began.
type trial struct {
	start       int // the first operation it emitted
	endJumps    int
	nOut        int
	scratchMax  int
	nPerm       int
	epoch       uint32
	knownWrites uint64
	writeDepth  int    // c.writeDepth of the trials around this one
	known       []int8 // what was known of every bit, for the second iteration
}

// begin starts a trial of the next iteration; full takes what is known
// of every bit, to compare it after.
func (c *compiler) begin(p position, full bool) *trial {
	c.charge(p, 128)
	t := &trial{start: len(c.ops), endJumps: len(c.endJumps), nOut: c.nOut, scratchMax: c.scratchMax,
		nPerm: c.nPerm, epoch: c.epoch, knownWrites: c.knownWrites, writeDepth: c.writeDepth}
	if full {
		t.known = c.knowledge(p)
	}
	c.writeDepth = math.MaxInt
	return t
}

// end ends the trial t and, with check, reports whether the iteration
// left the compiler as it found it (see above); body is the depth of the
// iteration's scope, loopVar the loop's variable, k how the iteration
// ended.
func (c *compiler) end(p position, t *trial, check bool, body int, loopVar *symbol, k ctl) bool {
	wrote := c.writeDepth
	c.writeDepth = min(t.writeDepth, wrote)
	same := check && k == ctlNone && !loopVar.read && wrote >= body && len(c.endJumps) == t.endJumps &&
		c.nOut == t.nOut && c.scratchMax == t.scratchMax && c.nPerm == t.nPerm
	if !same {
		return false
	}
	if t.known == nil {
		same = c.epoch == t.epoch && c.knownWrites == t.knownWrites
	} else {
		now := c.knowledge(p)
		for i := range now {
			if now[i] != t.known[i] {
				same = false
				break
			}
		}
	}
	if !same {
		return false
	}
	// Its jumps: to its own operations or its end, where the next
	// iteration begins.
	for i := t.start; i < len(c.ops); i++ {
		c.poll.tick()
		if op := &c.ops[i]; op.Kind == sim.OpJump && (op.JumpTarget() < t.start || op.JumpTarget() > len(c.ops)) {
			return false
		}
	}
	return true
}

// knowledge is what is known of every bit handed out, in one order:
// the program's, the scratch bits, the permanent ones.
func (c *compiler) knowledge(p position) []int8 {
	n := c.nOut + c.scratchMax + c.nPerm
	c.chargeN(p, n, 2) // the slice, and a step a bit
	out := make([]int8, 0, n)
	for b := range c.nOut {
		out = append(out, c.known(b))
	}
	for i := range c.scratchMax {
		out = append(out, c.known(-i-1))
	}
	for i := range c.nPerm {
		out = append(out, c.known(permBase-i))
	}
	return out
}

// wrote notes a write of a compile-time variable (or its promotion to
// bits), for the iterations on trial.
func (c *compiler) wrote(sym *symbol) { c.writeDepth = min(c.writeDepth, sym.depth) }

// keepLoop ends a kept loop whose body began at top: it runs times times
// in all, counted in the counter of the loops at the current depth.
func (c *compiler) keepLoop(p position, top int, times uint64) {
	ctr := c.counter(p, bits.Len64(times))
	c.charge(p, 4*nodeBytes)
	c.emit(p, sim.ComputeOp(ctr, sim.Binary(sim.Add, sim.BitsOf(ctr, false), sim.Const(1))).WithPos(int(p.Line), int(p.Col)))
	c.emit(p, sim.JumpOp(top).WithIf(sim.RegisterCmp(ctr, sim.Ne, times)).WithPos(int(p.Line), int(p.Col)))
	c.emit(p, sim.SetBitsOp(ctr, 0).WithPos(int(p.Line), int(p.Col)))
}

// counter is the first w bits of the counter of the kept loops at the
// current depth, handed out as they are first needed.
func (c *compiler) counter(p position, w int) []int {
	d := c.forDepth
	for len(c.counters) <= d {
		c.charge(p, 24)
		c.counters = append(c.counters, nil)
	}
	if more := w - len(c.counters[d]); more > 0 {
		c.checkClbits(p, more)
		c.charge(p, bitsCost(more))
		c.knownCtr = grow(c.knownCtr, more)
		for range more {
			c.counters[d] = append(c.counters[d], ctrBase-len(c.knownCtr))
			c.knownCtr = append(c.knownCtr, knownBit{unknown, c.epoch})
		}
	}
	return c.counters[d][:w:w]
}

// exits reports whether the statements may leave a loop's body from the
// middle: a break or continue of that loop, a return, an end. It recurses
// as deeply as statements nest, which the parser bounds.
func (c *compiler) exits(stmts []stmt) bool {
	var walk func(stmts []stmt, inner bool) bool
	walk = func(stmts []stmt, inner bool) bool {
		for _, st := range stmts {
			c.charge(st.at(), stepBytes)
			switch s := st.(type) {
			case *sBreak, *sContinue:
				if !inner {
					return true
				}
			case *sReturn, *sEnd:
				return true
			case *sIf:
				if walk(s.Then, inner) || walk(s.Else, inner) {
					return true
				}
			case *sSwitch:
				if walk(s.Default, inner) {
					return true
				}
				for _, cs := range s.Cases {
					if walk(cs.Body, inner) {
						return true
					}
				}
			case *sBlock:
				if walk(s.Body, inner) {
					return true
				}
			case *sFor:
				if walk(s.Body, true) {
					return true
				}
			case *sWhile:
				if walk(s.Body, true) {
					return true
				}
			}
		}
		return false
	}
	return walk(stmts, false)
}
