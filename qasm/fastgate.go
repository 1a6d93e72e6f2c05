package qasm

import (
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/qjobs/quantum/sim"
)

// Most of a large program is gate calls of one shape: a standard gate, a
// few parameters of a number or a constant maybe negated and maybe joined
// to another by + - * /, and single qubits, q or q[3] (h q[0];
// u3(pi/2,0.1234,-pi/4) q[3]; cx q[0],q[1];). Tokens, syntax nodes and
// the general lowering cost several times what such a call needs, so
// fastGate reads it straight from the source and places its operation.
//
// It gives up, having changed nothing, on anything else, and on anything
// that would end in an error or in a charge the budget cannot take: the
// general path then reads the statement, and reports what it reports.
// So a program compiles to the same circuit, charged the same bytes and
// failing with the same error at the same line and column, whether or
// not a statement takes this path (TestFastGateAsGeneral compares them).

// fastGate lowers the next top-level statement when it is such a call,
// and reports whether it did. It reads the source at the lexer, so only
// when the parser has no token buffered.
func (c *compiler) fastGate(p *parser) bool {
	if p.general || p.i != len(p.toks) || p.lexErr != nil || c.collect != nil || c.nest != 0 {
		return false
	}
	src, from := p.lx.src, p.lx.i
	end := min(len(src), from+fastBlanks)
	// blanks, newlines and empty statements before it, which the parser
	// skips as well
	i, line, col := from, p.lx.line, p.lx.col
	for ; i < end && (src[i] == ';' || byteClass[src[i]]-cNewline <= cBlank-cNewline); i++ {
		if src[i] == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	start := i
	i, name := fastIdent(src, i)
	if name == "" {
		return false
	}
	if c.fast == nil {
		// made for the first call that may need it: a program of other
		// statements goes without
		if _, ok := c.fastStdGate(name); !ok {
			return false
		}
		c.fast = new(fastNames)
	}
	gate := c.fastName(name)
	if gate.g == nil {
		return false
	}
	// what lowering charges the call: a step for the statement, one for
	// each node of a parameter and each qubit index, one for the gate
	steps := int64(2)
	var params [3]float64
	np := 0
	if i = fastSkip(src, i, end); i < len(src) && src[i] == '(' {
		for {
			if np == len(params) {
				return false
			}
			x, nodes, j, ok := c.fastParam(src, i+1, end) // past "(" or ","
			if !ok {
				return false
			}
			params[np] = x
			np++
			steps += nodes
			if i = fastSkip(src, j, end); i < len(src) && src[i] == ')' {
				i = fastSkip(src, i+1, end)
				break
			}
			if i >= len(src) || src[i] != ',' {
				return false
			}
		}
	}
	var qs [3]int
	nq := 0
	for {
		q, indexed, j, ok := c.fastQubit(src, i, end)
		if !ok || nq == len(qs) {
			return false
		}
		for _, r := range qs[:nq] {
			if r == q {
				return false
			}
		}
		qs[nq] = q
		nq++
		if indexed {
			steps++
		}
		if i = fastSkip(src, j, end); i < len(src) && src[i] == ';' {
			i++
			break
		}
		if i >= len(src) || src[i] != ',' {
			return false
		}
		i = fastSkip(src, i+1, end)
	}
	if !sameName(gate.name, name) {
		// the names read since took its place
		gate = c.fastName(name)
	}
	g := gate.g
	if g == nil || np != g.NumParams || nq != g.NumQubits {
		return false
	}
	for k, x := range params[:np] {
		if math.Abs(x) >= 2*math.Pi { // else wrapAngle's answer, x
			params[k] = wrapAngle(x)
		}
	}
	// emit charges an operation for its bits and its list of qubits: a
	// gate held whole in its Op (sim.StdGate.PutOp) has neither
	if steps > c.opts.MaxBytes-c.cost || c.emitted >= c.opts.MaxOps || len(c.ops) == cap(c.ops) {
		return false
	}
	n := len(c.ops)
	if !g.PutOp(&c.ops[:n+1][n], &params, &qs, int(line), int(col)) {
		return false
	}
	c.ops = c.ops[:n+1]
	c.cost += steps
	c.emitted++
	c.fastPlaced++
	// The lexer goes on past the call, at the column it would count: the
	// call is ASCII on one line, a column a byte.
	p.lx.i, p.lx.line, p.lx.col = i, line, col+int32(i-start)
	// as many steps as the lexer would count and more, for polling
	c.poll.tickN(i - from)
	return true
}

// fastBlanks bounds how far past its start fastGate reads blanks,
// newlines and empty statements: it does not poll the context, so it
// leaves long runs of them to the lexer, which does.
const fastBlanks = 1024

// fastSkip skips blanks (not newlines, nor comments) from i, up to end:
// a call that goes on over lines is left to the parser.
func fastSkip(src string, i, end int) int {
	for i < end && byteClass[src[i]] == cBlank {
		i++
	}
	return i
}

// fastIdent reads the ASCII name at i, as the lexer would, and returns
// where it ends; name is "" for anything else, a name that goes on past
// ASCII, and "pragma", which may start a line's pragma.
func fastIdent(src string, i int) (j int, name string) {
	if i >= len(src) || byteClass[src[i]] != cIdent {
		return i, ""
	}
	j = i + 1
	for j < len(src) && byteClass[src[j]]-cIdent <= cDigit-cIdent {
		j++
	}
	if j < len(src) && src[j] >= utf8.RuneSelf || j-i == 6 && src[i:j] == "pragma" {
		return i, ""
	}
	return j, src[i:j]
}

// plainNumber is a plain decimal as fastNumber reads it: digits, maybe a
// point and more digits.
type plainNumber struct {
	// m is its digits as an integer, the point left out, when that is
	// below 2^53 (else big)
	m   uint64
	big bool
	// frac counts its digits after the point; -1 for an integer
	frac int
}

// fastNumber reads a plain decimal at i, as the lexer reads it whole, and
// returns where it ends; ok is false for anything else, and when more of
// a number follows (an exponent, _, a base's prefix, a unit).
func fastNumber(src string, i int) (n plainNumber, j int, ok bool) {
	j = i
	for j < len(src) && byteClass[src[j]] == cDigit {
		n.m = n.m*10 + uint64(src[j]-'0')
		j++
	}
	if j == i {
		return n, i, false
	}
	digits := j - i
	n.frac = -1
	if j < len(src) && src[j] == '.' {
		j++
		k := j
		for j < len(src) && byteClass[src[j]] == cDigit {
			n.m = n.m*10 + uint64(src[j]-'0')
			j++
		}
		n.frac = j - k
		digits += n.frac
	}
	if j < len(src) && (byteClass[src[j]] == cIdent || src[j] >= utf8.RuneSelf) {
		return n, i, false
	}
	// 19 digits and fewer do not overflow m
	n.big = digits > 19 || n.m >= 1<<53
	return n, j, true
}

// fastParam reads a parameter of fastGate's shapes from i and evaluates
// it as constParam would the tree the parser builds for it; nodes is how
// many steps constParam charges, a node each, and j where it ends.
func (c *compiler) fastParam(src string, i, end int) (x float64, nodes int64, j int, ok bool) {
	// An operator read here is one byte long: what follows it must be a
	// blank or start an operand, and neither lengthens it (** -> +=) nor
	// makes it a comment (//).
	i = fastSkip(src, i, end)
	neg := i < len(src) && src[i] == '-'
	if neg {
		i = fastSkip(src, i+1, end)
	}
	a, i, ok := c.fastLeaf(src, i)
	if !ok {
		return 0, 0, i, false
	}
	nodes = 1
	if neg {
		a = -a
		nodes++
	}
	if i = fastSkip(src, i, end); i >= len(src) {
		return 0, 0, i, false
	}
	op := src[i]
	if op != '+' && op != '-' && op != '*' && op != '/' {
		return a, nodes, i, true
	}
	b, i, ok := c.fastLeaf(src, fastSkip(src, i+1, end))
	if !ok {
		return 0, 0, i, false
	}
	switch op {
	case '+':
		x = a + b
	case '-':
		x = a - b
	case '*':
		x = a * b
	default:
		x = a / b
	}
	// as constParam: beyond, integer arithmetic would differ; neither
	// NaN nor an infinity (a division by zero) is below
	if !(math.Abs(x) < 1<<53) {
		return 0, 0, i, false
	}
	return x, nodes + 2, i, true
}

// fastLeaf reads an operand of a parameter at i: a plain decimal, or a
// name that is a built-in constant or a float variable.
func (c *compiler) fastLeaf(src string, i int) (x float64, j int, ok bool) {
	if i >= len(src) {
		return 0, i, false
	}
	switch byteClass[src[i]] {
	case cDigit:
		n, j, ok := fastNumber(src, i)
		switch {
		case !ok:
			return 0, j, false
		case n.frac >= 0:
			// as leafValue: plainDecimal's reading where it has one, else
			// ParseFloat's
			if !n.big && n.frac <= 22 {
				return float64(n.m) / pow10[n.frac], j, true
			}
			x, err := strconv.ParseFloat(src[i:j], 64)
			return x, j, err == nil
		case !n.big:
			return float64(n.m), j, true
		}
		v, err := parseInt(src[i:j])
		// as constParam (parseInt keeps the bits of a number past
		// MaxInt64: it may be negative)
		if err != nil || v <= -1<<53 || v >= 1<<53 {
			return 0, j, false
		}
		return float64(v), j, true
	case cIdent:
		j, name := fastIdent(src, i)
		if name == "" || plainIdent(name) {
			return 0, j, false
		}
		e := c.fastName(name)
		if e.isConst {
			return e.v, j, true
		}
		sym := e.sym
		if sym == nil || sym.kind != symVar || sym.val.k != vFloat || sym.val.angle || sym.ty != nil && sym.ty.name == "angle" {
			return 0, j, false
		}
		x := sym.val.f
		return x, j, !math.IsInf(x, 0) && !math.IsNaN(x)
	}
	return 0, i, false
}

// fastQubit reads an operand that names one qubit at i, q or q[3], and
// resolves it as singleQubit does; indexed says it was the second, which
// costs a step.
func (c *compiler) fastQubit(src string, i, end int) (q int, indexed bool, j int, ok bool) {
	j, name := fastIdent(src, i)
	if name == "" || plainIdent(name) {
		return 0, false, j, false
	}
	sym := c.fastName(name).sym
	if sym == nil || sym.kind != symQubits {
		return 0, false, j, false
	}
	k := fastSkip(src, j, end)
	if k >= len(src) || src[k] != '[' {
		if !sym.single {
			return 0, false, j, false // a register, broadcast
		}
		return sym.qubits[0], false, j, true
	}
	if sym.single || isClassicalType(name) {
		return 0, false, k, false
	}
	n, j, ok := fastNumber(src, fastSkip(src, k+1, end))
	// a register holds fewer than 2^53 qubits: an index past that is
	// past its end (or a float)
	if !ok || n.frac >= 0 || n.big || n.m >= uint64(len(sym.qubits)) {
		return 0, false, j, false
	}
	if j = fastSkip(src, j, end); j >= len(src) || src[j] != ']' {
		return 0, false, j, false
	}
	return sym.qubits[n.m], true, j + 1, true
}

// fastNameEntry is what a name meant to fastGate when the scopes were at
// generation gen (lookedUp.gen).
type fastNameEntry struct {
	name string
	gen  uint64
	sym  *symbol // what lookup found
	// with no symbol: a standard gate fastGate places, or a constant
	g       *sim.StdGate
	v       float64
	isConst bool
}

// fastNames are fastGate's names: a large program uses a handful, its
// gates, its registers and pi. A name has two places, in the set its
// first and last bytes and its length choose; the one it took last is
// the first.
type fastNames struct {
	e [16][2]fastNameEntry
	// gates holds the gates the entries point to, one for each name that
	// was one: a name stays the same gate throughout a compile, once it
	// is one
	gates []*sim.StdGate
}

// fastName returns what name, which is not "", means to fastGate in the
// scopes as they are.
func (c *compiler) fastName(name string) *fastNameEntry {
	set := &c.fast.e[(name[0]^name[len(name)-1]<<1^byte(len(name))<<3)%16]
	gen := c.looked.gen
	if e := &set[0]; e.gen == gen && sameName(e.name, name) {
		return e
	}
	if e := &set[1]; e.gen == gen && sameName(e.name, name) {
		return e
	}
	set[1] = set[0]
	e := &set[0]
	*e = fastNameEntry{name: name, gen: gen, sym: c.lookup(name)}
	if e.sym != nil {
		return e
	}
	e.v, e.isConst = constant(name)
	if g, ok := c.fastStdGate(name); ok {
		for _, h := range c.fast.gates {
			if h.Name == g.Name {
				e.g = h
				return e
			}
		}
		e.g = &g
		c.fast.gates = append(c.fast.gates, e.g)
	}
	return e
}

// fastStdGate finds the gate a call of that name places as one
// operation by simpleGateCall (as gateCall and gateShape decide it, with
// no symbol of the name declared). builtinGate names it as it was called.
func (c *compiler) fastStdGate(name string) (sim.StdGate, bool) {
	if name == "gphase" || c.version == 3 && braketGates[name].build != nil {
		return sim.StdGate{}, false
	}
	g, ok := c.builtinGate(name)
	if !ok || g.Name != name || g.NumQubits == 0 || g.NumQubits > 3 || g.NumParams > 3 {
		return sim.StdGate{}, false
	}
	return g, true
}
