package qasm

import (
	"math"

	"github.com/qjobs/quantum/sim"
)

// vkind says what a value holds.
type vkind uint8

const (
	vInt   vkind = iota + 1 // i
	vFloat                  // f; angles and durations too
	vBool                   // i is 0 or 1
	vBits                   // a bit string known at compile time: w bits of i
	// vRT is a bit string only known at run time: the classical bits
	// bits, bits[0] the least significant.
	vRT
	vCond // a run-time condition
	// vExpr is an integer only known at run time, computed from measured
	// bits by ex (sim's classical expressions).
	vExpr
	vArray  // arr
	vQubits // qubits; single for one qubit rather than a register
)

// value is the result of evaluating an expression.
type value struct {
	k      vkind
	i      int64
	f      float64
	w      int
	bits   []int
	cond   *sim.Condition
	arr    []value
	qubits []int
	single bool
	ex     *sim.Expr // vExpr
	// signed: a vRT that holds an int, two's complement in its bits.
	signed bool
	// angle: a vRT that holds an angle[w], 2π·bits/2^w.
	angle bool
	// integer: a vRT that holds an int or uint variable rather than a
	// bit string (bit strings keep their width through bit operations).
	integer bool
}

// bitWidth is the width of a bit string only known at run time, or 0 for
// values that are not bit strings. A vExpr keeps the width in w.
func bitWidth(v value) int {
	switch {
	case v.k == vRT && !v.integer && !v.signed && !v.angle:
		return len(v.bits)
	case v.k == vExpr:
		return v.w
	}
	return 0
}

// truthOf converts a value stored into a bool: any non-zero value is true.
func truthOf(v value) value {
	switch v.k {
	case vRT:
		if len(v.bits) > 1 && len(v.bits) <= 64 {
			return value{k: vCond, cond: sim.RegisterCmp(v.bits, sim.Ne, 0)}
		}
	case vExpr:
		return value{k: vExpr, ex: sim.Compare(v.ex, sim.Ne, sim.Const(0))}
	case vInt, vBits, vBool:
		return boolVal(v.i != 0)
	case vFloat:
		return boolVal(v.f != 0)
	}
	return v
}

// angleBits is the nearest w-bit angle to the float f.
func angleBits(f float64, w int) int64 {
	scale := math.Ldexp(1, w)
	x := math.Mod(math.Round(f/(2*math.Pi)*scale), scale)
	if x < 0 {
		x += scale
	}
	if w >= 64 {
		return int64(uint64(x))
	}
	return int64(x)
}

// angleVal converts to an angle: bits are a fraction of a turn, and an
// angle is taken modulo 2π, on the grid of 2^n steps of an angle[n].
func angleVal(v value, t *ctype, p position, what string) value {
	var f float64
	if v.k == vBits {
		f = angleValue(v.i, v.w)
	} else {
		f = v.asFloat(p, what)
	}
	switch {
	case math.IsInf(f, 0) || math.IsNaN(f):
		return floatVal(f) // refused where it is used, with its name
	case t.size > 0:
		n := min(t.size, 64)
		f = angleValue(angleBits(f, n), n)
	default:
		if f = math.Mod(f, 2*math.Pi); f < 0 {
			f += 2 * math.Pi
		}
	}
	return value{k: vFloat, f: f, angle: true, w: t.size}
}

// angleValue is the angle held in w bits.
func angleValue(bits int64, w int) float64 {
	return 2 * math.Pi * float64(uint64(bits)) / math.Ldexp(1, w)
}

func intVal(i int64) value     { return value{k: vInt, i: i} }
func floatVal(f float64) value { return value{k: vFloat, f: f} }
func boolVal(b bool) value {
	if b {
		return value{k: vBool, i: 1}
	}
	return value{k: vBool}
}

func (v value) runtime() bool { return v.k == vRT || v.k == vCond || v.k == vExpr }

func (v value) kindName() string {
	switch v.k {
	case vInt:
		return "int"
	case vFloat:
		return "float"
	case vBool:
		return "bool"
	case vBits, vRT:
		return "bit"
	case vCond:
		return "bool"
	case vExpr:
		return "int"
	case vArray:
		return "array"
	case vQubits:
		return "qubit"
	}
	return "value"
}

func runtimeFail(p position, what string) {
	fail(p, "%s depends on measurement results at run time; only bits, bools, integers and angle registers may (floats, sizes, loop bounds and gate parameters other than an angle register must be known when the program is compiled)", what)
}

func (v value) asFloat(p position, what string) float64 {
	switch v.k {
	case vInt, vBool:
		return float64(v.i)
	case vBits:
		return float64(uint64(v.i))
	case vFloat:
		return v.f
	case vRT, vCond, vExpr:
		runtimeFail(p, what)
	}
	fail(p, "%s must be a number, got %s", what, v.kindName())
	return 0
}

// asInt converts to an integer, truncating a float (as a cast does).
func (v value) asInt(p position, what string) int64 {
	switch v.k {
	case vInt, vBool, vBits:
		return v.i
	case vFloat:
		if math.IsNaN(v.f) || math.Abs(v.f) >= 1<<63 {
			fail(p, "%s: %g does not fit an integer", what, v.f)
		}
		return int64(v.f)
	case vRT, vCond, vExpr:
		runtimeFail(p, what)
	}
	fail(p, "%s must be an integer, got %s", what, v.kindName())
	return 0
}

// asExactInt is asInt for places that need a whole number (indices, sizes,
// loop bounds): a float is accepted only when it has no fraction.
func (v value) asExactInt(p position, what string) int64 {
	if v.k == vFloat && v.f != math.Trunc(v.f) {
		fail(p, "%s must be an integer, got %g", what, v.f)
	}
	return v.asInt(p, what)
}

func (v value) asBool(p position, what string) bool {
	switch v.k {
	case vInt, vBool, vBits:
		return v.i != 0
	case vFloat:
		return v.f != 0
	case vRT, vCond, vExpr:
		runtimeFail(p, what)
	}
	fail(p, "%s must be a boolean, got %s", what, v.kindName())
	return false
}

// ctype is a resolved classical type.
type ctype struct {
	name string // int uint float angle bool bit complex duration stretch array
	size int    // 0 when unsized
	elem *ctype
	dims []int
	// For arrays: sub is the type of one element (elem, or an array of
	// the dimensions after the first), and slots counts the values an
	// array of this type holds, at every level.
	sub   *ctype
	slots int
}

// inner is the type of one element of array type t.
func (t *ctype) inner() *ctype {
	if t.sub != nil {
		return t.sub
	}
	if len(t.dims) > 1 {
		return &ctype{name: "array", elem: t.elem, dims: t.dims[1:]}
	}
	return t.elem
}

// wrap brings an integer into the range of a sized int or uint type.
func wrapInt(i int64, name string, size int) int64 {
	if size <= 0 || size >= 64 {
		return i
	}
	mask := int64(1)<<size - 1
	i &= mask
	if name == "int" && i>>(size-1)&1 == 1 {
		i -= 1 << size
	}
	return i
}

// coerce converts a compile-time value to a declared type.
func coerce(v value, t *ctype, p position, what string) value {
	switch t.name {
	case "int", "uint":
		r := intVal(wrapInt(v.asInt(p, what), t.name, t.size))
		r.w = t.size // rotl and rotr turn within the declared width
		return r
	case "float", "angle", "duration", "stretch", "complex":
		if t.name == "angle" {
			return angleVal(v, t, p, what)
		}
		return floatVal(v.asFloat(p, what))
	case "bool":
		return boolVal(v.asBool(p, what))
	case "bit":
		n := max(t.size, 1)
		if v.k == vFloat && v.angle {
			m := min(n, 64)
			if v.w > 0 {
				m = min(v.w, m)
			}
			return value{k: vBits, i: angleBits(v.f, m), w: n}
		}
		i := v.asInt(p, what)
		if n < 64 {
			i &= 1<<n - 1
		}
		return value{k: vBits, i: i, w: n}
	case "array":
		if v.k != vArray {
			fail(p, "%s must be an array, got %s", what, v.kindName())
		}
		if len(t.dims) > 0 && len(v.arr) != t.dims[0] {
			fail(p, "%s: array of %d elements where %d are declared", what, len(v.arr), t.dims[0])
		}
		// The recursion goes one level a dimension: at most maxArrayDims,
		// as the elements of an array are never arrays themselves. The
		// caller charged t.slots values.
		inner := t.inner()
		out := make([]value, len(v.arr))
		for i, e := range v.arr {
			out[i] = coerce(e, inner, p, what)
		}
		return value{k: vArray, arr: out}
	}
	fail(p, "%s: values of type %s are not supported", what, t.name)
	return value{}
}

// zeroOf is the value of a declared variable without an initialiser.
func zeroOf(t *ctype) value {
	switch t.name {
	case "int", "uint":
		return intVal(0)
	case "bool":
		return boolVal(false)
	case "array":
		n := 0
		if len(t.dims) > 0 {
			n = t.dims[0]
		}
		// one level a dimension, as in coerce; resolveType charged t.slots
		inner := t.inner()
		out := make([]value, n)
		for i := range out {
			out[i] = zeroOf(inner)
		}
		return value{k: vArray, arr: out}
	}
	return floatVal(0)
}
