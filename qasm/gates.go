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
//
// The last few answers are remembered (an include clears them): a
// program of a million gates names a handful.
func (c *compiler) builtinGate(name string) (sim.StdGate, bool) {
	for i := range c.builtins.n {
		if e := &c.builtins.e[i]; sameName(e.name, name) {
			return e.g, e.ok
		}
	}
	g, ok := c.lookupBuiltin(name)
	b := &c.builtins
	b.e[b.next] = builtinEntry{name, g, ok}
	b.next = (b.next + 1) % len(b.e)
	b.n = min(b.n+1, len(b.e))
	return g, ok
}

// builtins are builtinGate's last answers.
type builtins struct {
	e    [8]builtinEntry
	n    int
	next int
}

type builtinEntry struct {
	name string
	g    sim.StdGate
	ok   bool
}

func (c *compiler) lookupBuiltin(name string) (sim.StdGate, bool) {
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
	// The parameters go to a buffer on the stack, which only the simple
	// path below reads: the others get a copy.
	var pbuf [3]float64
	params := pbuf[:0]
	if len(s.Params) > len(pbuf) {
		c.chargeN(s.P, len(s.Params), 8)
		params = make([]float64, 0, len(s.Params))
	}
	measured, measuredAt := value{}, -1
	for i, e := range s.Params {
		if x, ok := c.constParam(e, 0); ok {
			params = append(params, x)
			continue
		}
		v := c.eval(e)
		if v.k == vExpr && v.angle {
			v = c.angleParam(e.at(), v)
		}
		if v.k == vRT && v.angle && measuredAt < 0 {
			measured, measuredAt = v, i
			params = append(params, 0)
			continue
		}
		var x float64
		if v.k == vFloat {
			x = v.f
		} else {
			x = v.asFloat(e.at(), fmt.Sprintf("parameter %d of %q", i+1, s.Name))
		}
		if math.IsNaN(x) || math.IsInf(x, 0) {
			fail(e.at(), "parameter %d of %q is %v, not a finite number", i+1, s.Name, x)
		}
		params = append(params, x)
	}
	nq, np, std := c.gateShape(s, sym)
	if len(params) != np {
		fail(s.P, "gate %q expects %d parameter(s), got %d", s.Name, np, len(params))
	}
	if len(s.Qubits) != nq {
		fail(s.P, "gate %q expects %d qubit(s), got %d", describeCall(s), nq, len(s.Qubits))
	}
	if measuredAt < 0 && std.NumQubits > 0 && c.simpleGateCall(s, std, params) {
		return
	}
	c.charge(s.P, callBytes)
	c.chargeN(s.P, len(s.Params)+len(s.Qubits), 24)
	params2 := slices.Clone(params) // off the stack buffer, for the calls below
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
			c.measuredAngleCall(s, params2, measuredAt, measured, slices.Clone(args))
			continue
		}
		gates := c.expand(s.P, s.Mods, s.Name, params2, slices.Clone(args))
		c.place(s.P, gates)
	}
}

// constParam evaluates a gate parameter made of numbers, the built-in
// constants, float variables and + − × ÷ (pi/2, -pi/4, 2*theta) as eval
// would, without building values: nearly every parameter programs write.
// ok is false, with nothing done, for anything else (and for what eval
// would treat otherwise: integers past 2^53, a division by zero, a result
// that is not finite), which eval then takes.
func (c *compiler) constParam(e expr, depth int) (x float64, ok bool) {
	const exact = 1 << 53 // integers that float64 holds exactly
	switch e := e.(type) {
	case *xFloat:
		x, ok = e.V, true
	case *xInt:
		x, ok = float64(e.V), e.V > -exact && e.V < exact
	case *xIdent:
		sym := c.lookup(e.Name)
		switch {
		case sym == nil:
			x, ok = constant(e.Name)
		case sym.kind == symVar && sym.val.k == vFloat && !sym.val.angle && (sym.ty == nil || sym.ty.name != "angle"):
			x, ok = sym.val.f, true
		}
	case *xUnary:
		if e.Op == "-" && depth < 8 {
			x, ok = c.constParam(e.X, depth+1)
			x = -x
		}
	case *xBinary:
		if depth >= 8 || e.Op != "+" && e.Op != "-" && e.Op != "*" && e.Op != "/" {
			return 0, false
		}
		a, okA := c.constParam(e.X, depth+1)
		b, okB := c.constParam(e.Y, depth+1)
		if !okA || !okB || e.Op == "/" && b == 0 {
			return 0, false
		}
		switch e.Op {
		case "+":
			x = a + b
		case "-":
			x = a - b
		case "*":
			x = a * b
		case "/":
			x = a / b
		}
		// integer arithmetic agrees with float64's while it stays exact
		ok = math.Abs(x) < exact
	}
	if !ok || math.IsInf(x, 0) || math.IsNaN(x) {
		return 0, false
	}
	c.charge(e.at(), stepBytes)
	return x, true
}

// simpleCallSteps is what simpleGateCall charges a gate: the work of a
// statement lowered, with nothing allocated but the operation's slot.
const simpleCallSteps = 1

// simpleGateCall places the most common call of all, one standard gate
// with no modifiers on single qubits (h q[0]; rz(0.5) q[1]; cx q[0], q[1]),
// as one operation without allocating anything; it reports false, having
// changed nothing, for any other call. params holds the call's evaluated
// parameters, in the caller's buffer.
func (c *compiler) simpleGateCall(s *sGateCall, g sim.StdGate, params []float64) bool {
	if len(s.Mods) > 0 || len(s.Qubits) > 3 {
		return false
	}
	var qbuf [3]int
	qs := qbuf[:len(s.Qubits)]
	for i, e := range s.Qubits {
		q, ok := c.singleQubit(e)
		if !ok {
			return false
		}
		for j := range i {
			if qs[j] == q {
				fail(e.at(), "gate %q uses the same qubit twice", s.Name)
			}
		}
		qs[i] = q
	}
	for i, x := range params {
		params[i] = wrapAngle(x) // as wrapAngles
	}
	op, err := g.Op(params, qs...)
	if err != nil {
		fail(s.P, "%v", err)
	}
	c.charge(s.P, simpleCallSteps*stepBytes)
	c.place1(s.P, op)
	return true
}

// singleQubit resolves an operand that names one qubit (q, q[3], q[i],
// $2) as qubitsOf would, without allocating; ok is false, with nothing
// done, for any other operand (a register, a slice, a concatenation) and
// for one that is wrong, which qubitsOf then reports.
func (c *compiler) singleQubit(e expr) (q int, ok bool) {
	switch e := e.(type) {
	case *xPhys:
		return c.physical(e.N), true
	case *xIdent:
		if s := c.lookup(e.Name); s != nil && s.kind == symQubits && s.single {
			return s.qubits[0], true
		}
	case *xIndex:
		id, isIdent := e.X.(*xIdent)
		if !isIdent || len(e.Items) != 1 {
			return 0, false
		}
		switch e.Items[0].(type) {
		case *xRange, *xSet:
			return 0, false
		}
		s := c.lookup(id.Name)
		if s == nil || s.kind != symQubits || s.single {
			return 0, false
		}
		if n, ok := e.Items[0].(*xInt); ok && n.V >= 0 && n.V < int64(len(s.qubits)) {
			c.charge(n.P, stepBytes) // as evaluating it would
			return s.qubits[n.V], true
		}
		return s.qubits[c.index(e.Items[0], len(s.qubits))], true
	}
	return 0, false
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
	with := func(theta float64) []sim.Op {
		c.charge(s.P, 64+8*int64(len(params)+len(qs)))
		ps := slices.Clone(params)
		ps[at] = theta
		return c.expand(s.P, s.Mods, s.Name, ps, slices.Clone(qs))
	}
	emit := func(ops []sim.Op, cond *sim.Condition) {
		c.charge(s.P, nodeBytes)
		for _, op := range ops {
			c.charge(s.P, extCost(op.NumTargets()+op.NumControls(), 0))
			c.emit(s.P, op.WithIf(cond).WithPos(int(s.P.Line), int(s.P.Col)))
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
func (c *compiler) isGroup(p position, with func(float64) []sim.Op, qs []int) bool {
	d := int64(1) << len(qs)
	for _, ab := range [][2]float64{{0.37, 1.21}, {2.9, -0.83}, {5.1, 4.4}} {
		g := with(ab[0] + ab[1])
		h := append(with(ab[1]), with(ab[0])...) // G(a) after G(b)
		c.charge(p, int64(len(g)+len(h))*d*d*stepBytes+4*16*d*d+int64(len(h))*opBytes+1024)
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
func (c *compiler) place(p position, ops []sim.Op) {
	for _, op := range ops {
		c.place1(p, op)
	}
}

// place1 emits one gate, at the statement's position: in a gate body, the
// position of the call that expands it.
func (c *compiler) place1(p position, op sim.Op) {
	if c.collect != nil {
		// the operation, copied into a slice that grows by doubling; what
		// it holds beyond its own bytes is shared
		c.charge(p, 2*opBytes)
		*c.collect = append(*c.collect, op)
		return
	}
	c.emit(p, op.WithPos(int(p.Line), int(p.Col)))
}

// gateShape returns how many qubits and parameters a call takes,
// modifiers included.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
//
// std is the built-in gate the call names, when it is one (a zero StdGate
// otherwise: gphase, Braket's own gates and the program's).
func (c *compiler) gateShape(s *sGateCall, sym *symbol) (nq, np int, std sim.StdGate) {
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
		nq, np, std = g.NumQubits, g.NumParams, g
	}
	for _, m := range s.Mods {
		if m.Kind == "ctrl" || m.Kind == "negctrl" {
			nq += c.ctrlCount(m)
		}
	}
	return nq, np, std
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
func (c *compiler) expand(p position, mods []modifier, name string, params []float64, qs []int) []sim.Op {
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
	ops := c.baseGates(p, name, params, rest)
	for i := len(mods) - 1; i >= 0; i-- {
		m, st := mods[i], steps[i]
		switch m.Kind {
		case "ctrl", "negctrl":
			c.chargeN(m.P, st.n, 16)
			ctrls := make([]sim.Control, st.n)
			for j, q := range st.qs[:st.n] {
				ctrls[j] = sim.Control{Qubit: q, Negated: m.Kind == "negctrl"}
			}
			for j := range ops {
				c.charge(m.P, extCost(ops[j].NumTargets()+ops[j].NumControls()+st.n, 0))
				ops[j] = ops[j].WithControls(ctrls...)
			}
		case "inv":
			slices.Reverse(ops)
			for j := range ops {
				if _, _, _, std := ops[j].Std(); !std {
					c.charge(m.P, extCost(ops[j].NumTargets()+ops[j].NumControls(), 1<<(2*ops[j].NumTargets())))
				}
				ops[j] = ops[j].Inverse()
			}
		case "pow":
			ops = c.power(m, st.k, name, ops, st.qs)
		}
	}
	return ops
}

// power applies pow(k) @ to the gates of one application on qs: an
// integer power of a short sequence repeats it, any other builds the
// matrix of the sequence and its power.
func (c *compiler) power(m modifier, k float64, name string, inner []sim.Op, qs []int) []sim.Op {
	if k == math.Trunc(k) && math.Abs(k)*float64(len(inner)) <= 64 {
		n := int(math.Abs(k))
		if k < 0 {
			slices.Reverse(inner)
			for i := range inner {
				if _, _, _, std := inner[i].Std(); !std {
					c.charge(m.P, extCost(inner[i].NumTargets()+inner[i].NumControls(), 1<<(2*inner[i].NumTargets())))
				}
				inner[i] = inner[i].Inverse()
			}
		}
		// copies of the operations; what they hold beyond is shared
		c.charge(m.P, allocSize(int64(n)*int64(len(inner))*opBytes))
		out := make([]sim.Op, 0, n*len(inner))
		for range n {
			out = append(out, inner...)
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
	c.charge(m.P, extCost(len(qs), 0)+opBytes)
	return []sim.Op{sim.GateOp(sim.Gate{Name: fmt.Sprintf("pow(%g) @ %s", k, name), Matrix: pm, Targets: slices.Clone(qs)})}
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) baseGates(p position, name string, params []float64, qs []int) []sim.Op {
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
	c.charge(p, allocSize(opBytes)+allocSize(8*int64(len(params))))
	params = wrapAngles(params)
	if name == "gphase" {
		c.charge(p, extCost(0, 1))
		return []sim.Op{sim.GateOp(sim.Gate{Name: "gphase", Matrix: sim.GlobalPhase(params[0])})}
	}
	if g, ok := braketGates[name]; ok && c.version == 3 {
		c.charge(p, extCost(targets+controls, 1<<(2*targets)))
		return []sim.Op{sim.GateOp(g.build(params, qs))}
	}
	if len(params) > 3 {
		c.charge(p, extCost(targets+controls, 1<<(2*targets)))
	}
	op, err := g.Op(params, qs...)
	if err != nil {
		fail(p, "%v", err)
	}
	return []sim.Op{op}
}

// wrapAngles brings the parameters of a built-in gate into [−2π, 2π].
// Every built-in gate is 4π-periodic in each parameter, and a huge angle
// would otherwise cost the matrix its unitarity: U(θ, φ, λ) takes e^{i(φ+λ)}
// and φ+λ rounds at 10^7 to an error past sim's tolerance.
func wrapAngles(params []float64) []float64 {
	out := make([]float64, len(params))
	for i, x := range params {
		out[i] = wrapAngle(x)
	}
	return out
}

// wrapAngle is math.Remainder(x, 4π), which is x itself (-0 included)
// where |x| < 2π, and nearly every angle is: math.Remainder divides.
// Past 2π it is x - n·4π for the integer n nearest x/4π, which one fused
// multiply-add computes exactly (the remainder is a float64 whenever n
// is the nearest); n is taken from the rounded quotient, which can be one
// off near a tie, but then |x - n·4π| is at least 2π, and that case,
// ties, zeros and huge angles are left to math.Remainder.
func wrapAngle(x float64) float64 {
	const y = 4 * math.Pi
	if math.Abs(x) < y/2 {
		return x
	}
	if math.Abs(x) < 1<<40 {
		r := math.FMA(-math.Round(x/y), y, x)
		if r != 0 && math.Abs(r) < y/2 {
			return r
		}
	}
	return math.Remainder(x, y)
}

// expandDef expands a user gate's body on the given qubits.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) expandDef(p position, def *sGateDef, params []float64, qs []int) []sim.Op {
	if def.Opaque {
		fail(p, "opaque gate %q has no definition and cannot be simulated", def.Name)
	}
	if len(qs) != len(def.Qubits) || len(params) != len(def.Params) {
		fail(p, "gate %q expects %d qubit(s) and %d parameter(s)", def.Name, len(def.Qubits), len(def.Params))
	}
	c.enter(p)
	defer c.leave()
	c.charge(p, callBytes)
	var out []sim.Op
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
func (c *compiler) gatesMatrix(ops []sim.Op, qs []int) []complex128 {
	d := 1 << len(qs)
	pos := map[int]int{}
	for i, q := range qs {
		pos[q] = i
	}
	u := sim.Identity(d) // column-major while building: u[col*d+row]
	for i := range ops {
		c.charge(position{}, gateBytes+16<<(2*ops[i].NumTargets())+24*int64(ops[i].NumTargets()+ops[i].NumControls()))
		g := ops[i].Gate()
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
