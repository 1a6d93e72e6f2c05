package qasm

import (
	"math"

	"github.com/qjobs/quantum/sim"
)

// Expressions over values only known at run time: measured bits and the
// conditions built from them. sim's IR has conditions but no classical
// arithmetic, so this is where a program's classical code either becomes
// conditions or is rejected.

// runtimeBinary combines values of which at least one is only known at
// run time. Comparisons of measured bits with constants and the logic of
// single bits become conditions; arithmetic on measured values does not
// exist in sim's IR and is rejected.
func (c *compiler) runtimeBinary(p position, op string, x, y value) value {
	if cmp, ok := cmpOps[op]; ok {
		if x.runtime() && y.runtime() {
			if op == "==" || op == "!=" {
				if (x.k == vCond || len(x.bits) == 1) && (y.k == vCond || len(y.bits) == 1) {
					a, _ := toCond(x, p, "a comparison")
					b, _ := toCond(y, p, "a comparison")
					eq := sim.Or(sim.And(a, b), sim.And(sim.Not(a), sim.Not(b)))
					if op == "!=" {
						eq = sim.Not(eq)
					}
					return value{k: vCond, cond: eq}
				}
			}
			fail(p, "comparing two values measured at run time with %s is only supported for single bits", op)
		}
		if y.runtime() {
			x, y, cmp = y, x, flip(cmp)
		}
		return value{k: vCond, cond: compareRuntime(p, x, cmp, y)}
	}
	switch op {
	case "&&", "||", "&", "|", "^":
		for _, v := range []value{x, y} {
			if v.k == vRT && len(v.bits) != 1 && (op == "&" || op == "|" || op == "^") {
				fail(p, "bitwise %s on a measured register wider than one bit is not supported", op)
			}
		}
		a, ta := toCond(x, p, "the left of "+op)
		b, tb := toCond(y, p, "the right of "+op)
		switch op {
		case "&&", "&":
			if a == nil {
				if !ta {
					return boolVal(false)
				}
				return value{k: vCond, cond: b}
			}
			if b == nil {
				if !tb {
					return boolVal(false)
				}
				return value{k: vCond, cond: a}
			}
			return value{k: vCond, cond: sim.And(a, b)}
		case "||", "|":
			if a == nil {
				if ta {
					return boolVal(true)
				}
				return value{k: vCond, cond: b}
			}
			if b == nil {
				if tb {
					return boolVal(true)
				}
				return value{k: vCond, cond: a}
			}
			return value{k: vCond, cond: sim.Or(a, b)}
		default: // ^
			if a == nil {
				if ta {
					return value{k: vCond, cond: sim.Not(b)}
				}
				return value{k: vCond, cond: b}
			}
			if b == nil {
				if tb {
					return value{k: vCond, cond: sim.Not(a)}
				}
				return value{k: vCond, cond: a}
			}
			return value{k: vCond, cond: sim.Or(sim.And(a, sim.Not(b)), sim.And(sim.Not(a), b))}
		}
	}
	runtimeFail(p, "operator "+op+" on a measured value")
	return value{}
}

// compareRuntime is the condition "x cmp k" for run-time bits x and a
// compile-time number k, folding comparisons that cannot hold.
func compareRuntime(p position, x value, cmp sim.Cmp, k value) *sim.Condition {
	var bitsOf []int
	if x.k == vCond {
		// a run-time bool compares as the bit 0 or 1
		n := k.asExactInt(p, "the value compared with a condition")
		var truth bool
		switch {
		case cmp == sim.Eq && n == 1 || cmp == sim.Ne && n == 0 || cmp == sim.Gt && n == 0 || cmp == sim.Ge && n == 1:
			return x.cond
		case cmp == sim.Eq && n == 0 || cmp == sim.Ne && n == 1 || cmp == sim.Lt && n == 1 || cmp == sim.Le && n == 0:
			return sim.Not(x.cond)
		case cmp == sim.Ne || cmp == sim.Lt && n > 1 || cmp == sim.Le && n >= 1 || cmp == sim.Gt && n < 0 || cmp == sim.Ge && n <= 0:
			truth = true
		}
		return constCond(truth)
	}
	bitsOf = x.bits
	if len(bitsOf) > 64 {
		fail(p, "a comparison can read at most 64 measured bits, this register has %d", len(bitsOf))
	}
	var n int64
	if k.k == vFloat {
		if k.f != math.Trunc(k.f) {
			fail(p, "comparing measured bits with the fraction %g", k.f)
		}
		n = int64(k.f)
	} else {
		n = k.asInt(p, "the value compared with measured bits")
	}
	maxV := uint64(math.MaxUint64)
	if len(bitsOf) < 64 {
		maxV = 1<<len(bitsOf) - 1
	}
	switch {
	case n < 0:
		return constCond(cmp == sim.Ne || cmp == sim.Gt || cmp == sim.Ge)
	case uint64(n) > maxV:
		return constCond(cmp == sim.Ne || cmp == sim.Lt || cmp == sim.Le)
	}
	return sim.RegisterCmp(bitsOf, cmp, uint64(n))
}

// constCond is a condition that always or never holds, for a comparison
// folded while its other side is still a run-time value.
func constCond(truth bool) *sim.Condition {
	never := &sim.Condition{Kind: sim.CondOr}
	if truth {
		return sim.Not(never)
	}
	return never
}
