package qasm

import (
	"math"
	"slices"

	"github.com/qjobs/quantum/sim"
)

// Control flow. A condition known at compile time picks its branch and a
// loop with known bounds is unrolled; a condition that reads measured bits
// becomes conditional operations or jumps that sim follows per shot.

// toCond turns a value into a run-time condition, or reports the
// compile-time truth of a value that has none.
func (c *compiler) toCond(v value, p position, what string) (cond *sim.Condition, truth bool) {
	switch v.k {
	case vCond:
		return v.cond, false
	case vRT:
		if len(v.bits) > 64 {
			fail(p, "%s: a condition can read at most 64 bits", what)
		}
		return sim.RegisterCmp(v.bits, sim.Ne, 0), false
	case vExpr:
		// sim's conditions test bits: compute the truth into one first.
		b := c.allocScratch(p, 1)
		c.computeInto(p, b, sim.Compare(v.ex, sim.Ne, sim.Const(0)))
		return sim.BitIs(b[0], true), false
	}
	return nil, v.asBool(p, what)
}

// branch lowers a branch that only some shots take and returns
// the known values of the bits it wrote, with the compiler's knowledge put
// back as it was before the branch.
func (c *compiler) branch(lower func() ctl) map[int]int8 {
	mark := len(c.journal)
	c.rt++
	lower() // break, continue and end inside emitted their jumps
	c.rt--
	return c.unwind(mark)
}

// unwind undoes what the journal recorded since mark and returns the
// values the bits had before it did.
func (c *compiler) unwind(mark int) map[int]int8 {
	after := map[int]int8{}
	for i := len(c.journal) - 1; i >= mark; i-- {
		e := c.journal[i]
		if _, ok := after[e.bit]; !ok {
			after[e.bit] = c.known(e.bit)
		}
		*c.knownSlot(e.bit) = e.old
	}
	c.journal = c.journal[:mark]
	return after
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) lowerIf(s *sIf) ctl {
	v := c.eval(s.Cond)
	if v.runtime() {
		c.promoteAssigned(s.Then, s.Else)
	}
	var orElse func() ctl
	if s.Else != nil {
		orElse = func() ctl { return c.lowerBlock(s.Else) }
	}
	return c.ifValue(s.P, s.Cond.at(), v, func() ctl { return c.lowerBlock(s.Then) }, orElse)
}

// promoteAssigned gives classical bits to the compile-time variables
// (bools and integers) that the statements assign, before they are lowered
// as a branch only some shots take: a value that differs from shot to shot
// must live in bits, and the variable's current value has to be written
// there before the branch, not in it. A variable that the branch does not
// really write keeps a known value, so it still folds at compile time.
func (c *compiler) promoteAssigned(blocks ...[]stmt) {
	// Names the statements declare themselves are theirs, not the
	// variables in scope now.
	declared := map[string]bool{}
	var assigned []*sAssign
	// The walk recurses as deeply as statements nest, which the parser
	// bounds (maxDepth). Each statement it visits is charged: lowerList
	// calls this for the rest of a list after each statement that may
	// leave early, which is quadratic in the length of such a list.
	var walk func([]stmt)
	walk = func(stmts []stmt) {
		for _, st := range stmts {
			c.charge(st.at(), 32*stepBytes)
			switch s := st.(type) {
			case *sDecl:
				declared[s.Name] = true
			case *sAlias:
				declared[s.Name] = true
			case *sAssign:
				assigned = append(assigned, s)
			case *sIf:
				walk(s.Then)
				walk(s.Else)
			case *sFor:
				declared[s.Var] = true
				walk(s.Body)
			case *sWhile:
				walk(s.Body)
			case *sSwitch:
				walk(s.Default)
				for _, cs := range s.Cases {
					walk(cs.Body)
				}
			case *sBlock:
				walk(s.Body)
			}
		}
	}
	for _, b := range blocks {
		walk(b)
	}
	for _, s := range assigned {
		// an element (n[3] = 1) is not promoted: only whole variables
		if id, ok := s.Target.(*xIdent); ok && !declared[id.Name] {
			if sym := c.promotable(id.Name); sym != nil {
				c.promote(s.P, sym)
			}
		}
	}
}

// promoteBeforeJumps promotes what a loop body assigns when the body can
// break or continue: a break under a measured condition leaves the rest
// of the loop to only some shots, where a compile-time variable could no
// longer change. Variables whose bits stay known still fold.
func (c *compiler) promoteBeforeJumps(body []stmt) {
	if c.hasJump(body) || c.returnsInBranch(body) {
		c.promoteAssigned(body)
	}
}

// hasJump reports whether the statements contain a break or continue
// under some condition, which is when one might depend on a measurement.
// It recurses as deeply as statements nest, which the parser bounds.
func (c *compiler) hasJump(stmts []stmt) bool {
	var walk func([]stmt, bool) bool
	walk = func(stmts []stmt, nested bool) bool {
		for _, st := range stmts {
			c.charge(st.at(), stepBytes)
			switch s := st.(type) {
			case *sBreak, *sContinue:
				if nested {
					return true
				}
			case *sIf:
				if walk(s.Then, true) || walk(s.Else, true) {
					return true
				}
			case *sSwitch:
				if walk(s.Default, true) {
					return true
				}
				for _, cs := range s.Cases {
					if walk(cs.Body, true) {
						return true
					}
				}
			case *sBlock:
				if walk(s.Body, nested) {
					return true
				}
			}
		}
		return false
	}
	return walk(stmts, false)
}

// ifValue lowers "if (v) then else orElse" (orElse may be nil).
func (c *compiler) ifValue(p, condPos position, v value, then, orElse func() ctl) ctl {
	cond, truth := c.toCond(v, condPos, "the if condition")
	if cond == nil {
		if truth {
			return then()
		}
		if orElse != nil {
			return orElse()
		}
		return ctlNone
	}
	c.inGateBody(p, "an if that depends on measurement results")
	c.charge(p, branchBytes)
	start := c.emit(p, sim.JumpOp(0).WithIf(sim.Not(cond)))
	thenK := c.branch(then)
	var elseK map[int]int8
	if orElse != nil {
		skip := c.emit(p, sim.JumpOp(0))
		c.ops[start].SetJumpTarget(len(c.ops))
		elseK = c.branch(orElse)
		c.ops[skip].SetJumpTarget(len(c.ops))
	} else {
		c.ops[start].SetJumpTarget(len(c.ops))
		c.attachCondition(p, start, cond)
	}
	c.merge(thenK, elseK)
	return ctlNone
}

// merge sets what is known of the bits after an if and else from what
// each way left them: a bit keeps a known value only when both ways leave
// the same one. A way that did not write a bit left it as it was.
func (c *compiler) merge(thenK, elseK map[int]int8) {
	for b, v := range thenK {
		other, ok := elseK[b]
		if !ok {
			other = c.known(b)
		}
		if other != v {
			v = unknown
		}
		c.setKnown(b, v)
	}
	for b, v := range elseK {
		if _, done := thenK[b]; done {
			continue
		}
		if c.known(b) != v {
			c.setKnown(b, unknown)
		}
	}
}

// lowerSwitch lowers a switch as a chain of if and else: case i+1 is the
// else of case i. The chain is a loop, not a recursion, however many cases
// there are: each case that depends on measurements opens a branch for
// the rest of the chain (its else), and the branches close in reverse
// order at the end, as the recursion over nested ifs would close them.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) lowerSwitch(s *sSwitch) ctl {
	target := c.eval(s.Target)
	if target.runtime() {
		bodies := [][]stmt{s.Default}
		for _, cs := range s.Cases {
			bodies = append(bodies, cs.Body)
		}
		c.promoteAssigned(bodies...)
	}
	type elseBranch struct {
		skip  int          // the jump from the end of the case's body
		thenK map[int]int8 // what the body left known
		mark  int          // the journal when the else began
	}
	var open []elseBranch
	k := func() ctl {
		for i, cs := range s.Cases {
			match := c.caseMatch(target, cs.Values)
			cond, truth := c.toCond(match, cs.P, "the if condition")
			if cond == nil {
				if truth {
					return c.lowerBlock(cs.Body)
				}
				continue
			}
			c.inGateBody(cs.P, "an if that depends on measurement results")
			c.charge(cs.P, branchBytes)
			start := c.emit(cs.P, sim.JumpOp(0).WithIf(sim.Not(cond)))
			thenK := c.branch(func() ctl { return c.lowerBlock(cs.Body) })
			if i+1 == len(s.Cases) && s.Default == nil {
				c.ops[start].SetJumpTarget(len(c.ops))
				c.attachCondition(cs.P, start, cond)
				c.merge(thenK, nil)
				return ctlNone
			}
			skip := c.emit(cs.P, sim.JumpOp(0))
			c.ops[start].SetJumpTarget(len(c.ops))
			open = append(open, elseBranch{skip, thenK, len(c.journal)})
			c.rt++
		}
		if s.Default == nil {
			return ctlNone
		}
		return c.lowerBlock(s.Default)
	}()
	for i := len(open) - 1; i >= 0; i-- {
		e := open[i]
		c.rt--
		elseK := c.unwind(e.mark)
		c.ops[e.skip].SetJumpTarget(len(c.ops))
		c.merge(e.thenK, elseK)
	}
	if len(open) > 0 {
		return ctlNone
	}
	return k
}

// caseMatch is the truth of "target is one of values". The comparisons
// are joined by || as balanced trees, so that a case of 1,000 values is a
// condition 10 levels deep, not 1,000; past caseChunk values, the truth
// of each chunk goes to a scratch bit first, as sim refuses conditions
// of more than 65536 nodes.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) caseMatch(target value, values []expr) value {
	p := values[0].at()
	c.chargeN(p, len(values), valueBytes)
	eqs := make([]value, len(values))
	for j, e := range values {
		eqs[j] = c.evalBinary(e.at(), "==", target, c.eval(e))
		if eqs[j].runtime() {
			// the comparison, and the || that joins it, built without eval
			c.charge(e.at(), 2*runtimeOpBytes)
		}
	}
	for len(eqs) > caseChunk {
		next := eqs[:0]
		for i := 0; i < len(eqs); i += caseChunk {
			v := c.anyOf(p, eqs[i:min(i+caseChunk, len(eqs))])
			if v.runtime() {
				cond, _ := c.toCond(v, p, "a case")
				v = value{k: vCond, cond: c.flatCond(p, cond)}
			}
			next = append(next, v)
		}
		eqs = next
	}
	return c.anyOf(p, eqs)
}

const caseChunk = 1024

// anyOf joins vs with || as a balanced tree, in place.
func (c *compiler) anyOf(p position, vs []value) value {
	for len(vs) > 1 {
		half := vs[:0]
		for j := 0; j < len(vs); j += 2 {
			if j+1 == len(vs) {
				half = append(half, vs[j])
				continue
			}
			half = append(half, c.evalBinary(p, "||", vs[j], vs[j+1]))
		}
		vs = half
	}
	return vs[0]
}

// attachCondition replaces the jump at start over a branch of plain
// operations by a condition on each of them, which keeps the circuit
// short. It is only sound when the branch writes none of the bits the
// condition reads, and it has no jumps of its own. Only small conditions
// are copied onto each operation: sim tests an operation's condition
// whenever it reaches it.
func (c *compiler) attachCondition(p position, start int, cond *sim.Condition) {
	body := c.ops[start+1:]
	if len(body) == 0 {
		c.ops = c.ops[:start]
		return
	}
	if c.condSize(cond, maxAttachedNodes) > maxAttachedNodes {
		return
	}
	reads := c.condReads(cond)
	for i := range body {
		c.poll.tick()
		if body[i].Kind == sim.OpJump {
			return
		}
		for _, b := range writes(&body[i]) {
			if reads[b] {
				return
			}
		}
	}
	deepest := map[*sim.Condition]int{}
	for i := range body {
		// sim bounds how deeply conditions nest; deep ones keep the jump.
		if body[i].Cond() != nil && c.deeper(body[i].Cond(), 100, deepest) {
			return
		}
	}
	c.chargeN(p, len(body), nodeBytes)
	for i := range body {
		if body[i].Cond() == nil {
			body[i] = body[i].WithIf(cond)
		} else {
			body[i] = body[i].WithIf(sim.And(cond, body[i].Cond()))
		}
	}
	c.ops = slices.Delete(c.ops, start, start+1)
}

// branchBytes is what lowering a branch that only some shots take
// allocates beyond its operations: the jump's condition, the knowledge of
// bits it undoes.
const branchBytes = nodeBytes + 256

// maxAttachedNodes bounds the conditions attachCondition copies.
const maxAttachedNodes = 64

func (c *compiler) breakOrContinue(p position, isBreak bool) ctl {
	name := "continue"
	if isBreak {
		name = "break"
	}
	if len(c.loops) == 0 || len(c.fns) > 0 && c.loops[len(c.loops)-1].level < c.fns[len(c.fns)-1].level {
		fail(p, "%s outside a loop", name)
	}
	l := c.loops[len(c.loops)-1]
	if l.runtime {
		if isBreak {
			l.breaks = append(l.breaks, c.emit(p, sim.JumpOp(0)))
		} else {
			c.emit(p, sim.JumpOp(l.top))
		}
	} else if c.rt > l.level {
		// Shots that take this jump skip the rest of the unrolled loop
		// (or of this iteration).
		j := c.emit(p, sim.JumpOp(0))
		if isBreak {
			l.breaks = append(l.breaks, j)
		} else {
			l.continues = append(l.continues, j)
		}
		if !l.raised {
			l.raised = true
			c.rt++
		}
	}
	if isBreak {
		return ctlBreak
	}
	return ctlContinue
}

// loopValues is what a for loop runs over: the values of a set, an array
// or a bit string, or a range, whose values are computed as the loop
// reaches them rather than all at once. n is at most math.MaxUint64, and
// that value stands for the one range of 2^64 values too (rangeLen).
type loopValues struct {
	n           uint64
	start, step int64 // a range
	vals        []value
}

func (lv *loopValues) at(i uint64) value {
	if lv.vals != nil {
		return lv.vals[i]
	}
	// between start and stop: the sum wraps back into range
	return intVal(int64(uint64(lv.start) + i*uint64(lv.step)))
}

// iterValues lists what a for loop runs over.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) iterValues(s *sFor) loopValues {
	switch it := s.Iter.(type) {
	case *xRange:
		if it.Start == nil || it.Stop == nil {
			fail(it.P, "a loop range needs a start and an end")
		}
		start := c.count(it.Start, "the range start")
		stop := c.count(it.Stop, "the range end")
		step := int64(1)
		if it.Step != nil {
			step = c.count(it.Step, "the range step")
			if step == 0 {
				fail(it.Step.at(), "a range step cannot be 0")
			}
		}
		return loopValues{n: rangeLen(start, step, stop), start: start, step: step}
	case *xSet:
		c.chargeN(it.P, len(it.Elems), valueBytes)
		out := make([]value, len(it.Elems))
		for i, e := range it.Elems {
			out[i] = c.eval(e)
		}
		return loopValues{n: uint64(len(out)), vals: out}
	}
	v := c.eval(s.Iter)
	switch v.k {
	case vArray:
		return loopValues{n: uint64(len(v.arr)), vals: v.arr}
	case vBits:
		c.chargeN(s.Iter.at(), v.w, valueBytes)
		out := make([]value, v.w)
		for i := range out {
			out[i] = value{k: vBits, i: v.i >> i & 1, w: 1}
		}
		return loopValues{n: uint64(len(out)), vals: out}
	}
	fail(s.Iter.at(), "a for loop runs over a range [a:b], a set {a, b} or an array; got %s", v.kindName())
	return loopValues{}
}

// rangeLen counts the values of the inclusive range start:step:stop, or
// returns math.MaxUint64 for the one range that has 2^64 of them
// (math.MinInt64 to math.MaxInt64 by 1).
func rangeLen(start, step, stop int64) uint64 {
	if step > 0 && start > stop || step < 0 && start < stop {
		return 0
	}
	// The differences are taken in uint64, where they cannot overflow.
	span, by := uint64(stop)-uint64(start), uint64(step)
	if step < 0 {
		span, by = uint64(start)-uint64(stop), -uint64(step)
	}
	q := span / by
	if q == math.MaxUint64 {
		return q
	}
	return q + 1
}

// iterBytes is charged for each iteration of an unrolled loop: the loop's
// own work, which allocates nothing (its scope and its variable are
// reused).
const iterBytes = 16

// lowerFor unrolls a for loop, or keeps it as a loop when its iterations
// lower alike (loops.go).
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) lowerFor(s *sFor) ctl {
	vals := c.iterValues(s)
	// A loop may be kept when its iterations could repeat one body: more
	// than one, no jumps out of it, not in a gate's body.
	mayKeep := vals.n >= 2 && c.collect == nil && !c.opts.unrollLoops
	var ty *ctype
	if s.Type != nil {
		ty = c.resolveType(s.Type)
	}
	l := &loopCtx{level: c.rt}
	c.loops = append(c.loops, l)
	defer c.endLoop(l)
	c.forDepth++
	defer func() { c.forDepth-- }()
	c.promoteBeforeJumps(s.Body)
	c.charge(s.P, symbolBytes)
	loopVar := &symbol{kind: symVar, name: s.Var, pos: s.P, ty: ty, isConst: true, loopVar: true}
	if !mayKeep && vals.n > uint64(c.opts.MaxLoopIterations) {
		c.tooManyIterations(s, vals.n)
	}
	for i := uint64(0); i < vals.n; i++ {
		if i >= uint64(c.opts.MaxLoopIterations) || vals.n == math.MaxUint64 {
			c.tooManyIterations(s, vals.n)
		}
		c.charge(s.P, iterBytes)
		c.nextIteration(l)
		v := vals.at(i)
		if ty != nil && ty.name != "bit" {
			v = coerce(v, ty, s.P, "the loop variable")
		}
		var t *trial
		if mayKeep && i < 2 {
			t = c.begin(s.P, i == 1)
			loopVar.read = false
		}
		c.push(false, false)
		body := len(c.scopes) - 1
		// Nothing keeps the loop variable past its iteration: it is
		// constant, so never promoted, and aliases take only qubits and
		// bits. One symbol serves every iteration.
		loopVar.val = v
		c.bind(loopVar)
		k := c.lowerList(s.Body)
		c.pop()
		if t != nil {
			if i == 0 {
				// Small loops unroll; large ones are tried, and those
				// that emit nothing, when they hold no jumps out of
				// their body.
				ops := uint64(len(c.ops) - t.start)
				mayKeep = (vals.n > uint64(c.opts.MaxLoopIterations) || ops == 0 || vals.n > keepOps/ops) && !c.exits(s.Body)
			}
			if c.end(s.P, t, mayKeep, body, loopVar, k) {
				// Every later iteration lowers to what this one did.
				if times := vals.n - i; times >= 2 && len(c.ops) > t.start {
					c.keepLoop(s.P, t.start, times)
				}
				return ctlNone
			}
			mayKeep = mayKeep && i == 0
		}
		switch k {
		case ctlBreak:
			return ctlNone
		case ctlReturn, ctlEnd:
			return k
		}
		if !mayKeep && vals.n > uint64(c.opts.MaxLoopIterations) {
			c.tooManyIterations(s, vals.n)
		}
	}
	return ctlNone
}

// tooManyIterations refuses a loop of n iterations that has to be
// unrolled.
func (c *compiler) tooManyIterations(s *sFor, n uint64) {
	if n == math.MaxUint64 {
		fail(s.P, "for loop of more than %d iterations is more than the limit of %d (MaxLoopIterations)", uint64(math.MaxUint64), c.opts.MaxLoopIterations)
	}
	fail(s.P, "for loop of %d iterations is more than the limit of %d (MaxLoopIterations); a loop runs as a loop, without that limit, when its iterations all compile alike: its body does not use the loop's variable nor change compile-time variables declared outside it", n, c.opts.MaxLoopIterations)
}

// nextIteration lands the continue jumps of the previous iteration.
func (c *compiler) nextIteration(l *loopCtx) {
	if len(l.continues) == 0 {
		return
	}
	for _, j := range l.continues {
		c.ops[j].SetJumpTarget(len(c.ops))
	}
	l.continues = nil
	c.forgetAll() // shots that jumped here join the others
}

func (c *compiler) endLoop(l *loopCtx) {
	c.nextIteration(l)
	for _, j := range l.breaks {
		c.ops[j].SetJumpTarget(len(c.ops))
	}
	l.breaks = nil
	if l.raised {
		c.rt--
		c.forgetAll()
	}
	c.loops = c.loops[:len(c.loops)-1]
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) lowerWhile(s *sWhile) ctl {
	l := &loopCtx{level: c.rt}
	c.loops = append(c.loops, l)
	defer c.endLoop(l)
	c.promoteBeforeJumps(s.Body)
	for iter := 0; ; iter++ {
		c.nextIteration(l)
		mark := len(c.ops)
		cond, truth := c.toCond(c.eval(s.Cond), s.Cond.at(), "the while condition")
		if cond != nil {
			// The condition's own operations (a subroutine call that
			// measures) belong inside the loop, which evaluates it again.
			c.ops = c.ops[:mark]
			c.endJumps = slices.DeleteFunc(c.endJumps, func(j int) bool { return j >= mark })
			return c.runtimeWhile(s, l)
		}
		if !truth {
			return ctlNone
		}
		if iter >= c.opts.MaxLoopIterations {
			fail(s.P, "while loop did not end within %d iterations (MaxLoopIterations)", c.opts.MaxLoopIterations)
		}
		c.charge(s.P, iterBytes)
		switch k := c.lowerBlock(s.Body); k {
		case ctlBreak:
			return ctlNone
		case ctlReturn, ctlEnd:
			return k
		}
	}
}

// runtimeWhile lowers a loop whose condition reads measured bits:
//
//	top:  the condition's own operations, if any
//	      jump end if !cond
//	      body
//	      jump top
//	end:
//
// sim bounds the steps of a shot (Options.MaxSteps), so a loop that never
// ends fails the job instead of hanging it.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) runtimeWhile(s *sWhile, l *loopCtx) ctl {
	c.nextIteration(l)
	l.runtime = true
	c.promoteAssigned(s.Body)
	l.top = len(c.ops)
	// Any bit the body writes may differ on the next pass.
	c.forgetAll()
	c.inLoop++
	defer func() { c.inLoop-- }()
	cond, truth := c.toCond(c.eval(s.Cond), s.Cond.at(), "the while condition")
	if cond == nil && !truth {
		return ctlNone
	}
	if cond != nil {
		l.breaks = append(l.breaks, c.emit(s.P, sim.JumpOp(0).WithIf(sim.Not(cond))))
	}
	c.branch(func() ctl { return c.lowerBlock(s.Body) })
	c.emit(s.P, sim.JumpOp(l.top))
	c.forgetAll() // endLoop lands the breaks
	return ctlNone
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) lowerReturn(s *sReturn) ctl {
	if len(c.fns) == 0 {
		fail(s.P, "return outside a subroutine")
	}
	f := c.fns[len(c.fns)-1]
	if s.Value == nil {
		if f.ret != nil {
			fail(s.P, "subroutine %q must return a %s", f.def.Name, f.ret.name)
		}
		c.runtimeReturn(s.P, f)
		return ctlReturn
	}
	if f.ret == nil {
		fail(s.P, "subroutine %q has no return type but returns a value", f.def.Name)
	}
	if c.rt > f.level {
		// Only some shots return here: the value goes to the result bits
		// and those shots jump to the end of the body.
		if f.resBits == nil {
			fail(s.P, "returning a %s under a condition that depends on measurement results is not supported (bit and bool results are)", f.ret.name)
		}
		var v value
		if m, ok := s.Value.(*xMeasure); ok {
			c.measureValueInto(m, f.resBits)
		} else {
			v = c.eval(s.Value)
			if f.ret.name == "bit" && v.k == vRT && len(v.bits) != len(f.resBits) {
				fail(s.Value.at(), "returns %d bits where %d are declared", len(v.bits), len(f.resBits))
			}
			if !v.runtime() {
				v = coerce(v, f.ret, s.Value.at(), "the returned value")
			}
			if f.ret.name == "bool" {
				v = truthOf(v)
			}
			c.storeBits(s.P, f.resBits, c.varBitsOf(f.ret, v))
		}
		c.runtimeReturn(s.P, f)
		return ctlReturn
	}
	var v value
	if m, ok := s.Value.(*xMeasure); ok && f.resBits != nil {
		c.measureValueInto(m, f.resBits)
		v = c.readBits(f.resBits)
	} else if ok {
		v = c.measureValue(m)
	} else {
		v = c.eval(s.Value)
	}
	f.result = c.convertReturn(s.Value.at(), v, f.ret)
	return ctlReturn
}

func (c *compiler) runtimeReturn(p position, f *fnCtx) {
	if c.rt <= f.level {
		return
	}
	f.returns = append(f.returns, c.emit(p, sim.JumpOp(0)))
	if !f.raised {
		f.raised = true
		c.rt++
	}
}

func (c *compiler) convertReturn(p position, v value, t *ctype) value {
	switch {
	case t.name == "bit" && v.k == vRT:
		n := max(t.size, 1)
		if len(v.bits) != n {
			fail(p, "returns %d bits where bit[%d] is declared", len(v.bits), n)
		}
		return v
	case t.name == "bit" && v.k == vCond:
		bits := c.fns[len(c.fns)-1].resBits
		c.setFromCond(p, bits[0], v.cond)
		c.setConst(p, bits[1:], 0)
		return c.readBits(bits)
	case t.name == "bool" && v.runtime():
		return truthOf(v)
	case v.runtime() && runtimeWidth(t) > 0:
		// An integer computed at run time outlives the callee's scratch
		// bits in bits of its own.
		bits := c.allocPerm(p, runtimeWidth(t))
		c.storeBits(p, bits, c.varBitsOf(t, v))
		return value{k: vRT, bits: bits, w: len(bits), signed: t.name == "int", angle: t.name == "angle"}
	case v.runtime():
		runtimeFail(p, "the returned "+t.name)
	}
	return coerce(v, t, p, "the returned value")
}
