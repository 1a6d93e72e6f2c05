package qasm

import (
	"math"
	"math/cmplx"
	"slices"

	"github.com/qjobs/quantum/sim"
)

// Amazon Braket's OpenQASM 3 programs use gates of their own that sim's
// standard library does not have under any name. Matrices follow Braket's
// documentation; the two-qubit ones are symmetric in their qubits except
// the cphaseshift family, written here with controls.
type extraGate struct {
	params, qubits int
	build          func(p []float64, qs []int) sim.Gate
}

var braketGates = map[string]extraGate{
	// cphaseshiftAB(θ) a, b puts the phase on |a=A, b=B⟩.
	"cphaseshift00": {1, 2, phaseOn(false, false)},
	"cphaseshift01": {1, 2, phaseOn(false, true)},
	"cphaseshift10": {1, 2, phaseOn(true, false)},
	"gpi": {1, 1, func(p []float64, qs []int) sim.Gate {
		e := cmplx.Exp(complex(0, p[0]))
		return sim.Gate{Name: "gpi", Matrix: []complex128{0, cmplx.Conj(e), e, 0}, Targets: slices.Clone(qs)}
	}},
	"gpi2": {1, 1, func(p []float64, qs []int) sim.Gate {
		e := cmplx.Exp(complex(0, p[0]))
		s := complex(1/math.Sqrt2, 0)
		return sim.Gate{Name: "gpi2", Matrix: []complex128{s, -1i * cmplx.Conj(e) * s, -1i * e * s, s}, Targets: slices.Clone(qs)}
	}},
	"pswap": {1, 2, func(p []float64, qs []int) sim.Gate {
		e := cmplx.Exp(complex(0, p[0]))
		return sim.Gate{Name: "pswap", Matrix: []complex128{1, 0, 0, 0, 0, 0, e, 0, 0, e, 0, 0, 0, 0, 0, 1}, Targets: slices.Clone(qs)}
	}},
	"xy": {1, 2, func(p []float64, qs []int) sim.Gate {
		c, s := complex(math.Cos(p[0]/2), 0), complex(0, math.Sin(p[0]/2))
		return sim.Gate{Name: "xy", Matrix: []complex128{1, 0, 0, 0, 0, c, s, 0, 0, s, c, 0, 0, 0, 0, 1}, Targets: slices.Clone(qs)}
	}},
}

func phaseOn(a, b bool) func(p []float64, qs []int) sim.Gate {
	return func(p []float64, qs []int) sim.Gate {
		return sim.Gate{Name: "cphaseshift", Matrix: sim.GlobalPhase(p[0]), Controls: []sim.Control{
			{Qubit: qs[0], Negated: !a}, {Qubit: qs[1], Negated: !b},
		}}
	}
}
