package qasm

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/qjobs/quantum/sim"
)

// Operands: the qubits and classical bits that statements name, and the
// statements that move data between them (measure, assignment, inputs).

// isQubitExpr reports whether e names qubits. It recurses down the
// operands of indexing and ++, as deeply as the expression's tree is high
// (which the parser bounds); so do qubitsOf and bitsLvalue, and all
// three count the levels in c.nest.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) isQubitExpr(e expr) bool {
	c.in(e.at())
	ok := c.isQubitExpr1(e)
	c.nest--
	return ok
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) isQubitExpr1(e expr) bool {
	switch e := e.(type) {
	case *xPhys:
		return true
	case *xIdent:
		s := c.lookup(e.Name)
		return s != nil && s.kind == symQubits
	case *xIndex:
		return c.isQubitExpr(e.X)
	case *xBinary:
		return e.Op == "++" && (c.isQubitExpr(e.X) || c.isQubitExpr(e.Y))
	}
	return false
}

// qubitsOf resolves a qubit operand: a register, a qubit, an index, a
// slice, a set of indices or a concatenation.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) qubitsOf(e expr) (qs []int, single bool) {
	c.in(e.at())
	qs, single = c.qubitsOf1(e)
	c.nest--
	return qs, single
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) qubitsOf1(e expr) (qs []int, single bool) {
	switch e := e.(type) {
	case *xPhys:
		return []int{c.physical(e.N)}, true
	case *xIdent:
		s := c.lookup(e.Name)
		if s == nil {
			fail(e.P, "undefined qubit register %q", e.Name)
		}
		if s.kind != symQubits {
			fail(e.P, "%q is not a qubit register", e.Name)
		}
		return s.qubits, s.single
	case *xIndex:
		qs, single = c.qubitsOf(e.X)
		if single {
			fail(e.P, "cannot index a single qubit")
		}
		for n, it := range e.Items {
			if n > 0 {
				fail(it.at(), "a qubit register has one dimension")
			}
			idx := c.indexList(it, len(qs))
			c.chargeN(it.at(), len(idx), 8)
			out := make([]int, len(idx))
			for i, j := range idx {
				out[i] = qs[j]
			}
			_, isRange := it.(*xRange)
			_, isSet := it.(*xSet)
			qs, single = out, !isRange && !isSet
		}
		return qs, single
	case *xBinary:
		if e.Op == "++" {
			a, _ := c.qubitsOf(e.X)
			b, _ := c.qubitsOf(e.Y)
			c.chargeN(e.P, len(a)+len(b), 16)
			return append(slices.Clone(a), b...), false
		}
	}
	fail(e.at(), "expected qubits")
	return nil, false
}

// bitsLvalue resolves e to classical bits when it names them: a bit
// register, a bit or a slice of one.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) bitsLvalue(e expr) (bits []int, single, ok bool) {
	c.in(e.at())
	bits, single, ok = c.bitsLvalue1(e)
	c.nest--
	return bits, single, ok
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) bitsLvalue1(e expr) (bits []int, single, ok bool) {
	switch e := e.(type) {
	case *xIdent:
		s := c.lookup(e.Name)
		if s == nil || s.kind != symBits {
			return nil, false, false
		}
		return s.bits, s.single, true
	case *xIndex:
		bits, single, ok = c.bitsLvalue(e.X)
		if !ok {
			return nil, false, false
		}
		if single {
			fail(e.P, "cannot index a single bit")
		}
		for n, it := range e.Items {
			if n > 0 {
				fail(it.at(), "a bit register has one dimension")
			}
			idx := c.indexList(it, len(bits))
			c.chargeN(it.at(), len(idx), 8)
			out := make([]int, len(idx))
			for i, j := range idx {
				out[i] = bits[j]
			}
			_, isRange := it.(*xRange)
			_, isSet := it.(*xSet)
			bits, single = out, !isRange && !isSet
		}
		return bits, single, true
	case *xBinary:
		if e.Op == "++" {
			a, _, ok1 := c.bitsLvalue(e.X)
			b, _, ok2 := c.bitsLvalue(e.Y)
			if ok1 && ok2 {
				c.chargeN(e.P, len(a)+len(b), 16)
				return append(slices.Clone(a), b...), false, true
			}
		}
	}
	return nil, false, false
}

func (c *compiler) measureInto(p position, qs, bits []int) {
	for i, q := range qs {
		c.emit(p, sim.MeasureOp(q, bits[i]))
		c.setKnown(bits[i], unknown)
	}
}

// measureTo lowers "measure q -> c" and "c = measure q".
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) measureTo(p position, q, target expr) {
	qs, _ := c.qubitsOf(q)
	c.promoteTarget(target)
	bits, _, ok := c.bitsLvalue(target)
	if !ok {
		if id, isIdent := target.(*xIdent); isIdent && c.lookup(id.Name) == nil {
			fail(target.at(), "undefined classical register %q", id.Name)
		}
		fail(target.at(), "measure writes to bits; the target is not a bit register")
	}
	if len(qs) != len(bits) {
		fail(p, "measure of %d qubit(s) into %d bit(s)", len(qs), len(bits))
	}
	c.measureInto(p, qs, bits)
}

// measureValue measures into fresh scratch bits and returns them.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) measureValue(m *xMeasure) value {
	qs, _ := c.qubitsOf(m.Q)
	bits := c.allocScratch(m.P, len(qs))
	c.measureInto(m.P, qs, bits)
	return value{k: vRT, bits: bits, w: len(bits)}
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) measureValueInto(m *xMeasure, bits []int) {
	qs, _ := c.qubitsOf(m.Q)
	if len(qs) != len(bits) {
		fail(m.P, "measure of %d qubit(s) into %d bit(s)", len(qs), len(bits))
	}
	c.measureInto(m.P, qs, bits)
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) assign(s *sAssign) {
	if m, ok := s.Value.(*xMeasure); ok {
		if s.Op != "=" {
			fail(s.P, "measure can only be assigned with =")
		}
		c.measureTo(s.P, m.Q, s.Target)
		return
	}
	if bits, _, ok := c.bitsLvalue(s.Target); ok {
		v := c.eval(s.Value)
		if s.Op != "=" {
			v = c.evalBinary(s.P, strings.TrimSuffix(s.Op, "="), c.eval(s.Target), v)
		}
		if id, ok := s.Target.(*xIdent); ok {
			v = c.varBits(c.lookup(id.Name), v)
		}
		c.storeBits(s.P, bits, v)
		return
	}
	root, path := s.Target, []expr(nil)
	for {
		ix, ok := root.(*xIndex)
		if !ok {
			break
		}
		path = append(slices.Clone(ix.Items), path...)
		root = ix.X
	}
	id, ok := root.(*xIdent)
	if !ok {
		fail(s.Target.at(), "cannot assign to this expression")
	}
	sym := c.lookup(id.Name)
	if sym == nil {
		fail(id.P, "undefined name %q", id.Name)
	}
	if sym.kind == symQubits {
		fail(id.P, "cannot assign to qubit register %q", id.Name)
	}
	if sym.kind != symVar {
		fail(id.P, "cannot assign to %s %q", kindWord(sym.kind), id.Name)
	}
	if sym.isConst {
		fail(id.P, "cannot assign to constant %q", id.Name)
	}
	v := c.eval(s.Value)
	if s.Op != "=" {
		v = c.evalBinary(s.P, strings.TrimSuffix(s.Op, "="), c.eval(s.Target), v)
	}
	if v.runtime() {
		if runtimeWidth(sym.ty) > 0 && sym.level >= c.rt {
			c.promote(s.P, sym)
			bits, _, _ := c.bitsLvalue(s.Target)
			if len(path) == 0 {
				v = c.varBits(sym, v)
			}
			c.storeBits(s.P, bits, v)
			return
		}
		runtimeFail(s.Value.at(), "the value assigned to "+quote(id.Name))
	}
	if c.rt > sym.level {
		fail(s.P, "cannot assign to %q here: it is a compile-time %s and this branch only runs on some shots (use a bit or bool)", id.Name, typeName(sym.ty))
	}
	c.wrote(sym)
	sym.val = c.setPath(sym.val, path, v, sym.ty, s.P)
}

func typeName(t *ctype) string {
	if t == nil {
		return "variable"
	}
	return t.name
}

// setPath stores v at the position path (indices) of old.
//
// Recursion: setPath calls itself once an index, as deeply as old's
// arrays nest: at most maxArrayDims for a declared array, or the height of
// the literal a subroutine's #dim argument was given, which the parser
// bounds. Its other cycles, through the indices it evaluates, pass in, so
// they go maxNest levels deep at most.
func (c *compiler) setPath(old value, path []expr, v value, t *ctype, p position) value {
	c.charge(p, stepBytes)
	if len(path) == 0 {
		if t == nil {
			return v
		}
		if t.name == "array" {
			c.chargeN(p, t.slots, valueBytes) // what coerce builds
		}
		return coerce(v, t, p, "the assigned value")
	}
	switch old.k {
	case vArray:
		var inner *ctype
		if t != nil && t.name == "array" {
			inner = t.inner()
		}
		arr := old.arr // arrays are updated in place, as references
		if _, isRange := path[0].(*xRange); isRange {
			idx := c.indexList(path[0], len(arr))
			if v.k != vArray || len(v.arr) != len(idx) {
				fail(p, "assigning to %d array elements needs an array of that many", len(idx))
			}
			for i, j := range idx {
				arr[j] = c.setPath(arr[j], path[1:], v.arr[i], inner, p)
			}
		} else {
			i := c.index(path[0], len(arr))
			arr[i] = c.setPath(arr[i], path[1:], v, inner, p)
		}
		return value{k: vArray, arr: arr}
	case vInt, vBits:
		w := 64
		if t != nil && t.size > 0 {
			w = t.size
		}
		if old.k == vBits {
			w = old.w
		}
		if len(path) > 1 {
			fail(path[1].at(), "too many indices: a value of type %s has one dimension", old.kindName())
		}
		idx := c.indexList(path[0], w)
		x := v.asInt(p, "the assigned bits")
		r := old.i
		for i, j := range idx {
			r = r&^(1<<j) | (x>>i&1)<<j
		}
		old.i = r
		return old
	}
	fail(p, "cannot index a %s", old.kindName())
	return value{}
}

// inputValue converts the job's value for an input declaration.
func (c *compiler) inputValue(d *sDecl, t *ctype) value {
	raw := c.opts.Inputs[d.Name]
	var v value
	switch x := raw.(type) {
	case float64:
		v = floatVal(x)
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			v = intVal(int64(x))
		}
	case float32:
		v = floatVal(float64(x))
	case json.Number:
		if i, err := x.Int64(); err == nil {
			v = intVal(i)
		} else if f, err := x.Float64(); err == nil {
			v = floatVal(f)
		} else {
			fail(d.P, "input %q: %q is not a number", d.Name, x.String())
		}
	case int:
		v = intVal(int64(x))
	case int64:
		v = intVal(x)
	case int32:
		v = intVal(int64(x))
	case uint64:
		v = intVal(int64(x))
	case uint32:
		v = intVal(int64(x))
	case bool:
		v = boolVal(x)
	case string:
		if x == "" || strings.Trim(x, "01") != "" || len(x) > 64 {
			fail(d.P, "input %q: the string %q is not a bit string", d.Name, x)
		}
		var i int64
		for _, ch := range x {
			i = i<<1 | int64(ch-'0')
		}
		v = value{k: vBits, i: i, w: len(x)}
	default:
		fail(d.P, "input %q: a value of type %s is not supported", d.Name, fmt.Sprintf("%T", raw))
	}
	if t.name == "float" || t.name == "angle" {
		return floatVal(v.asFloat(d.P, "input "+quote(d.Name)))
	}
	return v
}
