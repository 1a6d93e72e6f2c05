package quil_test

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"testing"
)

// A reference for gate-only Quil programs, written apart from the
// compiler: each line a standard gate with modifiers, its matrix from the
// formulas below, applied to a state vector by brute force.

// refMatrix is a standard gate's matrix in Quil's order.
func refMatrix(name string, p []float64) ([]complex128, int, bool) {
	r := func(th float64) (complex128, complex128) {
		return complex(math.Cos(th/2), 0), complex(math.Sin(th/2), 0)
	}
	switch name {
	case "I":
		return diag(1, 1), 0, true
	case "X":
		return permMatrix(1, 0), 0, true
	case "Y":
		return []complex128{0, -I, I, 0}, 0, true
	case "Z":
		return diag(1, -1), 0, true
	case "H":
		h := complex(1/math.Sqrt2, 0)
		return []complex128{h, h, h, -h}, 0, true
	case "S":
		return diag(1, I), 0, true
	case "T":
		return diag(1, cis(math.Pi/4)), 0, true
	case "CNOT":
		return permMatrix(0, 1, 3, 2), 0, true
	case "CZ":
		return diag(1, 1, 1, -1), 0, true
	case "CCNOT":
		return permMatrix(0, 1, 2, 3, 4, 5, 7, 6), 0, true
	case "SWAP":
		return permMatrix(0, 2, 1, 3), 0, true
	}
	if len(p) != 1 {
		return nil, 0, false
	}
	switch name {
	case "RX":
		c, s := r(p[0])
		return []complex128{c, -I * s, -I * s, c}, 1, true
	case "RY":
		c, s := r(p[0])
		return []complex128{c, -s, s, c}, 1, true
	case "RZ":
		return diag(cis(-p[0]/2), cis(p[0]/2)), 1, true
	case "PHASE":
		return diag(1, cis(p[0])), 1, true
	case "CPHASE":
		return diag(1, 1, 1, cis(p[0])), 1, true
	}
	return nil, 0, false
}

// refModified applies modifiers (outermost first) to a gate's matrix;
// params are the gate's parameters, doubled for each FORKED.
func refModified(mods []string, name string, params []float64) ([]complex128, bool) {
	if len(mods) == 0 {
		m, n, ok := refMatrix(name, params)
		return m, ok && (n == len(params) || n == 0 && len(params) == 0)
	}
	inner := mods[1:]
	switch mods[0] {
	case "DAGGER":
		m, ok := refModified(inner, name, params)
		if !ok {
			return nil, false
		}
		d := isqrt(len(m))
		out := make([]complex128, len(m))
		for i := range d {
			for j := range d {
				v := m[j*d+i]
				out[i*d+j] = complex(real(v), -imag(v))
			}
		}
		return out, true
	case "CONTROLLED":
		m, ok := refModified(inner, name, params)
		if !ok {
			return nil, false
		}
		return refFork(identity(isqrt(len(m))), m), true
	case "FORKED":
		h := len(params) / 2
		m0, ok0 := refModified(inner, name, params[:h])
		m1, ok1 := refModified(inner, name, params[h:])
		if !ok0 || !ok1 {
			return nil, false
		}
		return refFork(m0, m1), true
	}
	return nil, false
}

// refFork is |0⟩⟨0| ⊗ m0 + |1⟩⟨1| ⊗ m1, the control the most significant.
func refFork(m0, m1 []complex128) []complex128 {
	d := isqrt(len(m0))
	out := make([]complex128, 4*d*d)
	for i := range d {
		for j := range d {
			out[i*2*d+j] = m0[i*d+j]
			out[(i+d)*2*d+j+d] = m1[i*d+j]
		}
	}
	return out
}

func identity(d int) []complex128 {
	m := make([]complex128, d*d)
	for i := range d {
		m[i*d+i] = 1
	}
	return m
}

func isqrt(n int) int {
	d := 1
	for d*d < n {
		d++
	}
	return d
}

// refApply applies m (Quil's order, qs[0] most significant) to state.
func refApply(state []complex128, m []complex128, qs []int) {
	k := len(qs)
	dim := 1 << k
	idx := make([]int, dim)
	in := make([]complex128, dim)
	var mask int
	for _, q := range qs {
		mask |= 1 << q
	}
	for base := range state {
		if base&mask != 0 {
			continue
		}
		for l := range dim {
			s := base
			for i, q := range qs {
				if l>>(k-1-i)&1 == 1 {
					s |= 1 << q
				}
			}
			idx[l] = s
			in[l] = state[s]
		}
		for r := range dim {
			var v complex128
			for l := range dim {
				v += m[r*dim+l] * in[l]
			}
			state[idx[r]] = v
		}
	}
}

// refRun runs a gate-only program on n qubits from |0…0⟩; ok is false
// for a program this reference does not read (definitions, memory).
func refRun(t *testing.T, src string, n int) (state []complex128, ok bool) {
	t.Helper()
	state = make([]complex128, 1<<n)
	state[0] = 1
	for _, ln := range strings.Split(src, "\n") {
		if i := strings.IndexByte(ln, '#'); i >= 0 {
			ln = ln[:i]
		}
		ln = strings.TrimSpace(ln)
		if ln == "" || strings.HasPrefix(ln, "PRAGMA") {
			continue
		}
		var mods []string
		fields := strings.Fields(ln)
		for len(fields) > 0 && (fields[0] == "DAGGER" || fields[0] == "CONTROLLED" || fields[0] == "FORKED") {
			mods = append(mods, fields[0])
			fields = fields[1:]
		}
		rest := strings.Join(fields, " ")
		var params []float64
		if open := strings.IndexByte(rest, '('); open >= 0 {
			end := strings.IndexByte(rest, ')')
			for _, e := range strings.Split(rest[open+1:end], ",") {
				v, err := refEval(strings.TrimSpace(e))
				if err != nil {
					return nil, false
				}
				params = append(params, v)
			}
			rest = rest[:open] + rest[end+1:]
		}
		fields = strings.Fields(rest)
		name := fields[0]
		var qs []int
		for _, f := range fields[1:] {
			q, err := strconv.Atoi(f)
			if err != nil || q >= n {
				return nil, false
			}
			qs = append(qs, q)
		}
		m, ok := refModified(mods, name, params)
		if !ok || len(m) != 1<<(2*len(qs)) {
			return nil, false
		}
		refApply(state, m, qs)
	}
	return state, true
}

// refEval evaluates a parameter: numbers and pi joined by + − * /, with
// unary minus, left to right within a precedence level.
func refEval(s string) (float64, error) {
	s = strings.ReplaceAll(s, " ", "")
	for i := len(s) - 1; i > 0; i-- { // + and − of lowest precedence, rightmost first
		if (s[i] == '+' || s[i] == '-') && !strings.ContainsRune("*/eE+-", rune(s[i-1])) {
			a, err := refEval(s[:i])
			if err != nil {
				return 0, err
			}
			b, err := refEval(s[i+1:])
			if err != nil {
				return 0, err
			}
			if s[i] == '+' {
				return a + b, nil
			}
			return a - b, nil
		}
	}
	for i := len(s) - 1; i > 0; i-- {
		if s[i] == '*' || s[i] == '/' {
			a, err := refEval(s[:i])
			if err != nil {
				return 0, err
			}
			b, err := refEval(s[i+1:])
			if err != nil {
				return 0, err
			}
			if s[i] == '*' {
				return a * b, nil
			}
			return a / b, nil
		}
	}
	switch {
	case s == "pi":
		return math.Pi, nil
	case strings.HasPrefix(s, "-"):
		v, err := refEval(s[1:])
		return -v, err
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("the reference does not read %q", s)
	}
	return v, nil
}

// The reference agrees with itself on what the specification says:
// CONTROLLED X is CNOT, and DAGGER undoes a gate.
func TestReferenceSelfCheck(t *testing.T) {
	a, _ := refRun(t, "CONTROLLED X 1 0\nH 2\n", 3)
	b, _ := refRun(t, "CNOT 1 0\nH 2\n", 3)
	assertClose(t, "CONTROLLED X vs CNOT", a, b, false)
	c, _ := refRun(t, "H 0\nRX(0.3) 0\nDAGGER RX(0.3) 0\nH 0\n", 1)
	assertClose(t, "a gate and its dagger", c, []complex128{1, 0}, false)
	if v, _ := refEval("-pi/2+3*2"); math.Abs(v-(6-math.Pi/2)) > 1e-15 {
		t.Fatalf("refEval: %v", v)
	}
}
