package sim_test

import (
	"math"
	"math/cmplx"

	"github.com/qjobs/quantum/internal/noiseref"
	"github.com/qjobs/quantum/sim"
)

// The reference density-matrix simulator is internal/noiseref, plain
// matrix algebra written apart from sim: every operation embedded as a
// full 2^n × 2^n matrix, and ρ → Σ K ρ K† by dense products. It is slow
// (8^n an operation) and obviously right, which is what the noise tests
// compare the simulator's two methods with. The channels' Kraus matrices
// are written here again from decisions.md, not read from sim.

// refOp is a gate (one matrix) or a channel (its Kraus matrices) on
// qubits, qubit j the bit j of the matrices' index, as NoiseOp takes them.
type refOp struct {
	kraus  [][]complex128
	qubits []int
}

// refBuilder builds a circuit and its reference operations side by side.
type refBuilder struct {
	c   *sim.Circuit
	ops []refOp
}

func newRefBuilder(n int) *refBuilder { return &refBuilder{c: &sim.Circuit{NumQubits: n}} }

// gate appends the gate m on qubits to both.
func (b *refBuilder) gate(m []complex128, qubits ...int) *refBuilder {
	b.c.Apply(sim.Gate{Name: "m", Matrix: m, Targets: qubits})
	b.ops = append(b.ops, refOp{kraus: [][]complex128{m}, qubits: qubits})
	return b
}

// noise appends the channel ch to the circuit and kraus, its definition
// written in the test, to the reference.
func (b *refBuilder) noise(ch *sim.Channel, kraus [][]complex128, qubits ...int) *refBuilder {
	b.c.Append(sim.NoiseOp(ch, qubits...))
	b.ops = append(b.ops, refOp{kraus: kraus, qubits: qubits})
	return b
}

// reset appends a reset of q: Kraus |0⟩⟨0| and |0⟩⟨1|.
func (b *refBuilder) reset(q int) *refBuilder {
	b.c.Reset(q)
	b.ops = append(b.ops, refOp{kraus: [][]complex128{{1, 0, 0, 0}, {0, 1, 0, 0}}, qubits: []int{q}})
	return b
}

// rho is the reference density matrix after the operations, row-major.
func (b *refBuilder) rho() []complex128 {
	r := noiseref.New(b.c.NumQubits)
	for _, op := range b.ops {
		r.Channel(op.kraus, op.qubits...)
	}
	return r.Rho()
}

// probs is the diagonal of rho keyed by bit string, qubit 0 rightmost.
func refProbs(rho []complex128, n int) map[string]float64 {
	d := 1 << n
	out := make(map[string]float64, d)
	for i := range d {
		out[bitString(i, n)] = real(rho[i*d+i])
	}
	return out
}

func bitString(i, n int) string {
	b := make([]byte, n)
	for q := range n {
		b[n-1-q] = '0' + byte(i>>q&1)
	}
	return string(b)
}

// The matrix algebra of the reference (internal/noiseref).
var (
	mul   = noiseref.Mul
	scale = noiseref.Scale
	kron  = noiseref.Kron
)

// The matrices the tests build circuits and channels from.
var (
	mI = []complex128{1, 0, 0, 1}
	mX = []complex128{0, 1, 1, 0}
	mY = []complex128{0, -1i, 1i, 0}
	mZ = []complex128{1, 0, 0, -1}
	mH = []complex128{complex(1/math.Sqrt2, 0), complex(1/math.Sqrt2, 0), complex(1/math.Sqrt2, 0), complex(-1/math.Sqrt2, 0)}
	// cx01 is CX with control target 0 and target target 1.
	cx01 = []complex128{
		1, 0, 0, 0,
		0, 0, 0, 1,
		0, 0, 1, 0,
		0, 1, 0, 0,
	}
)

func ry(t float64) []complex128 {
	c, s := complex(math.Cos(t/2), 0), complex(math.Sin(t/2), 0)
	return []complex128{c, -s, s, c}
}

func rx(t float64) []complex128 {
	c, s := complex(math.Cos(t/2), 0), complex(0, -math.Sin(t/2))
	return []complex128{c, s, s, c}
}

// u is a general single-qubit unitary with complex entries.
func u(theta, phi, lambda float64) []complex128 {
	c, s := math.Cos(theta/2), math.Sin(theta/2)
	return []complex128{
		complex(c, 0), -cmplx.Exp(complex(0, lambda)) * complex(s, 0),
		cmplx.Exp(complex(0, phi)) * complex(s, 0), cmplx.Exp(complex(0, phi+lambda)) * complex(c, 0),
	}
}
