package quil

// cursor reads the tokens of one instruction.
type cursor struct {
	c    *compiler
	ln   int32
	toks []token
	i    int
}

func (r *cursor) peek() token { return r.toks[r.i] }

func (r *cursor) next() token {
	t := r.toks[r.i]
	if t.kind != tEOL {
		r.i++
	}
	return t
}

func (r *cursor) failAt(t token, format string, args ...any) {
	r.c.fail(r.ln, t.col, format, args...)
}

// punct takes the punctuation p if it comes next.
func (r *cursor) punct(p string) bool {
	if t := r.peek(); t.kind == tPunct && t.text == p {
		r.i++
		return true
	}
	return false
}

func (r *cursor) expectPunct(p string) {
	if !r.punct(p) {
		r.failAt(r.peek(), "expected %q, got %s", p, r.peek().describe())
	}
}

// ident takes a name; what says what was expected.
func (r *cursor) ident(what string) token {
	t := r.next()
	if t.kind != tIdent {
		r.failAt(t, "expected %s, got %s", what, t.describe())
	}
	return t
}

// end requires the end of the instruction.
func (r *cursor) end() {
	if t := r.peek(); t.kind != tEOL {
		r.failAt(t, "expected the end of the instruction, got %s", t.describe())
	}
}

// exprs reads the rest of an expression list after "(", to ")".
func (r *cursor) exprs(e *env) ([]complex128, []token) {
	var vals []complex128
	var at []token
	for {
		er := &exprReader{ln: r.ln, toks: r.toks, i: r.i, env: e}
		at = append(at, r.peek())
		vals = append(vals, er.expr())
		r.i = er.i
		if !r.punct(",") {
			break
		}
	}
	r.expectPunct(")")
	return vals, at
}
