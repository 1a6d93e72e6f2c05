package ionq

import (
	"math"
	"math/cmplx"
)

// qisGate is a gate of the QIS gateset: sim's standard gate of the same
// matrix, the targets it takes, whether it takes a rotation, and the
// controls its name implies (cx is x with a control; ccnot x with two).
type qisGate struct {
	sim      string
	targets  int
	rotation bool
	controls int
}

var qisGates = map[string]qisGate{
	"x": {"x", 1, false, 0}, "y": {"y", 1, false, 0}, "z": {"z", 1, false, 0}, "h": {"h", 1, false, 0},
	"not": {"x", 1, false, 0}, "id": {"id", 1, false, 0},
	"s": {"s", 1, false, 0}, "si": {"sdg", 1, false, 0}, "t": {"t", 1, false, 0}, "ti": {"tdg", 1, false, 0},
	"v": {"sx", 1, false, 0}, "vi": {"sxdg", 1, false, 0},
	"rx": {"rx", 1, true, 0}, "ry": {"ry", 1, true, 0}, "rz": {"rz", 1, true, 0},
	"swap": {"swap", 2, false, 0},
	"xx":   {"rxx", 2, true, 0}, "yy": {"ryy", 2, true, 0}, "zz": {"rzz", 2, true, 0},
	"cnot": {"x", 1, false, 1}, "cx": {"x", 1, false, 1}, "cy": {"y", 1, false, 1}, "cz": {"z", 1, false, 1},
	"crx": {"rx", 1, true, 1}, "cry": {"ry", 1, true, 1}, "crz": {"rz", 1, true, 1}, "ch": {"h", 1, false, 1},
	"cs": {"s", 1, false, 1}, "csi": {"sdg", 1, false, 1}, "ct": {"t", 1, false, 1}, "cti": {"tdg", 1, false, 1},
	"cv": {"sx", 1, false, 1}, "cvi": {"sxdg", 1, false, 1},
	"ccnot": {"x", 1, false, 2},
}

// nativeGates are the native gateset's gates and the targets each takes.
var nativeGates = map[string]int{"gpi": 1, "gpi2": 1, "ms": 2, "zz": 2}

// maxControls is IonQ's bound on a gate's controls.
const maxControls = 7

func turn(x float64) complex128 { return cmplx.Exp(complex(0, 2*math.Pi*x)) }

// gpi is GPI(φ) = [[0, e^{−2πiφ}], [e^{2πiφ}, 0]].
func gpi(phi float64) []complex128 { return []complex128{0, turn(-phi), turn(phi), 0} }

// gpi2 is GPI2(φ) = [[1, −i e^{−2πiφ}], [−i e^{2πiφ}, 1]]/√2.
func gpi2(phi float64) []complex128 {
	s := complex(1/math.Sqrt2, 0)
	return []complex128{s, -1i * s * turn(-phi), -1i * s * turn(phi), s}
}

// ms is MS(φ0, φ1, θ) in sim's order, its first target (φ0's) the least
// significant bit: cos πθ on the diagonal, −i sin πθ times e^{∓2πi(φ0+φ1)}
// in the corners and e^{±2πi(φ0−φ1)} in the middle.
func ms(phi0, phi1, theta float64) []complex128 {
	c, s := complex(math.Cos(math.Pi*theta), 0), complex(0, -math.Sin(math.Pi*theta))
	return []complex128{
		c, 0, 0, s * turn(-(phi0 + phi1)),
		0, c, s * turn(phi0-phi1), 0,
		0, s * turn(-(phi0 - phi1)), c, 0,
		s * turn(phi0+phi1), 0, 0, c,
	}
}

// nativeZZ is ZZ(θ) = diag(e^{−iπθ}, e^{iπθ}, e^{iπθ}, e^{−iπθ}).
func nativeZZ(theta float64) []complex128 {
	a, b := turn(-theta/2), turn(theta/2)
	return []complex128{a, 0, 0, 0, 0, b, 0, 0, 0, 0, b, 0, 0, 0, 0, a}
}
