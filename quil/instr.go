package quil

import (
	"math"

	"github.com/qjobs/quantum/sim"
)

// instrBytes and tokenBytes are what an instruction's general lowering
// allocates, at most, beyond what is charged where it is built: its
// cursor, slices of its tokens, qubits and parameters, its expressions'
// nodes, the classical bits it names.
const (
	instrBytes = 512
	tokenBytes = 128
)

// instruction lowers one instruction (its tokens end with tEOL).
func (c *compiler) instruction(ln line) {
	r := &cursor{c: c, ln: ln.no, toks: ln.toks}
	head := r.peek()
	if head.kind != tIdent {
		r.failAt(head, "expected an instruction, got %s", head.describe())
	}
	if what, ok := refused[head.text]; ok {
		if what == "Quil-T" {
			r.failAt(head, "%s is Quil-T (pulse-level control), which this service does not run", head.text)
		}
		r.failAt(head, "%s is not supported", head.text)
	}
	switch head.text {
	case "DECLARE", "PRAGMA", "NOP", "WAIT":
	default:
		if simGates[head.text] == nil {
			// What reading and lowering the instruction allocates besides
			// what is charged where it is built: the standard gates of the
			// fast path allocate nothing but their operation.
			c.charge(ln.no, instrBytes+tokenBytes*int64(len(ln.toks)))
		}
	}
	switch head.text {
	case "DECLARE":
		return // the first pass read it
	case "PRAGMA":
		c.pragma(r)
	case "NOP", "WAIT":
		r.next()
		r.end()
	case "MEASURE":
		r.next()
		c.measure(r)
	case "RESET":
		r.next()
		if r.peek().kind == tEOL {
			for q := range c.nqubits {
				c.emit(ln.no, sim.ResetOp(q).WithPos(int(ln.no), int(head.col)))
			}
			return
		}
		q := c.qubit(ln.no, r.next())
		r.end()
		c.emit(ln.no, sim.ResetOp(q).WithPos(int(ln.no), int(head.col)))
	case "HALT":
		r.next()
		r.end()
		c.halts = append(c.halts, len(c.ops))
		c.emit(ln.no, sim.JumpOp(0).WithPos(int(ln.no), int(head.col)))
	case "LABEL":
		r.next()
		l := r.next()
		if l.kind != tLabel {
			r.failAt(l, "expected a label such as @loop, got %s", l.describe())
		}
		r.end()
		if _, ok := c.labels[l.text]; ok {
			r.failAt(l, "LABEL @%s is defined twice", l.text)
		}
		c.charge(ln.no, 64)
		c.labels[l.text] = len(c.ops)
		c.forgetWrittenReals()
	case "JUMP", "JUMP-WHEN", "JUMP-UNLESS":
		r.next()
		c.jump(r, head)
	case "NOT", "NEG", "TRUE", "FALSE":
		r.next()
		c.unary(r, head)
	case "AND", "IOR", "OR", "XOR", "ADD", "SUB", "MUL", "DIV", "MOVE", "EXCHANGE", "CONVERT":
		r.next()
		c.binary(r, head)
	case "EQ", "GT", "GE", "LT", "LE":
		r.next()
		c.comparison(r, head)
	case "LOAD":
		r.next()
		c.load(r, head)
	case "STORE":
		r.next()
		c.store(r, head)
	default:
		c.gateApplication(r)
	}
}

// operand is a memory reference, or an immediate number.
type operand struct {
	reg   *region
	index int64
	imm   bool
	val   float64
	tok   token
}

// ref reads a memory reference: name or name[i].
func (c *compiler) ref(r *cursor) operand {
	t := r.next()
	if t.kind != tIdent {
		r.failAt(t, "expected memory such as ro[0], got %s", t.describe())
	}
	reg, ok := c.regions[t.text]
	if !ok {
		r.failAt(t, "%s is not declared (DECLARE %s BIT[n], say)", t.text, t.text)
	}
	o := operand{reg: reg, tok: t}
	if r.punct("[") {
		n := r.next()
		if n.kind != tInt || n.ival < 0 {
			r.failAt(n, "expected an index, a non-negative integer, got %s", n.describe())
		}
		o.index = n.ival
		r.expectPunct("]")
	}
	if o.index >= reg.length {
		r.failAt(t, "%s[%d] is past %s's %d cells", t.text, o.index, t.text, reg.length)
	}
	return o
}

// operandOf reads a memory reference or an immediate: a number, or a
// constant expression such as -pi/2.
func (c *compiler) operandOf(r *cursor) operand {
	t := r.peek()
	if t.kind == tIdent && c.regions[t.text] != nil {
		return c.ref(r)
	}
	switch t.kind {
	case tEOL:
		r.failAt(t, "expected memory or a number, got %s", t.describe())
	case tIdent:
		if _, fn := functions[t.text]; !fn && t.text != "pi" && t.text != "i" {
			r.failAt(t, "%s is not declared (DECLARE %s INTEGER, say)", t.text, t.text)
		}
	}
	er := exprReader{ln: r.ln, toks: r.toks, i: r.i, env: &constEnv}
	v := realValue(r.ln, t, er.expr(), "an immediate value", "")
	r.i = er.i
	return operand{imm: true, val: v, tok: t}
}

// constEnv is what an immediate value may name: nothing but constants and
// functions.
var constEnv = env{read: func(name string, _ int64) (complex128, string) {
	return 0, name + " is not declared"
}}

// pragma checks a PRAGMA's form (a name, then names and integers, then
// maybe a string) and otherwise ignores it.
func (c *compiler) pragma(r *cursor) {
	r.next()
	r.ident("a name after PRAGMA")
	for {
		switch t := r.next(); t.kind {
		case tIdent, tInt:
			continue
		case tString:
			r.end()
		case tEOL:
		default:
			r.failAt(t, "a PRAGMA takes names and integers, then maybe a string; got %s", t.describe())
		}
		return
	}
}

// bits are the classical bits of a runtime operand; signed says it is read
// as two's complement (INTEGER).
func (o operand) bits() ([]int, bool) {
	return o.reg.cellBits(o.index), o.reg.typ == memInteger
}

// expr is a runtime operand as an expression of sim.
func (c *compiler) expr(r *cursor, o operand) *sim.Expr {
	if o.imm {
		if o.val != math.Trunc(o.val) || math.Abs(o.val) > 1<<62 {
			r.failAt(o.tok, "%s is not an integer: classical memory other than REAL holds integers", o.tok.text)
		}
		return sim.Const(int64(o.val))
	}
	if o.reg.typ == memReal {
		r.failAt(o.tok, "%s is REAL, known only while the program compiles: it cannot meet BIT, OCTET or INTEGER memory", o.reg.name)
	}
	bits, signed := o.bits()
	return sim.BitsOf(bits, signed)
}

// compute writes e to the runtime cell o.
func (c *compiler) compute(ln int32, at token, o operand, e *sim.Expr) {
	bits, _ := o.bits()
	c.charge(ln, 256+8*int64(len(bits)))
	c.emit(ln, sim.ComputeOp(bits, e).WithPos(int(ln), int(at.col)))
}

// real is the value of a REAL operand or an immediate, and whether it is
// known here.
func (c *compiler) real(o operand) (float64, bool) {
	if o.imm {
		return o.val, true
	}
	if o.reg.typ != memReal {
		return 0, false
	}
	return o.reg.values[o.index], o.reg.known[o.index]
}

func (c *compiler) setReal(o operand, v float64, known bool) {
	o.reg.values[o.index], o.reg.known[o.index] = v, known
}

// forgetWrittenReals: at a label, every path that reaches it joins, so
// a REAL cell the program writes anywhere is no longer known.
func (c *compiler) forgetWrittenReals() {
	for name := range c.writesReal {
		if reg := c.regions[name]; reg != nil && reg.typ == memReal {
			for i := range reg.known {
				reg.known[i] = false
			}
		}
	}
}

func (c *compiler) measure(r *cursor) {
	t := r.toks[0]
	q := c.qubit(r.ln, r.next())
	if r.peek().kind == tEOL {
		// For its effect only: the outcome goes to a bit of its own.
		c.charge(r.ln, 8)
		b := c.scratch(r.ln, 1)
		c.emit(r.ln, sim.MeasureOp(q, b[0]).WithPos(int(r.ln), int(t.col)))
		return
	}
	o := c.ref(r)
	r.end()
	if o.reg.typ == memReal {
		r.failAt(o.tok, "MEASURE into REAL memory; measure into BIT or INTEGER memory")
	}
	bits, _ := o.bits()
	if len(bits) > 1 {
		c.emit(r.ln, sim.SetBitsOp(bits[1:], 0).WithPos(int(r.ln), int(t.col)))
	}
	c.emit(r.ln, sim.MeasureOp(q, bits[0]).WithPos(int(r.ln), int(t.col)))
}

// scratch hands out classical bits of the compiler's own, after the
// regions'.
func (c *compiler) scratch(ln int32, n int) []int {
	if c.nbits+n > maxMemoryBits {
		c.fail(ln, 1, "the program needs more than %d classical bits", maxMemoryBits)
	}
	out := make([]int, n)
	for i := range out {
		out[i] = c.nbits + i
	}
	c.nbits += n
	return out
}

func (c *compiler) jump(r *cursor, head token) {
	l := r.next()
	if l.kind != tLabel {
		r.failAt(l, "expected a label such as @loop, got %s", l.describe())
	}
	op := sim.JumpOp(0)
	if head.text != "JUMP" {
		o := c.ref(r)
		if o.reg.typ == memReal {
			r.failAt(o.tok, "%s jumps on BIT or INTEGER memory, not REAL", head.text)
		}
		bits, _ := o.bits()
		cmp := sim.Ne
		if head.text == "JUMP-UNLESS" {
			cmp = sim.Eq
		}
		c.charge(r.ln, 128)
		op = op.WithIf(sim.RegisterCmp(bits, cmp, 0))
	}
	r.end()
	c.charge(r.ln, 64)
	c.jumps = append(c.jumps, pendingJump{op: len(c.ops), label: l.text, line: r.ln, col: l.col})
	c.emit(r.ln, op.WithPos(int(r.ln), int(head.col)))
}

func (c *compiler) unary(r *cursor, head token) {
	o := c.ref(r)
	r.end()
	if o.reg.typ == memReal {
		v, known := c.real(o)
		if head.text != "NEG" {
			r.failAt(head, "%s takes BIT, OCTET or INTEGER memory, not REAL", head.text)
		}
		c.setReal(o, -v, known)
		return
	}
	switch head.text {
	case "NOT":
		c.compute(r.ln, head, o, sim.Unary(sim.BitNot, c.expr(r, o)))
	case "NEG":
		c.compute(r.ln, head, o, sim.Unary(sim.Neg, c.expr(r, o)))
	case "TRUE", "FALSE":
		v := uint64(0)
		if head.text == "TRUE" {
			v = 1
		}
		bits, _ := o.bits()
		c.emit(r.ln, sim.SetBitsOp(bits, v).WithPos(int(r.ln), int(head.col)))
	}
}

var binaryOps = map[string]sim.Operator{"AND": sim.BitAnd, "IOR": sim.BitOr, "OR": sim.BitOr, "XOR": sim.BitXor,
	"ADD": sim.Add, "SUB": sim.Sub, "MUL": sim.Mul, "DIV": sim.Div}

func (c *compiler) binary(r *cursor, head token) {
	a := c.ref(r)
	var b operand
	if head.text == "EXCHANGE" || head.text == "CONVERT" {
		b = c.ref(r)
	} else {
		b = c.operandOf(r)
	}
	r.end()
	if a.reg.typ == memReal || !b.imm && b.reg.typ == memReal {
		c.realBinary(r, head, a, b)
		return
	}
	switch head.text {
	case "MOVE", "CONVERT":
		e := c.expr(r, b)
		if a.reg.typ == memBit && head.text == "CONVERT" {
			e = sim.Compare(e, sim.Ne, sim.Const(0))
		}
		c.compute(r.ln, head, a, e)
	case "EXCHANGE":
		bitsA, _ := a.bits()
		bitsB, _ := b.bits()
		if len(bitsA) != len(bitsB) {
			r.failAt(b.tok, "EXCHANGE of %s and %s: memory of different types", a.reg.typ, b.reg.typ)
		}
		tmp := c.scratch(r.ln, len(bitsA))
		c.charge(r.ln, 768)
		c.emit(r.ln, sim.ComputeOp(tmp, sim.BitsOf(bitsA, false)))
		c.emit(r.ln, sim.ComputeOp(bitsA, sim.BitsOf(bitsB, false)))
		c.emit(r.ln, sim.ComputeOp(bitsB, sim.BitsOf(tmp, false)))
	default:
		if (head.text == "AND" || head.text == "IOR" || head.text == "OR" || head.text == "XOR") && a.reg.typ == memReal {
			r.failAt(head, "%s takes BIT, OCTET or INTEGER memory", head.text)
		}
		c.compute(r.ln, head, a, sim.Binary(binaryOps[head.text], c.expr(r, a), c.expr(r, b)))
	}
}

// realBinary runs an instruction on REAL memory while the program
// compiles: its result is known where its operands are.
func (c *compiler) realBinary(r *cursor, head token, a, b operand) {
	if a.reg.typ != memReal {
		if head.text == "CONVERT" || head.text == "MOVE" {
			r.failAt(head, "%s of REAL %s into %s memory: REAL is known only while the program compiles", head.text, b.reg.name, a.reg.typ)
		}
		r.failAt(head, "%s mixes REAL and %s memory", head.text, a.reg.typ)
	}
	x, kx := c.real(a)
	y, ky := c.real(b)
	known := ky
	var v float64
	switch head.text {
	case "MOVE", "CONVERT":
		if !b.imm && b.reg.typ != memReal {
			r.failAt(b.tok, "%s of %s memory into REAL: REAL is known only while the program compiles", head.text, b.reg.typ)
		}
		v = y
	case "EXCHANGE":
		c.setReal(b, x, kx)
		v = y
	case "ADD", "SUB", "MUL", "DIV":
		known = kx && ky
		switch head.text {
		case "ADD":
			v = x + y
		case "SUB":
			v = x - y
		case "MUL":
			v = x * y
		case "DIV":
			if known && y == 0 {
				r.failAt(b.tok, "division by zero")
			}
			v = x / y
		}
	default:
		r.failAt(head, "%s takes BIT, OCTET or INTEGER memory, not REAL", head.text)
	}
	c.setReal(a, v, known)
}

var comparisons = map[string]sim.Cmp{"EQ": sim.Eq, "GT": sim.Gt, "GE": sim.Ge, "LT": sim.Lt, "LE": sim.Le}

func (c *compiler) comparison(r *cursor, head token) {
	d := c.ref(r)
	a := c.ref(r)
	b := c.operandOf(r)
	r.end()
	if d.reg.typ != memBit {
		r.failAt(d.tok, "%s writes BIT memory, not %s", head.text, d.reg.typ)
	}
	if a.reg.typ == memReal || !b.imm && b.reg.typ == memReal {
		c.realComparison(r, head, d, a, b)
		return
	}
	c.compute(r.ln, head, d, sim.Compare(c.expr(r, a), comparisons[head.text], c.expr(r, b)))
}

// realComparison compares REAL memory while the program compiles: its
// result is a constant, where both sides are known here.
func (c *compiler) realComparison(r *cursor, head token, d, a, b operand) {
	if a.reg.typ != memReal {
		r.failAt(head, "%s compares %s memory with REAL: REAL is known only while the program compiles", head.text, a.reg.typ)
	}
	if !b.imm && b.reg.typ != memReal {
		r.failAt(head, "%s compares REAL memory with %s: REAL is known only while the program compiles", head.text, b.reg.typ)
	}
	x, kx := c.real(a)
	y, ky := c.real(b)
	if !kx || !ky {
		r.failAt(head, "%s reads REAL memory that the program changes under its jumps: its value here is known only as the program runs", head.text)
	}
	var v bool
	switch head.text {
	case "EQ":
		v = x == y
	case "GT":
		v = x > y
	case "GE":
		v = x >= y
	case "LT":
		v = x < y
	case "LE":
		v = x <= y
	}
	bit := uint64(0)
	if v {
		bit = 1
	}
	bits, _ := d.bits()
	c.emit(r.ln, sim.SetBitsOp(bits, bit).WithPos(int(r.ln), int(head.col)))
}

// load is LOAD a x n: a := x[n], n INTEGER memory read as the program
// runs: one conditional move for each cell of x.
func (c *compiler) load(r *cursor, head token) {
	a := c.ref(r)
	x := r.ident("the region to load from")
	reg, ok := c.regions[x.text]
	if !ok {
		r.failAt(x, "%s is not declared", x.text)
	}
	n := c.ref(r)
	r.end()
	c.indexed(r, head, a, reg, n, true)
}

// store is STORE x n b: x[n] := b.
func (c *compiler) store(r *cursor, head token) {
	x := r.ident("the region to store into")
	reg, ok := c.regions[x.text]
	if !ok {
		r.failAt(x, "%s is not declared", x.text)
	}
	n := c.ref(r)
	b := c.operandOf(r)
	r.end()
	c.indexed(r, head, b, reg, n, false)
}

// indexed lowers LOAD (load: o := reg[n]) and STORE (reg[n] := o) with a
// runtime index.
func (c *compiler) indexed(r *cursor, head token, o operand, reg *region, n operand, load bool) {
	if n.reg.typ != memInteger {
		r.failAt(n.tok, "%s's index is INTEGER memory, not %s", head.text, n.reg.typ)
	}
	if reg.typ == memReal || !o.imm && o.reg.typ == memReal {
		r.failAt(head, "%s with REAL memory: REAL is known only while the program compiles", head.text)
	}
	nbits, _ := n.bits()
	// a cell's bits (64 for an INTEGER), its condition, expression and
	// operation's extension
	c.charge(r.ln, 1536*reg.length)
	var obits []int
	if load {
		obits, _ = o.bits()
	}
	for k := range reg.length {
		cell := operand{reg: reg, index: k, tok: o.tok}
		cond := sim.RegisterCmp(nbits, sim.Eq, uint64(k))
		var bits []int
		var e *sim.Expr
		if load {
			bits = obits
			e = c.expr(r, cell)
		} else {
			bits, _ = cell.bits()
			e = c.expr(r, o)
		}
		c.emit(r.ln, sim.ComputeOp(bits, e).WithIf(cond).WithPos(int(r.ln), int(head.col)))
	}
}
