package quil

import (
	"slices"

	"github.com/qjobs/quantum/sim"
)

// Most of a large program is standard gates without modifiers (H 0,
// RZ(0.25) 3, CNOT 0 1). The general path builds an application, its
// slices and its operations' slice for each; standardGate reads such a
// gate straight into the circuit's next operation (sim.StdGate.PutOp).
//
// It gives up, having changed nothing the general path would not change
// the same way, on anything else or anything wrong: the general path then
// reads the instruction again and reports what it reports, so a program
// compiles to the same circuit and fails with the same error either way.

// simGates are sim's standard gates that Quil's map to, resolved once.
var simGates = func() map[string]*sim.StdGate {
	m := map[string]*sim.StdGate{}
	for name, g := range stdGates {
		if g.sim == "" {
			continue
		}
		sg, ok := sim.LookupGate(g.sim)
		if !ok || sg.NumParams != g.params || sg.NumQubits != g.qubits {
			panic("quil: standard gate " + name + " does not match sim's " + g.sim)
		}
		m[name] = &sg
	}
	return m
}()

// standardGate lowers r's instruction when it is a standard gate of sim's
// without modifiers, of the right arity on distinct qubits, and reports
// whether it did.
func (c *compiler) standardGate(r *cursor) bool {
	name := r.toks[0]
	sg := simGates[name.text]
	if sg == nil || sg.NumParams > 3 || sg.NumQubits > 3 {
		return false
	}
	i := 1
	var vals [3]complex128
	var at [3]token
	np := 0
	if t := r.toks[i]; t.kind == tPunct && t.text == "(" {
		i++
		for {
			if np == len(vals) {
				return false
			}
			er := exprReader{ln: r.ln, toks: r.toks, i: i, env: &c.progEnv}
			at[np] = r.toks[i]
			vals[np] = er.expr()
			np++
			i = er.i
			if t := r.toks[i]; t.kind == tPunct && t.text == "," {
				i++
				continue
			}
			break
		}
		if t := r.toks[i]; t.kind != tPunct || t.text != ")" {
			return false
		}
		i++
	}
	var qs [3]int
	nq := 0
	for ; r.toks[i].kind != tEOL; i++ {
		if nq == len(qs) {
			return false
		}
		qs[nq] = c.qubit(r.ln, r.toks[i])
		nq++
	}
	if np != sg.NumParams || nq != sg.NumQubits || nq == 0 || slices.Contains(qs[:nq-1], qs[nq-1]) || nq == 3 && qs[0] == qs[1] {
		return false
	}
	var p [3]float64
	for k := range np {
		p[k] = realValue(r.ln, at[k], vals[k], "a parameter of ", name.text)
	}
	op := c.place(r.ln)
	if !sg.PutOp(op, &p, &qs, int(r.ln), int(name.col)) {
		panic("quil: sim's " + sg.Name + " does not fit in an Op") // simGates holds only those that do
	}
	return true
}
