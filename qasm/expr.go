package qasm

import (
	"math"
	"strings"

	"github.com/qjobs/quantum/sim"
)

// eval evaluates an expression: to a compile-time value where it can, to
// run-time bits or a run-time condition where it reads measured bits. It
// recurses as deeply as the expression's tree is high (which the parser
// bounds), counting each level in c.nest; a run-time result is charged
// for the nodes of sim's expressions it built.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) eval(e expr) value {
	switch e.(type) {
	case *xUnary, *xBinary, *xIndex, *xCall, *xCast, *xSet, *xMeasure, *xRange:
		c.in(e.at())
		v := c.evalNode(e)
		c.nest--
		if v.runtime() {
			c.charge(e.at(), runtimeOpBytes)
		}
		return v
	}
	c.charge(e.at(), stepBytes)
	return c.evalNode(e)
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) evalNode(e expr) value {
	switch e := e.(type) {
	case *xInt:
		return intVal(e.V)
	case *xFloat:
		return floatVal(e.V)
	case *xDuration:
		return floatVal(e.V)
	case *xBool:
		return boolVal(e.V)
	case *xBits:
		if len(e.S) > 64 {
			fail(e.P, "bit string literal longer than 64 bits")
		}
		var v int64
		for _, ch := range e.S {
			v = v<<1 | int64(ch-'0')
		}
		return value{k: vBits, i: v, w: len(e.S)}
	case *xIdent:
		return c.evalIdent(e)
	case *xPhys:
		return value{k: vQubits, qubits: []int{c.physical(e.N)}, single: true}
	case *xUnary:
		return c.evalUnary(e)
	case *xBinary:
		if e.Op == "++" {
			qs, _ := c.qubitsOf(e)
			return value{k: vQubits, qubits: qs}
		}
		return c.evalBinary(e.P, e.Op, c.eval(e.X), c.eval(e.Y))
	case *xIndex:
		return c.evalIndex(e)
	case *xCall:
		return c.evalCall(e)
	case *xCast:
		return c.evalCast(e)
	case *xSet:
		c.chargeN(e.P, len(e.Elems), valueBytes)
		out := make([]value, len(e.Elems))
		for i, x := range e.Elems {
			out[i] = c.eval(x)
		}
		return value{k: vArray, arr: out}
	case *xMeasure:
		c.inGateBody(e.P, "measure")
		return c.measureValue(e)
	case *xRange:
		fail(e.P, "a range can only be used as an index or in a for loop")
	}
	fail(e.at(), "unsupported expression")
	return value{}
}

func (c *compiler) evalIdent(e *xIdent) value {
	sym := c.lookup(e.Name)
	if sym == nil {
		if v, ok := constant(e.Name); ok {
			return floatVal(v)
		}
		fail(e.P, "undefined name %q", e.Name)
	}
	switch sym.kind {
	case symVar:
		v := sym.val
		if sym.ty != nil && sym.ty.name == "angle" && v.k == vFloat {
			v.angle, v.w = true, sym.ty.size // its bits are a fraction of a turn
		}
		return v
	case symBits:
		return c.readTyped(sym.bits, sym.ty)
	case symQubits:
		return value{k: vQubits, qubits: sym.qubits, single: sym.single}
	}
	fail(e.P, "%q is a %s, not a value", e.Name, kindWord(sym.kind))
	return value{}
}

// readTyped reads bits that hold a variable of type t: a bit string, or
// a bool, int, uint or angle that took bits to hold measured values.
func (c *compiler) readTyped(bits []int, t *ctype) value {
	v := c.readBits(bits)
	if t == nil {
		return v
	}
	switch t.name {
	case "bool":
		if v.k == vBits {
			return boolVal(v.i != 0)
		}
	case "int":
		if v.k == vBits {
			return intVal(signExtend(v.i, v.w))
		}
		v.signed, v.integer = true, true
	case "uint":
		if v.k == vBits {
			return intVal(v.i)
		}
		v.integer = true
	case "angle":
		if v.k == vBits {
			return floatVal(angleValue(v.i, v.w))
		}
		v.angle = true
	}
	return v
}

func kindWord(k symKind) string {
	switch k {
	case symGate:
		return "gate"
	case symDef:
		return "subroutine"
	case symExtern:
		return "extern function"
	case symQubits:
		return "qubit register"
	}
	return "name"
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) evalUnary(e *xUnary) value {
	v := c.eval(e.X)
	switch e.Op {
	case "-":
		switch v.k {
		case vFloat:
			return floatVal(-v.f)
		case vInt, vBool, vBits:
			return intVal(-v.i)
		case vRT, vCond, vExpr:
			return value{k: vExpr, ex: sim.Unary(sim.Neg, c.exprOf(e.P, v, "-"))}
		}
		v.asFloat(e.P, "the operand of -")
	case "!":
		if v.k == vExpr {
			return value{k: vExpr, ex: sim.Unary(sim.LogicNot, v.ex)}
		}
		if v.runtime() {
			cond, _ := c.toCond(v, e.P, "the operand of !")
			return value{k: vCond, cond: sim.Not(cond)}
		}
		return boolVal(!v.asBool(e.P, "the operand of !"))
	case "~":
		switch v.k {
		case vBits:
			return value{k: vBits, i: mask(^v.i, v.w), w: v.w}
		case vInt:
			return intVal(^v.i)
		case vBool:
			return boolVal(v.i == 0)
		case vExpr:
			ex := sim.Unary(sim.BitNot, v.ex)
			if v.w > 0 && v.w < 64 { // a bit string keeps its width
				ex = sim.Binary(sim.BitAnd, ex, sim.Const(1<<v.w-1))
			}
			return value{k: vExpr, ex: ex, w: v.w}
		case vRT, vCond:
			if v.k == vRT && len(v.bits) != 1 {
				ex := sim.Unary(sim.BitNot, c.exprOf(e.P, v, "~"))
				if !v.signed && len(v.bits) < 64 {
					ex = sim.Binary(sim.BitAnd, ex, sim.Const(1<<len(v.bits)-1))
				}
				return value{k: vExpr, ex: ex}
			}
			cond, _ := c.toCond(v, e.P, "the operand of ~")
			return value{k: vCond, cond: sim.Not(cond)}
		}
		fail(e.P, "~ needs bits or an integer, got %s", v.kindName())
	}
	fail(e.P, "unknown operator %s", e.Op)
	return value{}
}

func signExtend(i int64, w int) int64 {
	if w <= 0 || w >= 64 {
		return i
	}
	return i << (64 - w) >> (64 - w)
}

func mask(i int64, w int) int64 {
	if w <= 0 || w >= 64 {
		return i
	}
	return i & (1<<w - 1)
}

var cmpOps = map[string]sim.Cmp{"==": sim.Eq, "!=": sim.Ne, "<": sim.Lt, "<=": sim.Le, ">": sim.Gt, ">=": sim.Ge}

// flip turns "a cmp b" into "b cmp' a".
func flip(c sim.Cmp) sim.Cmp {
	switch c {
	case sim.Lt:
		return sim.Gt
	case sim.Le:
		return sim.Ge
	case sim.Gt:
		return sim.Lt
	case sim.Ge:
		return sim.Le
	}
	return c
}

func (c *compiler) evalBinary(p position, op string, x, y value) value {
	if x.k == vQubits || y.k == vQubits {
		fail(p, "operator %s does not apply to qubits", op)
	}
	if x.k == vArray || y.k == vArray {
		fail(p, "operator %s does not apply to arrays", op)
	}
	if x.runtime() || y.runtime() {
		return c.runtimeBinary(p, op, x, y)
	}
	if x.k == vFloat && x.angle && x.w > 0 && x.w <= 64 && (op == "&" || op == "|" || op == "^" || op == "<<" || op == ">>") {
		// bit operations on an angle[w] work on its bits (which are no
		// angle: this recursion is one level deep)
		r := c.evalBinary(p, op, value{k: vBits, i: angleBits(x.f, x.w), w: x.w}, y)
		return value{k: vFloat, f: angleValue(r.i, x.w), angle: true, w: x.w}
	}
	switch op {
	case "&&":
		return boolVal(x.asBool(p, "the left of &&") && y.asBool(p, "the right of &&"))
	case "||":
		return boolVal(x.asBool(p, "the left of ||") || y.asBool(p, "the right of ||"))
	}
	if cmp, ok := cmpOps[op]; ok {
		if isFloat(x) || isFloat(y) {
			a, b := x.asFloat(p, "a comparison"), y.asFloat(p, "a comparison")
			return boolVal(compare(cmp, a, b))
		}
		return boolVal(compare(cmp, x.i, y.i))
	}
	switch op {
	case "&", "|", "^", "<<", ">>":
		if isFloat(x) || isFloat(y) && op != "<<" && op != ">>" {
			fail(p, "operator %s needs integers or bits, got %s and %s", op, x.kindName(), y.kindName())
		}
		a := x.asInt(p, leftOf(op))
		b := y.asInt(p, rightOf(op))
		var r int64
		switch op {
		case "&":
			r = a & b
		case "|":
			r = a | b
		case "^":
			r = a ^ b
		case "<<", ">>":
			if b < 0 {
				fail(p, "negative shift count %d", b)
			}
			switch {
			case b >= 64 && op == ">>" && x.k == vInt:
				r = a >> 63 // arithmetic, as sim shifts: 0 or -1
			case b >= 64:
				r = 0
			case op == "<<":
				r = a << b
			default:
				r = int64(uint64(a) >> b)
				if x.k == vInt {
					r = a >> b
				}
			}
		}
		if x.k == vBits {
			return value{k: vBits, i: mask(r, x.w), w: x.w}
		}
		if x.k == vBool && y.k == vBool {
			return boolVal(r != 0)
		}
		return intVal(r)
	}
	if isFloat(x) || isFloat(y) || op == "/" && y.asInt(p, "a divisor") != 0 && x.asInt(p, "a dividend")%y.asInt(p, "a divisor") != 0 {
		a, b := x.f, y.f // the message is only built when it is needed
		if x.k != vFloat {
			a = x.asFloat(p, leftOf(op))
		}
		if y.k != vFloat {
			b = y.asFloat(p, rightOf(op))
		}
		switch op {
		case "+":
			return floatVal(a + b)
		case "-":
			return floatVal(a - b)
		case "*":
			return floatVal(a * b)
		case "/":
			return floatVal(a / b)
		case "%":
			return floatVal(math.Mod(a, b))
		case "**":
			return floatVal(math.Pow(a, b))
		}
	}
	a, b := x.asInt(p, leftOf(op)), y.asInt(p, rightOf(op))
	switch op {
	case "+":
		return intVal(a + b)
	case "-":
		return intVal(a - b)
	case "*":
		return intVal(a * b)
	case "/", "%":
		if b == 0 {
			fail(p, "division by zero")
		}
		if op == "/" {
			return intVal(a / b)
		}
		return intVal(a % b)
	case "**":
		if b < 0 {
			return floatVal(math.Pow(float64(a), float64(b)))
		}
		return intVal(ipow(a, b))
	}
	fail(p, "unknown operator %s", op)
	return value{}
}

func isFloat(v value) bool { return v.k == vFloat }

// operandNames name the operands of each operator in messages. They are
// built once: building them for each operation would allocate twice for
// every constant folded.
var operandNames = func() map[string][2]string {
	m := map[string][2]string{}
	for _, op := range strings.Fields("|| && | ^ & == != < <= > >= << >> + - * / % ** ++") {
		m[op] = [2]string{"the left of " + op, "the right of " + op}
	}
	return m
}()

func leftOf(op string) string {
	if n, ok := operandNames[op]; ok {
		return n[0]
	}
	return "the left of " + op
}

func rightOf(op string) string {
	if n, ok := operandNames[op]; ok {
		return n[1]
	}
	return "the right of " + op
}

func ipow(a, b int64) int64 {
	r := int64(1)
	for b > 0 {
		if b&1 == 1 {
			r *= a
		}
		a *= a
		b >>= 1
	}
	return r
}

// compare applies a comparison to two numbers of one kind.
func compare[T int64 | float64](cmp sim.Cmp, a, b T) bool {
	switch cmp {
	case sim.Eq:
		return a == b
	case sim.Ne:
		return a != b
	case sim.Lt:
		return a < b
	case sim.Le:
		return a <= b
	case sim.Gt:
		return a > b
	}
	return a >= b
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) evalIndex(e *xIndex) value {
	if c.isQubitExpr(e) {
		qs, single := c.qubitsOf(e)
		return value{k: vQubits, qubits: qs, single: single}
	}
	if bits, _, ok := c.bitsLvalue(e); ok {
		return c.readBits(bits)
	}
	v := c.eval(e.X)
	for _, it := range e.Items {
		v = c.indexValue(it, v)
	}
	return v
}

// indexValue indexes a compile-time value: an array element, or a bit of
// an integer or bit string.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) indexValue(it expr, v value) value {
	if _, ok := it.(*xRange); ok {
		if v.k == vArray {
			idx := c.indexList(it, len(v.arr))
			c.chargeN(it.at(), len(idx), valueBytes)
			out := make([]value, len(idx))
			for i, j := range idx {
				out[i] = v.arr[j]
			}
			return value{k: vArray, arr: out}
		}
	}
	switch v.k {
	case vArray:
		i := c.index(it, len(v.arr))
		return v.arr[i]
	case vInt, vBits:
		w := v.w
		if v.k == vInt {
			w = 64
		}
		idx := c.indexList(it, w)
		var r int64
		for i, j := range idx {
			r |= (v.i >> j & 1) << i
		}
		return value{k: vBits, i: r, w: len(idx)}
	case vFloat:
		fail(it.at(), "cannot index a float (angle bits are not supported)")
	}
	fail(it.at(), "cannot index a %s", v.kindName())
	return value{}
}

// index evaluates a single index into something of size n; negative
// indices count from the end.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) index(e expr, n int) int {
	i := c.count(e, "an index")
	v := i
	if v < 0 {
		v += int64(n) // no overflow: n is small
	}
	if v < 0 || v >= int64(n) {
		fail(e.at(), "index %d out of range for size %d", i, n)
	}
	return int(v)
}

// indexList evaluates an index item (single, range or set) into the
// positions it selects in something of size n; it selects at least one.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) indexList(e expr, n int) []int {
	out := c.indexList0(e, n)
	if len(out) == 0 {
		fail(e.at(), "the index selects nothing")
	}
	return out
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) indexList0(e expr, n int) []int {
	switch it := e.(type) {
	case *xRange:
		start, stop, step := int64(0), int64(n-1), int64(1)
		if it.Step != nil {
			step = c.count(it.Step, "a range step")
			if step == 0 {
				fail(it.Step.at(), "a range step cannot be 0")
			}
			if step < 0 {
				start, stop = int64(n-1), 0
			}
		}
		if it.Start != nil {
			start = int64(c.index(it.Start, n))
		}
		if it.Stop != nil {
			stop = int64(c.index(it.Stop, n))
		}
		cnt := rangeLen(start, step, stop) // at most n
		c.chargeN(it.P, int(cnt), 8)
		out := make([]int, cnt)
		for i := range out {
			out[i] = int(start + int64(i)*step)
		}
		return out
	case *xSet:
		c.chargeN(it.P, len(it.Elems), 8)
		out := make([]int, len(it.Elems))
		for i, x := range it.Elems {
			out[i] = c.index(x, n)
		}
		return out
	}
	return []int{c.index(e, n)}
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) evalCast(e *xCast) value {
	ty := c.resolveType(e.Type)
	v := c.eval(e.X)
	if v.runtime() {
		switch ty.name {
		case "bool":
			if v.k == vExpr {
				return value{k: vExpr, ex: sim.Compare(v.ex, sim.Ne, sim.Const(0))}
			}
			cond, _ := c.toCond(v, e.P, "the cast")
			return value{k: vCond, cond: cond}
		case "int", "uint", "bit":
			n := ty.size
			if ty.name == "bit" && n == 0 {
				n = 1
			}
			signed := ty.name == "int"
			switch {
			case v.k == vCond:
				return v
			case v.k == vRT && n == 0:
				v.angle, v.integer = false, true
				return v
			case v.k == vRT && n <= len(v.bits):
				// the low n bits, read as the target type reads them
				return value{k: vRT, bits: v.bits[:n], w: n, signed: signed, integer: ty.name != "bit"}
			case v.k == vRT && v.signed && !signed:
				// a negative int widened into unsigned bits: sign-extend, then cut
				ex := sim.BitsOf(v.bits, true)
				if n < 64 {
					ex = sim.Binary(sim.BitAnd, ex, sim.Const(1<<n-1))
				}
				w := 0
				if ty.name == "bit" {
					w = n
				}
				return value{k: vExpr, ex: ex, w: w}
			case v.k == vRT:
				// widening keeps the value
				v.angle, v.integer = false, ty.name != "bit"
				return v
			case n == 0 || n >= 64:
				return v
			case ty.name == "int":
				sh := sim.Const(int64(64 - n))
				return value{k: vExpr, ex: sim.Binary(sim.Shr, sim.Binary(sim.Shl, v.ex, sh), sh)}
			default:
				w := 0
				if ty.name == "bit" {
					w = n
				}
				return value{k: vExpr, ex: sim.Binary(sim.BitAnd, v.ex, sim.Const(1<<n-1)), w: w}
			}
		}
		runtimeFail(e.P, "a cast to "+ty.name)
	}
	if ty.name == "bit" && ty.size == 0 {
		return value{k: vBits, i: v.asInt(e.P, "the cast") & 1, w: 1}
	}
	return coerce(v, ty, e.P, "the cast")
}
