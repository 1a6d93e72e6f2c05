package qasm

import (
	"github.com/qjobs/quantum/sim"
)

// ctl tells the statement list being lowered what a statement did to the
// flow of control at compile time.
type ctl uint8

const (
	ctlNone ctl = iota
	ctlBreak
	ctlContinue
	ctlReturn
	ctlEnd
)

type loopCtx struct {
	runtime bool
	level   int // c.rt when the loop started
	top     int // runtime loops: index of the condition's jump
	breaks  []int
	// continues are jumps to the next iteration of an unrolled loop,
	// patched when it starts.
	continues []int
	// raised is set once a break or continue under a run-time condition
	// has made the rest of an unrolled loop run on only some shots; the
	// compiler's run-time nesting is one deeper until the loop ends.
	raised bool
}

type fnCtx struct {
	def    *sDef
	level  int
	ret    *ctype
	result value
	// resBits receives a bit or bool result, allocated in the caller's
	// scope.
	resBits []int
	// returns are jumps to the end of the body from returns under a
	// run-time condition; raised as for loops.
	returns []int
	raised  bool
}

func (c *compiler) lowerProgram(stmts []stmt) {
	c.lowerList(stmts)
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) lowerList(stmts []stmt) ctl {
	for i, s := range stmts {
		if (len(c.fns) > 0 || len(c.loops) > 0) && i+1 < len(stmts) && c.leavesEarly(s) {
			// A return, break or continue under a measured condition
			// leaves the statements after it to only some shots: what
			// they assign needs bits before then.
			c.promoteAssigned(stmts[i+1:])
		}
		if k := c.lowerStmt(s); k != ctlNone {
			return k
		}
	}
	return ctlNone
}

// leavesEarly reports whether a statement holds a return, break or
// continue inside a branch.
func (c *compiler) leavesEarly(s stmt) bool {
	switch s.(type) {
	case *sIf, *sSwitch, *sBlock:
		return c.hasJump([]stmt{s}) || c.returnsInBranch([]stmt{s})
	case *sFor, *sWhile:
		// their own breaks stay inside them; a return leaves
		return c.returnsInBranch([]stmt{s})
	}
	return false
}

// lowerBlock lowers stmts in a scope of their own.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) lowerBlock(stmts []stmt) ctl {
	c.push(false, false)
	defer c.pop()
	return c.lowerList(stmts)
}

// enter and leave bracket a gate expansion or a subroutine call.
func (c *compiler) enter(p position) {
	c.depth++
	if c.depth > maxCallDepth {
		fail(p, "gate and subroutine calls nested more than %d deep (recursive definition?)", maxCallDepth)
	}
	c.in(p)
}

func (c *compiler) leave() {
	c.depth--
	c.nest--
}

// maxNest bounds the compiler's recursion as a whole. The parser keeps
// the statements and expressions of one body to maxDepth levels each, and
// calls nest maxCallDepth deep, but a recursive subroutine stacks its
// body's levels once per call: this bounds them all together. A level
// takes at most about 4 KB of stack (an expression's, measured), so the
// compiler's stack stays under 8 MB whatever the program; a recursion of
// 100 calls has 20 levels for each.
const maxNest = 2000

// in counts a level of the compiler's recursion: a statement, an
// expression node with operands, a call. The caller takes it back with
// c.nest-- (no defer: an error unwinds the whole compile).
func (c *compiler) in(p position) {
	c.nest++
	if c.nest > maxNest {
		fail(p, "program nests too deeply once expanded: statements, expressions and calls more than %d levels deep together (recursive subroutine?)", maxNest)
	}
	c.charge(p, stepBytes)
}

func (c *compiler) inGateBody(p position, what string) {
	if c.collect != nil {
		fail(p, "%s is not allowed inside a gate definition", what)
	}
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) lowerStmt(s stmt) ctl {
	c.in(s.at())
	outer := c.stmtPos
	c.stmtPos = s.at()
	k := c.lowerStmt1(s)
	c.stmtPos = outer
	c.nest--
	return k
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) lowerStmt1(s stmt) ctl {
	switch s := s.(type) {
	case *sInclude:
		c.include(s)
	case *sQubitDecl:
		c.inGateBody(s.P, "a qubit declaration")
		c.declareQubits(s)
	case *sDecl:
		c.inGateBody(s.P, "a classical declaration")
		c.declareClassical(s)
	case *sAlias:
		c.inGateBody(s.P, "let")
		c.alias(s)
	case *sGateDef:
		if !c.atTop() {
			fail(s.P, "gates can only be defined at the top level")
		}
		c.declare(&symbol{kind: symGate, name: s.Name, pos: s.P, gate: s})
	case *sDef:
		if !c.atTop() {
			fail(s.P, "subroutines can only be defined at the top level")
		}
		c.declare(&symbol{kind: symDef, name: s.Name, pos: s.P, def: s})
	case *sExtern:
		c.declare(&symbol{kind: symExtern, name: s.Name, pos: s.P})
	case *sGateCall:
		c.gateCall(s)
	case *sMeasure:
		c.inGateBody(s.P, "measure")
		if s.Target == nil {
			qs, _ := c.qubitsOf(s.Q)
			bits := c.allocScratch(s.P, len(qs))
			c.measureInto(s.P, qs, bits)
		} else {
			c.measureTo(s.P, s.Q, s.Target)
		}
	case *sReset:
		c.inGateBody(s.P, "reset")
		qs, _ := c.qubitsOf(s.Q)
		for _, q := range qs {
			c.emit(s.P, sim.ResetOp(q))
		}
	case *sBarrier:
		if c.collect != nil {
			return ctlNone // a barrier inside a gate only orders that gate's parts
		}
		var qs []int
		for _, e := range s.Qs {
			q, _ := c.qubitsOf(e)
			c.chargeN(e.at(), len(q), 24) // qs, doubling as it grows
			qs = append(qs, q...)
		}
		c.charge(s.P, extCost(0, 0)) // the op's extension, which copies qs
		c.chargeN(s.P, len(qs), 8)
		c.emit(s.P, sim.BarrierOp(qs...))
	case *sIf:
		return c.lowerIf(s)
	case *sFor:
		return c.lowerFor(s)
	case *sSwitch:
		c.inGateBody(s.P, "switch")
		return c.lowerSwitch(s)
	case *sWhile:
		c.inGateBody(s.P, "while")
		return c.lowerWhile(s)
	case *sBreak:
		return c.breakOrContinue(s.P, true)
	case *sContinue:
		return c.breakOrContinue(s.P, false)
	case *sReturn:
		c.inGateBody(s.P, "return")
		return c.lowerReturn(s)
	case *sEnd:
		c.inGateBody(s.P, "end")
		if c.rt > 0 || len(c.fns) > 0 {
			// in a subroutine the caller goes on lowering what follows
			// the call, which no shot reaches
			c.endJumps = append(c.endJumps, c.emit(s.P, sim.JumpOp(0)))
		}
		return ctlEnd
	case *sAssign:
		c.inGateBody(s.P, "an assignment")
		c.assign(s)
	case *sExpr:
		c.inGateBody(s.P, "an expression statement")
		c.eval(s.X)
	case *sBlock:
		return c.lowerBlock(s.Body)
	case *sNoise:
		c.lowerNoise(s)
	case *sIgnored:
		// timing, calibration and pragmas: nothing for a state vector
	default:
		fail(s.at(), "unsupported statement")
	}
	return ctlNone
}

var libraries = map[string]bool{"qelib1.inc": true, "stdgates.inc": true}

func (c *compiler) include(s *sInclude) {
	if !c.atTop() {
		fail(s.P, "include is only allowed at the top level")
	}
	if !libraries[s.Path] {
		fail(s.P, "cannot include %q: programs arrive as one string, so only the built-in \"qelib1.inc\" and \"stdgates.inc\" can be included", s.Path)
	}
	c.included = s.Path
	c.builtins = builtins{}
	c.looked.clear() // a name may be a gate now: fastGate remembers it was not
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) declareQubits(s *sQubitDecl) {
	if !c.atTop() {
		fail(s.P, "qubits can only be declared at the top level (in a subroutine, take them as arguments)")
	}
	n, single := int64(1), s.Size == nil
	if s.Size != nil {
		n = c.count(s.Size, "the size of a qubit register")
		if n <= 0 {
			fail(s.Size.at(), "qubit register %q must have a positive size, got %d", s.Name, n)
		}
	}
	if n > int64(c.opts.MaxQubits-c.nq) {
		fail(s.P, "qubit register %q takes the program to %d qubits, more than the limit of %d", s.Name, int64(c.nq)+n, c.opts.MaxQubits)
	}
	c.chargeN(s.P, int(n), 8)
	qs := make([]int, n)
	for i := range qs {
		qs[i] = c.nq + i
	}
	c.declare(&symbol{kind: symQubits, name: s.Name, pos: s.P, qubits: qs, single: single})
	c.nq += int(n)
}

// physical returns the qubit of $n; the parser counted them, so that
// they all come before the declared ones.
func (c *compiler) physical(n int) int { return n }

// Recursion: resolveType calls itself for element types, as deeply as
// types nest, which the parser bounds (maxDepth); its other cycles, through
// the sizes it evaluates, pass in, so they go maxNest levels deep at most.
func (c *compiler) resolveType(t *typeSpec) *ctype {
	c.charge(t.P, 64)
	ct := &ctype{name: t.Name}
	if t.Size != nil {
		n := c.count(t.Size, "a type's size")
		if n <= 0 || n > maxClbits {
			fail(t.Size.at(), "size %d of type %s is out of range: sizes go from 1 to %d", n, t.Name, maxClbits)
		}
		ct.size = int(n)
	}
	if t.Elem != nil {
		if t.Name == "array" && t.Elem.Name == "array" {
			// Arrays of arrays would hold the product of their sizes,
			// past the limit each checks on its own.
			fail(t.Elem.P, "the elements of an array cannot be arrays: give it more dimensions, as in array[int[8], 4, 4]")
		}
		ct.elem = c.resolveType(t.Elem)
	}
	if t.Name == "array" && ct.elem == nil {
		fail(t.P, "an array type needs an element type and dimensions: array[float[64], 4]")
	}
	if len(t.Dims) > maxArrayDims {
		fail(t.Dims[maxArrayDims].at(), "an array has at most %d dimensions", maxArrayDims)
	}
	total := int64(1)
	for _, d := range t.Dims {
		n := c.count(d, "an array dimension")
		if n <= 0 || n > maxArrayElems/total {
			fail(d.at(), "array dimensions must be positive and hold at most %d elements", maxArrayElems)
		}
		total *= n
		ct.slots += int(total) // at most maxArrayDims·maxArrayElems
		ct.dims = append(ct.dims, int(n))
	}
	if t.Name == "array" {
		// The types of the elements at each level, made once here rather
		// than by every coerce, zeroOf and setPath.
		for u := ct; len(u.dims) > 1; u = u.sub {
			u.sub = &ctype{name: "array", elem: ct.elem, dims: u.dims[1:], slots: u.slots/u.dims[0] - 1}
		}
		if len(ct.dims) > 0 {
			last := ct
			for last.sub != nil {
				last = last.sub
			}
			last.sub = ct.elem
		}
		// The values an array of this type holds, charged here for zeroOf
		// and coerce, which build them without a compiler at hand: one
		// array for the declaration, one for its initialiser.
		c.chargeN(t.P, ct.slots, 2*valueBytes+16)
	}
	return ct
}

const (
	// maxArrayElems bounds the elements of an array, all dimensions
	// together.
	maxArrayElems = 1 << 16
	// maxArrayDims bounds an array's dimensions: values and types
	// recurse over them.
	maxArrayDims = 16
)

// count evaluates a size, a count or an index: a whole number known at
// compile time. A literal past math.MaxInt64 (which other expressions
// read as the uint[64] with those bits) is refused as too large, rather
// than read as the negative number with its bits.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) count(e expr, what string) int64 {
	if x, ok := e.(*xInt); ok && x.V < 0 {
		fail(x.P, "%s: %d is too large", what, uint64(x.V))
	}
	return c.eval(e).asExactInt(e.at(), what)
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) declareClassical(s *sDecl) {
	if s.IO != "" && !c.atTop() {
		fail(s.P, "%s declarations are only allowed at the top level", s.IO)
	}
	ty := c.resolveType(s.Type)
	sym := &symbol{name: s.Name, pos: s.P, ty: ty, isConst: s.Const}
	var init value
	hasInit := s.Init != nil
	if s.IO == "input" {
		init = c.inputValue(s, ty)
		hasInit = true
	} else if hasInit {
		if m, ok := s.Init.(*xMeasure); ok && ty.name == "bit" {
			// measure straight into the new register
			sym.kind, sym.single = symBits, ty.size == 0
			sym.bits = c.newBits(s.P, s.Name, max(ty.size, 1))
			c.declare(sym)
			c.measureValueInto(m, sym.bits)
			return
		}
		init = c.eval(s.Init)
	}
	if ty.name == "bit" && !(s.Const && !init.runtime()) {
		sym.kind, sym.single = symBits, ty.size == 0
		sym.bits = c.newBits(s.P, s.Name, max(ty.size, 1))
		if hasInit {
			c.storeBits(s.P, sym.bits, init)
		} else {
			c.setConst(s.P, sym.bits, 0)
		}
		c.declare(sym)
		return
	}
	sym.kind = symVar
	switch {
	case !hasInit:
		sym.val = zeroOf(ty)
	case init.runtime() && !s.Const && runtimeWidth(ty) > 0:
		c.declare(sym)
		c.promote(s.P, sym)
		c.storeBits(s.P, sym.bits, c.varBits(sym, init))
		return
	case init.runtime():
		runtimeFail(s.P, "the value of "+quote(s.Name))
	default:
		sym.val = coerce(init, ty, s.P, "the value of "+quote(s.Name))
	}
	c.declare(sym)
}

// runtimeWidth is the number of bits a variable of type t takes when it
// holds a value measured at run time, or 0 for the types that cannot.
func runtimeWidth(t *ctype) int {
	switch {
	case t == nil || t.elem != nil:
		return 0
	case t.name == "bool":
		return 1
	case t.name == "angle" && t.size > 0:
		return min(t.size, 64)
	case t.name == "int" || t.name == "uint":
		if t.size > 0 {
			return min(t.size, 64)
		}
		return 64
	}
	return 0
}

// promote gives a compile-time bool, int or uint variable classical bits,
// holding its current value, so that it can hold values measured at run
// time; it stays a bit register from then on. A variable of the current
// scope gets scratch bits, freed with the scope.
func (c *compiler) promote(p position, sym *symbol) {
	c.wrote(sym)
	n := runtimeWidth(sym.ty)
	var bits []int
	if c.scopes[len(c.scopes)-1].syms[sym.name] == sym {
		bits = c.allocScratch(p, n)
	} else {
		bits = c.allocPerm(p, n)
	}
	if sym.val.k == 0 { // declared with a measured value: no value yet
		c.setConst(p, bits, 0)
	} else {
		c.storeBits(p, bits, c.varBits(sym, sym.val))
	}
	sym.kind, sym.single, sym.bits, sym.val = symBits, n == 1 && sym.ty.name == "bool", bits, value{}
}

// varBits converts a value stored into the whole of variable sym: an
// angle's bits are a fraction of a turn.
func (c *compiler) varBits(sym *symbol, v value) value { return c.varBitsOf(sym.ty, v) }

func (c *compiler) varBitsOf(t *ctype, v value) value {
	if t != nil && t.name == "bool" {
		return truthOf(v)
	}
	if t != nil && t.name == "angle" && (v.k == vFloat || v.k == vInt) {
		n := runtimeWidth(t)
		return value{k: vBits, i: angleBits(v.asFloat(position{}, "an angle"), n), w: n}
	}
	if t != nil && t.name == "angle" && v.runtime() && runtimeWidth(t) > 0 {
		if v.k == vRT && !v.angle && !v.integer && !v.signed {
			// bits are an angle of their own width
			v.angle, v.w = true, len(v.bits)
		}
		if v.angle {
			return c.rescaleAngle(position{}, v, runtimeWidth(t))
		}
	}
	return v
}

// promoteTarget promotes the variable a measurement or a measured value
// is about to be written to (an angle's bit: measure q -> c[0]).
func (c *compiler) promoteTarget(target expr) {
	root := target
	for {
		ix, ok := root.(*xIndex)
		if !ok {
			break
		}
		root = ix.X
	}
	if id, ok := root.(*xIdent); ok {
		if sym := c.promotable(id.Name); sym != nil {
			c.promote(id.P, sym)
		}
	}
}

// promotable returns the variable name refers to when it can be given
// bits here: a bool, int, uint or sized angle, not constant, declared at
// the run-time level the compiler is at.
func (c *compiler) promotable(name string) *symbol {
	sym := c.lookup(name)
	if sym != nil && sym.kind == symVar && !sym.isConst && runtimeWidth(sym.ty) > 0 && sym.level >= c.rt {
		return sym
	}
	return nil
}

// newBits gives a bit register its storage: program registers at the top
// level, scratch bits elsewhere.
func (c *compiler) newBits(p position, name string, n int) []int {
	if c.atTop() && c.rt == 0 && len(c.fns) == 0 {
		bits := c.allocOut(p, n)
		c.registers = append(c.registers, Register{Name: name, Offset: bits[0], Size: n})
		return bits
	}
	return c.allocScratch(p, n)
}

// storeBits writes a value into bits: a constant, a copy of run-time bits
// or the truth of a run-time condition.
func (c *compiler) storeBits(p position, bits []int, v value) {
	switch v.k {
	case vRT:
		c.copyBits(p, bits, v.bits)
		if v.signed && len(bits) > len(v.bits) {
			// sign-extend: the copy zero-extended
			c.computeInto(p, bits[len(v.bits):], sim.Unary(sim.Neg, sim.BitsOf(v.bits[len(v.bits)-1:], false)))
		}
	case vExpr:
		c.computeInto(p, bits, v.ex)
	case vCond:
		c.setFromCond(p, bits[0], v.cond)
		c.setConst(p, bits[1:], 0)
	case vBits, vInt, vBool:
		c.setConst(p, bits, uint64(v.i))
	case vFloat:
		if v.angle { // an angle's bits, in its own steps when it has a size
			n := min(len(bits), 64)
			if v.w > 0 {
				n = min(v.w, 64)
			}
			c.setConst(p, bits, uint64(angleBits(v.f, n)))
			return
		}
		c.setConst(p, bits, uint64(v.asInt(p, "a value stored in bits")))
	default:
		fail(p, "cannot store a %s value in bits", v.kindName())
	}
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) alias(s *sAlias) {
	if c.isQubitExpr(s.Value) {
		qs, single := c.qubitsOf(s.Value)
		sym := &symbol{kind: symQubits, name: s.Name, pos: s.P, qubits: qs, single: single}
		c.redeclareAlias(sym)
		return
	}
	bits, single, ok := c.bitsLvalue(s.Value)
	if !ok {
		fail(s.Value.at(), "let needs qubits or bits on the right")
	}
	c.redeclareAlias(&symbol{kind: symBits, name: s.Name, pos: s.P, bits: bits, single: single})
}

// redeclareAlias declares an alias; an alias may be rebound in the scope
// that made it (a loop body that moves "let io = bp[1]" along).
func (c *compiler) redeclareAlias(sym *symbol) {
	s := c.scopes[len(c.scopes)-1]
	if prev, ok := s.syms[sym.name]; ok && prev.kind == sym.kind {
		delete(s.syms, sym.name)
		c.looked.clear()
	}
	c.declare(sym)
}

func quote(s string) string { return "\"" + s + "\"" }
