package anneal

import (
	"bytes"
	"cmp"
	"fmt"
	"math"
	"slices"
)

// Kind is the kind of a problem's variables.
type Kind uint8

const (
	// QUBO variables are binary, x ∈ {0, 1}: E = Σ linear·x + Σ quadratic·x_u·x_v.
	QUBO Kind = iota + 1
	// Ising variables are spins, s ∈ {−1, +1}: E = Σ h·s + Σ J·s_u·s_v.
	Ising
)

// String is the kind as the format "problem" names it: qubo or ising.
func (k Kind) String() string {
	switch k {
	case QUBO:
		return "qubo"
	case Ising:
		return "ising"
	}
	return fmt.Sprintf("Kind(%d)", uint8(k))
}

// Limits of a problem: what a job may ask for, whatever the memory budget.
const (
	MaxVariables = 100_000
	MaxCouplings = 1_000_000
)

// Coupling is a quadratic term between variables U < V.
type Coupling struct {
	U, V int32
	C    float64
}

// Problem is a QUBO or Ising problem with its terms merged. Variables are
// indices into Names, which are sorted (byte order), so that a problem
// written with its terms in another order is the same problem and anneals
// alike for a seed. Every variable named anywhere is in Names, even when
// all its coefficients are zero.
type Problem struct {
	Kind   Kind
	Names  []string
	Linear []float64 // one per variable
	// Couplings are sorted by (U, V), one per pair, zero ones kept (a
	// variable named only in a zero coupling is still a variable).
	Couplings []Coupling
}

// Energy is the energy of an assignment in the problem's own terms:
// values are 0 or 1 for a QUBO, −1 or +1 for an Ising problem, one per
// variable. Its terms are added in one fixed order, so an assignment
// always has the same energy.
func (p *Problem) Energy(values []int8) float64 {
	e := 0.0
	for i, c := range p.Linear {
		e += c * float64(values[i])
	}
	for _, c := range p.Couplings {
		e += c.C * float64(values[c.U]) * float64(values[c.V])
	}
	return e
}

// Degree is how many couplings each variable is in.
func (p *Problem) degrees() []int32 {
	deg := make([]int32, len(p.Names))
	for _, c := range p.Couplings {
		deg[c.U]++
		deg[c.V]++
	}
	return deg
}

// New builds a problem from terms by name: linear coefficients, and
// quadratic ones by pair. A pair and its reverse add; a pair of one
// variable is a linear term of a QUBO and refused in an Ising problem
// (s·s = 1 is a constant). Coefficients must be finite.
func New(kind Kind, linear map[string]float64, quadratic map[[2]string]float64) (*Problem, error) {
	var b builder
	if err := b.start(kind); err != nil {
		return nil, err
	}
	for _, name := range sortedKeys(linear) {
		if rule := b.linear([]byte(name), linear[name]); rule != "" {
			return nil, &PathError{Path: "linear[" + quoteJSON(name) + "]", Rule: rule}
		}
	}
	pairs := make([][2]string, 0, len(quadratic))
	for k := range quadratic {
		pairs = append(pairs, k)
	}
	slices.SortFunc(pairs, func(a, b [2]string) int { return cmp.Or(cmp.Compare(a[0], b[0]), cmp.Compare(a[1], b[1])) })
	for _, k := range pairs {
		if rule := b.quadratic([]byte(k[0]), []byte(k[1]), quadratic[k], 0, 0); rule != "" {
			return nil, &PathError{Path: "quadratic[" + quoteJSON(`[`+quoteJSON(k[0])+`, `+quoteJSON(k[1])+`]`) + "]", Rule: rule}
		}
	}
	return b.finish()
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// builder merges terms as they come into a Problem.
type builder struct {
	kind   Kind
	ids    map[string]int32 // in order of first appearance
	names  []string
	lin    []float64
	hasLin []bool // a linear key seen for the variable (not a QUBO diagonal)
	terms  []term
	// src is the text of the quadratic object the terms' keys are in.
	src []byte
}

// term is a quadratic term as written: its variables in order of first
// appearance, and where its key is in the input (to tell a key written
// twice from a pair written two ways).
type term struct {
	u, v     int32
	c        float64
	at, size int32
}

func (b *builder) start(kind Kind) error {
	if kind != QUBO && kind != Ising {
		return &PathError{Path: "problem_type", Rule: `must be "qubo" or "ising"`}
	}
	b.kind = kind
	b.ids = map[string]int32{}
	return nil
}

// The builder's methods answer the rule a term breaks ("" when it is
// taken): the caller names the term's path, which only an error needs.

// id is the variable named name, added when new.
func (b *builder) id(name []byte) (int32, string) {
	if i, ok := b.ids[string(name)]; ok {
		return i, ""
	}
	if len(b.names) >= MaxVariables {
		return 0, fmt.Sprintf("names a variable past the %d a problem may have", MaxVariables)
	}
	if bytes.IndexByte(name, 0) >= 0 {
		return 0, "names a variable with a NUL character (\\u0000), which a name may not hold"
	}
	i := int32(len(b.names))
	s := string(name)
	b.ids[s] = i
	b.names = append(b.names, s)
	b.lin = append(b.lin, 0)
	b.hasLin = append(b.hasLin, false)
	return i, ""
}

func (b *builder) linear(name []byte, c float64) string {
	if !isFinite(c) {
		return "must be a finite number"
	}
	i, rule := b.id(name)
	if rule != "" {
		return rule
	}
	if b.hasLin[i] {
		return "names a variable an earlier linear key names: a variable has one linear coefficient"
	}
	b.hasLin[i] = true
	b.lin[i] += c
	return ""
}

// quadratic takes the term c·u·v whose key is src[at:at+size] (size 0 for
// a term that is not from JSON text).
func (b *builder) quadratic(u, v []byte, c float64, at, size int) string {
	if !isFinite(c) {
		return "must be a finite number"
	}
	if b.kind == Ising && bytes.Equal(u, v) {
		return "pairs a variable with itself, which an Ising problem cannot hold (s·s = 1 is a constant): give its linear term in linear"
	}
	if len(b.terms) >= MaxCouplings {
		return fmt.Sprintf("is past the %d quadratic terms a problem may have", MaxCouplings)
	}
	i, rule := b.id(u)
	if rule != "" {
		return rule
	}
	j, rule := b.id(v)
	if rule != "" {
		return rule
	}
	// A QUBO's diagonal (x·x = x) stays a term until finish adds it to
	// its variable's linear coefficient: a key written twice is found
	// among a pair's terms.
	b.terms = append(b.terms, term{u: min(i, j), v: max(i, j), c: c, at: int32(at), size: int32(size)})
	return ""
}

// finish sorts the variables by name and merges the terms of each pair.
func (b *builder) finish() (*Problem, error) {
	if len(b.names) == 0 {
		return nil, &PathError{Rule: "the problem has no variables: give at least one linear or quadratic term"}
	}
	order := make([]int32, len(b.names))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int { return cmp.Compare(b.names[x], b.names[y]) })
	rank := make([]int32, len(order)) // first-appearance id → sorted index
	p := &Problem{Kind: b.kind, Names: make([]string, len(order)), Linear: make([]float64, len(order))}
	for r, i := range order {
		rank[i] = int32(r)
		p.Names[r] = b.names[i]
		p.Linear[r] = b.lin[i]
	}
	b.ids = nil
	for k := range b.terms {
		t := &b.terms[k]
		t.u, t.v = min(rank[t.u], rank[t.v]), max(rank[t.u], rank[t.v])
	}
	// Terms of one pair, in the order they were written: their sum then
	// does not depend on how the sort broke ties.
	slices.SortFunc(b.terms, func(x, y term) int {
		return cmp.Or(cmp.Compare(x.u, y.u), cmp.Compare(x.v, y.v), cmp.Compare(x.at, y.at))
	})
	p.Couplings = make([]Coupling, 0, len(b.terms))
	for k := 0; k < len(b.terms); {
		t := b.terms[k]
		c := Coupling{U: t.u, V: t.v}
		end := k
		for ; end < len(b.terms) && b.terms[end].u == t.u && b.terms[end].v == t.v; end++ {
			c.C += b.terms[end].c
		}
		if end-k > 1 {
			if err := b.repeated(b.terms[k:end]); err != nil {
				return nil, err
			}
		}
		if t.u == t.v {
			for _, d := range b.terms[k:end] {
				p.Linear[t.u] += d.c
			}
		} else {
			p.Couplings = append(p.Couplings, c)
		}
		k = end
	}
	b.terms = nil
	if s := scale(p); s > maxScale {
		return nil, &PathError{Rule: fmt.Sprintf("the coefficients' absolute values add up to %g, past the %g the annealer's arithmetic stays finite within", s, maxScale)}
	}
	return p, nil
}

// repeated refuses a key written twice among the terms of one pair (as
// JSON compares keys: by their text, escapes decoded): JSON decoders keep
// one of them, which one differs, so its meaning is not clear. A pair
// written two ways (reversed, spaced otherwise) adds.
func (b *builder) repeated(group []term) error {
	type key struct {
		text []byte
		at   int32
	}
	keys := make([]key, 0, len(group))
	for _, t := range group {
		if t.size > 0 {
			keys = append(keys, key{unescapeKey(nil, b.src[t.at:t.at+t.size]), t.at})
		}
	}
	slices.SortFunc(keys, func(x, y key) int { return cmp.Or(bytes.Compare(x.text, y.text), cmp.Compare(x.at, y.at)) })
	for k := 1; k < len(keys); k++ {
		if bytes.Equal(keys[k-1].text, keys[k].text) {
			at := keys[k].at
			end, _ := stringEnd(b.src, int(at))
			return &PathError{Path: "quadratic[" + string(b.src[at:end]) + "]", Rule: "is written twice: JSON object keys are unique"}
		}
	}
	return nil
}

// maxScale bounds the sum of a problem's |coefficients|: energies, fields
// and twice a field (an energy change) stay finite under it.
const maxScale = math.MaxFloat64 / 4

func isFinite(f float64) bool { return !math.IsInf(f, 0) && !math.IsNaN(f) }
