package qasm

import (
	"math"
	"math/bits"

	"github.com/qjobs/quantum/sim"
)

// The built-in functions of OpenQASM 3 (and the math of OpenQASM 2).

var mathFuncs = map[string]func(float64) float64{
	"sin": math.Sin, "cos": math.Cos, "tan": math.Tan, "arcsin": math.Asin, "arccos": math.Acos,
	"arctan": math.Atan, "exp": math.Exp, "log": math.Log, "ln": math.Log, "sqrt": math.Sqrt,
	"floor": math.Floor, "ceiling": math.Ceil, "abs": math.Abs,
}

// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) evalCall(e *xCall) value {
	if sym := c.lookup(e.Name); sym != nil {
		switch sym.kind {
		case symDef:
			return c.callDef(e.P, sym.def, e.Args, nil)
		case symExtern:
			fail(e.P, "extern function %q cannot be called: the simulator has no implementation of it", e.Name)
		case symGate:
			fail(e.P, "gate %q is applied to qubits (%s(...) q;), not called as a function", e.Name, e.Name)
		}
		fail(e.P, "%q is not a function", e.Name)
	}
	c.chargeN(e.P, len(e.Args), valueBytes)
	args := make([]value, len(e.Args))
	for i, a := range e.Args {
		args[i] = c.eval(a)
	}
	want := func(n int) {
		if len(args) != n {
			fail(e.P, "%s takes %d argument(s), got %d", e.Name, n, len(args))
		}
	}
	if f, ok := mathFuncs[e.Name]; ok {
		want(1)
		return floatVal(f(args[0].asFloat(e.Args[0].at(), "the argument of "+e.Name)))
	}
	switch e.Name {
	case "mod":
		want(2)
		return c.evalBinary(e.P, "%", args[0], args[1])
	case "pow":
		want(2)
		return c.evalBinary(e.P, "**", args[0], args[1])
	case "popcount":
		want(1)
		v := args[0]
		if v.k == vRT && !v.signed && len(v.bits) > 0 {
			return c.popcount(e.P, v.bits)
		}
		if v.runtime() {
			runtimeFail(e.P, "popcount of a computed value")
		}
		return intVal(int64(bits.OnesCount64(uint64(mask(v.asInt(e.P, "the argument of popcount"), v.w)))))
	case "rotl", "rotr":
		want(2)
		v := args[0]
		k := args[1].asExactInt(e.Args[1].at(), "the rotation")
		if v.k == vRT && !v.signed && len(v.bits) > 0 {
			// rotating measured bits renames them
			w := len(v.bits)
			k %= int64(w)
			if k < 0 {
				k += int64(w)
			}
			if e.Name == "rotr" {
				k = (int64(w) - k) % int64(w)
			}
			c.chargeN(e.P, w, 8)
			out := make([]int, w)
			for i, b := range v.bits {
				out[(i+int(k))%w] = b
			}
			return value{k: vRT, bits: out, w: w}
		}
		if v.runtime() {
			runtimeFail(e.P, e.Name+" of a computed value")
		}
		w := 64
		if v.k == vBits || v.w > 0 && v.w < 64 {
			w = v.w
		}
		x := uint64(mask(v.asInt(e.P, "the argument of "+e.Name), w))
		k %= int64(w)
		if k < 0 {
			k += int64(w)
		}
		if e.Name == "rotr" {
			k = (int64(w) - k) % int64(w)
		}
		r := x
		if k != 0 {
			r = x<<k | x>>(int64(w)-k)
		}
		r = uint64(mask(int64(r), w))
		if v.k == vBits {
			return value{k: vBits, i: int64(r), w: w}
		}
		return value{k: vInt, i: int64(r), w: v.w}
	case "sizeof":
		if len(args) < 1 || len(args) > 2 {
			fail(e.P, "sizeof takes 1 or 2 arguments, got %d", len(args))
		}
		v := args[0]
		dim := int64(0)
		if len(args) == 2 {
			dim = args[1].asExactInt(e.Args[1].at(), "the dimension")
		}
		for ; dim > 0 && v.k == vArray && len(v.arr) > 0; dim-- {
			v = v.arr[0]
		}
		switch v.k {
		case vArray:
			return intVal(int64(len(v.arr)))
		case vRT, vBits:
			return intVal(int64(v.w))
		case vQubits:
			return intVal(int64(len(v.qubits)))
		}
		fail(e.P, "sizeof needs an array")
	case "real":
		want(1)
		return floatVal(args[0].asFloat(e.P, "the argument of real"))
	case "imag":
		want(1)
		return floatVal(0)
	}
	fail(e.P, "undefined function %q", e.Name)
	return value{}
}

// popcountChunk bounds the bits one expression of popcount sums: sim
// refuses expressions of more than 65536 nodes.
const popcountChunk = 1024

// popcount is the number of measured bits that are 1, computed per shot:
// as a balanced tree of additions (a sum of 1024 bits is 11 levels deep),
// and for wider registers as running sums of such trees in scratch bits.
func (c *compiler) popcount(p position, bits []int) value {
	c.chargeN(p, 2*len(bits), nodeBytes)
	sum := func(bits []int) *sim.Expr {
		sums := make([]*sim.Expr, len(bits))
		for i := range bits {
			sums[i] = sim.BitsOf(bits[i:i+1:i+1], false)
		}
		for len(sums) > 1 {
			half := sums[:0]
			for i := 0; i < len(sums); i += 2 {
				if i+1 == len(sums) {
					half = append(half, sums[i])
					continue
				}
				half = append(half, sim.Binary(sim.Add, sums[i], sums[i+1]))
			}
			sums = half
		}
		return sums[0]
	}
	if len(bits) <= popcountChunk {
		return value{k: vExpr, ex: sum(bits)}
	}
	acc := c.allocScratch(p, 32)
	c.computeInto(p, acc, sum(bits[:popcountChunk]))
	for rest := bits[popcountChunk:]; len(rest) > 0; rest = rest[min(len(rest), popcountChunk):] {
		chunk := rest[:min(len(rest), popcountChunk)]
		c.computeInto(p, acc, sim.Binary(sim.Add, sim.BitsOf(acc, false), sum(chunk)))
	}
	return value{k: vRT, bits: acc, w: len(acc), integer: true}
}
