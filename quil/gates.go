package quil

import (
	"math"
	"math/cmplx"

	"github.com/qjobs/quantum/sim"
)

// stdGate is a standard gate of Quil: pyquil's set and the
// specification's others. sim names a standard gate of sim with the same
// matrix and the same order of arguments (control first); else matrix
// builds it in Quil's order, its first argument the most significant bit.
type stdGate struct {
	params, qubits int
	sim            string
	matrix         func(p []float64) []complex128
}

var stdGates = map[string]stdGate{
	"I": {0, 1, "id", nil}, "X": {0, 1, "x", nil}, "Y": {0, 1, "y", nil}, "Z": {0, 1, "z", nil},
	"H": {0, 1, "h", nil}, "S": {0, 1, "s", nil}, "T": {0, 1, "t", nil},
	"PHASE": {1, 1, "p", nil}, "RX": {1, 1, "rx", nil}, "RY": {1, 1, "ry", nil}, "RZ": {1, 1, "rz", nil},
	"U":  {3, 1, "u3", nil}, // pyquil's U(θ, φ, λ)
	"CZ": {0, 2, "cz", nil}, "CNOT": {0, 2, "cx", nil}, "CCNOT": {0, 3, "ccx", nil},
	"CPHASE": {1, 2, "cp", nil},
	"SWAP":   {0, 2, "swap", nil}, "CSWAP": {0, 3, "cswap", nil}, "ISWAP": {0, 2, "iswap", nil},
	"RXX": {1, 2, "rxx", nil}, "RYY": {1, 2, "ryy", nil}, "RZZ": {1, 2, "rzz", nil},
	"CPHASE00": {1, 2, "", func(p []float64) []complex128 { return diag4(cmplx.Exp(complex(0, p[0])), 1, 1, 1) }},
	"CPHASE01": {1, 2, "", func(p []float64) []complex128 { return diag4(1, cmplx.Exp(complex(0, p[0])), 1, 1) }},
	"CPHASE10": {1, 2, "", func(p []float64) []complex128 { return diag4(1, 1, cmplx.Exp(complex(0, p[0])), 1) }},
	"PSWAP": {1, 2, "", func(p []float64) []complex128 {
		e := cmplx.Exp(complex(0, p[0]))
		return []complex128{1, 0, 0, 0, 0, 0, e, 0, 0, e, 0, 0, 0, 0, 0, 1}
	}},
	"XY":      {1, 2, "", func(p []float64) []complex128 { return xy(p[0], 0) }},
	"PISWAP":  {1, 2, "", func(p []float64) []complex128 { return xy(p[0], 0) }},
	"SQISWAP": {0, 2, "", func(p []float64) []complex128 { return xy(math.Pi/2, 0) }},
	"FSIM":    {2, 2, "", func(p []float64) []complex128 { return xy(p[0], p[1]) }},
	"PHASEDFSIM": {5, 2, "", func(p []float64) []complex128 {
		theta, zeta, chi, gamma, phi := p[0], p[1], p[2], p[3], p[4]
		c, s := complex(math.Cos(theta/2), 0), complex(math.Sin(theta/2), 0)
		i := complex(0, 1)
		return []complex128{
			1, 0, 0, 0,
			0, cmplx.Exp(-i*complex(gamma+zeta, 0)) * c, i * cmplx.Exp(-i*complex(gamma-chi, 0)) * s, 0,
			0, i * cmplx.Exp(-i*complex(gamma+chi, 0)) * s, cmplx.Exp(-i*complex(gamma-zeta, 0)) * c, 0,
			0, 0, 0, cmplx.Exp(i * complex(phi-2*gamma, 0)),
		}
	}},
	"CAN": {3, 2, "", can},
}

func diag4(a, b, c, d complex128) []complex128 {
	return []complex128{a, 0, 0, 0, 0, b, 0, 0, 0, 0, c, 0, 0, 0, 0, d}
}

// xy is XY(θ) (pyquil's and quilc's matrix, which the specification's
// formula does not give), with e^{iφ} on |11⟩: FSIM(θ, φ).
func xy(theta, phi float64) []complex128 {
	c, s := complex(math.Cos(theta/2), 0), complex(0, math.Sin(theta/2))
	return []complex128{1, 0, 0, 0, 0, c, s, 0, 0, s, c, 0, 0, 0, 0, cmplx.Exp(complex(0, phi))}
}

// can is CAN(α, β, γ) as the specification writes its matrix.
func can(p []float64) []complex128 {
	a, b, g := p[0], p[1], p[2]
	cis := func(x float64) complex128 { return cmplx.Exp(complex(0, x)) }
	p1, p2 := cis((a+b-g)/2), cis((a-b+g)/2)
	m1, m2 := cis((a+b+g)/-2), cis((b+g-a)/2)
	return []complex128{
		(p1 + p2) / 2, 0, 0, (p2 - p1) / 2,
		0, (m1 + m2) / 2, (m1 - m2) / 2, 0,
		0, (m1 - m2) / 2, (m1 + m2) / 2, 0,
		(p2 - p1) / 2, 0, 0, (p1 + p2) / 2,
	}
}

// Quil-T's instructions and the directives this package does not run:
// each is refused naming its line.
var refused = map[string]string{
	"DEFCAL": "Quil-T", "DEFFRAME": "Quil-T", "DEFWAVEFORM": "Quil-T", "PULSE": "Quil-T", "CAPTURE": "Quil-T",
	"RAW-CAPTURE": "Quil-T", "DELAY": "Quil-T", "FENCE": "Quil-T", "SET-FREQUENCY": "Quil-T",
	"SHIFT-FREQUENCY": "Quil-T", "SET-PHASE": "Quil-T", "SHIFT-PHASE": "Quil-T", "SWAP-PHASES": "Quil-T",
	"SET-SCALE": "Quil-T", "INCLUDE": "INCLUDE", "EXTERN": "EXTERN", "CALL": "CALL", "DEFCIRCUIT": "DEFCIRCUIT",
}

// stdOp is the operation of a standard gate of sim on qubits (in Quil's
// order, which is sim's for these gates).
func stdOp(name string, params []float64, qubits []int) sim.Op {
	g, _ := sim.LookupGate(name)
	op, err := g.Op(params, qubits...)
	if err != nil {
		panic(err) // the table above holds only gates whose arity matches
	}
	return op
}

// matrixOp is the operation of a matrix in Quil's order on qubits: sim's
// targets are little-endian, so its first target is the last qubit.
func matrixOp(name string, m []complex128, qubits []int) sim.Op {
	targets := make([]int, len(qubits))
	for i, q := range qubits {
		targets[len(qubits)-1-i] = q
	}
	return sim.GateOp(sim.Gate{Name: name, Matrix: m, Targets: targets})
}
