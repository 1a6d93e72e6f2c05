package qasm

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"slices"
	"strings"

	"github.com/qjobs/quantum/sim"
)

// The gates of qelib1.inc and stdgates.inc. Every sim standard gate is
// available once either library is included; redefining one of the
// included library's own gates is an error, while the other sim gates
// (rzx, ecr, iswap, ...) may be shadowed by a user definition, as
// exporters write them out.
var (
	qelib1Gates = strings.Fields(`u3 u2 u1 cx id u0 u p x y z h s sdg t tdg rx ry rz sx sxdg cz cy
		swap ch ccx cswap crx cry crz cu1 cp cu3 csx cu rxx rzz rccx rc3x c3x c3sqrtx c4x`)
	stdGates = strings.Fields(`p x y z h s sdg t tdg sx rx ry rz cx cy cz cp crx cry crz ch swap
		ccx cswap cu CX phase cphase id u1 u2 u3`)
)

// maxMatrixQubits bounds the gates whose matrix the compiler builds (for
// pow with a fractional exponent).
const maxMatrixQubits = 5

// maxPow bounds the exponent of pow: the power multiplies the phases of
// the matrix's eigenvalues by k, and their rounding errors (1e-16) with
// them, past sim's tolerance for a larger k.
const maxPow = 1 << 24

// braketNames are the gate names of Amazon Braket's OpenQASM 3 dialect,
// whose programs use them without including anything.
var braketNames = map[string]string{
	"cnot": "cx", "ccnot": "ccx", "phaseshift": "p", "cphaseshift": "cp", "si": "sdg", "ti": "tdg",
	"v": "sx", "vi": "sxdg", "i": "id", "xx": "rxx", "yy": "ryy", "zz": "rzz",
}

// builtinGate finds a gate that needs no definition. OpenQASM 2 knows
// only U and CX until qelib1.inc is included; OpenQASM 3 programs from
// several exporters use the standard gates without an include, so
// version 3 always knows them.
func (c *compiler) builtinGate(name string) (sim.StdGate, bool) {
	if name == "U" || name == "CX" {
		return sim.LookupGate(name)
	}
	if c.included == "" && c.version == 2 {
		return sim.StdGate{}, false
	}
	if alias, ok := braketNames[name]; ok && c.version == 3 {
		g, ok := sim.LookupGate(alias)
		g.Name = name
		return g, ok
	}
	return sim.LookupGate(name)
}

func (c *compiler) libraryGate(name string) bool {
	switch c.included {
	case "qelib1.inc":
		return slices.Contains(qelib1Gates, name)
	case "stdgates.inc":
		return slices.Contains(stdGates, name)
	}
	return name == "U" || name == "CX"
}

// gateCall applies a gate (or a subroutine written as a gate call) with
// broadcasting over registers.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) gateCall(s *sGateCall) {
	sym := c.lookup(s.Name)
	if sym != nil && sym.kind == symDef {
		c.inGateBody(s.P, "a subroutine call")
		if len(s.Mods) > 0 {
			fail(s.P, "gate modifiers cannot apply to subroutine %q", s.Name)
		}
		c.callDef(s.P, sym.def, s.Params, s.Qubits)
		return
	}
	c.charge(s.P, callBytes)
	c.chargeN(s.P, len(s.Params)+len(s.Qubits), 24)
	params := make([]float64, len(s.Params))
	measured, measuredAt := value{}, -1
	for i, e := range s.Params {
		v := c.eval(e)
		if v.k == vExpr && v.angle {
			v = c.angleParam(e.at(), v)
		}
		if v.k == vRT && v.angle && measuredAt < 0 {
			measured, measuredAt = v, i
			continue
		}
		if v.k == vFloat {
			params[i] = v.f
		} else {
			params[i] = v.asFloat(e.at(), fmt.Sprintf("parameter %d of %q", i+1, s.Name))
		}
		if math.IsNaN(params[i]) || math.IsInf(params[i], 0) {
			fail(e.at(), "parameter %d of %q is %v, not a finite number", i+1, s.Name, params[i])
		}
	}
	nq, np := c.gateShape(s, sym)
	if len(params) != np {
		fail(s.P, "gate %q expects %d parameter(s), got %d", s.Name, np, len(params))
	}
	if len(s.Qubits) != nq {
		fail(s.P, "gate %q expects %d qubit(s), got %d", describeCall(s), nq, len(s.Qubits))
	}
	// Broadcasting: registers of one size apply the gate to each index,
	// single qubits join every application.
	operands := make([][]int, len(s.Qubits))
	n := 1
	var sized expr
	for i, e := range s.Qubits {
		qs, single := c.qubitsOf(e)
		operands[i] = qs
		if single || len(qs) == 1 {
			continue
		}
		if sized != nil && len(qs) != n {
			fail(e.at(), "registers of different sizes in one gate call: %d and %d", n, len(qs))
		}
		n, sized = len(qs), e
		if n == 0 {
			fail(e.at(), "empty register in a gate call")
		}
	}
	for i, qs := range operands {
		if len(qs) == 0 {
			fail(s.Qubits[i].at(), "empty register in a gate call")
		}
	}
	args := make([]int, len(operands))
	for k := range n {
		// the check below, and the copies of args
		c.charge(s.P, int64(len(args))*int64(len(args))/2*stepBytes+16*int64(len(args)))
		for i, qs := range operands {
			if len(qs) == 1 {
				args[i] = qs[0]
			} else {
				args[i] = qs[k]
			}
		}
		for i := range args {
			for j := range i {
				if args[i] == args[j] {
					fail(s.Qubits[i].at(), "gate %q uses the same qubit twice", s.Name)
				}
			}
		}
		if measuredAt >= 0 {
			c.measuredAngleCall(s, params, measuredAt, measured, slices.Clone(args))
			continue
		}
		gates := c.expand(s.P, s.Mods, s.Name, params, slices.Clone(args))
		c.place(s.P, gates)
	}
}

// measuredAngleCall applies a gate whose parameter at is an angle register
// holding measured bits. A gate that is a one-parameter group, G(a+b) =
// G(a)·G(b) (rotations, phases and their controlled forms), becomes one
// conditional gate per bit: bit j adds 2π·2^j/2^w to the angle. Any other
// gate on a register of at most maxEnumeratedBits bits becomes one
// conditional gate per value the register can hold.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) measuredAngleCall(s *sGateCall, params []float64, at int, v value, qs []int) {
	w := len(v.bits)
	with := func(theta float64) []sim.Gate {
		c.charge(s.P, 64+8*int64(len(params)+len(qs)))
		ps := slices.Clone(params)
		ps[at] = theta
		return c.expand(s.P, s.Mods, s.Name, ps, slices.Clone(qs))
	}
	emit := func(gates []sim.Gate, cond *sim.Condition) {
		c.charge(s.P, nodeBytes)
		for _, g := range gates {
			c.emit(s.P, sim.Op{Kind: sim.OpGate, Gate: g, If: cond})
		}
	}
	if len(qs) <= maxMatrixQubits && c.isGroup(s.P, with, qs) {
		for j, b := range v.bits {
			emit(with(angleValue(1<<j, w)), sim.BitIs(b, true))
		}
		return
	}
	if w > maxEnumeratedBits {
		fail(s.P, "gate %q takes the measured angle of %d bits as a parameter; only rotations and phases, or registers of at most %d bits, can", s.Name, w, maxEnumeratedBits)
	}
	for x := range int64(1) << w {
		emit(with(angleValue(x, w)), sim.RegisterCmp(v.bits, sim.Eq, uint64(x)))
	}
}

// maxEnumeratedBits bounds the angle registers a gate that is no
// one-parameter group may take as a measured parameter.
const maxEnumeratedBits = 6

// isGroup tests G(a)·G(b) = G(a+b) at a few points.
func (c *compiler) isGroup(p position, with func(float64) []sim.Gate, qs []int) bool {
	d := int64(1) << len(qs)
	for _, ab := range [][2]float64{{0.37, 1.21}, {2.9, -0.83}, {5.1, 4.4}} {
		g := with(ab[0] + ab[1])
		h := append(with(ab[1]), with(ab[0])...) // G(a) after G(b)
		c.charge(p, int64(len(g)+len(h))*d*d*stepBytes+4*16*d*d+int64(len(h))*gateBytes+1024)
		mab := c.gatesMatrix(g, qs)
		prod := c.gatesMatrix(h, qs)
		for i := range mab {
			if cmplx.Abs(prod[i]-mab[i]) > 1e-9 {
				return false
			}
		}
	}
	return true
}

func describeCall(s *sGateCall) string {
	var b strings.Builder
	for _, m := range s.Mods {
		b.WriteString(m.Kind)
		b.WriteString(" @ ")
	}
	b.WriteString(s.Name)
	return b.String()
}

// place emits gates into the circuit, or into the gate body being
// expanded.
func (c *compiler) place(p position, gates []sim.Gate) {
	if c.collect != nil {
		// the gates' structs, copied into a slice that grows by doubling;
		// their matrices are shared
		c.chargeN(p, len(gates), 2*gateBytes)
		*c.collect = append(*c.collect, gates...)
		return
	}
	for _, g := range gates {
		c.emit(p, sim.Op{Kind: sim.OpGate, Gate: g})
	}
}

// gateShape returns how many qubits and parameters a call takes,
// modifiers included.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) gateShape(s *sGateCall, sym *symbol) (nq, np int) {
	switch {
	case s.Name == "gphase":
		nq, np = 0, 1
	case sym != nil && sym.kind == symGate:
		nq, np = len(sym.gate.Qubits), len(sym.gate.Params)
	case sym != nil:
		fail(s.P, "%q is a %s, not a gate", s.Name, kindWord(sym.kind))
	case c.version == 3 && braketGates[s.Name].build != nil:
		g := braketGates[s.Name]
		nq, np = g.qubits, g.params
	default:
		g, ok := c.builtinGate(s.Name)
		if !ok {
			if _, std := sim.LookupGate(s.Name); std && c.included == "" {
				fail(s.P, "unknown gate %q (did you forget include \"qelib1.inc\"?)", s.Name)
			}
			fail(s.P, "unknown gate %q", s.Name)
		}
		nq, np = g.NumQubits, g.NumParams
	}
	for _, m := range s.Mods {
		if m.Kind == "ctrl" || m.Kind == "negctrl" {
			nq += c.ctrlCount(m)
		}
	}
	return nq, np
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) ctrlCount(m modifier) int {
	if m.Arg == nil {
		return 1
	}
	n := c.count(m.Arg, "the number of controls")
	if n < 1 || n > int64(c.opts.MaxQubits) {
		fail(m.Arg.at(), "%s takes from 1 to %d controls (MaxQubits), got %d", m.Kind, c.opts.MaxQubits, n)
	}
	return int(n)
}

// expand builds the gates of one application. The modifiers apply from
// the innermost (written last) out, in a loop: a gate may carry maxDepth
// of them. Each ctrl and negctrl takes its controls off the front of the
// qubits; a first pass finds what each modifier applies to and evaluates
// the arguments, outermost first, as they are written.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) expand(p position, mods []modifier, name string, params []float64, qs []int) []sim.Gate {
	type step struct {
		qs []int   // the qubits of the modified gate, its controls first
		n  int     // ctrl, negctrl: the controls
		k  float64 // pow: the exponent
	}
	c.chargeN(p, len(mods), 48)
	steps := make([]step, len(mods))
	rest := qs
	for i, m := range mods {
		steps[i].qs = rest
		switch m.Kind {
		case "ctrl", "negctrl":
			n := c.ctrlCount(m)
			if n > len(rest) {
				fail(m.P, "%s(%d) @ %s: more controls than qubits", m.Kind, n, name)
			}
			steps[i].n = n
			rest = rest[n:]
		case "inv":
			if m.Arg != nil {
				fail(m.P, "inv takes no argument")
			}
		case "pow":
			if m.Arg == nil {
				fail(m.P, "pow needs an exponent: pow(k) @")
			}
			k := c.eval(m.Arg).asFloat(m.Arg.at(), "the exponent of pow")
			if math.IsNaN(k) || math.IsInf(k, 0) {
				fail(m.Arg.at(), "the exponent of pow must be finite")
			}
			if math.Abs(k) > maxPow {
				fail(m.Arg.at(), "the exponent of pow is %g; it must be between %d and %d: the phases of a larger power are lost to rounding", k, -maxPow, maxPow)
			}
			steps[i].k = k
		default:
			fail(m.P, "unknown gate modifier %q", m.Kind)
		}
	}
	gates := c.baseGates(p, name, params, rest)
	for i := len(mods) - 1; i >= 0; i-- {
		m, st := mods[i], steps[i]
		switch m.Kind {
		case "ctrl", "negctrl":
			for j := range gates {
				g := &gates[j]
				c.charge(m.P, 16*int64(len(g.Controls)+st.n)+int64(len(m.Kind)+3+len(g.Name))+64)
				ctrls := slices.Clone(g.Controls)
				for _, q := range st.qs[:st.n] {
					ctrls = append(ctrls, sim.Control{Qubit: q, Negated: m.Kind == "negctrl"})
				}
				g.Controls = ctrls
				g.Name = m.Kind + " @ " + g.Name
			}
		case "inv":
			slices.Reverse(gates)
			for j := range gates {
				g := &gates[j]
				c.charge(m.P, 16*int64(len(g.Matrix))+int64(len(g.Name))+64)
				g.Matrix = sim.Dagger(g.Matrix)
				g.Name = "inv @ " + g.Name
			}
		case "pow":
			gates = c.power(m, st.k, name, gates, st.qs)
		}
	}
	return gates
}

// power applies pow(k) @ to the gates of one application on qs: an
// integer power of a short sequence repeats it, any other builds the
// matrix of the sequence and its power.
func (c *compiler) power(m modifier, k float64, name string, inner []sim.Gate, qs []int) []sim.Gate {
	if k == math.Trunc(k) && math.Abs(k)*float64(len(inner)) <= 64 {
		n := int(math.Abs(k))
		if k < 0 {
			slices.Reverse(inner)
			for i := range inner {
				c.charge(m.P, 16*int64(len(inner[i].Matrix)))
				inner[i].Matrix = sim.Dagger(inner[i].Matrix)
			}
		}
		var each int64
		for i := range inner {
			each += gateBytes + gatePayload(&inner[i])
		}
		c.charge(m.P, int64(n)*each)
		out := make([]sim.Gate, 0, n*len(inner))
		for range n {
			for _, g := range inner {
				out = append(out, cloneGate(g))
			}
		}
		return out
	}
	if len(qs) > maxMatrixQubits {
		fail(m.P, "pow(%g) @ on %d qubits: the compiler builds matrices of at most %d qubits", k, len(qs), maxMatrixQubits)
	}
	// Building the matrix costs about d² for each gate of the sequence,
	// and its power about d³, for d = 2^n.
	d := int64(1) << len(qs)
	c.charge(m.P, int64(len(inner))*d*d*stepBytes+powCost(d))
	u := c.gatesMatrix(inner, qs)
	pm, err := sim.MatPow(u, k)
	if err == nil && !sim.IsUnitary(pm) {
		err = errors.New("the matrix power lost too much precision")
	}
	if err != nil {
		fail(m.P, "pow(%g) @ %s: %v", k, name, err)
	}
	return []sim.Gate{{Name: fmt.Sprintf("pow(%g) @ %s", k, name), Matrix: pm, Targets: slices.Clone(qs)}}
}

func cloneGate(g sim.Gate) sim.Gate {
	g.Matrix = slices.Clone(g.Matrix)
	g.Targets = slices.Clone(g.Targets)
	g.Controls = slices.Clone(g.Controls)
	return g
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) baseGates(p position, name string, params []float64, qs []int) []sim.Gate {
	sym := c.lookup(name)
	if sym != nil && sym.kind == symGate {
		return c.expandDef(p, sym.gate, params, qs)
	}
	// The gate, in a slice of its own, and its parameters. Braket's gates
	// put at most two qubits in their matrices; a standard gate's controls
	// stay out of its matrix.
	var g sim.StdGate
	targets, controls := len(qs), 0
	switch _, braket := braketGates[name]; {
	case name == "gphase":
		targets = 0
	case braket && c.version == 3:
	default:
		g, _ = c.builtinGate(name)
		targets, controls = g.NumQubits-g.NumControls, g.NumControls
	}
	c.charge(p, gateCost(targets, controls, 0)+8*int64(len(params)))
	params = wrapAngles(params)
	if name == "gphase" {
		return []sim.Gate{{Name: "gphase", Matrix: sim.GlobalPhase(params[0])}}
	}
	if g, ok := braketGates[name]; ok && c.version == 3 {
		return []sim.Gate{g.build(params, qs)}
	}
	gate, err := g.Gate(params, qs...)
	if err != nil {
		fail(p, "%v", err)
	}
	return []sim.Gate{gate}
}

// wrapAngles brings the parameters of a built-in gate into [−2π, 2π].
// Every built-in gate is 4π-periodic in each parameter, and a huge angle
// would otherwise cost the matrix its unitarity: U(θ, φ, λ) takes e^{i(φ+λ)}
// and φ+λ rounds at 10^7 to an error past sim's tolerance.
func wrapAngles(params []float64) []float64 {
	out := make([]float64, len(params))
	for i, x := range params {
		out[i] = math.Remainder(x, 4*math.Pi)
	}
	return out
}

// expandDef expands a user gate's body on the given qubits.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) expandDef(p position, def *sGateDef, params []float64, qs []int) []sim.Gate {
	if def.Opaque {
		fail(p, "opaque gate %q has no definition and cannot be simulated", def.Name)
	}
	if len(qs) != len(def.Qubits) || len(params) != len(def.Params) {
		fail(p, "gate %q expects %d qubit(s) and %d parameter(s)", def.Name, len(def.Qubits), len(def.Params))
	}
	c.enter(p)
	defer c.leave()
	c.charge(p, callBytes)
	var out []sim.Gate
	saved := c.collect
	c.collect = &out
	c.push(true, true)
	defer func() {
		c.pop()
		c.collect = saved
	}()
	for i, name := range def.Params {
		c.declare(&symbol{kind: symVar, name: name, pos: def.P, val: floatVal(params[i]), isConst: true})
	}
	for i, name := range def.Qubits {
		c.declare(&symbol{kind: symQubits, name: name, pos: def.P, qubits: []int{qs[i]}, single: true})
	}
	c.lowerList(def.Body)
	return out
}

// gatesMatrix is the unitary of a gate sequence on the qubits qs (qs[0]
// the lowest bit of the index): each gate is applied to every column of
// the identity, as to a state vector. Callers charge it: about d² steps a
// gate and 2·16·d² bytes, for d = 2^len(qs).
func (c *compiler) gatesMatrix(gates []sim.Gate, qs []int) []complex128 {
	d := 1 << len(qs)
	pos := map[int]int{}
	for i, q := range qs {
		pos[q] = i
	}
	u := sim.Identity(d) // column-major while building: u[col*d+row]
	for _, g := range gates {
		k := len(g.Targets)
		dk := 1 << k
		var tmask int
		for _, q := range g.Targets {
			tmask |= 1 << pos[q]
		}
		in := make([]complex128, dk)
		idx := make([]int, dk)
		for col := range d {
			c.poll.tick()
			vec := u[col*d : (col+1)*d]
			for base := range d {
				if base&tmask != 0 {
					continue
				}
				active := true
				for _, ct := range g.Controls {
					if (base>>pos[ct.Qubit]&1 == 1) == ct.Negated {
						active = false
					}
				}
				if !active {
					continue
				}
				for r := range dk {
					i := base
					for j, q := range g.Targets {
						i |= (r >> j & 1) << pos[q]
					}
					idx[r] = i
					in[r] = vec[i]
				}
				for r := range dk {
					var acc complex128
					for t := range dk {
						acc += g.Matrix[r*dk+t] * in[t]
					}
					vec[idx[r]] = acc
				}
			}
		}
	}
	// transpose to row-major
	out := make([]complex128, d*d)
	for col := range d {
		for row := range d {
			out[row*d+col] = u[col*d+row]
		}
	}
	return out
}
