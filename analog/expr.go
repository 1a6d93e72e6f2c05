package analog

import (
	"encoding/json"
	"math"
	"strconv"
)

// Pulser's parametrized numbers: a literal, a reference to a declared
// variable ({"variable": name}), or an expression ({"expression": op,
// "lhs", "rhs"}) of them, applied element by element to arrays. A
// variable is an array of the values its declaration assigns; one used
// where a number goes must hold one value.

// maxDepth bounds how deeply expressions and composite waveforms nest:
// the evaluator recurses once a level, so a program cannot make it go
// deeper than this.
const maxDepth = 32

// variables are a sequence's declared variables: their values, or nil for
// one declared without a value (unassigned).
type variables map[string][]float64

var unary = map[string]func(float64) float64{
	"neg": func(x float64) float64 { return -x }, "abs": math.Abs, "floor": math.Floor, "ceil": math.Ceil,
	"round": math.RoundToEven, "sqrt": math.Sqrt, "exp": math.Exp, "log2": math.Log2, "log": math.Log,
	"sin": math.Sin, "cos": math.Cos, "tan": math.Tan, "tanh": math.Tanh,
}

var binary = map[string]func(x, y float64) float64{
	"add": func(x, y float64) float64 { return x + y }, "sub": func(x, y float64) float64 { return x - y },
	"mul": func(x, y float64) float64 { return x * y }, "div": func(x, y float64) float64 { return x / y },
	"mod": func(x, y float64) float64 { return x - y*math.Floor(x/y) }, // Python's %: the sign of y
	"pow": math.Pow,
}

// eval is the value of a parametrized number or array: its elements, and
// whether it was written as an array (a literal array, a variable, or an
// expression of them).
func (vars variables) eval(n node, p *problems, depth int) ([]float64, bool, bool) {
	if depth > maxDepth {
		p.add(n.path, "nests expressions more than %d deep", maxDepth)
		return nil, false, false
	}
	switch x := n.v.(type) {
	case json.Number:
		f, ok := n.number(p, false)
		return []float64{f}, false, ok
	case []any:
		f, ok := n.numbers(p, false)
		return f, true, ok
	case map[string]any:
		if name, ok := x["variable"].(string); ok {
			vals, declared := vars[name]
			switch {
			case !declared:
				p.add(n.path+".variable", "names %q, which the sequence does not declare", name)
				return nil, false, false
			case vals == nil:
				p.add(n.path+".variable", "names %q, which the sequence leaves unassigned (its declaration has no value)", name)
				return nil, false, false
			}
			return vals, true, true
		}
		op, _ := x["expression"].(string)
		lhs, hasL := n.field("lhs")
		if !hasL {
			p.add(n.path, "must be a number, a variable ({\"variable\": name}) or an expression ({\"expression\", \"lhs\", \"rhs\"})")
			return nil, false, false
		}
		if f, ok := unary[op]; ok {
			v, arr, ok := vars.eval(lhs, p, depth+1)
			if !ok {
				return nil, false, false
			}
			out := make([]float64, len(v))
			for i := range v {
				out[i] = f(v[i])
			}
			return out, arr, finiteAll(out, n, p)
		}
		rhs, hasR := n.field("rhs")
		if op == "index" && hasR {
			return vars.index(lhs, rhs, n, p, depth)
		}
		f, ok := binary[op]
		if !ok || !hasR {
			p.add(n.path+".expression", "must be one of the operations of Pulser's expressions, got %s", compactJSON(x["expression"]))
			return nil, false, false
		}
		a, arrA, okA := vars.eval(lhs, p, depth+1)
		b, arrB, okB := vars.eval(rhs, p, depth+1)
		if !okA || !okB {
			return nil, false, false
		}
		if len(a) != len(b) && len(a) != 1 && len(b) != 1 {
			p.add(n.path, "combines arrays of %d and %d values", len(a), len(b))
			return nil, false, false
		}
		out := make([]float64, max(len(a), len(b)))
		for i := range out {
			out[i] = f(a[min(i, len(a)-1)], b[min(i, len(b)-1)])
		}
		return out, arrA || arrB, finiteAll(out, n, p)
	}
	p.add(n.path, "must be a number, a variable or an expression, not %s", kind(n.v))
	return nil, false, false
}

// index is lhs[rhs]: the elements of lhs at the indices rhs lists.
func (vars variables) index(lhs, rhs, n node, p *problems, depth int) ([]float64, bool, bool) {
	a, _, okA := vars.eval(lhs, p, depth+1)
	idx, arr, okI := vars.eval(rhs, p, depth+1)
	if !okA || !okI {
		return nil, false, false
	}
	out := make([]float64, len(idx))
	for i, x := range idx {
		k := int(x)
		if float64(k) != x || k < 0 || k >= len(a) {
			p.add(n.path+".rhs", "index %v is not one of 0 to %d", x, len(a)-1)
			return nil, false, false
		}
		out[i] = a[k]
	}
	return out, arr, true
}

func finiteAll(v []float64, n node, p *problems) bool {
	for _, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			p.add(n.path, "evaluates to %v, not a finite number", x)
			return false
		}
	}
	return true
}

// scalar is a parametrized number that must be one value.
func (vars variables) scalar(n node, p *problems) (float64, bool) {
	v, _, ok := vars.eval(n, p, 0)
	if !ok {
		return 0, false
	}
	if len(v) != 1 {
		p.add(n.path, "must be one number, got %d", len(v))
		return 0, false
	}
	return v[0], true
}

// integer is a parametrized number that must be a whole number.
func (vars variables) integer(n node, p *problems) (int, bool) {
	f, ok := vars.scalar(n, p)
	if !ok {
		return 0, false
	}
	if f != math.Trunc(f) || math.Abs(f) > 1<<40 {
		p.add(n.path, "must be a whole number, got %s", strconv.FormatFloat(f, 'g', -1, 64))
		return 0, false
	}
	return int(f), true
}
