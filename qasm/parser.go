package qasm

import (
	"strconv"
	"strings"
)

// maxDepth bounds how deeply a program nests: blocks and statements
// inside statements, parentheses, and the height of an expression's tree,
// where each operator of a chain such as a+b+c counts one level. So a
// program of 100000 parentheses, or of 100000 operators in a row, is an
// error at parse time and not a stack overflow, and everything that walks
// the syntax tree afterwards may recurse over it.
const maxDepth = 200

type parser struct {
	lx *lexer
	// toks holds the tokens the parser has looked at, and up to lexAhead
	// more; toks[i] is the next one. Those it has passed are dropped as
	// it lexes more (release), so that the buffer stays small however
	// long a statement is; so nothing may keep an index into it, but
	// relative to i, across a call that may lex (tok, peek, next...).
	toks    []token
	i       int
	version int // 2 or 3
	depth   int
	// nphys is one more than the highest physical qubit ($n) named, at
	// physPos.
	nphys   int
	physPos position
	// lexErr is the error the lexer stopped at, past the buffered tokens.
	lexErr *Error
	// general reads every parameter and operand with the expression
	// parser, none of the shortcuts for the common shapes, and lexes a
	// token at a time by the lexer's general path (next, not lexInto):
	// the tests compare the two.
	general bool
	// pragmaLx and pragmaToks lex the line of a noise pragma
	// (noisePragma), kept for the next: a program may have a million.
	pragmaLx   lexer
	pragmaToks []token

	idents  slab[xIdent]
	ints    slab[xInt]
	indexes slab[xIndex]
	calls   slab[sGateCall]
	exprs   slab[expr]
	floats  slab[xFloat]
	binarys slab[xBinary]
	unarys  slab[xUnary]
	noises  slab[sNoise]
}

// topStatement parses the next top-level statement of a program that is
// compiled as it is read (streaming): empty statements are skipped; ok
// is false at the end.
func (p *parser) topStatement() (s stmt, ok bool) {
	for p.peek().kind != tEOF {
		if p.accept(";") {
			continue
		}
		if s := p.statement(); !empty(s) {
			return s, true
		}
	}
	return nil, false
}

// recycle lets the parser reuse the nodes of the statement it returned
// last, once it has been lowered: unless kept (a gate or subroutine
// definition, which its symbol keeps), nothing points into them any more.
func (p *parser) recycle(kept bool) {
	if kept {
		p.idents.retain()
		p.ints.retain()
		p.indexes.retain()
		p.calls.retain()
		p.exprs.retain()
		p.floats.retain()
		p.binarys.retain()
		p.unarys.retain()
		p.noises.retain()
		return
	}
	p.idents.reuse()
	p.ints.reuse()
	p.indexes.reuse()
	p.calls.reuse()
	p.exprs.reuse()
	p.floats.reuse()
	p.binarys.reuse()
	p.unarys.reuse()
	p.noises.reuse()
}

// parse turns src into its statements and its major version; general
// as in parser.
func parse(src string, poll *poller, general bool) (stmts []stmt, version int, phys physInfo, err *Error) {
	p := newParser(src, poll, general)
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bail)
			if !ok {
				panic(r)
			}
			stmts, version, err = nil, 0, b.err
		}
	}()
	p.versionLine()
	for p.peek().kind != tEOF {
		if p.accept(";") {
			continue // an empty statement: nothing to keep
		}
		if s := p.statement(); !empty(s) {
			stmts = append(stmts, s)
		}
	}
	return stmts, p.version, physInfo{p.nphys, p.physPos}, nil
}

// newParser returns a parser of src, which it reads as OpenQASM 3 until
// a version line says otherwise; general as in parser.general.
func newParser(src string, poll *poller, general bool) *parser {
	return &parser{lx: newLexer(src, poll), version: 3, general: general}
}

// physInfo tells the compiler how many physical qubits to set aside.
type physInfo struct {
	n   int
	pos position
}

// tok returns the token j places into the buffer, lexing up to it; past
// the end it is the end. It, peek and peekAt are small enough to be
// inlined: the parser asks for a token a few times over, nearly always
// one already in the buffer.
func (p *parser) tok(j int) token {
	if j < len(p.toks) {
		return p.toks[j]
	}
	return p.lex(j)
}

// lex is tok past the buffer: it lexes lexAhead tokens at a time.
func (p *parser) lex(j int) token {
	for j >= len(p.toks) {
		if n := len(p.toks); n > 0 && p.toks[n-1].kind == tEOF {
			return p.toks[n-1]
		}
		if p.lexErr != nil {
			panic(bail{p.lexErr})
		}
		j -= p.release()
		p.fill()
	}
	return p.toks[j]
}

// lexAhead is how many tokens lex buffers at a time.
const lexAhead = 32

// fill lexes up to lexAhead tokens into the buffer (general: one, by the
// lexer's general path, next). A lexing error stops it, and is kept for
// when the parser gets there: the parser may well fail before that, and
// that error is the one to report.
func (p *parser) fill() {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bail)
			if !ok {
				panic(r)
			}
			p.lexErr = b.err
		}
	}()
	if p.general {
		p.toks = append(p.toks, p.lx.next())
		return
	}
	p.lx.lexInto(&p.toks, lexAhead)
}

// releaseAt is how many tokens the cursor passes before release drops
// them: enough that copying the few after it is cheap.
const releaseAt = 1024

// release drops the tokens before the cursor, once it is past releaseAt,
// but the last (primary steps back over a type name), and returns how
// many it dropped: the buffer's indexes move down by as many, the
// cursor's with them.
func (p *parser) release() int {
	if p.i < releaseAt {
		return 0
	}
	d := p.i - 1
	n := copy(p.toks, p.toks[d:])
	p.toks = p.toks[:n]
	p.i -= d
	return d
}

// groupBuffer is how many tokens afterGroup buffers at most.
const groupBuffer = 64

func (p *parser) peek() token { return p.tok(p.i) }

func (p *parser) peekAt(k int) token { return p.tok(p.i + k) }

// next consumes a token, which stays in the buffer at p.i-1 (release
// keeps it: primary steps back over a type name).
func (p *parser) next() token {
	t := p.tok(p.i)
	if t.kind != tEOF {
		p.i++
	}
	return t
}

// afterGroup returns the token after the bracketed group that opens k
// tokens past the cursor (a "(" or a "["). A short group is buffered, so
// that its tokens are lexed once; past groupBuffer tokens the rest is
// scanned with a copy of the lexer, which is then dropped, so that
// looking ahead over a group of a million tokens holds none of them.
func (p *parser) afterGroup(k int) token {
	open := p.peekAt(k)
	o, c := open.text[0], byte(']')
	if o == '(' {
		c = ')'
	}
	var lx *lexer
	depth := 0
	for ; ; k++ {
		var t token
		switch {
		case p.i+k < len(p.toks):
			t = p.toks[p.i+k]
		case lx == nil && k < groupBuffer:
			t = p.peekAt(k)
		default:
			if lx == nil {
				if p.lexErr != nil {
					panic(bail{p.lexErr}) // where the lexer stopped
				}
				copied := *p.lx
				lx = &copied
			}
			t = lx.next()
		}
		if t.kind == tEOF {
			fail(open.pos, "%q opened here is never closed with %q", open.text, string(c))
		}
		if t.kind != tOp || len(t.text) != 1 {
			continue
		}
		switch t.text[0] {
		case o:
			depth++
		case c:
			depth--
			if depth == 0 {
				if p.i+k+1 < len(p.toks) {
					return p.toks[p.i+k+1]
				}
				if lx == nil {
					return p.peekAt(k + 1)
				}
				return lx.next()
			}
		}
	}
}

func (p *parser) accept(op string) bool {
	if p.i >= len(p.toks) {
		p.lex(p.i) // which buffers it: the cursor never passes the end
	}
	if !p.toks[p.i].isOp(op) {
		return false
	}
	p.i++
	return true
}

func (p *parser) expect(op, context string) token {
	t := p.peek()
	if !t.isOp(op) {
		fail(t.pos, "expected %q %s, got %s", op, context, t.describe())
	}
	p.i++ // t, which is not the end
	return t
}

func (p *parser) ident(context string) token {
	t := p.peek()
	if t.kind != tIdent {
		fail(t.pos, "expected a name %s, got %s", context, t.describe())
	}
	return p.next()
}

// enter and leave bracket every recursive call of the parser: statements,
// unary operators, the right operand of **, and types within types.
func (p *parser) enter(pos position) {
	p.depth++
	if p.depth > maxDepth {
		fail(pos, "program nested too deeply (more than %d levels)", maxDepth)
	}
}

func (p *parser) leave() { p.depth-- }

func (p *parser) versionLine() {
	t := p.peek()
	if t.kind != tIdent || t.text != "OPENQASM" {
		return // no version line: OpenQASM 3
	}
	p.next()
	v := p.next()
	if v.kind != tInt && v.kind != tFloat {
		fail(v.pos, "expected a version number after OPENQASM, got %s", v.describe())
	}
	major, _, _ := strings.Cut(v.text, ".")
	switch major {
	case "2":
		p.version = 2
	case "3":
		p.version = 3
	default:
		fail(v.pos, "unsupported OpenQASM version %s: this compiler reads 2.0 and 3", v.text)
	}
	p.expect(";", "after the version")
}

// body is a braced block or a single statement (if, for, while).
//
// Recursion: statements and blocks pass enter, so it goes maxDepth
// levels deep at most.
func (p *parser) body() []stmt {
	if p.peek().is("{") {
		return p.block()
	}
	return []stmt{p.statement()}
}

// Recursion: statements and blocks pass enter, so it goes maxDepth
// levels deep at most.
func (p *parser) block() []stmt {
	open := p.expect("{", "to open a block")
	p.enter(open.pos)
	defer p.leave()
	var out []stmt
	for !p.peek().is("}") {
		if p.peek().kind == tEOF {
			fail(open.pos, "block opened here is never closed with \"}\"")
		}
		if p.accept(";") {
			continue
		}
		if s := p.statement(); !empty(s) {
			out = append(out, s)
		}
	}
	p.next()
	return out
}

// empty reports whether s is "{}", which a list of statements need not
// keep (nor ";", which the lists skip): a program of them takes no memory
// past their tokens.
func empty(s stmt) bool {
	b, ok := s.(*sBlock)
	return ok && len(b.Body) == 0
}

// skipBalanced skips a braced block without parsing it: calibration code
// (defcal, cal) is in another grammar.
func (p *parser) skipBalanced(open, close string) {
	start := p.expect(open, "")
	depth := 1
	for depth > 0 {
		t := p.next()
		switch {
		case t.kind == tEOF:
			fail(start.pos, "%q opened here is never closed with %q", open, close)
		case t.is(open):
			depth++
		case t.is(close):
			depth--
		}
	}
}

// isClassicalType reports the names of classical types (a switch: the
// parser asks at every operand).
func isClassicalType(s string) bool {
	switch s {
	case "bit", "int", "uint", "float", "angle", "bool", "complex", "duration", "stretch", "array":
		return true
	}
	return false
}

// Recursion: statements and blocks pass enter, so it goes maxDepth
// levels deep at most.
func (p *parser) statement() stmt {
	t := p.peek()
	p.enter(t.pos)
	defer p.leave()
	return p.statement1(t)
}

// Recursion: statements and blocks pass enter, so it goes maxDepth
// levels deep at most.
func (p *parser) statement1(t token) stmt {
	switch t.kind {
	case tPragma:
		p.next()
		if s := p.noisePragma(t); s != nil {
			return s
		}
		return &sIgnored{t.pos, "pragma"}
	case tAnnotation:
		p.next()
		return &sIgnored{t.pos, "annotation"}
	case tOp:
		switch t.text {
		case "{":
			return &sBlock{t.pos, p.block()}
		case ";":
			p.next()
			return &sBlock{P: t.pos}
		}
	case tIdent:
		if s := p.keywordStatement(t); s != nil {
			return s
		}
		return p.identStatement()
	}
	fail(t.pos, "expected a statement, got %s", t.describe())
	return nil
}

// keywordStatement parses a statement that starts with a keyword, or
// returns nil when t is not one.
//
// Recursion: statements and blocks pass enter, so it goes maxDepth
// levels deep at most.
func (p *parser) keywordStatement(t token) stmt {
	switch t.text {
	case "OPENQASM":
		fail(t.pos, "the OPENQASM version line must be the first statement")
	case "include":
		p.next()
		s := p.peek()
		if s.kind != tString && s.kind != tBitString {
			fail(s.pos, "expected a quoted file name after include, got %s", s.describe())
		}
		p.next()
		p.expect(";", "after the include")
		return &sInclude{t.pos, s.text}
	case "qubit":
		if p.peekAt(1).is("(") {
			return nil
		}
		p.next()
		var size expr
		if p.accept("[") {
			size = p.expr()
			p.expect("]", "after the register size")
		}
		name := p.ident("for the qubit declaration")
		p.expect(";", "after the qubit declaration")
		return &sQubitDecl{t.pos, name.text, size}
	case "qreg", "creg":
		p.next()
		name := p.ident("for the register")
		var size expr
		if p.accept("[") {
			size = p.expr()
			p.expect("]", "after the register size")
		}
		p.expect(";", "after the register declaration")
		if t.text == "qreg" {
			return &sQubitDecl{t.pos, name.text, size}
		}
		return &sDecl{P: t.pos, Type: &typeSpec{P: t.pos, Name: "bit", Size: size}, Name: name.text}
	case "const", "input", "output":
		p.next()
		d := p.declaration(t.pos)
		if t.text == "const" {
			d.Const = true
			if d.Init == nil {
				fail(t.pos, "constant %q needs a value", d.Name)
			}
		} else {
			d.IO = t.text
		}
		return d
	case "let":
		p.next()
		name := p.ident("for the alias")
		p.expect("=", "after the alias name")
		v := p.expr()
		p.expect(";", "after the alias")
		return &sAlias{t.pos, name.text, v}
	case "gate", "opaque":
		return p.gateDef()
	case "def":
		return p.defStmt()
	case "extern":
		p.next()
		name := p.ident("for the extern function")
		p.skipBalanced("(", ")")
		if p.accept("->") {
			p.typeSpec()
		}
		p.expect(";", "after the extern declaration")
		return &sExtern{t.pos, name.text}
	case "defcalgrammar":
		p.next()
		p.next()
		p.expect(";", "after defcalgrammar")
		return &sIgnored{t.pos, "defcalgrammar"}
	case "defcal", "cal":
		p.next()
		for !p.peek().is("{") {
			if p.peek().kind == tEOF || p.peek().is(";") {
				fail(t.pos, "expected a calibration block after %s", t.text)
			}
			p.next()
		}
		p.skipBalanced("{", "}")
		return &sIgnored{t.pos, t.text}
	case "box":
		p.next()
		if p.peek().is("[") {
			p.skipBalanced("[", "]")
		}
		return &sBlock{t.pos, p.block()}
	case "delay":
		p.next()
		if p.peek().is("[") {
			p.skipBalanced("[", "]")
		}
		for !p.accept(";") {
			p.expr()
			if !p.accept(",") {
				p.expect(";", "after delay")
				break
			}
		}
		return &sIgnored{t.pos, "delay"}
	case "barrier":
		p.next()
		var qs []expr
		if !p.peek().is(";") {
			qs = p.exprList()
		}
		p.expect(";", "after barrier")
		return &sBarrier{t.pos, qs}
	case "reset":
		p.next()
		q := p.expr()
		p.expect(";", "after reset")
		return &sReset{t.pos, q}
	case "measure":
		p.next()
		q := p.expr()
		var target expr
		if p.accept("->") {
			target = p.expr()
		}
		p.expect(";", "after measure")
		return &sMeasure{t.pos, q, target}
	case "if":
		p.next()
		p.expect("(", "after if")
		cond := p.expr()
		p.expect(")", "after the if condition")
		s := &sIf{P: t.pos, Cond: cond, Then: p.body()}
		if p.peek().kind == tIdent && p.peek().text == "else" {
			p.next()
			s.Else = p.body()
		}
		return s
	case "for":
		p.next()
		s := &sFor{P: t.pos}
		if isClassicalType(p.peek().text) && p.peekAt(1).text != "in" {
			s.Type = p.typeSpec()
		}
		s.Var = p.ident("for the loop variable").text
		in := p.ident("(\"in\") after the loop variable")
		if in.text != "in" {
			fail(in.pos, "expected \"in\" after the loop variable, got %s", in.describe())
		}
		switch {
		case p.peek().is("["):
			open := p.next()
			s.Iter = p.rangeOrExpr(open.pos)
			p.expect("]", "after the loop range")
		default:
			s.Iter = p.expr()
			if t := p.peek(); t.is(":") {
				fail(t.pos, "a loop range is written in brackets: for int i in [a:b]")
			}
		}
		s.Body = p.body()
		return s
	case "switch":
		if !p.peekAt(1).is("(") {
			return nil
		}
		return p.switchStmt()
	case "while":
		p.next()
		p.expect("(", "after while")
		cond := p.expr()
		p.expect(")", "after the while condition")
		return &sWhile{t.pos, cond, p.body()}
	case "break":
		p.next()
		p.expect(";", "after break")
		return &sBreak{t.pos}
	case "continue":
		p.next()
		p.expect(";", "after continue")
		return &sContinue{t.pos}
	case "end":
		p.next()
		p.expect(";", "after end")
		return &sEnd{t.pos}
	case "return":
		p.next()
		var v expr
		if !p.peek().is(";") {
			v = p.expr()
		}
		p.expect(";", "after return")
		return &sReturn{t.pos, v}
	}
	if isClassicalType(t.text) && !p.peekAt(1).is("(") {
		// "bit[2](x)" is a cast in an expression statement; anything
		// else that starts with a type name declares a variable.
		if !(p.peekAt(1).is("[") && p.castAhead()) {
			return p.declaration(t.pos)
		}
	}
	if isModifier(t.text) && (p.peekAt(1).is("@") || p.peekAt(1).is("(")) {
		return p.gateCall()
	}
	return nil
}

// castAhead reports whether the type at the cursor, with its [size], is
// followed by "(": a cast such as int[4](c).
func (p *parser) castAhead() bool {
	return p.peekAt(1).is("[") && p.afterGroup(1).is("(")
}

// identStatement parses a statement that starts with a name: a gate call,
// an assignment or a subroutine call.
func (p *parser) identStatement() stmt {
	t := p.peek()
	n := p.peekAt(1)
	switch {
	case n.kind == tIdent || n.kind == tPhys || n.is("@"):
		return p.gateCall()
	case n.is("("):
		// name(args); is a call; name(args) qubits; is a gate.
		after := p.afterGroup(1)
		if after.is(";") && t.text != "gphase" {
			x := p.expr()
			p.expect(";", "after the call")
			return &sExpr{t.pos, x}
		}
		if after.kind == tOp && after.text != "[" && !after.is(";") && !after.is("$") {
			x := p.expr()
			return p.assignRest(t.pos, x)
		}
		return p.gateCall()
	case n.is("[") || n.kind == tOp && strings.HasSuffix(n.text, "=") && n.text != "==" && n.text != "!=" && n.text != "<=" && n.text != ">=":
		x := p.postfix()
		return p.assignRest(t.pos, x)
	}
	x := p.expr()
	return p.assignRest(t.pos, x)
}

func (p *parser) assignRest(pos position, target expr) stmt {
	op := p.peek()
	if op.is(";") {
		p.next()
		return &sExpr{pos, target}
	}
	switch op.text {
	case "=", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "~=", "<<=", ">>=", "**=":
		if op.kind != tOp {
			break
		}
		p.next()
		v := p.expr()
		p.expect(";", "after the assignment")
		return &sAssign{pos, target, op.text, v}
	}
	fail(op.pos, "expected a gate call, an assignment or \";\", got %s", op.describe())
	return nil
}

func (p *parser) gateCall() stmt {
	start := p.peek()
	g := p.calls.new()
	g.P = start.pos
	for {
		t := p.peek()
		if t.kind != tIdent || !isModifier(t.text) || !(p.peekAt(1).is("@") || p.peekAt(1).is("(")) {
			break
		}
		p.next()
		m := modifier{P: t.pos, Kind: t.text}
		if p.accept("(") {
			m.Arg = p.expr()
			p.expect(")", "after the modifier's argument")
		}
		p.expect("@", "after the gate modifier "+strconv.Quote(t.text))
		if len(g.Mods) == maxDepth {
			// each modifier wraps the gate once more, and names it
			fail(t.pos, "more than %d gate modifiers on one gate", maxDepth)
		}
		g.Mods = append(g.Mods, m)
	}
	name := p.ident("of a gate")
	g.Name = name.text
	if p.peek().is("[") {
		// a duration designator, rx[50ns](θ) q: timing is ignored
		p.skipBalanced("[", "]")
	}
	var buf [4]expr
	if p.accept("(") {
		list := buf[:0]
		for !p.accept(")") {
			list = append(list, p.param())
			if !p.accept(",") {
				p.expect(")", "after the gate parameters")
				break
			}
		}
		if len(list) > 0 {
			g.Params = p.exprs.many(list)
		}
	}
	if !p.peek().is(";") {
		list := buf[:0]
		for {
			list = append(list, p.operand())
			if !p.accept(",") {
				break
			}
		}
		g.Qubits = p.exprs.many(list)
	}
	p.expect(";", "after the gate call")
	return g
}

// param parses a gate's parameter. The shapes nearly every program
// writes before a "," or ")", an operand or two joined by + - * or /,
// the first maybe negated (0.5, pi, -2, pi/2, -pi/4, 2*theta; an operand
// is a number or a name), are read without the expression parser: the
// nodes it would build, from the slabs. Any other shape goes to it, and
// so does anything it would report: a number it refuses, and nesting
// past maxDepth.
func (p *parser) param() expr {
	if p.general || p.depth+2 > maxDepth {
		return p.expr()
	}
	first := p.peek()
	k := 0 // tokens read
	neg := first.is("-")
	if neg {
		k++
	}
	// Each token is checked before the next is lexed, as the expression
	// parser would: a lexing error past a number it refuses stays unseen.
	ka, kb := k, -1
	ai, af, ok := leafValue(p.peekAt(ka))
	if !ok {
		return p.expr()
	}
	k++
	var bi int64
	var bf float64
	if op := p.peekAt(k); op.kind == tOp && len(op.text) == 1 && (op.text[0] == '+' || op.text[0] == '-' || op.text[0] == '*' || op.text[0] == '/') {
		k++
		kb = k
		if bi, bf, ok = leafValue(p.peekAt(kb)); !ok {
			return p.expr()
		}
		k++
	}
	if end := p.peekAt(k); !end.is(",") && !end.is(")") {
		return p.expr()
	}
	// The k tokens read are in the buffer.
	x := p.leaf(&p.toks[p.i+ka], ai, af)
	if neg {
		u := p.unarys.new()
		*u = xUnary{first.pos, "-", x, p.tall(first.pos, height(x))}
		x = u
	}
	if kb >= 0 {
		op := &p.toks[p.i+kb-1]
		y := p.leaf(&p.toks[p.i+kb], bi, bf)
		bin := p.binarys.new()
		*bin = xBinary{op.pos, op.text, x, y, p.tall(op.pos, max(height(x), height(y)))}
		x = bin
	}
	p.i += k
	return x
}

// leafValue reads t as an operand of param's shapes: an integer (i) or
// a float (f) the expression parser takes without complaint, or a name
// it reads as just that (followed by an operator, "," or ")": no call,
// no cast).
func leafValue(t token) (i int64, f float64, ok bool) {
	switch t.kind {
	case tInt:
		v, err := parseInt(t.text)
		return v, 0, err == nil
	case tFloat:
		if v, ok := plainDecimal(t.text); ok {
			return 0, v, true
		}
		if strings.IndexByte(t.text, '_') >= 0 {
			return 0, 0, false
		}
		v, err := strconv.ParseFloat(t.text, 64)
		return 0, v, err == nil
	case tIdent:
		return 0, 0, !plainIdent(t.text)
	}
	return 0, 0, false
}

// pow10 holds the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// plainDecimal reads s, digits with one "." among them, as
// strconv.ParseFloat does, when that is quick: when its digits make an
// integer below 2^53 and it has at most 22 after the point, the value is
// that integer divided by a power of ten, both exact, and the one
// rounding of the division is ParseFloat's. ok is false for anything
// else (an exponent, _, more digits).
func plainDecimal(s string) (v float64, ok bool) {
	var m uint64
	digits, frac := 0, -1 // frac: digits after the point, once there is one
	for i := range len(s) {
		c := s[i]
		switch {
		case c >= '0' && c <= '9':
			digits++
			m = m*10 + uint64(c-'0')
			if m >= 1<<53 {
				return 0, false
			}
			if frac >= 0 {
				frac++
			}
		case c == '.' && frac < 0:
			frac = 0
		default:
			return 0, false
		}
	}
	if frac > 22 || digits == 0 {
		return 0, false
	}
	return float64(m) / pow10[max(frac, 0)], true
}

// leaf builds the node the expression parser builds for t, an operand
// of param's shapes of the value leafValue read.
func (p *parser) leaf(t *token, i int64, f float64) expr {
	switch t.kind {
	case tInt:
		x := p.ints.new()
		*x = xInt{t.pos, i}
		return x
	case tFloat:
		x := p.floats.new()
		*x = xFloat{t.pos, f}
		return x
	}
	x := p.idents.new()
	*x = xIdent{t.pos, t.text}
	return x
}

// operand parses a gate's operand. The two forms nearly every program
// writes, q and q[3] before a "," or ";", are read without the
// expression parser: the node it would build, from the slabs. As in
// param, each token is checked before the next is lexed.
func (p *parser) operand() expr {
	t0 := p.peek()
	if p.general || p.depth+2 > maxDepth || t0.kind != tIdent || plainIdent(t0.text) {
		return p.expr()
	}
	t1 := p.peekAt(1)
	if t1.is(",") || t1.is(";") {
		p.i++ // t0, in the buffer
		x := p.idents.new()
		*x = xIdent{t0.pos, t0.text}
		return x
	}
	if !t1.is("[") || isClassicalType(t0.text) {
		return p.expr()
	}
	t2 := p.peekAt(2)
	if t2.kind != tInt {
		return p.expr()
	}
	v, err := parseInt(t2.text)
	if err != nil {
		return p.expr() // which reports it
	}
	if !p.peekAt(3).is("]") {
		return p.expr()
	}
	if t4 := p.peekAt(4); !t4.is(",") && !t4.is(";") {
		return p.expr()
	}
	p.i += 4 // t0 to t3, in the buffer
	id := p.idents.new()
	*id = xIdent{t0.pos, t0.text}
	n := p.ints.new()
	*n = xInt{t2.pos, v}
	ix := p.indexes.new()
	ix.P, ix.X, ix.Items = t1.pos, id, p.exprs.one(n)
	ix.H = p.tall(t1.pos, max(height(ix.X), maxHeight(ix.Items)))
	return ix
}

// plainIdent reports the identifiers the expression parser reads as more
// than a name.
func plainIdent(s string) bool {
	switch s {
	case "true", "false", "measure", "durationof":
		return true
	}
	return false
}

func isModifier(s string) bool {
	switch s {
	case "ctrl", "negctrl", "inv", "pow":
		return true
	}
	return false
}

func (p *parser) exprList() []expr {
	out := []expr{p.expr()}
	for p.accept(",") {
		out = append(out, p.expr())
	}
	return out
}
