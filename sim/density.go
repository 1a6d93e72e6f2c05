package sim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
)

// The density-matrix method holds ρ of n qubits as a state vector of 2n
// qubits: amplitude r + c·2^n is ρ[r][c], the row's bits on qubits 0…n−1
// and the column's on n…2n−1. Then UρU† is U on the row bits and conj(U)
// on the column bits (controls mirrored too), and a channel Σ KρK† is the
// matrix Σ conj(K) ⊗ K on its qubits' row and column bits: every one of
// them an ordinary gate of the doubled circuit, which the state vector's
// fusion and kernels apply. Fusing them is exact here, channels included:
// the product of those matrices is the composition of the maps, so every
// gate still gets its noise, and in order. (On the state vector a channel
// is not a matrix, and no gate is fused across one.)
//
// The doubled operations are built a chunk at a time, as the state
// vector's head is fused (applyHead), so that a long circuit never holds
// twice its operations.

// densityBytes is what the density matrix of n qubits holds: ρ, and the
// state of 2^n amplitudes its diagonal is sampled from.
func densityBytes(n int, p Precision) int64 {
	return addSat(p.bytesPerAmplitude()<<(2*n), p.bytesPerAmplitude()<<n)
}

// checkDensity reports whether the density matrix of n qubits in
// precision p is allowed: n within MaxQubits, and ρ (with the state it is
// sampled through) within the memory budget.
func (l Limits) checkDensity(n int, p Precision) error {
	if err := l.CheckPrecision(n, p); err != nil {
		return err
	}
	if 2*n > hardMaxQubits {
		return fmt.Errorf("%w: the density matrix of %d qubits has 4^%d amplitudes", ErrMemoryBudget, n, n)
	}
	if b := densityBytes(n, p); b > l.budget() {
		return fmt.Errorf("%w: the density matrix of %d qubits needs %s, the budget is %s", ErrMemoryBudget, n, byteSize(b), byteSize(l.budget()))
	}
	return nil
}

// DensityMatrix is the density matrix ρ of n qubits, little-endian as a
// State: bit q of a row or column index is qubit q.
type DensityMatrix struct {
	n   int
	rho *State // 2n qubits: amplitude r + c·2^n is ρ[r][c]
}

// NumQubits is n.
func (d *DensityMatrix) NumQubits() int { return d.n }

// At is ρ[r][c].
func (d *DensityMatrix) At(r, c int) complex128 { return d.rho.Amplitude(r | c<<d.n) }

// Probabilities returns ρ's diagonal, the probability of each basis state
// (a new slice of 2^n).
func (d *DensityMatrix) Probabilities() []float64 {
	p := make([]float64, 1<<d.n)
	for i := range p {
		p[i] = real(d.At(i, i))
	}
	return p
}

// newDensity returns ρ = |0…0⟩⟨0…0| on n qubits, after checking its size
// against opts.Limits; ctx as newRunState.
func newDensity(ctx context.Context, n int, opts Options) (*State, error) {
	if err := opts.Limits.checkDensity(n, opts.Precision); err != nil {
		return nil, err
	}
	return newRunState(ctx, 2*n, opts.Precision, Limits{MaxQubits: 2 * n, MemoryBudget: math.MaxInt64}, opts.Workers)
}

// SimulateDensityMatrix returns the exact final density matrix of c, its
// channels and resets applied, its measurements left out as Simulate
// leaves them out: a circuit the density-matrix method can run (see
// MethodDensityMatrix), in the Limits, Workers, Precision and FusionWidth
// of opts, with opts.Noise's channels (its readout errors are in the
// counts Run draws, not in ρ). ctx is checked between and within
// operations.
func SimulateDensityMatrix(ctx context.Context, c *Circuit, opts Options) (*DensityMatrix, error) {
	c, _, err := withNoise(ctx, c, opts)
	if err != nil {
		return nil, err
	}
	sh, err := checked(ctx, c, opts.Precision, opts.Limits.checkDensity)
	if err != nil {
		return nil, err
	}
	if _, _, err := chooseMethod(c, sh, Options{Method: MethodDensityMatrix}); err != nil {
		return nil, err
	}
	rho, err := newDensity(ctx, c.NumQubits, opts)
	if err != nil {
		return nil, err
	}
	if err := evolveDensity(ctx, c, rho, opts.fusion(), nil); err != nil {
		return nil, err
	}
	return &DensityMatrix{n: c.NumQubits, rho: rho}, nil
}

// runDensity runs c on the density matrix and samples shots outcomes from
// its diagonal, keyed as sample keys them (source).
func runDensity(ctx context.Context, c *Circuit, opts Options, src *rand.PCG, source []int, readout []float64, lim outcomeLimit, budget *workBudget) (map[string]int, error) {
	rho, err := newDensity(ctx, c.NumQubits, opts)
	if err != nil {
		return nil, err
	}
	if err := evolveDensity(ctx, c, rho, opts.fusion(), budget); err != nil {
		return nil, err
	}
	if err := budget.charge(passWork(c.NumQubits, 1)); err != nil {
		return nil, err
	}
	diag, err := diagonalState(ctx, rho, c.NumQubits)
	if err != nil {
		return nil, err
	}
	counts, err := sample(ctx, diag, src, opts.Shots, source, lim)
	if err != nil || readout == nil {
		return counts, err
	}
	return misreadCounts(ctx, counts, readout, rand.New(src), lim)
}

// diagonalState is the state whose amplitudes are √ρ[i][i]: sampling it is
// sampling ρ's measurement in the computational basis. Rounding may leave
// a diagonal entry a hair below 0; it counts as 0.
func diagonalState(ctx context.Context, rho *State, n int) (*State, error) {
	s, err := NewStatePrecision(n, rho.prec, Limits{MaxQubits: n, MemoryBudget: math.MaxInt64})
	if err != nil {
		return nil, err
	}
	err = chunked(ctx, 1<<n, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			p := real(rho.v.amplitude(i | i<<n))
			s.v.set(i, complex(math.Sqrt(max(p, 0)), 0))
		}
	})
	return s, err
}

// evolveDensity applies c's gates, channels and resets to ρ (rho, on 2n
// qubits) in order, fused a chunk at a time and each chunk charged to
// budget (nil: no bound) before it is applied. Measurements are left to
// the sampling of the diagonal: the density-matrix method runs only
// circuits whose measurements are terminal.
func evolveDensity(ctx context.Context, c *Circuit, rho *State, f fusion, budget *workBudget) error {
	n := c.NumQubits
	// buf holds the chunk's doubled operations, run the chunk in order:
	// pointers into c and into buf, which never grows past its capacity
	// (a chunk is flushed first), so the pointers stay valid.
	buf := make([]Op, 0, headChunk)
	run := make([]*Op, 0, headChunk)
	// A noise model puts one channel after every gate: its matrix on the
	// doubled state is built once a chunk.
	supers := make(map[*Channel][]complex128)
	flush := func() error {
		if len(run) == 0 {
			return nil
		}
		ks, err := fuseBest(ctx, run, 2*n, f)
		buf, run = buf[:0], run[:0]
		clear(supers)
		if err != nil {
			return err
		}
		if budget != nil {
			if err := budget.charge(headWork(ks, 2*n)); err != nil {
				return err
			}
		}
		return rho.applyAll(ctx, ks)
	}
	tick := ticker{ctx: ctx}
	for i := range c.Ops {
		if err := tick.tick(); err != nil {
			return err
		}
		op := &c.Ops[i]
		if op.Kind == OpBarrier || len(run)+maxDoubled > headChunk {
			if err := flush(); err != nil {
				return err
			}
		}
		from := len(buf)
		switch op.Kind {
		case OpGate:
			buf = append(buf, mirror(op, n))
			run = append(run, op)
		case OpNoise:
			var qs [2]int
			for j := range op.NumTargets() {
				qs[j] = op.TargetAt(j)
			}
			buf = appendChannel(buf, op.Channel(), qs[:op.NumTargets()], n, supers)
		case OpReset:
			buf = appendChannel(buf, resetChannel, []int{op.Qubit()}, n, supers)
		}
		for j := from; j < len(buf); j++ {
			run = append(run, &buf[j])
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return ctx.Err()
}

// maxDoubled is the most operations of the doubled circuit one operation
// becomes: a two-qubit Pauli channel's five.
const maxDoubled = 5

// mirror is the gate conj(U) on the column bits of ρ for the gate op
// (U on qubits q): its targets and controls moved to q+n.
func mirror(op *Op, n int) Op {
	m := op.matrix()
	if !op.wide() && isReal(m) {
		// The same gate, moved: a standard gate stays its parameters.
		out := *op
		for i := range op.numQubits() {
			out.q[i] += int32(n)
		}
		return out
	}
	g := op.gate()
	if !isReal(m) {
		g.Matrix = conjugate(m)
	}
	for i := range g.Targets {
		g.Targets[i] += n
	}
	for i := range g.Controls {
		g.Controls[i].Qubit += n
	}
	return GateOp(g)
}

func isReal(m []complex128) bool {
	for _, v := range m {
		if imag(v) != 0 {
			return false
		}
	}
	return true
}

// appendChannel appends to buf the gates that apply ch to qubits of ρ.
// A channel on one qubit is its superoperator, a 4×4 on the qubit's row
// and column bits. On two qubits a dense 16×16 costs sixteen
// multiplications an amplitude, where a Pauli channel need not: in the
// Pauli basis its superoperator is diagonal, Q → λ_Q·Q with λ_Q = Σ_P p_P
// (+1 where P and Q commute, −1 where they do not), so it is the change to
// that basis on each qubit's row and column bits (pauliBasis), a diagonal
// on the four bits, and the change back: five light gates, which fusion
// may merge with their neighbours.
func appendChannel(buf []Op, ch *Channel, qubits []int, n int, supers map[*Channel][]complex128) []Op {
	if ch.k == 2 && ch.pauli != nil {
		targets := []int{qubits[0], qubits[1], qubits[0] + n, qubits[1] + n}
		buf = append(buf, GateOp(Gate{Name: "pauli basis", Matrix: pauliBasis, Targets: []int{qubits[0], qubits[0] + n}}))
		buf = append(buf, GateOp(Gate{Name: "pauli basis", Matrix: pauliBasis, Targets: []int{qubits[1], qubits[1] + n}}))
		buf = append(buf, GateOp(Gate{Name: ch.name, Matrix: cached(supers, ch, ch.pauliEigenvalues), Targets: targets}))
		buf = append(buf, GateOp(Gate{Name: "pauli basis", Matrix: pauliBasisBack, Targets: []int{qubits[0], qubits[0] + n}}))
		return append(buf, GateOp(Gate{Name: "pauli basis", Matrix: pauliBasisBack, Targets: []int{qubits[1], qubits[1] + n}}))
	}
	targets := make([]int, 0, 2*len(qubits))
	targets = append(targets, qubits...)
	for _, q := range qubits {
		targets = append(targets, q+n)
	}
	return append(buf, GateOp(Gate{Name: ch.name, Matrix: cached(supers, ch, ch.superoperator), Targets: targets}))
}

// cached is the channel's matrix that build builds, once a chunk.
func cached(supers map[*Channel][]complex128, ch *Channel, build func() []complex128) []complex128 {
	m, ok := supers[ch]
	if !ok {
		m = build()
		supers[ch] = m
	}
	return m
}

// pauliBasis is the unitary from a qubit's row and column bits of ρ (r on
// its low bit, c on its high bit) to its Pauli coefficients: row Q is
// Tr(Qρ)/√2 = Σ Q[c][r]·ρ[r][c]/√2, Q = I, X, Y, Z by index.
// pauliBasisBack is its inverse, its adjoint.
var pauliBasis, pauliBasisBack = func() ([]complex128, []complex128) {
	u := make([]complex128, 16)
	for q := range 4 {
		for r := range 2 {
			for c := range 2 {
				u[q*4+r+2*c] = paulis[q][c*2+r] / complex(math.Sqrt2, 0)
			}
		}
	}
	return u, Dagger(u)
}()

// pauliEigenvalues is the two-qubit Pauli channel's superoperator in the
// Pauli basis, a diagonal on the bits (Q0 low, Q1 low, Q0 high, Q1 high)
// that pauliBasis leaves on (q0, q1, q0+n, q1+n), as a 16×16 matrix.
func (ch *Channel) pauliEigenvalues() []complex128 {
	m := make([]complex128, 256)
	for i := range 16 {
		q := i&1 | i>>2&1<<1 | (i>>1&1|i>>3&1<<1)<<2 // Q0 | Q1<<2
		var lambda float64
		for p, prob := range ch.pauli {
			if paulisCommute(p, q, 2) {
				lambda += prob
			} else {
				lambda -= prob
			}
		}
		m[i*16+i] = complex(lambda, 0)
	}
	return m
}

// paulisCommute reports whether the Paulis of indices a and b on k qubits
// commute: they anticommute on an odd number of qubits.
func paulisCommute(a, b, k int) bool {
	odd := false
	for j := range k {
		x, y := a>>(2*j)&3, b>>(2*j)&3
		if x != 0 && y != 0 && x != y {
			odd = !odd
		}
	}
	return !odd
}
