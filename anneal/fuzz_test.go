package anneal_test

import (
	"bytes"
	"cmp"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qjobs/quantum/anneal"
)

// reference decodes a problem as Decode promises to, with encoding/json
// doing all the reading: what Decode answers must match it, problem for
// problem, refusal for refusal.
func reference(data []byte) (*anneal.Problem, bool) {
	if !utf8.Valid(data) {
		return nil, false
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil || top == nil {
		return nil, false
	}
	var kind string
	if json.Unmarshal(top["problem_type"], &kind) != nil {
		return nil, false
	}
	p := &anneal.Problem{}
	switch kind {
	case "qubo":
		p.Kind = anneal.QUBO
	case "ising":
		p.Kind = anneal.Ising
	default:
		return nil, false
	}
	type quad struct {
		u, v string
		c    float64
	}
	linear := map[string]float64{}
	var quads []quad
	seen := map[string]bool{}
	ok := members(top["linear"], func(key string, c float64) bool {
		if _, dup := linear[key]; dup || strings.ContainsRune(key, 0) {
			return false
		}
		linear[key] = c
		return true
	})
	ok = ok && members(top["quadratic"], func(key string, c float64) bool {
		if seen[key] {
			return false
		}
		seen[key] = true
		var pair []any
		if json.Unmarshal([]byte(key), &pair) != nil || len(pair) != 2 {
			return false
		}
		u, uok := pair[0].(string)
		v, vok := pair[1].(string)
		if !uok || !vok || strings.ContainsRune(u, 0) || strings.ContainsRune(v, 0) || u == v && p.Kind == anneal.Ising {
			return false
		}
		quads = append(quads, quad{u, v, c})
		return true
	})
	if !ok {
		return nil, false
	}
	names := map[string]bool{}
	for k := range linear {
		names[k] = true
	}
	for _, q := range quads {
		names[q.u], names[q.v] = true, true
	}
	if len(names) == 0 {
		return nil, false
	}
	for k := range names {
		p.Names = append(p.Names, k)
	}
	slices.Sort(p.Names)
	index := func(name string) int32 { i, _ := slices.BinarySearch(p.Names, name); return int32(i) }
	p.Linear = make([]float64, len(p.Names))
	for k, c := range linear {
		p.Linear[index(k)] = c
	}
	sums := map[[2]int32]float64{}
	for _, q := range quads { // in the order written, as Decode adds
		u, v := index(q.u), index(q.v)
		if u == v {
			p.Linear[u] += q.c
			continue
		}
		k := [2]int32{min(u, v), max(u, v)}
		sums[k] += q.c
	}
	for k, c := range sums {
		p.Couplings = append(p.Couplings, anneal.Coupling{U: k[0], V: k[1], C: c})
	}
	slices.SortFunc(p.Couplings, func(a, b anneal.Coupling) int { return cmp.Or(cmp.Compare(a.U, b.U), cmp.Compare(a.V, b.V)) })
	scale := 0.0 // past a quarter of the largest float64, refused
	for _, c := range p.Linear {
		scale += math.Abs(c)
	}
	for _, c := range p.Couplings {
		scale += math.Abs(c.C)
	}
	if scale > math.MaxFloat64/4 {
		return nil, false
	}
	return p, true
}

// members calls fn with each key and number of a JSON object, in order;
// false for anything else.
func members(raw json.RawMessage, fn func(key string, c float64) bool) bool {
	if len(raw) == 0 || string(raw) == "null" {
		return true
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return false
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return false
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return false
		}
		n, isNumber := v.(json.Number)
		if !isNumber {
			return false
		}
		c, err := strconv.ParseFloat(string(n), 64)
		if err != nil || math.IsInf(c, 0) || !fn(tok.(string), c) {
			return false
		}
	}
	return true
}

func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		clientQUBO, clientPyQUBO,
		`{"problem_type":"ising","linear":{"a":1},"quadratic":{"[\"a\", \"b\"]":-1,"[\"b\",\"a\"]":2}}`,
		`{"problem_type":"qubo","quadratic":{"[\"\\u00e9\", \"\\ud800\"]":1,"[\"x\\\"\", \"y\"]":2}}`,
		`{"problem_type":"qubo","quadratic":{"[\"a\", \"b\"]":1,"[\"a\"\u002c \"b\"]":2}}`,
		`{"problem_type":"qubo","linear":{"a":1e999}}`,
		`{"problem_type":"qubo","linear":{"a":"1"},"x":[{"y":"}"}]}`,
		`{"problem_type":"ising","quadratic":{"[\"a\", \"a\"]":1}}`,
		`{"problem_type":"qubo","linear":{"a":1e308,"b":-1e308}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := anneal.Decode(data)
		want, ok := reference(data)
		switch {
		case ok && err != nil:
			t.Fatalf("Decode(%q): %v; encoding/json reads %+v", data, err, want)
		case !ok && err == nil:
			t.Fatalf("Decode(%q) = %+v; encoding/json refuses it", data, got)
		case !ok:
			if err.Error() == "" {
				t.Fatal("an error without words")
			}
			return
		}
		if got.Kind != want.Kind || !slices.Equal(got.Names, want.Names) || !slices.Equal(got.Linear, want.Linear) || !slices.Equal(got.Couplings, want.Couplings) {
			t.Fatalf("Decode(%q) = %+v, want %+v", data, got, want)
		}
	})
}
