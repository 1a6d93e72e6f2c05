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
func (c *compiler) measuredAngleCall(s *sGateCall, params []float64, at int, v value, qs []int) {
	w := len(v.bits)
	with := func(theta float64) []sim.Gate {
		ps := slices.Clone(params)
		ps[at] = theta
		return c.expand(s.P, s.Mods, s.Name, ps, slices.Clone(qs))
	}
	emit := func(gates []sim.Gate, cond *sim.Condition) {
		for _, g := range gates {
			c.emit(s.P, sim.Op{Kind: sim.OpGate, Gate: g, If: cond})
		}
	}
	if len(qs) <= maxMatrixQubits && c.isGroup(with, qs) {
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
func (c *compiler) isGroup(with func(float64) []sim.Gate, qs []int) bool {
	for _, ab := range [][2]float64{{0.37, 1.21}, {2.9, -0.83}, {5.1, 4.4}} {
		mab := gatesMatrix(with(ab[0]+ab[1]), qs)
		prod := gatesMatrix(append(with(ab[1]), with(ab[0])...), qs) // G(a) after G(b)
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
		c.charge(p, len(gates))
		*c.collect = append(*c.collect, gates...)
		return
	}
	for _, g := range gates {
		c.emit(p, sim.Op{Kind: sim.OpGate, Gate: g})
	}
}

// gateShape returns how many qubits and parameters a call takes,
// modifiers included.
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

func (c *compiler) ctrlCount(m modifier) int {
	if m.Arg == nil {
		return 1
	}
	n := c.eval(m.Arg).asExactInt(m.Arg.at(), "the number of controls")
	if n < 1 || n > int64(c.opts.MaxQubits) {
		fail(m.Arg.at(), "%s needs a positive number of controls, got %d", m.Kind, n)
	}
	return int(n)
}

// expand builds the gates of one application, modifiers outermost first.
func (c *compiler) expand(p position, mods []modifier, name string, params []float64, qs []int) []sim.Gate {
	if len(mods) == 0 {
		return c.baseGates(p, name, params, qs)
	}
	m := mods[0]
	switch m.Kind {
	case "ctrl", "negctrl":
		n := c.ctrlCount(m)
		if n > len(qs) {
			fail(m.P, "%s(%d) @ %s: more controls than qubits", m.Kind, n, name)
		}
		inner := c.expand(p, mods[1:], name, params, qs[n:])
		for i := range inner {
			ctrls := slices.Clone(inner[i].Controls)
			for _, q := range qs[:n] {
				ctrls = append(ctrls, sim.Control{Qubit: q, Negated: m.Kind == "negctrl"})
			}
			inner[i].Controls = ctrls
			inner[i].Name = m.Kind + " @ " + inner[i].Name
		}
		return inner
	case "inv":
		if m.Arg != nil {
			fail(m.P, "inv takes no argument")
		}
		inner := c.expand(p, mods[1:], name, params, qs)
		slices.Reverse(inner)
		for i := range inner {
			inner[i].Matrix = sim.Dagger(inner[i].Matrix)
			inner[i].Name = "inv @ " + inner[i].Name
		}
		return inner
	case "pow":
		if m.Arg == nil {
			fail(m.P, "pow needs an exponent: pow(k) @")
		}
		k := c.eval(m.Arg).asFloat(m.Arg.at(), "the exponent of pow")
		if math.IsNaN(k) || math.IsInf(k, 0) {
			fail(m.Arg.at(), "the exponent of pow must be finite")
		}
		inner := c.expand(p, mods[1:], name, params, qs)
		if k == math.Trunc(k) && math.Abs(k)*float64(len(inner)) <= 64 {
			n := int(math.Abs(k))
			if k < 0 {
				slices.Reverse(inner)
				for i := range inner {
					inner[i].Matrix = sim.Dagger(inner[i].Matrix)
				}
			}
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
		// Building the matrix and its power costs about d³ for d = 2^n.
		d := 1 << len(qs)
		c.charge(m.P, len(inner)*d/16+d*d*d/16)
		u := gatesMatrix(inner, qs)
		pm, err := sim.MatPow(u, k)
		if err == nil && !sim.IsUnitary(pm) {
			err = errors.New("the matrix power lost too much precision")
		}
		if err != nil {
			fail(m.P, "pow(%g) @ %s: %v", k, name, err)
		}
		return []sim.Gate{{Name: fmt.Sprintf("pow(%g) @ %s", k, name), Matrix: pm, Targets: slices.Clone(qs)}}
	}
	fail(m.P, "unknown gate modifier %q", m.Kind)
	return nil
}

func cloneGate(g sim.Gate) sim.Gate {
	g.Matrix = slices.Clone(g.Matrix)
	g.Targets = slices.Clone(g.Targets)
	g.Controls = slices.Clone(g.Controls)
	return g
}

func (c *compiler) baseGates(p position, name string, params []float64, qs []int) []sim.Gate {
	sym := c.lookup(name)
	if sym != nil && sym.kind == symGate {
		return c.expandDef(p, sym.gate, params, qs)
	}
	params = wrapAngles(params)
	if name == "gphase" {
		return []sim.Gate{{Name: "gphase", Matrix: sim.GlobalPhase(params[0])}}
	}
	if g, ok := braketGates[name]; ok && c.version == 3 {
		return []sim.Gate{g.build(params, qs)}
	}
	g, _ := c.builtinGate(name)
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
func (c *compiler) expandDef(p position, def *sGateDef, params []float64, qs []int) []sim.Gate {
	if def.Opaque {
		fail(p, "opaque gate %q has no definition and cannot be simulated", def.Name)
	}
	if len(qs) != len(def.Qubits) || len(params) != len(def.Params) {
		fail(p, "gate %q expects %d qubit(s) and %d parameter(s)", def.Name, len(def.Qubits), len(def.Params))
	}
	c.enter(p)
	defer c.leave()
	c.charge(p, 1)
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
// the identity, as to a state vector.
func gatesMatrix(gates []sim.Gate, qs []int) []complex128 {
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
