package quil

import (
	"math"
	"math/bits"
	"slices"
	"strings"

	"github.com/qjobs/quantum/sim"
	"gonum.org/v1/gonum/mat"
)

// defKind is how a DEFGATE gives its gate.
type defKind uint8

const (
	defMatrix defKind = iota + 1
	defPermutation
	defPauliSum
	defSequence
)

// defgate is a gate a program defines: its header, and its body's lines
// (their tokens copied out of the lexer's buffer), read again where the
// gate is applied with its parameters bound.
type defgate struct {
	name   string
	kind   defKind
	line   int32
	params []string // %names
	args   []string // formal qubits (PAULI-SUM, SEQUENCE)
	body   []line
	qubits int          // how many qubits it acts on
	fixed  []complex128 // the matrix of one without parameters, once built
}

// readDefgate reads a DEFGATE header, from the line's second token.
func (c *compiler) readDefgate(ln line) *defgate {
	r := &cursor{c: c, ln: ln.no, toks: ln.toks, i: 1}
	name := r.ident("the gate's name after DEFGATE")
	d := &defgate{name: name.text, kind: defMatrix, line: ln.no}
	if _, ok := stdGates[d.name]; ok {
		r.failAt(name, "DEFGATE %s: a standard gate of that name exists; name the gate otherwise", d.name)
	}
	if r.punct("(") {
		for {
			t := r.next()
			if t.kind != tVar {
				r.failAt(t, "expected a parameter such as %%theta, got %s", t.describe())
			}
			d.params = append(d.params, t.text)
			if !r.punct(",") {
				break
			}
		}
		r.expectPunct(")")
	}
	for r.peek().kind == tIdent && r.peek().text != "AS" {
		d.args = append(d.args, r.next().text)
	}
	if t := r.peek(); t.kind == tIdent && t.text == "AS" {
		r.next()
		k := r.ident("MATRIX, PERMUTATION, PAULI-SUM or SEQUENCE after AS")
		switch k.text {
		case "MATRIX":
			d.kind = defMatrix
		case "PERMUTATION":
			d.kind = defPermutation
		case "PAULI-SUM":
			d.kind = defPauliSum
		case "SEQUENCE":
			d.kind = defSequence
		default:
			r.failAt(k, "expected MATRIX, PERMUTATION, PAULI-SUM or SEQUENCE after AS, got %s", k.describe())
		}
	}
	r.expectPunct(":")
	r.end()
	switch d.kind {
	case defMatrix, defPermutation:
		if len(d.args) > 0 {
			r.failAt(name, "DEFGATE %s: a gate defined by its matrix or permutation names no qubits", d.name)
		}
	case defPauliSum, defSequence:
		if len(d.args) == 0 {
			r.failAt(name, "DEFGATE %s: name its qubits before AS", d.name)
		}
		d.qubits = len(d.args)
	}
	if d.kind == defPermutation && len(d.params) > 0 {
		r.failAt(name, "DEFGATE %s: a permutation takes no parameters", d.name)
	}
	return d
}

// checkBody checks what can be known of a definition once its body is
// read: a matrix's size, a permutation's entries.
func (c *compiler) checkBody(d *defgate) {
	if len(d.body) == 0 {
		c.fail(d.line, 1, "DEFGATE %s has no body: its lines follow it, indented", d.name)
	}
	for _, ln := range d.body {
		for _, t := range ln.toks {
			if t.kind == tVar && !slices.Contains(d.params, t.text) {
				c.fail(ln.no, t.col, "%%%s is not a parameter of DEFGATE %s", t.text, d.name)
			}
		}
	}
	switch d.kind {
	case defMatrix:
		rows := len(d.body)
		if rows < 2 || rows&(rows-1) != 0 {
			c.fail(d.line, 1, "DEFGATE %s: a matrix of %d rows; a gate on n qubits has 2^n", d.name, rows)
		}
		d.qubits = bits.TrailingZeros(uint(rows))
	case defPermutation:
		d.qubits = -1 // from its entries, when built
		c.permutation(d)
		return
	}
	// A definition without parameters is built where it is defined, so a
	// mistake in it is found even if nothing applies it.
	if len(d.params) == 0 && d.kind != defSequence {
		c.matrixOf(d, nil, line{no: d.line}, token{col: 1})
	}
}

// permutation builds a permutation gate's matrix: entry i of the list is
// the index whose amplitude goes to index i (the specification's p(x)).
func (c *compiler) permutation(d *defgate) []complex128 {
	if d.fixed != nil {
		return d.fixed
	}
	var perm []int64
	for _, ln := range d.body {
		r := &cursor{c: c, ln: ln.no, toks: ln.toks}
		for r.peek().kind != tEOL {
			t := r.next()
			if t.kind != tInt || t.ival < 0 {
				r.failAt(t, "a permutation lists non-negative integers, got %s", t.describe())
			}
			perm = append(perm, t.ival)
			c.charge(ln.no, 16)
			if !r.punct(",") {
				break
			}
		}
		r.end()
	}
	n := len(perm)
	if n < 2 || n&(n-1) != 0 || n > 1<<maxDefQubits {
		c.fail(d.line, 1, "DEFGATE %s: a permutation of %d entries; it needs 2^n of them, n from 1 to %d", d.name, n, maxDefQubits)
	}
	seen := make([]bool, n)
	for i, p := range perm {
		if p >= int64(n) || seen[p] {
			c.fail(d.line, 1, "DEFGATE %s: entry %d (%d) is not a permutation of 0 to %d", d.name, i, p, n-1)
		}
		seen[p] = true
	}
	c.charge(d.line, int64(16*n*n))
	m := make([]complex128, n*n)
	for i, p := range perm {
		m[i*n+int(p)] = 1
	}
	d.qubits = bits.TrailingZeros(uint(n))
	d.fixed = m
	return m
}

// maxDefQubits bounds the qubits of a gate defined by a matrix,
// permutation or Pauli sum: its matrix has 4^n entries.
const maxDefQubits = 6

// matrixOf builds a defined gate's matrix for the parameters.
func (c *compiler) matrixOf(d *defgate, params []complex128, at line, t token) []complex128 {
	if d.fixed != nil {
		return d.fixed
	}
	e := &env{params: map[string]complex128{}}
	for i, p := range d.params {
		e.params[p] = params[i]
	}
	var m []complex128
	switch d.kind {
	case defPermutation:
		return c.permutation(d)
	case defMatrix:
		n := len(d.body)
		if d.qubits > maxDefQubits {
			c.fail(d.line, 1, "DEFGATE %s: a matrix on %d qubits; at most %d", d.name, d.qubits, maxDefQubits)
		}
		c.charge(d.line, int64(16*n*n))
		m = make([]complex128, 0, n*n)
		for _, ln := range d.body {
			r := &exprReader{ln: ln.no, toks: ln.toks, env: e}
			for k := 0; ; k++ {
				if k == n {
					r.fail(r.peek(), "DEFGATE %s: a row of more than %d entries", d.name, n)
				}
				m = append(m, r.expr())
				if t := r.peek(); t.kind == tPunct && t.text == "," {
					r.i++
					continue
				}
				if k+1 != n {
					r.fail(r.peek(), "DEFGATE %s: a row of %d entries, the matrix has %d rows", d.name, k+1, n)
				}
				break
			}
			if t := r.peek(); t.kind != tEOL {
				r.fail(t, "expected the end of the row, got %s", t.describe())
			}
		}
	case defPauliSum:
		m = c.pauliSum(d, e)
	}
	if err := sim.UnitarityError(m); err > unitaryTolerance {
		if at.no == d.line {
			hint := ""
			if err < 1e-2 {
				hint = "; entries rounded to a few digits (0.707) are not exact enough: write them out (1/sqrt(2))"
			}
			c.fail(d.line, 1, "DEFGATE %s is not unitary: ‖U†U − I‖ is %.3g (at most %g)%s", d.name, err, unitaryTolerance, hint)
		}
		c.fail(at.no, t.col, "%s is not unitary with these parameters, as DEFGATEd on line %d: ‖U†U − I‖ is %.3g (at most %g)", d.name, d.line, err, unitaryTolerance)
	}
	if len(d.params) == 0 {
		d.fixed = m
	}
	return m
}

// unitaryTolerance is how far from unitary a defined matrix may be: the
// entries people write (1/sqrt(2), 0.7071067811865476) are rounded.
const unitaryTolerance = 1e-6

// pauliSum builds exp(−i Σ c_k P_k) of a PAULI-SUM definition: each
// term's word padded with I and ordered as the header's qubits, its
// coefficient real.
func (c *compiler) pauliSum(d *defgate, e *env) []complex128 {
	if d.qubits > maxDefQubits {
		c.fail(d.line, 1, "DEFGATE %s: a Pauli sum on %d qubits; at most %d", d.name, d.qubits, maxDefQubits)
	}
	dim := 1 << d.qubits
	// the sum and the exponential (16 bytes an entry each), and the real
	// embedding twice its size, its eigenvectors and gonum's work space
	c.charge(d.line, int64(192*dim*dim))
	h := make([]complex128, dim*dim)
	for _, ln := range d.body {
		r := &exprReader{ln: ln.no, toks: ln.toks, env: e}
		wt := r.peek()
		if wt.kind != tIdent || strings.Trim(wt.text, "IXYZ") != "" {
			r.fail(wt, "expected a Pauli word of I, X, Y and Z, got %s", wt.describe())
		}
		r.i++
		r.expect("(")
		coef := realValue(ln.no, wt, r.expr(), "a Pauli term's coefficient", "")
		r.expect(")")
		where := make([]int, len(wt.text)) // the header's index of each letter's qubit
		for k := range where {
			q := r.peek()
			if q.kind != tIdent {
				r.fail(q, "the word %s takes %d qubits, got %s", wt.text, len(wt.text), q.describe())
			}
			r.i++
			where[k] = -1
			for a, name := range d.args {
				if name == q.text {
					where[k] = a
				}
			}
			if where[k] < 0 {
				r.fail(q, "%q is not a qubit of DEFGATE %s", q.text, d.name)
			}
			for _, w := range where[:k] {
				if w == where[k] {
					r.fail(q, "the word %s names %q twice", wt.text, q.text)
				}
			}
		}
		if t := r.peek(); t.kind != tEOL {
			r.fail(t, "the word %s takes %d qubits; expected the end of the term, got %s", wt.text, len(wt.text), t.describe())
		}
		addPauli(h, dim, d.qubits, wt.text, where, coef)
	}
	return expHermitian(h, dim)
}

// addPauli adds coef·P to h, P the word's letters on the header's qubits
// where says (header qubit 0 the most significant bit).
func addPauli(h []complex128, dim, n int, word string, where []int, coef float64) {
	for col := range dim {
		row, amp := col, complex(coef, 0)
		for k, letter := range word {
			bit := n - 1 - where[k]
			v := col >> bit & 1
			switch letter {
			case 'X':
				row ^= 1 << bit
			case 'Y':
				row ^= 1 << bit
				if v == 0 {
					amp *= complex(0, 1)
				} else {
					amp *= complex(0, -1)
				}
			case 'Z':
				if v == 1 {
					amp = -amp
				}
			}
		}
		h[row*dim+col] += amp
	}
}

// expHermitian is exp(−iH) for a Hermitian H, by its eigenvectors: the
// real symmetric embedding [[Re H, −Im H], [Im H, Re H]] has each
// eigenvalue of H twice, and each pair of its eigenvectors gives the same
// complex projector, so exp(−iH) is half the sum over all 2d of them.
func expHermitian(h []complex128, dim int) []complex128 {
	n := 2 * dim
	sym := mat.NewSymDense(n, nil)
	for i := range dim {
		for j := i; j < dim; j++ {
			v := (h[i*dim+j] + complexConj(h[j*dim+i])) / 2
			sym.SetSym(i, j, real(v))
			sym.SetSym(i+dim, j+dim, real(v))
			sym.SetSym(i, j+dim, -imag(v))
			sym.SetSym(j, i+dim, imag(v))
		}
	}
	var eig mat.EigenSym
	eig.Factorize(sym, true)
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)
	u := make([]complex128, dim*dim)
	w := make([]complex128, dim)
	for k, lambda := range vals {
		for i := range dim {
			w[i] = complex(vecs.At(i, k), vecs.At(i+dim, k))
		}
		phase := complex(math.Cos(lambda)/2, -math.Sin(lambda)/2)
		for i := range dim {
			for j := range dim {
				u[i*dim+j] += phase * w[i] * complexConj(w[j])
			}
		}
	}
	return u
}

func complexConj(v complex128) complex128 { return complex(real(v), -imag(v)) }
