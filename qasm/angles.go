package qasm

import (
	"math"
	"strconv"

	"github.com/qjobs/quantum/sim"
)

// Angle registers that hold measured bits. An angle[w] holds k steps of
// 2π/2^w; at run time the compiler works on k, and every result is what
// the same code gives at compile time, where an angle is a number of
// radians taken modulo 2π.

// angleBinary applies op when at least one side is an angle register
// known only at run time.
func (c *compiler) angleBinary(p position, op string, x, y value) value {
	a := x // the measured angle, whose steps the result counts in
	if !(x.runtime() && x.angle) {
		a = y
	}
	w := a.w
	// inSteps reads an operand of + and - in a's steps: a constant angle
	// is rounded to them, as storing it in a's register would.
	inSteps := func(v value) value {
		switch {
		case !v.runtime():
			return intVal(angleBits(v.asFloat(p, "an angle"), w))
		case !v.angle || v.w != w:
			runtimeFail(p, "operator "+op+" on a measured angle and a value that is not an angle of its width")
		}
		return v
	}
	if cmp, ok := cmpOps[op]; ok {
		switch {
		case !y.runtime():
			return c.compareAngle(p, x, cmp, y.asFloat(p, "an angle"))
		case !x.runtime():
			return c.compareAngle(p, y, flip(cmp), x.asFloat(p, "an angle"))
		}
		x, y = inSteps(x), inSteps(y)
		return value{k: vExpr, ex: sim.Compare(c.exprOf(p, x, op), cmp, c.exprOf(p, y, op))}
	}
	switch op {
	case "+", "-":
		x, y = inSteps(x), inSteps(y)
	case "*":
		other := &y
		if !(x.runtime() && x.angle) {
			other = &x
		}
		if other.angle && other.runtime() {
			runtimeFail(p, "the product of two measured angles")
		}
		if !other.runtime() {
			f := other.asFloat(p, "a factor")
			if f != math.Trunc(f) || math.Abs(f) >= 1<<62 {
				runtimeFail(p, "a measured angle times the fraction "+strconv.FormatFloat(f, 'g', -1, 64))
			}
			*other = intVal(int64(f))
		}
	case "&", "|", "^", "<<", ">>":
		if !(x.runtime() && x.angle) {
			runtimeFail(p, "operator "+op+" with a measured angle on its right")
		}
	default:
		runtimeFail(p, "operator "+op+" on a measured angle")
	}
	ex := sim.Binary(exprOps[op], c.exprOf(p, x, op), c.exprOf(p, y, op))
	if w < 64 {
		ex = sim.Binary(sim.BitAnd, ex, sim.Const(1<<w-1)) // modulo a turn
	}
	return value{k: vExpr, ex: ex, w: w, angle: true}
}

// compareAngle compares an angle register with a number of radians
// exactly, as the compile-time comparison of two numbers does: the
// register holds k steps, so "angle cmp f" is "k cmp t" for
// t = f·2^w/2π.
func (c *compiler) compareAngle(p position, x value, cmp sim.Cmp, f float64) value {
	t := f / (2 * math.Pi) * math.Ldexp(1, x.w)
	lo, hi := math.Floor(t), math.Ceil(t)
	var k float64
	switch cmp {
	case sim.Gt, sim.Le:
		k = lo
	case sim.Ge, sim.Lt:
		k = hi
	default: // == and != hold or fail outright off the grid
		if lo != hi {
			return boolVal(cmp == sim.Ne)
		}
		k = t
	}
	if x.k == vRT {
		return value{k: vCond, cond: compareRuntime(p, value{k: vRT, bits: x.bits, w: len(x.bits)}, cmp, floatVal(k))}
	}
	if math.Abs(k) >= 1<<62 {
		return boolVal(cmp == sim.Ne || (k > 0) == (cmp == sim.Lt || cmp == sim.Le))
	}
	return value{k: vExpr, ex: sim.Compare(x.ex, cmp, sim.Const(int64(k)))}
}

// rescaleAngle converts a measured angle to w steps a turn: more steps
// shift it up, fewer round it to the nearest, as the compile-time angle
// rounds.
func (c *compiler) rescaleAngle(p position, v value, w int) value {
	if v.w == w {
		return v
	}
	ex := c.exprOf(p, v, "=")
	if w > v.w {
		ex = sim.Binary(sim.Shl, ex, sim.Const(int64(w-v.w)))
	} else {
		d := int64(v.w - w)
		ex = sim.Binary(sim.Shr, sim.Binary(sim.Add, ex, sim.Const(1<<(d-1))), sim.Const(d))
	}
	if w < 64 {
		ex = sim.Binary(sim.BitAnd, ex, sim.Const(1<<w-1))
	}
	return value{k: vExpr, ex: ex, w: w, angle: true}
}

// angleParam gives a measured angle computed by an expression bits of its
// own, so that a gate can take it as a parameter.
func (c *compiler) angleParam(p position, v value) value {
	if v.k != vExpr {
		return v
	}
	bits := c.allocScratch(p, v.w)
	c.computeInto(p, bits, v.ex)
	return value{k: vRT, bits: bits, w: v.w, angle: true}
}
