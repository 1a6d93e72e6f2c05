package sim

import (
	"fmt"
	"math"
	"math/cmplx"
	"slices"
)

// StdGate is a gate of OpenQASM's standard libraries (stdgates.inc and
// qelib1.inc), as a front end looks it up by name.
type StdGate struct {
	Name      string
	NumParams int
	// NumQubits is the number of qubit arguments; the first NumControls of
	// them are controls on |1⟩, the rest are targets of Matrix.
	NumQubits   int
	NumControls int
	matrix      func(p []float64) []complex128

	// What an Op of the gate needs without building its matrix: its
	// index in stdTable plus one, whether its matrix is diagonal for every
	// parameter, and for a gate without parameters its matrix and adjoint,
	// built once and shared.
	id              uint8
	diagonal        bool
	fixed, fixedAdj []complex128
}

// Matrix returns the unitary on the gate's targets for the parameters p
// (len(p) must be NumParams). The first target is the lowest bit of the
// matrix index.
func (s StdGate) Matrix(p ...float64) []complex128 { return s.matrix(p) }

// FullMatrix returns the unitary on all NumQubits arguments, controls
// included, with argument 0 as the lowest bit of the index.
func (s StdGate) FullMatrix(p ...float64) []complex128 {
	m := s.matrix(p)
	// ControlledMatrix puts the controls on the high bits; the gate's
	// controls are its first arguments. Bit b of full's index holds target
	// b for b < nt, else control b−nt; move each to its argument's bit.
	full := ControlledMatrix(m, s.NumControls)
	nt := s.NumQubits - s.NumControls
	perm := make([]int, s.NumQubits)
	for b := range s.NumQubits {
		if b < nt {
			perm[b] = s.NumControls + b
		} else {
			perm[b] = b - nt
		}
	}
	return PermuteQubits(full, perm)
}

// Gate builds the IR gate that applies s with parameters p to qubits.
func (s StdGate) Gate(p []float64, qubits ...int) (Gate, error) {
	if len(p) != s.NumParams {
		return Gate{}, fmt.Errorf("gate %q takes %d parameters, got %d", s.Name, s.NumParams, len(p))
	}
	if len(qubits) != s.NumQubits {
		return Gate{}, fmt.Errorf("gate %q takes %d qubits, got %d", s.Name, s.NumQubits, len(qubits))
	}
	g := Gate{Name: s.Name, Matrix: s.matrix(p), Targets: slices.Clone(qubits[s.NumControls:])}
	for _, q := range qubits[:s.NumControls] {
		g.Controls = append(g.Controls, Control{Qubit: q})
	}
	return g, nil
}

// PermuteQubits returns m (on k qubits) with its qubits renumbered: bit a of
// m's index becomes bit perm[a] of the result's.
func PermuteQubits(m []complex128, perm []int) []complex128 {
	d := matDim(m)
	mapIdx := func(i int) int {
		j := 0
		for a, p := range perm {
			if i>>a&1 == 1 {
				j |= 1 << p
			}
		}
		return j
	}
	out := make([]complex128, len(m))
	for i := range d {
		for j := range d {
			out[mapIdx(i)*d+mapIdx(j)] = m[i*d+j]
		}
	}
	return out
}

// LookupGate returns the standard gate with the given name.
func LookupGate(name string) (StdGate, bool) {
	g, ok := stdGates[name]
	return g, ok
}

// StdGateNames lists the names LookupGate knows, sorted.
func StdGateNames() []string {
	names := make([]string, 0, len(stdGates))
	for n := range stdGates {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Single-qubit matrices, textbook conventions (as Qiskit and Braket use them).

// U3 is OpenQASM's U(θ, φ, λ).
func U3(theta, phi, lambda float64) []complex128 {
	c, s := math.Cos(theta/2), math.Sin(theta/2)
	return []complex128{
		complex(c, 0), -cmplx.Exp(complex(0, lambda)) * complex(s, 0),
		cmplx.Exp(complex(0, phi)) * complex(s, 0), cmplx.Exp(complex(0, phi+lambda)) * complex(c, 0),
	}
}

// Phase is diag(1, e^{iλ}).
func Phase(lambda float64) []complex128 {
	return []complex128{1, 0, 0, cmplx.Exp(complex(0, lambda))}
}

// RX, RY and RZ are rotations exp(−iθσ/2).
func RX(t float64) []complex128 {
	c, s := math.Cos(t/2), math.Sin(t/2)
	return []complex128{complex(c, 0), complex(0, -s), complex(0, -s), complex(c, 0)}
}

func RY(t float64) []complex128 {
	c, s := math.Cos(t/2), math.Sin(t/2)
	return []complex128{complex(c, 0), complex(-s, 0), complex(s, 0), complex(c, 0)}
}

func RZ(t float64) []complex128 {
	return []complex128{cmplx.Exp(complex(0, -t/2)), 0, 0, cmplx.Exp(complex(0, t/2))}
}

// GlobalPhase is the 1×1 matrix e^{iθ}: a gate with no targets.
func GlobalPhase(theta float64) []complex128 {
	return []complex128{cmplx.Exp(complex(0, theta))}
}

var (
	matI    = []complex128{1, 0, 0, 1}
	matX    = []complex128{0, 1, 1, 0}
	matY    = []complex128{0, -1i, 1i, 0}
	matZ    = []complex128{1, 0, 0, -1}
	matH    = []complex128{complex(math.Sqrt2/2, 0), complex(math.Sqrt2/2, 0), complex(math.Sqrt2/2, 0), complex(-math.Sqrt2/2, 0)}
	matS    = []complex128{1, 0, 0, 1i}
	matSdg  = []complex128{1, 0, 0, -1i}
	matT    = Phase(math.Pi / 4)
	matTdg  = Phase(-math.Pi / 4)
	matSX   = []complex128{complex(0.5, 0.5), complex(0.5, -0.5), complex(0.5, -0.5), complex(0.5, 0.5)}
	matSXdg = []complex128{complex(0.5, -0.5), complex(0.5, 0.5), complex(0.5, 0.5), complex(0.5, -0.5)}
	// matSwap exchanges two qubits.
	matSwap = []complex128{
		1, 0, 0, 0,
		0, 0, 1, 0,
		0, 1, 0, 0,
		0, 0, 0, 1,
	}
)

func fixed(m []complex128) func([]float64) []complex128 {
	return func([]float64) []complex128 { return slices.Clone(m) }
}

// twoQubitRot is exp(−iθ/2 · P⊗P) for a Pauli P, the matrix of rxx, ryy, rzz.
func twoQubitRot(p []complex128, theta float64) []complex128 {
	pp := Kron(p, p)
	c, s := math.Cos(theta/2), math.Sin(theta/2)
	out := Identity(4)
	for i := range out {
		out[i] = complex(c, 0)*out[i] - complex(0, s)*pp[i]
	}
	return out
}

// compose builds the matrix of a sequence of standard gates on k qubits,
// applied in order; each step names a gate, its parameters and its qubits.
type step struct {
	name   string
	params []float64
	qubits []int
}

func compose(k int, steps ...step) []complex128 {
	out := Identity(1 << k)
	for _, st := range steps {
		g := stdGates[st.name]
		m := g.FullMatrix(st.params...)
		// Embed on the k qubits: st.qubits[a] is where argument a goes.
		rest := make([]int, 0, k)
		for q := range k {
			if !slices.Contains(st.qubits, q) {
				rest = append(rest, q)
			}
		}
		full := Kron(Identity(1<<len(rest)), m)
		perm := append(slices.Clone(st.qubits), rest...)
		out = MatMul(PermuteQubits(full, perm), out)
	}
	return out
}

var (
	stdGates = map[string]StdGate{}
	// stdTable holds the standard gates by id − 1, for Op.
	stdTable []StdGate
)

func def(name string, params, qubits, controls int, m func([]float64) []complex128) {
	g := StdGate{Name: name, NumParams: params, NumQubits: qubits, NumControls: controls, matrix: m}
	g.id = uint8(len(stdTable) + 1)
	if params == 0 {
		g.fixed = m(nil)
		g.fixedAdj = Dagger(g.fixed)
		g.diagonal = isDiagonal(g.fixed)
	} else {
		// Diagonal at two unrelated points means diagonal everywhere for
		// these gates: their off-diagonal entries are sines of the
		// parameters or zero.
		g.diagonal = isDiagonal(m([]float64{0.7, 1.3, 2.9, 0.4}[:params])) &&
			isDiagonal(m([]float64{2.1, -0.6, 1.7, 3.3}[:params]))
	}
	stdTable = append(stdTable, g)
	stdGates[name] = g
}

func init() {
	// One-qubit gates.
	def("id", 0, 1, 0, fixed(matI))
	def("u0", 1, 1, 0, func([]float64) []complex128 { return slices.Clone(matI) })
	def("x", 0, 1, 0, fixed(matX))
	def("y", 0, 1, 0, fixed(matY))
	def("z", 0, 1, 0, fixed(matZ))
	def("h", 0, 1, 0, fixed(matH))
	def("s", 0, 1, 0, fixed(matS))
	def("sdg", 0, 1, 0, fixed(matSdg))
	def("t", 0, 1, 0, fixed(matT))
	def("tdg", 0, 1, 0, fixed(matTdg))
	def("sx", 0, 1, 0, fixed(matSX))
	def("sxdg", 0, 1, 0, fixed(matSXdg))
	def("rx", 1, 1, 0, func(p []float64) []complex128 { return RX(p[0]) })
	def("ry", 1, 1, 0, func(p []float64) []complex128 { return RY(p[0]) })
	def("rz", 1, 1, 0, func(p []float64) []complex128 { return RZ(p[0]) })
	def("p", 1, 1, 0, func(p []float64) []complex128 { return Phase(p[0]) })
	def("phase", 1, 1, 0, func(p []float64) []complex128 { return Phase(p[0]) })
	def("u1", 1, 1, 0, func(p []float64) []complex128 { return Phase(p[0]) })
	def("u2", 2, 1, 0, func(p []float64) []complex128 { return U3(math.Pi/2, p[0], p[1]) })
	def("u3", 3, 1, 0, func(p []float64) []complex128 { return U3(p[0], p[1], p[2]) })
	def("u", 3, 1, 0, func(p []float64) []complex128 { return U3(p[0], p[1], p[2]) })
	def("U", 3, 1, 0, func(p []float64) []complex128 { return U3(p[0], p[1], p[2]) })

	// Controlled one-qubit gates: the control is the first argument.
	def("cx", 0, 2, 1, fixed(matX))
	def("CX", 0, 2, 1, fixed(matX))
	def("cnot", 0, 2, 1, fixed(matX))
	def("cy", 0, 2, 1, fixed(matY))
	def("cz", 0, 2, 1, fixed(matZ))
	def("ch", 0, 2, 1, fixed(matH))
	def("cs", 0, 2, 1, fixed(matS))
	def("csdg", 0, 2, 1, fixed(matSdg))
	def("csx", 0, 2, 1, fixed(matSX))
	def("cp", 1, 2, 1, func(p []float64) []complex128 { return Phase(p[0]) })
	def("cphase", 1, 2, 1, func(p []float64) []complex128 { return Phase(p[0]) })
	def("cu1", 1, 2, 1, func(p []float64) []complex128 { return Phase(p[0]) })
	def("crx", 1, 2, 1, func(p []float64) []complex128 { return RX(p[0]) })
	def("cry", 1, 2, 1, func(p []float64) []complex128 { return RY(p[0]) })
	def("crz", 1, 2, 1, func(p []float64) []complex128 { return RZ(p[0]) })
	def("cu3", 3, 2, 1, func(p []float64) []complex128 { return U3(p[0], p[1], p[2]) })
	// cu(θ, φ, λ, γ) is controlled e^{iγ}·U(θ, φ, λ).
	def("cu", 4, 2, 1, func(p []float64) []complex128 {
		m := U3(p[0], p[1], p[2])
		g := cmplx.Exp(complex(0, p[3]))
		for i := range m {
			m[i] *= g
		}
		return m
	})

	// Multi-controlled gates.
	def("ccx", 0, 3, 2, fixed(matX))
	def("toffoli", 0, 3, 2, fixed(matX))
	def("ccz", 0, 3, 2, fixed(matZ))
	def("c3x", 0, 4, 3, fixed(matX))
	def("c4x", 0, 5, 4, fixed(matX))
	def("c3sqrtx", 0, 4, 3, fixed(matSX))
	def("cswap", 0, 3, 1, fixed(matSwap))
	def("fredkin", 0, 3, 1, fixed(matSwap))

	// Two-qubit gates.
	def("swap", 0, 2, 0, fixed(matSwap))
	def("iswap", 0, 2, 0, fixed([]complex128{1, 0, 0, 0, 0, 0, 1i, 0, 0, 1i, 0, 0, 0, 0, 0, 1}))
	def("rxx", 1, 2, 0, func(p []float64) []complex128 { return twoQubitRot(matX, p[0]) })
	def("ryy", 1, 2, 0, func(p []float64) []complex128 { return twoQubitRot(matY, p[0]) })
	def("rzz", 1, 2, 0, func(p []float64) []complex128 { return twoQubitRot(matZ, p[0]) })
	// rzx(θ) = exp(−iθ/2 · Z⊗X) with Z on the first argument and X on the
	// second, as Qiskit's RZXGate.
	def("rzx", 1, 2, 0, func(p []float64) []complex128 {
		zx := Kron(matX, matZ) // Kron's left factor is the high bit: argument 1
		c, s := math.Cos(p[0]/2), math.Sin(p[0]/2)
		out := Identity(4)
		for i := range out {
			out[i] = complex(c, 0)*out[i] - complex(0, s)*zx[i]
		}
		return out
	})
	def("dcx", 0, 2, 0, func([]float64) []complex128 {
		return compose(2, step{"cx", nil, []int{0, 1}}, step{"cx", nil, []int{1, 0}})
	})
	def("ecr", 0, 2, 0, func([]float64) []complex128 {
		return compose(2,
			step{"rzx", []float64{math.Pi / 4}, []int{0, 1}},
			step{"x", nil, []int{0}},
			step{"rzx", []float64{-math.Pi / 4}, []int{0, 1}})
	})

	// Relative-phase Toffolis of qelib1.inc, from their definitions there.
	def("rccx", 0, 3, 0, func([]float64) []complex128 {
		return compose(3,
			step{"u2", []float64{0, math.Pi}, []int{2}},
			step{"u1", []float64{math.Pi / 4}, []int{2}},
			step{"cx", nil, []int{1, 2}},
			step{"u1", []float64{-math.Pi / 4}, []int{2}},
			step{"cx", nil, []int{0, 2}},
			step{"u1", []float64{math.Pi / 4}, []int{2}},
			step{"cx", nil, []int{1, 2}},
			step{"u1", []float64{-math.Pi / 4}, []int{2}},
			step{"u2", []float64{0, math.Pi}, []int{2}})
	})
	def("rc3x", 0, 4, 0, func([]float64) []complex128 {
		return compose(4,
			step{"u2", []float64{0, math.Pi}, []int{3}},
			step{"u1", []float64{math.Pi / 4}, []int{3}},
			step{"cx", nil, []int{2, 3}},
			step{"u1", []float64{-math.Pi / 4}, []int{3}},
			step{"u2", []float64{0, math.Pi}, []int{3}},
			step{"cx", nil, []int{0, 3}},
			step{"u1", []float64{math.Pi / 4}, []int{3}},
			step{"cx", nil, []int{1, 3}},
			step{"u1", []float64{-math.Pi / 4}, []int{3}},
			step{"cx", nil, []int{0, 3}},
			step{"u1", []float64{math.Pi / 4}, []int{3}},
			step{"cx", nil, []int{1, 3}},
			step{"u1", []float64{-math.Pi / 4}, []int{3}},
			step{"u2", []float64{0, math.Pi}, []int{3}},
			step{"u1", []float64{math.Pi / 4}, []int{3}},
			step{"cx", nil, []int{2, 3}},
			step{"u1", []float64{-math.Pi / 4}, []int{3}},
			step{"u2", []float64{0, math.Pi}, []int{3}})
	})
}
