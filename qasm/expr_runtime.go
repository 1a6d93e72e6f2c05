package qasm

import (
	"fmt"
	"math"

	"github.com/qjobs/quantum/sim"
)

// Expressions over values only known at run time: measured bits, the
// conditions built from them and integers computed from them.

// runtimeBinary combines values of which at least one is only known at
// run time. Comparisons of measured bits with constants and the logic of
// single bits become conditions, which sim tests without computing
// anything; the rest (arithmetic, registers compared or combined bit by
// bit, signed integers) becomes one of sim's classical expressions.
func (c *compiler) runtimeBinary(p position, op string, x, y value) value {
	if x.runtime() && x.angle || y.runtime() && y.angle {
		return c.angleBinary(p, op, x, y)
	}
	exprMode := x.k == vExpr || y.k == vExpr || x.signed || y.signed
	if cmp, ok := cmpOps[op]; ok {
		if !exprMode && x.runtime() && y.runtime() {
			if op == "==" || op == "!=" {
				if (x.k == vCond || len(x.bits) == 1) && (y.k == vCond || len(y.bits) == 1) {
					a, _ := c.toCond(x, p, "a comparison")
					b, _ := c.toCond(y, p, "a comparison")
					a, b = c.flatCond(p, a), c.flatCond(p, b)
					eq := sim.Or(sim.And(a, b), sim.And(sim.Not(a), sim.Not(b)))
					if op == "!=" {
						eq = sim.Not(eq)
					}
					return value{k: vCond, cond: eq}
				}
			}
			exprMode = true
		}
		if !exprMode {
			if y.runtime() {
				x, y, cmp = y, x, flip(cmp)
			}
			return value{k: vCond, cond: compareRuntime(p, x, cmp, y)}
		}
		return value{k: vExpr, ex: sim.Compare(c.exprOf(p, x, op), cmp, c.exprOf(p, y, op))}
	}
	switch op {
	case "&&", "||":
		if !exprMode {
			return c.condLogic(p, op, x, y)
		}
		o := sim.LogicAnd
		if op == "||" {
			o = sim.LogicOr
		}
		return value{k: vExpr, ex: sim.Binary(o, c.exprOf(p, x, op), c.exprOf(p, y, op))}
	case "&", "|", "^":
		if !exprMode && oneBit(x) && oneBit(y) {
			return c.condLogic(p, op, x, y)
		}
	}
	o, ok := exprOps[op]
	if !ok {
		runtimeFail(p, "operator "+op+" on a measured value")
	}
	ex := sim.Binary(o, c.exprOf(p, x, op), c.exprOf(p, y, op))
	if w := bitWidth(x); w > 0 && (op == "|" || op == "^" || op == "<<" || op == "&") {
		// A bit string keeps its width through bit operations, as it
		// does at compile time.
		if w < 64 {
			ex = sim.Binary(sim.BitAnd, ex, sim.Const(1<<w-1))
		}
		return value{k: vExpr, ex: ex, w: w}
	}
	return value{k: vExpr, ex: ex}
}

var exprOps = map[string]sim.Operator{"+": sim.Add, "-": sim.Sub, "*": sim.Mul, "/": sim.Div, "%": sim.Mod,
	"&": sim.BitAnd, "|": sim.BitOr, "^": sim.BitXor, "<<": sim.Shl, ">>": sim.Shr}

// oneBit reports whether v is a single bit or truth value, which the
// logic of conditions can combine.
func oneBit(v value) bool {
	switch v.k {
	case vCond, vBool:
		return true
	case vRT:
		return len(v.bits) == 1
	case vBits:
		return v.w == 1
	case vInt:
		return v.i == 0 || v.i == 1
	}
	return false
}

// condLogic combines single bits and conditions with a logic operator.
func (c *compiler) condLogic(p position, op string, x, y value) value {
	a, ta := c.toCond(x, p, "the left of "+op)
	b, tb := c.toCond(y, p, "the right of "+op)
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
		a, b = c.flatCond(p, a), c.flatCond(p, b)
		return value{k: vCond, cond: sim.Or(sim.And(a, sim.Not(b)), sim.And(sim.Not(a), b))}
	}
}

// flatCond returns cd when it is a test of bits, and otherwise a test of
// a scratch bit that holds its truth. The forms of == and ^ above name
// each operand twice: with whole conditions for operands, a chain such as
// a == b == c == ... would double in size at each step, and sim evaluates
// a condition as a tree.
func (c *compiler) flatCond(p position, cd *sim.Condition) *sim.Condition {
	if cd.Kind == sim.CondCompare {
		return cd
	}
	b := c.allocScratch(p, 1)
	c.setFromCond(p, b[0], cd)
	return sim.BitIs(b[0], true)
}

// exprOf is v as an operand of a classical expression.
func (c *compiler) exprOf(p position, v value, op string) *sim.Expr {
	switch v.k {
	case vExpr:
		return v.ex
	case vRT:
		if len(v.bits) > 64 {
			fail(p, "operator %s can read at most 64 measured bits, this register has %d", op, len(v.bits))
		}
		return sim.BitsOf(v.bits, v.signed)
	case vCond:
		return sim.Truth(v.cond)
	case vInt, vBool, vBits:
		return sim.Const(v.i)
	case vFloat:
		if v.f != math.Trunc(v.f) || math.Abs(v.f) >= 1<<63 {
			runtimeFail(p, fmt.Sprintf("operator %s with the non-integer %g", op, v.f))
		}
		return sim.Const(int64(v.f))
	}
	fail(p, "operator %s does not apply to a %s and a measured value", op, v.kindName())
	return nil
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
