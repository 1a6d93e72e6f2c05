package quil

import (
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/qjobs/quantum/sim"
)

// Most of a large program is standard gates without modifiers (H 0,
// RZ(0.25) 3, CNOT 0 1). The general path builds an application, its
// slices and its operations' slice for each; standardGate reads such a
// gate's tokens straight into the circuit's next operation
// (sim.StdGate.PutOp), and plainGate, before that, its text, when it is
// as simple as pyquil writes it: the gate, numbers for its parameters,
// its qubits, maybe a comment.
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

// simGateOf is simGates[name], looked up by a switch, which Go compiles
// to a binary search faster than the map's hash for these few short
// names (TestSimGateOf checks the two agree).
func simGateOf(name string) *sim.StdGate {
	switch name {
	case "I":
		return simGateList[0]
	case "X":
		return simGateList[1]
	case "Y":
		return simGateList[2]
	case "Z":
		return simGateList[3]
	case "H":
		return simGateList[4]
	case "S":
		return simGateList[5]
	case "T":
		return simGateList[6]
	case "PHASE":
		return simGateList[7]
	case "RX":
		return simGateList[8]
	case "RY":
		return simGateList[9]
	case "RZ":
		return simGateList[10]
	case "U":
		return simGateList[11]
	case "CZ":
		return simGateList[12]
	case "CNOT":
		return simGateList[13]
	case "CCNOT":
		return simGateList[14]
	case "CPHASE":
		return simGateList[15]
	case "SWAP":
		return simGateList[16]
	case "CSWAP":
		return simGateList[17]
	case "ISWAP":
		return simGateList[18]
	case "RXX":
		return simGateList[19]
	case "RYY":
		return simGateList[20]
	case "RZZ":
		return simGateList[21]
	}
	return nil
}

var simGateNames = [...]string{"I", "X", "Y", "Z", "H", "S", "T", "PHASE", "RX", "RY", "RZ", "U", "CZ", "CNOT", "CCNOT", "CPHASE", "SWAP", "CSWAP", "ISWAP", "RXX", "RYY", "RZZ"}

var simGateList = func() (out [len(simGateNames)]*sim.StdGate) {
	for i, n := range simGateNames {
		out[i] = simGates[n]
	}
	return out
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

// plainGate lowers a line that is a standard gate of sim's whose
// parameters are plain numbers (-1.5, 2e-3) or multiples of pi (-pi/2,
// 3*pi/4) and whose qubits are written as decimals, read from the text,
// and reports whether it did.
func (c *compiler) plainGate(no int32, text string) bool {
	i := 0
	for i < len(text) && isIdentPart(text[i]) {
		i++
	}
	if i == 0 || !isIdentStart(text[0]) {
		return false
	}
	sg := simGateOf(text[:i])
	if sg == nil || sg.NumParams > 3 || sg.NumQubits > 3 {
		return false
	}
	var p [3]float64
	np := 0
	if i < len(text) && text[i] == '(' {
		for {
			i = skipBlanks(text, i+1) // past "(" or ","
			if np == len(p) {
				return false
			}
			v, j, ok := plainParam(text, i)
			if !ok {
				return false
			}
			p[np] = v
			np++
			i = skipBlanks(text, j)
			if i < len(text) && text[i] == ',' {
				continue
			}
			if i == len(text) || text[i] != ')' {
				return false
			}
			i++
			break
		}
	}
	var qs [3]int
	nq := 0
	for {
		j := skipBlanks(text, i)
		if j == len(text) || text[j] == '#' {
			break
		}
		if j == i || nq == len(qs) {
			return false // no blank before the qubit, or too many
		}
		q, k := 0, j
		for k < len(text) && isDigit(text[k]) && k-j < 9 {
			q = 10*q + int(text[k]-'0')
			k++
		}
		if k == j || k < len(text) && text[k] != ' ' && text[k] != '\t' && text[k] != '#' {
			return false
		}
		qs[nq] = q
		nq++
		i = k
	}
	if np != sg.NumParams || nq != sg.NumQubits || slices.Contains(qs[:nq-1], qs[nq-1]) || nq == 3 && qs[0] == qs[1] {
		return false
	}
	for _, q := range qs[:nq] {
		if q >= c.opts.MaxQubits {
			return false
		}
		c.nqubits = max(c.nqubits, q+1)
	}
	if !sg.PutOp(c.place(no), &p, &qs, int(no), 1) {
		panic("quil: sim's " + sg.Name + " does not fit in an Op")
	}
	return true
}

func skipBlanks(s string, i int) int {
	for i < len(s) && (s[i] == ' ' || s[i] == '\t') {
		i++
	}
	return i
}

// plainParam reads a parameter as pyquil writes one: a plain number, or
// a multiple of pi ([-][k*]pi[/m]), with the value the expression reader
// gives it (the same operations in the same order), and where it ends.
func plainParam(s string, i int) (float64, int, bool) {
	neg := i < len(s) && s[i] == '-'
	j := i
	if neg {
		j++
	}
	k := 1.0
	if !strings.HasPrefix(s[j:], "pi") {
		v, e, ok := plainNumber(s, i)
		if !ok || e == len(s) || s[e] != '*' || !strings.HasPrefix(s[e+1:], "pi") {
			return v, e, ok && (e == len(s) || s[e] != '*' && s[e] != '/')
		}
		k, j, neg = v, e+1, false
	}
	j += 2 // past pi
	if j < len(s) && isIdentPart(s[j]) {
		return 0, 0, false // a name such as pix
	}
	v := k * math.Pi
	if neg {
		v = -math.Pi
	}
	if j < len(s) && s[j] == '/' {
		m, e, ok := plainNumber(s, j+1)
		if !ok || m == 0 || m < 0 || e < len(s) && (s[e] == '*' || s[e] == '/') {
			return 0, 0, false
		}
		v, j = v/m, e
	}
	if j < len(s) && (s[j] == '*' || s[j] == '^') {
		return 0, 0, false
	}
	return v, j, true
}

// plainNumber reads [-]digits[.digits][e[+-]digits] at s[i]: the value
// the lexer and the expression reader give it, and where it ends.
func plainNumber(s string, i int) (float64, int, bool) {
	neg := i < len(s) && s[i] == '-'
	j := i
	if neg {
		j++
	}
	start := j
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	if j < len(s) && s[j] == '.' {
		j++
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	}
	if j == start || s[start] == '.' {
		return 0, 0, false
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k == len(s) || !isDigit(s[k]) {
			return 0, 0, false
		}
		for k < len(s) && isDigit(s[k]) {
			k++
		}
		j = k
	}
	if j < len(s) && (isIdentPart(s[j]) || s[j] == '.') {
		return 0, 0, false // 2i, 1.5.3, 0x1f: the lexer's
	}
	v, ok := exactDecimal(s[start:j])
	if !ok {
		var err error
		if v, err = strconv.ParseFloat(s[start:j], 64); err != nil || math.IsInf(v, 0) {
			return 0, 0, false
		}
	}
	if neg {
		v = -v
	}
	return v, j, true
}

// pow10 are the powers of ten a float64 holds exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// exactDecimal is the value of digits[.digits] when its digits make an
// integer below 2^53 and it has at most 22 decimals: that integer and the
// power of ten are exact, so their quotient is the correctly rounded
// value, strconv.ParseFloat's, without its general machinery.
func exactDecimal(s string) (float64, bool) {
	var m uint64
	frac, dot := 0, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.':
			dot = true
		case isDigit(c):
			if m >= 1<<53/10 {
				return 0, false
			}
			m = 10*m + uint64(c-'0')
			if dot {
				frac++
			}
		default:
			return 0, false // an exponent
		}
	}
	if frac >= len(pow10) {
		return 0, false
	}
	return float64(m) / pow10[frac], true
}
