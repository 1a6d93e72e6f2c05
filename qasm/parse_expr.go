package qasm

import (
	"math"
	"strconv"
	"strings"
)

// Binary operator precedence, loosest first. OpenQASM 2 reads ^ as power.
func (p *parser) binaryPrec(t token) int {
	if t.kind != tOp {
		return 0
	}
	switch t.text {
	case "||":
		return 1
	case "&&":
		return 2
	case "|":
		return 3
	case "^":
		if p.version == 2 {
			return 12
		}
		return 4
	case "&":
		return 5
	case "==", "!=":
		return 6
	case "<", "<=", ">", ">=":
		return 7
	case "<<", ">>":
		return 8
	case "+", "-", "++":
		return 9
	case "*", "/", "%":
		return 10
	case "**":
		return 12
	}
	return 0
}

const unaryPrec = 11

// Recursion: every cycle through the expression parser passes enter,
// so it goes maxDepth levels deep at most.
func (p *parser) expr() expr { return p.binary(1) }

// binary parses by precedence climbing: a chain of operators of one
// precedence is a loop, building a left-deep tree whose height the node
// constructor bounds; each recursion is into a tighter precedence (at
// most a dozen levels) or, for the right-associative **, counted by
// enter.
//
// Recursion: every cycle through the expression parser passes enter,
// so it goes maxDepth levels deep at most.
func (p *parser) binary(minPrec int) expr {
	x := p.unary()
	for {
		t := p.peek()
		prec := p.binaryPrec(t)
		if prec == 0 || prec < minPrec {
			return x
		}
		p.next()
		op := t.text
		var y expr
		if prec == 12 {
			op = "**"
			p.enter(t.pos)
			y = p.binary(prec) // right associative
			p.leave()
		} else {
			y = p.binary(prec + 1)
		}
		b := p.binarys.new()
		*b = xBinary{t.pos, op, x, y, p.tall(t.pos, max(height(x), height(y)))}
		x = b
	}
}

// tall returns the height of a node whose tallest operand is h high, and
// refuses a tree taller than maxDepth where it crosses the limit.
func (p *parser) tall(pos position, h int32) int32 {
	if h >= maxDepth {
		fail(pos, "expression nested more than %d levels deep (each operator of a chain such as a+b+c nests one level)", maxDepth)
	}
	return h + 1
}

// Recursion: every cycle through the expression parser passes enter,
// so it goes maxDepth levels deep at most.
func (p *parser) unary() expr {
	t := p.peek()
	p.enter(t.pos)
	defer p.leave()
	if t.kind == tOp && (t.text == "-" || t.text == "!" || t.text == "~" || t.text == "+") {
		p.next()
		// -a**b is -(a**b): the operand binds everything tighter than unary.
		x := p.binary(unaryPrec + 1)
		if t.text == "+" {
			return x
		}
		u := p.unarys.new()
		*u = xUnary{t.pos, t.text, x, p.tall(t.pos, height(x))}
		return u
	}
	return p.postfix()
}

// Recursion: every cycle through the expression parser passes enter,
// so it goes maxDepth levels deep at most.
func (p *parser) postfix() expr {
	x := p.primary()
	for p.peek().is("[") {
		open := p.next()
		ix := p.indexes.new()
		ix.P, ix.X = open.pos, x
		for {
			if ix.Items == nil {
				ix.Items = p.exprs.one(p.rangeOrExpr(open.pos))
				if !p.accept(",") {
					break
				}
				continue
			}
			ix.Items = append(ix.Items, p.rangeOrExpr(open.pos))
			if !p.accept(",") {
				break
			}
		}
		p.expect("]", "after the index")
		ix.H = p.tall(open.pos, max(height(ix.X), maxHeight(ix.Items)))
		x = ix
	}
	return x
}

// rangeOrExpr parses an index item: an expression, a range a:b, a:s:b
// (any part may be left out) or a set {a, b}.
//
// Recursion: every cycle through the expression parser passes enter,
// so it goes maxDepth levels deep at most.
func (p *parser) rangeOrExpr(pos position) expr {
	var parts []expr
	var start expr
	if !p.peek().is(":") {
		start = p.expr()
		if !p.peek().is(":") {
			return start
		}
	}
	parts = append(parts, start)
	for p.accept(":") {
		if p.peek().is("]") || p.peek().is(":") || p.peek().is(",") {
			parts = append(parts, nil)
			continue
		}
		parts = append(parts, p.expr())
	}
	r := &xRange{P: pos, Start: parts[0]}
	switch len(parts) {
	case 2:
		r.Stop = parts[1]
	case 3:
		r.Step, r.Stop = parts[1], parts[2]
	default:
		fail(pos, "a range has at most three parts (start:step:stop)")
	}
	r.H = p.tall(pos, maxHeight(parts))
	return r
}

// constant returns the value of a built-in constant (a switch: pi is
// in most gate parameters).
func constant(name string) (float64, bool) {
	switch name {
	case "pi", "π":
		return math.Pi, true
	case "tau", "τ":
		return 2 * math.Pi, true
	case "euler", "ℇ":
		return math.E, true
	}
	return 0, false
}

// Recursion: every cycle through the expression parser passes enter,
// so it goes maxDepth levels deep at most.
func (p *parser) primary() expr {
	t := p.next()
	switch t.kind {
	case tInt:
		v, err := parseInt(t.text)
		if err != nil {
			fail(t.pos, "integer %s is too large", t.text)
		}
		x := p.ints.new()
		*x = xInt{t.pos, v}
		return x
	case tFloat:
		v, err := strconv.ParseFloat(strings.ReplaceAll(t.text, "_", ""), 64)
		if err != nil && !math.IsInf(v, 0) {
			fail(t.pos, "bad number %s", t.text)
		}
		x := p.floats.new()
		*x = xFloat{t.pos, v}
		return x
	case tImag:
		fail(t.pos, "complex numbers are not supported: %s", t.text)
	case tDuration:
		return &xDuration{t.pos, 0}
	case tBitString:
		return &xBits{t.pos, strings.ReplaceAll(t.text, "_", "")}
	case tPhys:
		n, err := strconv.Atoi(t.text)
		if err != nil || n > 1<<20 {
			fail(t.pos, "physical qubit $%s is out of range", t.text)
		}
		if n+1 > p.nphys {
			p.nphys, p.physPos = n+1, t.pos
		}
		return &xPhys{t.pos, n}
	case tOp:
		switch t.text {
		case "(":
			x := p.expr()
			p.expect(")", "to close the parenthesis")
			return x
		case "{":
			s := &xSet{P: t.pos}
			for !p.accept("}") {
				s.Elems = append(s.Elems, p.expr())
				if !p.accept(",") {
					p.expect("}", "after the set")
					break
				}
			}
			s.H = p.tall(t.pos, maxHeight(s.Elems))
			return s
		}
	case tIdent:
		switch t.text {
		case "true", "false":
			return &xBool{t.pos, t.text == "true"}
		case "measure":
			p.enter(t.pos) // measure measure ... q
			q := p.postfix()
			p.leave()
			return &xMeasure{t.pos, q, p.tall(t.pos, height(q))}
		case "durationof":
			p.skipBalanced("(", ")")
			return &xDuration{t.pos, 0}
		}
		if isClassicalType(t.text) && (p.peek().is("(") || p.peek().is("[")) {
			p.i--
			ty := p.typeSpec()
			p.expect("(", "after the type of a cast")
			x := p.expr()
			p.expect(")", "after the cast")
			return &xCast{t.pos, ty, x, p.tall(t.pos, max(height(x), ty.H))}
		}
		if p.peek().is("(") {
			p.next()
			c := &xCall{P: t.pos, Name: t.text}
			for !p.accept(")") {
				c.Args = append(c.Args, p.expr())
				if !p.accept(",") {
					p.expect(")", "after the arguments of "+t.text)
					break
				}
			}
			c.H = p.tall(t.pos, maxHeight(c.Args))
			return c
		}
		x := p.idents.new()
		*x = xIdent{t.pos, t.text}
		return x
	}
	fail(t.pos, "expected an expression, got %s", t.describe())
	return nil
}

func parseInt(s string) (int64, error) {
	if len(s) <= 18 {
		// the common case, a plain decimal that cannot overflow
		v := int64(0)
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' || i == 1 && s[0] == '0' {
				goto general
			}
			v = v*10 + int64(s[i]-'0')
		}
		return v, nil
	}
general:
	s = strings.ReplaceAll(s, "_", "")
	base := 10
	if len(s) > 2 && s[0] == '0' {
		switch s[1] {
		case 'x', 'X':
			base, s = 16, s[2:]
		case 'o':
			base, s = 8, s[2:]
		case 'b', 'B':
			base, s = 2, s[2:]
		}
	}
	u, err := strconv.ParseUint(s, base, 64)
	if err != nil {
		return 0, err
	}
	// Values above MaxInt64 keep their bits: uint[64] constants.
	return int64(u), nil
}
