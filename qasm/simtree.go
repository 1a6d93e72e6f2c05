package qasm

import "github.com/qjobs/quantum/sim"

// The compiler's passes over the conditions and expressions it has built
// for sim. These are DAGs, not trees: one condition guards every operation
// of a branch, and a register read twice shares its bits. So every pass
// visits each distinct node once, and keeps its own stack: a chain of
// conditions is as long as the program makes it.

// simWalk visits the distinct condition and expression nodes reachable
// from the roots added to it.
type simWalk struct {
	conds []*sim.Condition
	exprs []*sim.Expr
	seenC map[*sim.Condition]bool
	seenE map[*sim.Expr]bool
	poll  *poller
}

func newSimWalk(poll *poller) *simWalk {
	return &simWalk{seenC: map[*sim.Condition]bool{}, seenE: map[*sim.Expr]bool{}, poll: poll}
}

func (w *simWalk) cond(cd *sim.Condition) {
	if cd != nil && !w.seenC[cd] {
		w.seenC[cd] = true
		w.conds = append(w.conds, cd)
	}
}

func (w *simWalk) expr(e *sim.Expr) {
	if e != nil && !w.seenE[e] {
		w.seenE[e] = true
		w.exprs = append(w.exprs, e)
	}
}

// run visits what was added, and what it reaches, handing each node's
// bits to visit; it stops early, reporting true, when visit does.
func (w *simWalk) run(visit func(bits []int) bool) bool {
	for len(w.conds)+len(w.exprs) > 0 {
		w.poll.tick()
		if n := len(w.conds); n > 0 {
			cd := w.conds[n-1]
			w.conds = w.conds[:n-1]
			if visit(cd.Bits) {
				return true
			}
			for _, a := range cd.Args {
				w.cond(a)
			}
			continue
		}
		n := len(w.exprs)
		e := w.exprs[n-1]
		w.exprs = w.exprs[:n-1]
		if visit(e.Bits) {
			return true
		}
		w.cond(e.Cond)
		for _, a := range e.Args {
			w.expr(a)
		}
	}
	return false
}

// condUses reports whether cd reads bit b.
func (c *compiler) condUses(cd *sim.Condition, b int) bool {
	w := newSimWalk(c.poll)
	w.cond(cd)
	return w.run(func(bits []int) bool {
		for _, x := range bits {
			if x == b {
				return true
			}
		}
		return false
	})
}

// condReads is the set of bits cd reads.
func (c *compiler) condReads(cd *sim.Condition) map[int]bool {
	read := map[int]bool{}
	w := newSimWalk(c.poll)
	w.cond(cd)
	w.run(func(bits []int) bool {
		for _, b := range bits {
			read[b] = true
		}
		return false
	})
	return read
}

// condSize counts the distinct nodes of cd, up to limit+1.
func (c *compiler) condSize(cd *sim.Condition, limit int) int {
	n := 0
	w := newSimWalk(c.poll)
	w.cond(cd)
	w.run(func([]int) bool {
		n++
		return n > limit
	})
	return n
}

// deeper reports whether cd nests more than limit levels. deepest
// remembers, across calls, the deepest level each node was reached at, so
// that conditions sharing nodes cost one walk of each node per level at
// most.
func (c *compiler) deeper(cd *sim.Condition, limit int, deepest map[*sim.Condition]int) bool {
	type at struct {
		cd    *sim.Condition
		level int
	}
	stack := []at{{cd, 1}}
	for len(stack) > 0 {
		c.poll.tick()
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if top.level > limit {
			return true
		}
		if d, ok := deepest[top.cd]; ok && d >= top.level {
			continue
		}
		deepest[top.cd] = top.level
		for _, a := range top.cd.Args {
			stack = append(stack, at{a, top.level + 1})
		}
	}
	return false
}
