package qir

import (
	"strconv"
	"strings"
)

// A fast path for the line base-profile programs are made of, a million
// times over: a call of a declared function on constant operands,
//
//	call void @__quantum__qis__rz__body(double 0.5, %Qubit* inttoptr (i64 3 to %Qubit*))
//	call void @__quantum__qis__cx__body(ptr null, ptr inttoptr (i64 1 to ptr))
//
// read from the source's bytes rather than through tokens. It takes only
// that shape, its parts separated by spaces and tabs: anything else
// (another type or value, a comment or a line break inside the call, a
// quoted name, a number it would have to check) makes it give up before
// the parser has moved, and parseInst reads the instruction. What it
// builds is what parseInst builds, by the same helpers, so the types and
// constants it may have made before giving up are the ones parseInst
// makes; from the closing parenthesis on, the general code reads the
// rest of the line. A line without an angle that it has read before (the
// same gate on the same qubits) it takes from memory.

// fastCall reads a call at p.tok, or returns nil having read nothing.
func (p *llParser) fastCall() *inst {
	if p.tok.kind != tWord || p.tok.text != "call" || p.general {
		return nil
	}
	src := p.lex.src
	// A line read before reads as it did: its operands are constants, its
	// callee one reference for the module.
	n := strings.IndexByte(src[p.tok.pos:], '\n')
	if n < 0 {
		n = len(src) - p.tok.pos
	}
	text := src[p.tok.pos : p.tok.pos+n]
	if e, ok := p.lines[text]; ok {
		in := p.insts.new()
		in.op, in.ty, in.dst, in.line, in.col = opCall, typVoid, -1, pos32(p.tok.line), pos32(p.tok.col)
		in.callee, in.args = e.callee, e.args
		p.fastTail(in, p.tok.pos+e.close)
		return in
	}
	i := p.tok.pos + len("call")
	i = skipBlanks(src, i)
	if !hasWord(src, i, "void") {
		return nil
	}
	i = skipBlanks(src, i+len("void"))
	if i >= len(src) || src[i] != '@' {
		return nil
	}
	nameStart := i + 1
	end := scanName(src, nameStart)
	if end == nameStart {
		return nil
	}
	i = skipBlanks(src, end)
	if i >= len(src) || src[i] != '(' {
		return nil
	}
	lineStart := p.tok.pos - p.tok.col + 1
	callee := token{kind: tGlobal, text: src[nameStart:end], line: p.tok.line, col: nameStart - 1 - lineStart + 1, pos: nameStart - 1}
	base := len(p.scratch)
	i = skipBlanks(src, i+1)
	if i < len(src) && src[i] != ')' {
		for {
			v, next := p.fastOperand(src, i)
			if v == nil {
				p.scratch = p.scratch[:base]
				return nil
			}
			p.scratch = append(p.scratch, v)
			i = skipBlanks(src, next)
			if i < len(src) && src[i] == ',' {
				i = skipBlanks(src, i+1)
				continue
			}
			break
		}
	}
	if i >= len(src) || src[i] != ')' {
		p.scratch = p.scratch[:base]
		return nil
	}
	// The callee's reference comes after the operands' types and
	// constants here, but they make no references: the module's list of
	// them, which says where an undefined name is first used, is the same.
	in := p.insts.new()
	in.op, in.ty, in.dst, in.line, in.col = opCall, typVoid, -1, pos32(p.tok.line), pos32(p.tok.col)
	in.callee = p.globalRef(callee, typPtr)
	in.args = p.list(p.scratch[base:]...)
	p.scratch = p.scratch[:base]
	if len(p.lines) < maxLines && !hasFloat(in.args) {
		if p.lines == nil {
			p.lines = map[string]fastLine{}
		}
		p.lines[text] = fastLine{in.callee, in.args, i - p.tok.pos}
	}
	p.fastTail(in, i)
	return in
}

// fastLine is what a line fastCall read is read as: its callee, its
// operands and where its closing parenthesis is.
type fastLine struct {
	callee *value
	args   []*value
	close  int
}

// maxLines bounds the lines fastCall remembers.
const maxLines = 1 << 12

// hasFloat reports whether a call has an angle: such lines are seldom
// the same twice, and would fill fastCall's memory for nothing.
func hasFloat(args []*value) bool {
	for _, a := range args {
		if a.kind == vFloat {
			return true
		}
	}
	return false
}

// fastTail goes on from the closing parenthesis of the call in at src[i].
func (p *llParser) fastTail(in *inst, i int) {
	src := p.lex.src
	p.hasPeek = false
	// When the line ends at the parenthesis and the next starts with the
	// word call, that is the next token, and neither callAttrs nor
	// finishInst would read anything before it.
	if j := skipBlanks(src, i+1); j < len(src) && (src[j] == '\n' || src[j] == '\r' && j+1 < len(src) && src[j+1] == '\n') {
		if src[j] == '\r' {
			j++
		}
		next := j + 1
		if k := skipBlanks(src, next); hasWord(src, k, "call") {
			line := p.tok.line + 1
			p.lex.pos, p.lex.line, p.lex.lineStart = k+len("call"), line, next
			p.tok = token{kind: tWord, text: src[k : k+len("call")], line: line, col: k - next + 1, pos: k}
			return
		}
	}
	// Else the lexer goes on after the parenthesis, on the call's line.
	p.lex.pos, p.lex.line, p.lex.lineStart = i+1, p.tok.line, p.tok.pos-p.tok.col+1
	p.advance()
	p.callAttrs()
	p.finishInst(in, token{})
}

// fastOperand reads T V at src[i:]: T is a type fastType reads; V is null,
// inttoptr (iN K to T') or a number. It returns nil when the operand
// is not of that shape, or not simple enough to be sure of.
func (p *llParser) fastOperand(src string, i int) (*value, int) {
	t, i := p.fastType(src, i)
	if t == nil || i >= len(src) || src[i] != ' ' && src[i] != '\t' {
		return nil, 0
	}
	i = skipBlanks(src, i)
	switch {
	case hasWord(src, i, "null"):
		return p.constant(value{kind: vNull, ty: t}, nil), i + len("null")
	case hasWord(src, i, "inttoptr"):
		i = skipBlanks(src, i+len("inttoptr"))
		if i >= len(src) || src[i] != '(' {
			return nil, 0
		}
		st, j := p.fastType(src, skipBlanks(src, i+1))
		if st == nil || st.kind != tyInt || j >= len(src) || src[j] != ' ' && src[j] != '\t' {
			return nil, 0
		}
		n, j := fastInt(src, skipBlanks(src, j))
		if j < 0 || j >= len(src) || src[j] != ' ' && src[j] != '\t' {
			return nil, 0
		}
		j = skipBlanks(src, j)
		if !hasWord(src, j, "to") {
			return nil, 0
		}
		j = skipBlanks(src, j+len("to"))
		rt, j := p.fastType(src, j)
		if rt == nil {
			return nil, 0
		}
		j = skipBlanks(src, j)
		if j >= len(src) || src[j] != ')' {
			return nil, 0
		}
		return p.intToPtr(st, signExtend(n, st.bits), rt), j + 1
	}
	if t.kind == tyInt {
		n, j := fastInt(src, i)
		if j < 0 {
			return nil, 0
		}
		return p.constant(value{kind: vInt, ty: t, i: signExtend(n, t.bits)}, nil), j
	}
	return p.fastFloat(src, i, t)
}

// fastType reads ptr, double, iN (1 ≤ N ≤ 64) or %Name at src[i:], or a
// pointer to one of them (%Qubit*, i8*), not followed by what would make
// it another type (another *, (…), addrspace).
func (p *llParser) fastType(src string, i int) (*typ, int) {
	var t *typ
	switch {
	case hasWord(src, i, "ptr"):
		t, i = typPtr, i+len("ptr")
	case hasWord(src, i, "double"):
		t, i = typDouble, i+len("double")
	case i < len(src) && src[i] == '%':
		end := scanName(src, i+1)
		if end == i+1 {
			return nil, 0
		}
		if name := src[i+1 : end]; name == p.lastNamed.name {
			t = p.lastNamed.t
		} else {
			t = p.namedType(name)
			p.lastNamed.name, p.lastNamed.t = name, t
		}
		i = end
	case i < len(src) && src[i] == 'i':
		end := scanName(src, i)
		if end-i < 2 || end-i > 3 || !isDigit(src[i+1]) {
			return nil, 0
		}
		n, err := strconv.Atoi(src[i+1 : end])
		if err != nil || n < 1 || n > 64 {
			return nil, 0
		}
		t, i = p.intType(n), end
	default:
		return nil, 0
	}
	if i < len(src) && src[i] == '*' {
		if t != p.lastPtr.elem {
			p.lastPtr.elem, p.lastPtr.t = t, p.ptrTo(t)
		}
		t, i = p.lastPtr.t, i+1
	}
	if i < len(src) && (src[i] == '*' || src[i] == '(') {
		return nil, 0
	}
	if j := skipBlanks(src, i); j < len(src) && (src[j] == '*' || src[j] == '(' || hasWord(src, j, "addrspace")) {
		return nil, 0
	}
	return t, i
}

// fastInt reads an integer of up to 18 digits at src[i:], not run into a
// name, a fraction or an exponent; it returns −1 for anything else (a
// sign, a hex float, a longer number), which the lexer reads.
func fastInt(src string, i int) (int64, int) {
	var n int64
	start := i
	for i < len(src) && isDigit(src[i]) {
		n = 10*n + int64(src[i]-'0')
		i++
	}
	if i == start || i-start > 18 || i < len(src) && nameBytes[src[i]] {
		return 0, -1
	}
	return n, i
}

// fastFloat reads a decimal number at src[i:] for the floating-point
// type t, as the lexer splits it and strconv reads it. A hex float, a
// number run into a name or one strconv refuses is left to the lexer.
func (p *llParser) fastFloat(src string, i int, t *typ) (*value, int) {
	if t.kind != tyFloat {
		return nil, 0
	}
	start := i
	if i < len(src) && (src[i] == '-' || src[i] == '+') {
		i++
	}
	digits := i
	for i < len(src) && isDigit(src[i]) {
		i++
	}
	if i == digits || i < len(src) && src[i] == 'x' {
		return nil, 0
	}
	if i < len(src) && src[i] == '.' {
		i++
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if i < len(src) && (src[i] == 'e' || src[i] == 'E') {
		i++
		if i < len(src) && (src[i] == '-' || src[i] == '+') {
			i++
		}
		for i < len(src) && isDigit(src[i]) {
			i++
		}
	}
	if i < len(src) && nameBytes[src[i]] {
		return nil, 0
	}
	f, err := strconv.ParseFloat(src[start:i], 64)
	if err != nil {
		return nil, 0
	}
	return p.newValue(value{kind: vFloat, ty: t, f: f}), i
}

// skipBlanks moves past spaces and tabs: a line break or a comment is left
// to the lexer, which counts lines.
func skipBlanks(src string, i int) int {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	return i
}

// hasWord reports whether src[i:] starts with the word w, not run into
// more of a name.
func hasWord(src string, i int, w string) bool {
	return len(src)-i >= len(w) && src[i:i+len(w)] == w && (i+len(w) == len(src) || !nameBytes[src[i+len(w)]])
}

// scanName returns the end of the name bytes from i.
func scanName(src string, i int) int {
	for i < len(src) && nameBytes[src[i]] {
		i++
	}
	return i
}

// intToPtr is the constant inttoptr (st id to rt), with the constant id
// of type st, through a cache of the small ids of the last two pairs of
// types: a program's qubits and results.
func (p *llParser) intToPtr(st *typ, id int64, rt *typ) *value {
	if id < 0 || id >= maxCachedID {
		x := p.constant(value{kind: vInt, ty: st, i: id}, nil)
		return p.constant(value{kind: vExpr, ty: rt, op: opIntToPtr}, x)
	}
	c := &p.ids[0]
	if c.st != st || c.rt != rt {
		p.ids[0], p.ids[1] = p.ids[1], p.ids[0]
		if c.st != st || c.rt != rt {
			*c = idCache{st: st, rt: rt}
		}
	}
	if int(id) >= len(c.vals) {
		c.vals = append(c.vals, make([]*value, int(id)+1-len(c.vals))...)
	}
	if c.vals[id] == nil {
		x := p.constant(value{kind: vInt, ty: st, i: id}, nil)
		c.vals[id] = p.constant(value{kind: vExpr, ty: rt, op: opIntToPtr}, x)
	}
	return c.vals[id]
}

// maxCachedID bounds the ids intToPtr caches.
const maxCachedID = 1 << 12

// idCache holds inttoptr (st K to rt) by K.
type idCache struct {
	st, rt *typ
	vals   []*value
}
