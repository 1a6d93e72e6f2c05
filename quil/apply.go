package quil

import (
	"fmt"
	"slices"

	"github.com/qjobs/quantum/sim"
)

// A gate application: modifiers, the gate, its parameters, its qubits.
// DAGGER takes the adjoint; CONTROLLED G c q… is G on q… controlled by c
// (the control first); FORKED G(r…, s…) c q… is G(r…) where c is 0 and
// G(s…) where it is 1. Modifiers stack, the leftmost outermost.

// maxModifiers bounds the modifiers of one application.
const maxModifiers = 64

// maxNesting bounds how deep sequences apply other definitions.
const maxNesting = 64

// application is a gate application being lowered: in the program, or in
// a sequence's body where its qubits are the sequence's formal ones.
type application struct {
	line   int32
	head   token // the first token, for messages and positions
	mods   []token
	name   token
	params []complex128
	ptoks  []token
	qubits []int
	qtoks  []token
}

// gateApplication reads and lowers a gate application of the program.
func (c *compiler) gateApplication(r *cursor) {
	if !c.general && c.standardGate(r) {
		return
	}
	a := c.readApplication(r, nil, &c.progEnv)
	for _, t := range a.qtoks {
		a.qubits = append(a.qubits, c.qubit(r.ln, t))
	}
	c.apply(a, a.mods)
}

// readApplication reads modifiers, the gate, its parameters (evaluated in
// e) and its qubit tokens. formal, in a sequence's body, are its formal
// qubits.
func (c *compiler) readApplication(r *cursor, formal map[string]int, e *env) application {
	a := application{line: r.ln, head: r.peek()}
	for {
		t := r.peek()
		if t.kind != tIdent || t.text != "DAGGER" && t.text != "CONTROLLED" && t.text != "FORKED" {
			break
		}
		if len(a.mods) == maxModifiers {
			r.failAt(t, "more than %d modifiers on one gate", maxModifiers)
		}
		a.mods = append(a.mods, r.next())
	}
	a.name = r.next()
	if a.name.kind != tIdent {
		r.failAt(a.name, "expected a gate, got %s", a.name.describe())
	}
	if r.punct("(") {
		a.params, a.ptoks = r.exprs(e)
	}
	for r.peek().kind != tEOL {
		t := r.next()
		if formal != nil {
			if t.kind != tIdent {
				r.failAt(t, "in a sequence's body a gate acts on the definition's qubits by name, got %s", t.describe())
			}
			if _, ok := formal[t.text]; !ok {
				r.failAt(t, "%q is not a qubit of the definition", t.text)
			}
		}
		a.qtoks = append(a.qtoks, t)
	}
	if len(a.qtoks) == 0 {
		r.failAt(r.peek(), "%s acts on no qubits", a.name.text)
	}
	return a
}

// apply lowers a with the modifiers mods (outermost first) to
// operations.
func (c *compiler) apply(a application, mods []token) {
	for _, op := range c.opsOf(a, mods) {
		c.emit(a.line, op.WithPos(int(a.line), int(a.head.col)))
	}
}

// opsOf are the operations of a with mods. Its recursion is one level a
// modifier, bounded by maxModifiers, and one a sequence, by maxNesting.
func (c *compiler) opsOf(a application, mods []token) []sim.Op {
	for i, q := range a.qubits {
		if slices.Contains(a.qubits[:i], q) {
			c.fail(a.line, a.qtoks[i].col, "%s uses qubit %d twice", a.name.text, q)
		}
	}
	if len(mods) == 0 {
		return c.baseOps(a)
	}
	m := mods[0]
	switch m.text {
	case "DAGGER":
		inner := c.opsOf(a, mods[1:])
		c.charge(a.line, extBytes*int64(len(inner))) // an inverse may hold its own matrix
		slices.Reverse(inner)
		for i := range inner {
			inner[i] = inner[i].Inverse()
		}
		return inner
	case "CONTROLLED":
		if len(a.qubits) < 2 {
			c.fail(a.line, m.col, "CONTROLLED %s needs a control and the gate's qubits", a.name.text)
		}
		ctrl := a.qubits[0]
		b := a
		b.qubits, b.qtoks = a.qubits[1:], a.qtoks[1:]
		inner := c.opsOf(b, mods[1:])
		c.charge(a.line, extBytes*int64(len(inner))) // a control may move the qubits out of the Op
		for i := range inner {
			inner[i] = inner[i].WithControls(sim.Control{Qubit: ctrl})
		}
		return inner
	default: // FORKED
		if len(a.qubits) < 2 {
			c.fail(a.line, m.col, "FORKED %s needs a control and the gate's qubits", a.name.text)
		}
		if len(a.params)%2 != 0 {
			c.fail(a.line, m.col, "FORKED %s takes twice the gate's parameters, those for a 0 then those for a 1; got %d", a.name.text, len(a.params))
		}
		ctrl, half := a.qubits[0], len(a.params)/2
		zero, one := a, a
		zero.qubits, zero.qtoks = a.qubits[1:], a.qtoks[1:]
		one.qubits, one.qtoks = zero.qubits, zero.qtoks
		zero.params, zero.ptoks = a.params[:half], a.ptoks[:half]
		one.params, one.ptoks = a.params[half:], a.ptoks[half:]
		out := c.opsOf(zero, mods[1:])
		c.charge(a.line, extBytes*int64(len(out)))
		for i := range out {
			out[i] = out[i].WithControls(sim.Control{Qubit: ctrl, Negated: true})
		}
		ones := c.opsOf(one, mods[1:])
		c.grows(a.line, len(out), len(ones))
		for _, op := range ones {
			out = append(out, op.WithControls(sim.Control{Qubit: ctrl}))
		}
		return out
	}
}

// baseOps are the operations of the gate alone: a standard gate, or a
// definition.
func (c *compiler) baseOps(a application) []sim.Op {
	name := a.name.text
	if g, ok := stdGates[name]; ok {
		c.arity(a, g.params, g.qubits)
		p := make([]float64, len(a.params))
		for i, v := range a.params {
			p[i] = realValue(a.line, a.ptoks[i], v, "a parameter of ", name)
		}
		if g.sim != "" {
			return []sim.Op{stdOp(g.sim, p, a.qubits)}
		}
		m := g.matrix(p)
		c.charge(a.line, extBytes+16*int64(len(m)))
		return []sim.Op{matrixOp(name, m, a.qubits)}
	}
	d, ok := c.defs[name]
	if !ok {
		c.fail(a.line, a.name.col, "unknown gate %s: not a standard gate and not DEFGATEd", name)
	}
	c.arity(a, len(d.params), d.qubits)
	if d.kind == defSequence {
		return c.sequence(a, d)
	}
	m := c.matrixOf(d, a.params, line{no: a.line}, a.name)
	if len(d.params) > 0 {
		c.charge(a.line, extBytes+16*int64(len(m)))
	} else {
		c.charge(a.line, extBytes)
	}
	return []sim.Op{matrixOp(name, m, a.qubits)}
}

// extBytes is what an operation given by its matrix holds beyond its 56
// bytes: its extension and the slices in it.
const extBytes = 192

// arity checks an application's numbers of parameters and qubits.
func (c *compiler) arity(a application, params, qubits int) {
	if len(a.params) != params {
		at := a.name
		if len(a.ptoks) > 0 {
			at = a.ptoks[0]
		}
		c.fail(a.line, at.col, "%s takes %d parameters, got %d", a.name.text, params, len(a.params))
	}
	if qubits >= 0 && len(a.qubits) != qubits {
		at := a.name
		if len(a.qtoks) > 0 {
			at = a.qtoks[0]
		}
		c.fail(a.line, at.col, "%s acts on %d qubits, got %d", a.name.text, qubits, len(a.qubits))
	}
}

// sequence expands an application of a sequence definition: each line of
// its body, its formal qubits and parameters bound.
func (c *compiler) sequence(a application, d *defgate) []sim.Op {
	if c.expanding == nil {
		c.expanding = map[string]bool{}
	}
	if c.expanding[d.name] {
		c.fail(a.line, a.name.col, "DEFGATE %s applies itself (line %d): a sequence may not be circular", d.name, d.line)
	}
	if c.depth == maxNesting {
		c.fail(a.line, a.name.col, "sequences nested more than %d deep", maxNesting)
	}
	c.expanding[d.name] = true
	c.depth++
	defer func() {
		delete(c.expanding, d.name)
		c.depth--
	}()
	formal := map[string]int{}
	for i, name := range d.args {
		formal[name] = a.qubits[i]
	}
	e := &env{params: map[string]complex128{}}
	for i, p := range d.params {
		e.params[p] = a.params[i]
	}
	var out []sim.Op
	for _, ln := range d.body {
		start := 0
		for start < len(ln.toks) {
			end := start
			for ln.toks[end].kind != tEOL {
				end++
			}
			if end > start {
				r := &cursor{c: c, ln: ln.no, toks: ln.toks[start : end+1]}
				inner := c.readApplication(r, formal, e)
				for _, t := range inner.qtoks {
					inner.qubits = append(inner.qubits, formal[t.text])
				}
				ops := c.opsOf(inner, inner.mods)
				c.grows(ln.no, len(out), len(ops))
				out = append(out, ops...)
			}
			start = end + 1
		}
	}
	return out
}

// grows checks and charges appending n operations to a slice of have,
// before it happens: an expansion holds at most MaxOps operations, and
// the slice, grown by doubling, holds at most twice what it keeps.
func (c *compiler) grows(ln int32, have, n int) {
	if have+n > c.opts.MaxOps {
		c.fail(ln, 1, "the program expands to more than %d operations (MaxOps)", c.opts.MaxOps)
	}
	c.charge(ln, 2*(opBytes+extBytes)*int64(n))
}

// readMemory is how a gate parameter of the program reads memory: a REAL
// cell's value where it is known while the program compiles.
func (c *compiler) readMemory(name string, index int64) (complex128, string) {
	reg, ok := c.regions[name]
	switch {
	case !ok:
		return 0, fmt.Sprintf("%s is not declared, nor a function or constant", name)
	case index >= reg.length:
		return 0, fmt.Sprintf("%s[%d] is past %s's %d cells", name, index, name, reg.length)
	case reg.typ != memReal:
		return 0, fmt.Sprintf("a gate parameter reads %s, %s memory, whose value is known only as the program runs; parameters read REAL memory", name, reg.typ)
	case !reg.known[index]:
		return 0, fmt.Sprintf("a gate parameter reads %s[%d], which the program changes under its jumps: its value here is known only as the program runs", name, index)
	}
	return complex(reg.values[index], 0), ""
}
