package quil_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// Modifiers, stacked, against matrices built by hand.
func TestModifiers(t *testing.T) {
	rx := func(th float64) []complex128 {
		c, s := complex(math.Cos(th/2), 0), complex(math.Sin(th/2), 0)
		return []complex128{c, -I * s, -I * s, c}
	}
	ctrl := func(m []complex128) []complex128 { return sim.ControlledMatrix(m, 1) }
	forked := func(m0, m1 []complex128) []complex128 { // c = 0: m0, c = 1: m1
		d := 2
		for d*d < len(m0) {
			d *= 2
		}
		out := make([]complex128, 4*d*d)
		for i := range d {
			for j := range d {
				out[i*2*d+j] = m0[i*d+j]
				out[(i+d)*2*d+j+d] = m1[i*d+j]
			}
		}
		return out
	}
	cases := []struct {
		src    string
		qs     []int
		matrix []complex128
	}{
		{"DAGGER T 1", []int{1}, diag(1, cis(-math.Pi/4))},
		{"DAGGER DAGGER T 1", []int{1}, diag(1, cis(math.Pi/4))},
		{"CONTROLLED RX(0.3) 2 0", []int{2, 0}, ctrl(rx(0.3))},
		{"CONTROLLED CONTROLLED RX(0.3) 0 2 1", []int{0, 2, 1}, sim.ControlledMatrix(rx(0.3), 2)},
		{"DAGGER CONTROLLED RX(0.3) 2 0", []int{2, 0}, ctrl(rx(-0.3))},
		{"CONTROLLED DAGGER RX(0.3) 2 0", []int{2, 0}, ctrl(rx(-0.3))},
		{"FORKED RX(0.3, 1.1) 1 0", []int{1, 0}, forked(rx(0.3), rx(1.1))},
		{"CONTROLLED FORKED RX(0.3, 1.1) 2 1 0", []int{2, 1, 0}, ctrl(forked(rx(0.3), rx(1.1)))},
		{"FORKED FORKED RX(0.1, 0.2, 0.3, 0.4) 0 1 2", []int{0, 1, 2}, forked(forked(rx(0.1), rx(0.2)), forked(rx(0.3), rx(0.4)))},
		{"CONTROLLED ISWAP 0 2 1", []int{0, 2, 1}, ctrl([]complex128{1, 0, 0, 0, 0, 0, I, 0, 0, I, 0, 0, 0, 0, 0, 1})},
		{"DAGGER CAN(0.1, 0.2, 0.3) 1 0", []int{1, 0}, sim.Dagger(canMatrix(0.1, 0.2, 0.3))},
	}
	for _, tc := range cases {
		got := unitaryOf(t, tc.src+"\n", 3)
		assertClose(t, tc.src, got, lift(tc.matrix, tc.qs, 3), false)
	}
}

// DEFGATE's four forms against the matrices they define; Pauli sums
// against the specification's own examples (equal up to a global phase).
func TestDefgate(t *testing.T) {
	cases := []struct {
		name, src string
		qs        []int
		matrix    []complex128
		global    bool
	}{
		{"matrix", "DEFGATE SQX:\n    0.5+0.5i, 0.5-0.5i\n    0.5-0.5i, 0.5+0.5i\nSQX 1\n", []int{1},
			[]complex128{0.5 + 0.5i, 0.5 - 0.5i, 0.5 - 0.5i, 0.5 + 0.5i}, false},
		{"matrix with parameters", "DEFGATE MYRZ(%t) AS MATRIX:\n    cis(-%t/2), 0\n    0, cis(%t/2)\nMYRZ(0.7) 0\n", []int{0},
			diag(cis(-0.35), cis(0.35)), false},
		{"matrix on two qubits", "DEFGATE MYCNOT:\n    1, 0, 0, 0\n    0, 1, 0, 0\n    0, 0, 0, 1\n    0, 0, 1, 0\nMYCNOT 2 0\n", []int{2, 0},
			permMatrix(0, 1, 3, 2), false},
		{"permutation", "DEFGATE CCNOT2 AS PERMUTATION:\n    0, 1, 2, 3, 4, 5, 7, 6\nCCNOT2 2 0 1\n", []int{2, 0, 1},
			permMatrix(0, 1, 2, 3, 4, 5, 7, 6), false},
		{"permutation, a cycle", "DEFGATE CYC AS PERMUTATION:\n    1, 2, 3, 0\nCYC 0 1\n", []int{0, 1},
			permMatrix(1, 2, 3, 0), false},
		{"pauli sum: the specification's RY", "DEFGATE MYRY(%theta) q AS PAULI-SUM:\n    Y(%theta/2) q\nMYRY(0.9) 1\n", []int{1},
			[]complex128{complex(math.Cos(0.45), 0), complex(-math.Sin(0.45), 0), complex(math.Sin(0.45), 0), complex(math.Cos(0.45), 0)}, false},
		{"pauli sum: ZZ as RZZ", "DEFGATE MYZZ(%t) p q AS PAULI-SUM:\n    ZZ(%t/2) p q\nMYZZ(0.8) 0 2\n", []int{0, 2},
			diag(cis(-0.4), cis(0.4), cis(0.4), cis(-0.4)), false},
		{"pauli sum: words in the header's order", "DEFGATE XZ p q AS PAULI-SUM:\n    ZX(pi/2) q p\nXZ 0 1\n", []int{0, 1},
			// exp(−iπ/2 X⊗Z) = −i X⊗Z
			scale(kron([]complex128{0, 1, 1, 0}, diag(1, -1)), -I), false},
		{"pauli sum: CAN up to a phase", "DEFGATE MYCAN(%a, %b, %g) p q AS PAULI-SUM:\n    XX(%a/2) p q\n    YY(%b/2) p q\n    ZZ(%g/2) p q\nMYCAN(0.3, 0.5, 0.7) 0 1\n", []int{0, 1},
			canByExp(0.3, 0.5, 0.7), false},
		{"sequence", "DEFGATE BELL p q AS SEQUENCE:\n    H p\n    CNOT p q\nBELL 2 0\n", []int{2, 0},
			sim.MatMul(permMatrix(0, 1, 3, 2), kron([]complex128{1 / math.Sqrt2, 1 / math.Sqrt2, 1 / math.Sqrt2, -1 / math.Sqrt2}, diag(1, 1))), false},
		{"sequence of sequences, with parameters and modifiers", "DEFGATE R2(%t) p q AS SEQUENCE:\n    RX(%t) p; DAGGER RX(%t/2) q\nDEFGATE OUTER(%t) a b AS SEQUENCE:\n    R2(2*%t) b a\nOUTER(0.25) 0 1\n", []int{0, 1},
			kron(rxm(-0.25), rxm(0.5)), false},
		{"controlled sequence", "DEFGATE BELL p q AS SEQUENCE:\n    H p\n    CNOT p q\nCONTROLLED BELL 1 0 2\n", []int{1, 0, 2},
			sim.ControlledMatrix(sim.MatMul(permMatrix(0, 1, 3, 2), kron([]complex128{1 / math.Sqrt2, 1 / math.Sqrt2, 1 / math.Sqrt2, -1 / math.Sqrt2}, diag(1, 1))), 1), false},
		{"dagger of a sequence reverses it", "DEFGATE HS p AS SEQUENCE:\n    H p\n    S p\nDAGGER HS 0\n", []int{0},
			sim.Dagger(sim.MatMul(diag(1, I), []complex128{1 / math.Sqrt2, 1 / math.Sqrt2, 1 / math.Sqrt2, -1 / math.Sqrt2})), false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := unitaryOf(t, tc.src, 3)
			assertClose(t, tc.name, got, lift(tc.matrix, tc.qs, 3), tc.global)
		})
	}
}

func rxm(th float64) []complex128 {
	c, s := complex(math.Cos(th/2), 0), complex(math.Sin(th/2), 0)
	return []complex128{c, -I * s, -I * s, c}
}

func kron(x, y []complex128) []complex128 { return sim.Kron(x, y) }

func scale(m []complex128, k complex128) []complex128 {
	out := make([]complex128, len(m))
	for i, v := range m {
		out[i] = k * v
	}
	return out
}

// canByExp is exp(−i(a/2 XX + b/2 YY + g/2 ZZ)), from its closed form on
// the two invariant blocks {00, 11} and {01, 10}.
func canByExp(a, b, g float64) []complex128 {
	// On {00,11}: H = [[g/2, (a−b)/2], [(a−b)/2, g/2]]; on {01,10}:
	// H = [[−g/2, (a+b)/2], [(a+b)/2, −g/2]].
	block := func(diagv, off float64) (complex128, complex128) {
		ph := cis(-diagv)
		return ph * complex(math.Cos(off), 0), ph * complex(0, -math.Sin(off))
	}
	d0, o0 := block(g/2, (a-b)/2)
	d1, o1 := block(-g/2, (a+b)/2)
	return []complex128{
		d0, 0, 0, o0,
		0, d1, o1, 0,
		0, o1, d1, 0,
		o0, 0, 0, d0,
	}
}

// A matrix from random angles, checked against the same gate written as
// a product of standard ones: DEFGATE's parameters bind per application.
func TestDefgateParametersBindPerApplication(t *testing.T) {
	src := "DEFGATE G(%x, %y):\n    cos(%x), -sin(%x)*cis(%y)\n    sin(%x), cos(%x)*cis(%y)\n"
	for _, xy := range [][2]float64{{0.1, 0.2}, {1.3, -0.7}, {math.Pi, 2}} {
		got := unitaryOf(t, src+fmt.Sprintf("G(%v, %v) 0\nG(%v, %v) 0\n", xy[0], xy[1], xy[1], xy[0]), 1)
		gm := func(x, y float64) []complex128 {
			return []complex128{complex(math.Cos(x), 0), complex(-math.Sin(x), 0) * cis(y), complex(math.Sin(x), 0), complex(math.Cos(x), 0) * cis(y)}
		}
		assertClose(t, "G·G", got, sim.MatMul(gm(xy[1], xy[0]), gm(xy[0], xy[1])), false)
	}
}
