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
	// prx(θ, φ) rotates by θ about the axis at angle φ in the xy plane.
	"prx": {2, 1, func(p []float64, qs []int) sim.Gate {
		c, s := complex(math.Cos(p[0]/2), 0), complex(0, -math.Sin(p[0]/2))
		e := cmplx.Exp(complex(0, p[1]))
		return sim.Gate{Name: "prx", Matrix: []complex128{c, s * cmplx.Conj(e), s * e, c}, Targets: slices.Clone(qs)}
	}},
	// ms(φ0, φ1, θ) is IonQ's Mølmer–Sørensen gate. Braket writes its
	// matrix with the first qubit as the high bit; here index bit j is
	// qubit j, which swaps the roles of |01⟩ and |10⟩.
	"ms": {3, 2, func(p []float64, qs []int) sim.Gate {
		c, s := complex(math.Cos(p[2]/2), 0), complex(0, -math.Sin(p[2]/2))
		sum, diff := cmplx.Exp(complex(0, p[0]+p[1])), cmplx.Exp(complex(0, p[0]-p[1]))
		return sim.Gate{Name: "ms", Matrix: []complex128{
			c, 0, 0, s * cmplx.Conj(sum),
			0, c, s * diff, 0,
			0, s * cmplx.Conj(diff), c, 0,
			s * sum, 0, 0, c,
		}, Targets: slices.Clone(qs)}
	}},
	// cv is a controlled V (sx), the control first.
	"cv": {0, 2, func(p []float64, qs []int) sim.Gate {
		h := complex(0.5, 0.5)
		return sim.Gate{Name: "cv", Matrix: []complex128{h, cmplx.Conj(h), cmplx.Conj(h), h},
			Targets: []int{qs[1]}, Controls: []sim.Control{{Qubit: qs[0]}}}
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
