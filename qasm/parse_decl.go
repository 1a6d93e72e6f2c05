package qasm

import "strconv"

// Declarations: variables, types, gates, subroutines, and the switch
// statement's cases.

func (p *parser) declaration(pos position) *sDecl {
	if p.peek().text == "qubit" || p.peek().text == "qreg" {
		fail(p.peek().pos, "qubits cannot be const, input or output")
	}
	ty := p.typeSpec()
	name := p.ident("for the declaration")
	d := &sDecl{P: pos, Type: ty, Name: name.text}
	if ty.Name == "bit" && p.accept("[") {
		// creg-style "bit c[2];"
		ty.Size = p.expr()
		p.expect("]", "after the size")
	}
	if p.accept("=") {
		d.Init = p.expr()
	}
	p.expect(";", "after the declaration of "+strconv.Quote(name.text))
	return d
}

// Recursion: every cycle through the expression parser passes enter,
// so it goes maxDepth levels deep at most.
func (p *parser) typeSpec() *typeSpec {
	t := p.ident("for a type")
	if !isClassicalType(t.text) && t.text != "qubit" && t.text != "creg" {
		fail(t.pos, "expected a type, got %s", t.describe())
	}
	ty := &typeSpec{P: t.pos, Name: t.text, H: 1}
	if t.text == "creg" {
		ty.Name = "bit"
	}
	if !p.peek().is("[") {
		return ty
	}
	p.next()
	switch t.text {
	case "complex":
		ty.Elem = p.elemType(t.pos)
	case "array":
		ty.Elem = p.elemType(t.pos)
		for p.accept(",") {
			if p.peek().is("#") || p.peek().kind == tIdent && p.peek().text == "#dim" {
				for !p.peek().is("]") && p.peek().kind != tEOF {
					p.next()
				}
				ty.Dims = nil
				break
			}
			ty.Dims = append(ty.Dims, p.expr())
		}
	default:
		ty.Size = p.expr()
	}
	p.expect("]", "after the type's size")
	h := max(height(ty.Size), maxHeight(ty.Dims))
	if ty.Elem != nil {
		h = max(h, ty.Elem.H)
	}
	ty.H = p.tall(t.pos, h)
	return ty
}

// elemType parses the element type of an array or complex type: types
// nest like expressions (array[array[...]]).
//
// Recursion: every cycle through the expression parser passes enter,
// so it goes maxDepth levels deep at most.
func (p *parser) elemType(pos position) *typeSpec {
	p.enter(pos)
	defer p.leave()
	return p.typeSpec()
}

// Recursion: statements and blocks pass enter, so it goes maxDepth
// levels deep at most.
func (p *parser) gateDef() stmt {
	kw := p.next()
	name := p.ident("for the gate")
	g := &sGateDef{P: kw.pos, Name: name.text, Opaque: kw.text == "opaque"}
	if p.accept("(") {
		for !p.accept(")") {
			g.Params = append(g.Params, p.ident("for a gate parameter").text)
			if !p.accept(",") {
				p.expect(")", "after the gate parameters")
				break
			}
		}
	}
	for !p.peek().is("{") && !p.peek().is(";") {
		g.Qubits = append(g.Qubits, p.ident("for a gate qubit").text)
		if !p.accept(",") {
			break
		}
	}
	if g.Opaque {
		p.expect(";", "after the opaque gate")
		return g
	}
	if p.peek().is(";") {
		fail(p.peek().pos, "gate %q needs a body in braces (or declare it opaque)", g.Name)
	}
	g.Body = p.block()
	return g
}

// Recursion: statements and blocks pass enter, so it goes maxDepth
// levels deep at most.
func (p *parser) defStmt() stmt {
	kw := p.next()
	name := p.ident("for the subroutine")
	d := &sDef{P: kw.pos, Name: name.text}
	p.expect("(", "after the subroutine name")
	for !p.accept(")") {
		start := p.peek()
		if start.kind == tIdent && (start.text == "readonly" || start.text == "mutable") {
			p.next()
		}
		var a param
		a.P = p.peek().pos
		if p.peek().text == "qreg" || p.peek().text == "creg" {
			kind := p.next().text
			a.Name = p.ident("for the argument").text
			a.Type = &typeSpec{P: a.P, Name: map[string]string{"qreg": "qubit", "creg": "bit"}[kind]}
			if p.accept("[") {
				a.Type.Size = p.expr()
				p.expect("]", "after the size")
			}
		} else {
			a.Type = p.typeSpec()
			a.Name = p.ident("for the argument").text
		}
		d.Args = append(d.Args, a)
		if !p.accept(",") {
			p.expect(")", "after the subroutine arguments")
			break
		}
	}
	if p.accept("->") {
		d.Ret = p.typeSpec()
	}
	d.Body = p.block()
	return d
}

// switchStmt parses switch (x) { case a, b { ... } default { ... } }.
// caseBreak skips the "break;" that ends a case in the syntax Qiskit's
// exporter first wrote ("case 1: { ... } break;"); cases never fall
// through in either syntax.
func (p *parser) caseBreak() {
	if t := p.peek(); t.kind == tIdent && t.text == "break" {
		p.next()
		p.expect(";", "after break")
	}
}

// Recursion: statements and blocks pass enter, so it goes maxDepth
// levels deep at most.
func (p *parser) switchStmt() stmt {
	kw := p.next()
	p.expect("(", "after switch")
	s := &sSwitch{P: kw.pos, Target: p.expr()}
	p.expect(")", "after the switch value")
	open := p.expect("{", "to open the switch")
	for !p.accept("}") {
		t := p.peek()
		switch {
		case t.kind == tIdent && t.text == "case":
			p.next()
			cs := switchCase{P: t.pos, Values: []expr{p.expr()}}
			for p.accept(",") {
				cs.Values = append(cs.Values, p.expr())
			}
			// Qiskit's first switch syntax (SWITCH_CASE_V1) writes
			// "case 0:" and puts each further label in a "case 1:" of
			// its own before the block.
			for p.accept(":") {
				if t := p.peek(); t.kind == tIdent && t.text == "case" {
					p.next()
					cs.Values = append(cs.Values, p.expr())
				}
			}
			cs.Body = p.block()
			p.caseBreak()
			s.Cases = append(s.Cases, cs)
		case t.kind == tIdent && t.text == "default":
			p.next()
			if s.Default != nil {
				fail(t.pos, "switch has two default cases")
			}
			p.accept(":")
			s.Default = p.block()
			if s.Default == nil {
				s.Default = []stmt{}
			}
			p.caseBreak()
		case t.kind == tEOF:
			fail(open.pos, "switch opened here is never closed with \"}\"")
		default:
			fail(t.pos, "expected case or default in the switch, got %s", t.describe())
		}
	}
	return s
}
