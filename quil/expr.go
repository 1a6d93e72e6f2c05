package quil

import (
	"math"
	"math/cmplx"
	"strings"
)

// Expressions are evaluated as they are read, to complex numbers: gate
// parameters and matrix entries are known when the program compiles (a
// definition's %parameters are bound where it is applied, memory is read
// where its value is known).

// maxExprDepth bounds the nesting of an expression: parentheses, unary
// signs and powers, each a level of the reader's recursion.
const maxExprDepth = 100

// env is what an expression may name: a definition's parameters, and
// memory (read reports the value of a REAL cell, or why it cannot).
type env struct {
	params map[string]complex128
	read   func(name string, index int64) (v complex128, why string)
}

// exprReader reads one expression from toks[i:].
type exprReader struct {
	ln    int32
	toks  []token
	i     int
	env   *env
	depth int
}

func (r *exprReader) peek() token { return r.toks[r.i] }

func (r *exprReader) fail(t token, format string, args ...any) {
	panic(bail{errorf(r.ln, t.col, format, args...)})
}

// expr reads a sum: terms joined by + and −.
func (r *exprReader) expr() complex128 {
	r.enter()
	defer r.leave()
	v := r.term()
	for {
		t := r.peek()
		if t.kind != tPunct || t.text != "+" && t.text != "-" {
			return v
		}
		r.i++
		w := r.term()
		if t.text == "+" {
			v += w
		} else {
			v -= w
		}
	}
}

func (r *exprReader) enter() {
	if r.depth++; r.depth > maxExprDepth {
		r.fail(r.peek(), "an expression nested more than %d deep", maxExprDepth)
	}
}

func (r *exprReader) leave() { r.depth-- }

// term reads factors joined by * and /.
func (r *exprReader) term() complex128 {
	v := r.power()
	for {
		t := r.peek()
		if t.kind != tPunct || t.text != "*" && t.text != "/" {
			return v
		}
		r.i++
		w := r.power()
		if t.text == "*" {
			v *= w
		} else {
			if w == 0 {
				r.fail(t, "division by zero")
			}
			v /= w
		}
	}
}

// power reads a unary expression raised to a power (right-associative).
func (r *exprReader) power() complex128 {
	r.enter()
	defer r.leave()
	v := r.unary()
	if t := r.peek(); t.kind == tPunct && t.text == "^" {
		r.i++
		w := r.power()
		if v == 0 && real(w) < 0 {
			r.fail(t, "zero to a negative power")
		}
		return cmplx.Pow(v, w)
	}
	return v
}

func (r *exprReader) unary() complex128 {
	t := r.peek()
	if t.kind == tPunct && (t.text == "-" || t.text == "+") {
		r.i++
		r.enter()
		defer r.leave()
		v := r.unary()
		if t.text == "-" {
			return -v
		}
		return v
	}
	return r.primary()
}

// functions are the functions an expression may call.
var functions = map[string]func(complex128) complex128{
	"sin": cmplx.Sin, "cos": cmplx.Cos, "sqrt": cmplx.Sqrt, "exp": cmplx.Exp,
	"cis": func(x complex128) complex128 { return cmplx.Exp(complex(0, 1) * x) },
}

func (r *exprReader) primary() complex128 {
	t := r.peek()
	r.i++
	switch t.kind {
	case tInt, tReal:
		return complex(t.num, 0)
	case tImag:
		return complex(0, t.num)
	case tVar:
		v, ok := r.env.params[t.text]
		if !ok {
			r.fail(t, "%%%s is not a parameter of the definition", t.text)
		}
		return v
	case tPunct:
		if t.text == "(" {
			v := r.expr()
			r.expect(")")
			return v
		}
	case tIdent:
		switch t.text {
		case "pi":
			return math.Pi
		case "i":
			return complex(0, 1)
		}
		if f, ok := functions[strings.ToLower(t.text)]; ok && r.peek().kind == tPunct && r.peek().text == "(" {
			r.i++
			v := r.expr()
			r.expect(")")
			return f(v)
		}
		index := int64(0)
		if n := r.peek(); n.kind == tPunct && n.text == "[" {
			r.i++
			it := r.peek()
			if it.kind != tInt || it.ival < 0 {
				r.fail(it, "expected the index of a memory cell, a non-negative integer, got %s", it.describe())
			}
			r.i++
			index = it.ival
			r.expect("]")
		}
		if r.env.read == nil {
			r.fail(t, "%q is not defined here: a definition's entries may use numbers, pi, i, functions and its %%parameters", t.text)
		}
		v, why := r.env.read(t.text, index)
		if why != "" {
			r.fail(t, "%s", why)
		}
		return v
	}
	r.fail(t, "expected a number, a %%parameter, memory or a function, got %s", t.describe())
	return 0
}

func (r *exprReader) expect(p string) {
	if t := r.peek(); t.kind != tPunct || t.text != p {
		r.fail(t, "expected %q, got %s", p, t.describe())
	}
	r.i++
}

// realValue is v as a real number, or fails at t: gate parameters and
// Pauli-sum coefficients are real. what and of name it in the message
// (joined there only, so that a valid program allocates nothing here).
func realValue(ln int32, t token, v complex128, what, of string) float64 {
	if math.Abs(imag(v)) > 1e-12*math.Max(1, math.Abs(real(v))) {
		panic(bail{errorf(ln, t.col, "%s%s must be real, got %v", what, of, v)})
	}
	if math.IsNaN(real(v)) || math.IsInf(real(v), 0) {
		panic(bail{errorf(ln, t.col, "%s%s must be a finite number, got %v", what, of, real(v))})
	}
	return real(v)
}
