package quil_test

import (
	"fmt"
	"math"
	"math/cmplx"
	"strings"
	"testing"
)

// The standard gates' matrices, written out from the Quil specification
// and pyquil's simulation/matrices.py (quilc's stdgates.quil for CAN), in
// Quil's order: the first qubit listed is the most significant bit.
func cis(x float64) complex128 { return cmplx.Exp(complex(0, x)) }

func diag(d ...complex128) []complex128 {
	n := len(d)
	m := make([]complex128, n*n)
	for i, v := range d {
		m[i*n+i] = v
	}
	return m
}

func permMatrix(p ...int) []complex128 { // row i has its 1 in column p[i]
	n := len(p)
	m := make([]complex128, n*n)
	for i, c := range p {
		m[i*n+c] = 1
	}
	return m
}

const (
	a  = 0.37
	b  = -1.21
	g  = 2.05
	d4 = 0.66
	e5 = -0.4
)

var c, s = complex(math.Cos(a/2), 0), complex(math.Sin(a/2), 0)

var I = complex(0, 1)

var standardGates = []struct {
	src    string // the gate with its parameters
	qubits int
	matrix []complex128
}{
	{"I", 1, diag(1, 1)},
	{"X", 1, permMatrix(1, 0)},
	{"Y", 1, []complex128{0, -I, I, 0}},
	{"Z", 1, diag(1, -1)},
	{"H", 1, []complex128{1 / math.Sqrt2, 1 / math.Sqrt2, 1 / math.Sqrt2, -1 / math.Sqrt2}},
	{"S", 1, diag(1, I)},
	{"T", 1, diag(1, cis(math.Pi/4))},
	{fmt.Sprintf("PHASE(%v)", a), 1, diag(1, cis(a))},
	{fmt.Sprintf("RX(%v)", a), 1, []complex128{c, -I * s, -I * s, c}},
	{fmt.Sprintf("RY(%v)", a), 1, []complex128{c, -s, s, c}},
	{fmt.Sprintf("RZ(%v)", a), 1, diag(cis(-a/2), cis(a/2))},
	{fmt.Sprintf("U(%v, %v, %v)", a, b, g), 1, []complex128{c, -cis(g) * s, cis(b) * s, cis(b+g) * c}},
	{"CZ", 2, diag(1, 1, 1, -1)},
	{"CNOT", 2, permMatrix(0, 1, 3, 2)},
	{"CCNOT", 3, permMatrix(0, 1, 2, 3, 4, 5, 7, 6)},
	{fmt.Sprintf("CPHASE00(%v)", a), 2, diag(cis(a), 1, 1, 1)},
	{fmt.Sprintf("CPHASE01(%v)", a), 2, diag(1, cis(a), 1, 1)},
	{fmt.Sprintf("CPHASE10(%v)", a), 2, diag(1, 1, cis(a), 1)},
	{fmt.Sprintf("CPHASE(%v)", a), 2, diag(1, 1, 1, cis(a))},
	{"SWAP", 2, permMatrix(0, 2, 1, 3)},
	{"CSWAP", 3, permMatrix(0, 1, 2, 3, 4, 6, 5, 7)},
	{"ISWAP", 2, []complex128{1, 0, 0, 0, 0, 0, I, 0, 0, I, 0, 0, 0, 0, 0, 1}},
	{fmt.Sprintf("PSWAP(%v)", a), 2, []complex128{1, 0, 0, 0, 0, 0, cis(a), 0, 0, cis(a), 0, 0, 0, 0, 0, 1}},
	{fmt.Sprintf("XY(%v)", a), 2, []complex128{1, 0, 0, 0, 0, c, I * s, 0, 0, I * s, c, 0, 0, 0, 0, 1}},
	{fmt.Sprintf("PISWAP(%v)", a), 2, []complex128{1, 0, 0, 0, 0, c, I * s, 0, 0, I * s, c, 0, 0, 0, 0, 1}},
	{"SQISWAP", 2, []complex128{1, 0, 0, 0, 0, 1 / math.Sqrt2, I / math.Sqrt2, 0, 0, I / math.Sqrt2, 1 / math.Sqrt2, 0, 0, 0, 0, 1}},
	{fmt.Sprintf("FSIM(%v, %v)", a, b), 2, []complex128{1, 0, 0, 0, 0, c, I * s, 0, 0, I * s, c, 0, 0, 0, 0, cis(b)}},
	{fmt.Sprintf("PHASEDFSIM(%v, %v, %v, %v, %v)", a, b, g, d4, e5), 2, []complex128{
		1, 0, 0, 0,
		0, cis(-(d4 + b)) * c, I * cis(-(d4 - g)) * s, 0,
		0, I * cis(-(d4 + g)) * s, cis(-(d4 - b)) * c, 0,
		0, 0, 0, cis(e5 - 2*d4),
	}},
	{fmt.Sprintf("RXX(%v)", a), 2, []complex128{c, 0, 0, -I * s, 0, c, -I * s, 0, 0, -I * s, c, 0, -I * s, 0, 0, c}},
	{fmt.Sprintf("RYY(%v)", a), 2, []complex128{c, 0, 0, I * s, 0, c, -I * s, 0, 0, -I * s, c, 0, I * s, 0, 0, c}},
	{fmt.Sprintf("RZZ(%v)", a), 2, diag(cis(-a/2), cis(a/2), cis(a/2), cis(-a/2))},
	{fmt.Sprintf("CAN(%v, %v, %v)", a, b, g), 2, canMatrix(a, b, g)},
}

// canMatrix is quilc's CAN, entry by entry as stdgates.quil writes it.
func canMatrix(al, be, ga float64) []complex128 {
	p, q := cis((al+be-ga)/2), cis((al-be+ga)/2)
	m, n := cis((al+be+ga)/-2), cis((be+ga-al)/2)
	return []complex128{
		(p + q) / 2, 0, 0, (q - p) / 2,
		0, (m + n) / 2, (m - n) / 2, 0,
		0, (m - n) / 2, (m + n) / 2, 0,
		(q - p) / 2, 0, 0, (p + q) / 2,
	}
}

// Each standard gate, on its qubits in two orders among others, applies
// its matrix exactly (the state's amplitudes, from every basis state).
func TestStandardGates(t *testing.T) {
	for _, tc := range standardGates {
		for _, qs := range qubitOrders(tc.qubits) {
			name := tc.src + " " + joinInts(qs)
			t.Run(name, func(t *testing.T) {
				n := 3
				if tc.qubits == 3 {
					n = 4
				}
				got := unitaryOf(t, name+"\n", n)
				assertClose(t, name, got, lift(tc.matrix, qs, n), false)
			})
		}
	}
}

// qubitOrders are two placements of a gate's k qubits: ascending from 0,
// and descending from k (so one qubit is skipped).
func qubitOrders(k int) [][]int {
	up, down := make([]int, k), make([]int, k)
	for i := range k {
		up[i] = i
		down[i] = k - i
	}
	return [][]int{up, down}
}

func joinInts(qs []int) string {
	parts := make([]string, len(qs))
	for i, q := range qs {
		parts[i] = fmt.Sprint(q)
	}
	return strings.Join(parts, " ")
}

// The specification's identities: S = PHASE(π/2), T = PHASE(π/4), CZ =
// CPHASE(π), SWAP = PSWAP(0), ISWAP = PSWAP(π/2)·… (exactly as written
// there: ISWAP has i where PSWAP(π/2) has e^{iπ/2}).
func TestSpecificationIdentities(t *testing.T) {
	pairs := [][2]string{
		{"S 0", "PHASE(pi/2) 0"},
		{"T 0", "PHASE(pi/4) 0"},
		{"CZ 0 1", "CPHASE(pi) 0 1"},
		{"SWAP 0 1", "PSWAP(0) 0 1"},
		{"ISWAP 0 1", "PSWAP(pi/2) 0 1"},
		{"CCNOT 0 1 2", "CONTROLLED CONTROLLED X 0 1 2"},
		{"CNOT 1 0", "CONTROLLED X 1 0"},
		{"SQISWAP 0 1", "XY(pi/2) 0 1"},
	}
	for _, p := range pairs {
		assertClose(t, p[0]+" vs "+p[1], unitaryOf(t, p[0]+"\n", 3), unitaryOf(t, p[1]+"\n", 3), false)
	}
}
