package noiseref

import "math"

// Gates, qubit j the bit j of the index; two-qubit controlled gates with
// the control as qubit 0 of the pair (the first named).
var (
	I = []complex128{1, 0, 0, 1}
	X = []complex128{0, 1, 1, 0}
	Y = []complex128{0, -1i, 1i, 0}
	Z = []complex128{1, 0, 0, -1}
	H = []complex128{complex(1/math.Sqrt2, 0), complex(1/math.Sqrt2, 0), complex(1/math.Sqrt2, 0), complex(-1/math.Sqrt2, 0)}
	S = []complex128{1, 0, 0, 1i}
	// CX is controlled-X, the control qubit 0 of the pair.
	CX = []complex128{
		1, 0, 0, 0,
		0, 0, 0, 1,
		0, 0, 1, 0,
		0, 1, 0, 0,
	}
	// CZ is controlled-Z.
	CZ = []complex128{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, -1}
)

// RY is a rotation about Y by t.
func RY(t float64) []complex128 {
	c, s := complex(math.Cos(t/2), 0), complex(math.Sin(t/2), 0)
	return []complex128{c, -s, s, c}
}

// RX is a rotation about X by t.
func RX(t float64) []complex128 {
	c, s := complex(math.Cos(t/2), 0), complex(0, -math.Sin(t/2))
	return []complex128{c, s, s, c}
}

// The channels of decisions.md, "Noise", as Kraus matrices.

func BitFlip(p float64) [][]complex128   { return [][]complex128{Scale(I, sq(1-p)), Scale(X, sq(p))} }
func PhaseFlip(p float64) [][]complex128 { return [][]complex128{Scale(I, sq(1-p)), Scale(Z, sq(p))} }

func Depolarizing(p float64) [][]complex128 {
	return [][]complex128{Scale(I, sq(1-p)), Scale(X, sq(p/3)), Scale(Y, sq(p/3)), Scale(Z, sq(p/3))}
}

// TwoQubitDepolarizing is (1−p)ρ + p/15 Σ PρP over the 15 Paulis ≠ I⊗I.
func TwoQubitDepolarizing(p float64) [][]complex128 {
	ps := [][]complex128{I, X, Y, Z}
	out := [][]complex128{Scale(Kron(I, I), sq(1-p))}
	for i := 1; i < 16; i++ {
		out = append(out, Scale(Kron(ps[i/4], ps[i%4]), sq(p/15)))
	}
	return out
}

func AmplitudeDamping(g float64) [][]complex128 {
	return [][]complex128{{1, 0, 0, complex(sq(1-g), 0)}, {0, complex(sq(g), 0), 0, 0}}
}

func PhaseDamping(g float64) [][]complex128 {
	return [][]complex128{{1, 0, 0, complex(sq(1-g), 0)}, {0, 0, 0, complex(sq(g), 0)}}
}
