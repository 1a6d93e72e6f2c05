package sim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
)

// A front end that cannot lower a program to a Circuit ahead of its run
// (QIR that reads its measurements: its next operation depends on them)
// drives a state itself, one operation at a time, shot after shot. Every
// method but the density matrix gives it one.

// ShotState is a state a front end drives one operation at a time.
type ShotState interface {
	NumQubits() int
	// ApplyOp applies a gate operation.
	ApplyOp(ctx context.Context, op Op) error
	// Measure measures qubit q, collapsing the state; rng draws the
	// outcome.
	Measure(ctx context.Context, q int, rng *rand.Rand) (bool, error)
	// ResetQubit returns qubit q to |0⟩.
	ResetQubit(ctx context.Context, q int, rng *rand.Rand) error
	// ApplyChannel applies one trajectory's draw of ch to qubits.
	ApplyChannel(ctx context.Context, ch *Channel, rng *rand.Rand, qubits ...int) error
	// ResetAll returns every qubit to |0⟩, for the next shot.
	ResetAll(ctx context.Context) error
	// Work is what an operation that passes k times over the state costs
	// now, in the units of Options.MaxWork.
	Work(k int) int64
	// Method is the method the state simulates by.
	Method() Method
}

// NewShotState returns a state of n qubits for method m (MethodAuto and
// MethodStateVector: a State), within opts' Limits and Precision. The
// density matrix has none: it runs whole circuits only.
func NewShotState(m Method, n int, opts Options) (ShotState, error) {
	if err := opts.checkMethod(m, n); err != nil {
		return nil, err
	}
	switch m {
	case MethodAuto, MethodStateVector:
		s, err := NewStatePrecision(n, opts.Precision, opts.Limits)
		if err != nil {
			return nil, err
		}
		if opts.Workers > 0 {
			s.SetWorkers(opts.Workers)
		}
		return s, nil
	case MethodSparse:
		s := newSparse(n, sparseShotMax(opts.Limits))
		if opts.Grow != nil {
			s.grow = newSparseGrowth(opts, 2*fixedBytes)
		}
		return &sparseShot{s}, nil
	case MethodStabilizer:
		return &tableauShot{t: newTableau(n)}, nil
	}
	return nil, fmt.Errorf("%w: the %s method runs whole circuits, not one operation at a time", ErrMethod, m)
}

// SparseShotNeed is what a sparse ShotState may hold at most: the whole
// memory budget, which its nonzero amplitudes may fill (its gates are
// known only as they come), and a front end's bookkeeping of up to
// 64 KiB beside them.
func SparseShotNeed(l Limits) int64 { return l.budget() }

// SparseShotStart is what a sparse ShotState made with Options.Grow holds
// from its start; it asks Grow for the rest as it grows, up to
// SparseShotNeed.
func SparseShotStart(l Limits) int64 {
	return min(2*fixedBytes+sparseStartEntries*SparseEntryBytes, SparseShotNeed(l))
}

// sparseShotMax is the nonzero amplitudes a sparse ShotState holds at
// most: SparseShotNeed but the front end's 64 KiB and ours.
func sparseShotMax(l Limits) int {
	return int(min(max(l.budget()-2*fixedBytes, 0)/SparseEntryBytes, math.MaxInt32))
}

// Work is PassWork of the state's qubits.
func (s *State) Work(k int) int64 { return PassWork(s.n, k) }

// Method is MethodStateVector.
func (s *State) Method() Method { return MethodStateVector }

// sparseShot is the sparse method's ShotState.
type sparseShot struct{ s *sparseState }

func (p *sparseShot) NumQubits() int { return p.s.n }
func (p *sparseShot) Method() Method { return MethodSparse }

// Work is k units a nonzero amplitude.
func (p *sparseShot) Work(k int) int64 { return int64(k) * int64(max(len(p.s.amp), 1)) }

func (p *sparseShot) ApplyOp(ctx context.Context, op Op) error {
	if op.Kind != OpGate {
		return fmt.Errorf("%w: ApplyOp takes gates, not %s", ErrInvalidCircuit, op.Kind)
	}
	if err := (&Circuit{NumQubits: p.s.n}).validateGate(&op); err != nil {
		return fmt.Errorf("%w: %s", ErrInvalidCircuit, err)
	}
	return p.s.apply(ctx, newSparseGate(op.matrix(), op.gateTargets(), op.gateControls()))
}

func (p *sparseShot) Measure(ctx context.Context, q int, rng *rand.Rand) (bool, error) {
	if err := (&Circuit{NumQubits: p.s.n}).qubit(q); err != nil {
		return false, fmt.Errorf("%w: %s", ErrInvalidCircuit, err)
	}
	return p.s.measure(q, rng), ctx.Err()
}

func (p *sparseShot) ResetQubit(ctx context.Context, q int, rng *rand.Rand) error {
	if err := (&Circuit{NumQubits: p.s.n}).qubit(q); err != nil {
		return fmt.Errorf("%w: %s", ErrInvalidCircuit, err)
	}
	p.s.reset(q, rng)
	return ctx.Err()
}

func (p *sparseShot) ApplyChannel(ctx context.Context, ch *Channel, rng *rand.Rand, qubits ...int) error {
	op := NoiseOp(ch, qubits...)
	if err := (&Circuit{NumQubits: p.s.n}).validateNoise(&op); err != nil {
		return fmt.Errorf("%w: %s", ErrInvalidCircuit, err)
	}
	return p.s.noise(ctx, &op, rng)
}

func (p *sparseShot) ResetAll(ctx context.Context) error {
	p.s.amp = map[uint64]complex128{0: 1}
	return ctx.Err()
}

// tableauShot is the stabilizer method's ShotState: a gate that is not
// Clifford, or a channel that is not a Pauli channel, is an error wrapping
// ErrMethod.
type tableauShot struct {
	t     *tableau
	judge cliffordJudge
}

func (p *tableauShot) NumQubits() int { return p.t.n }
func (p *tableauShot) Method() Method { return MethodStabilizer }

// Work is k passes over the tableau's rows, a unit a word.
func (p *tableauShot) Work(k int) int64 { return int64(k) * 2 * int64(p.t.n) * 2 * int64(p.t.w) }

func (p *tableauShot) ApplyOp(ctx context.Context, op Op) error {
	if op.Kind != OpGate {
		return fmt.Errorf("%w: ApplyOp takes gates, not %s", ErrInvalidCircuit, op.Kind)
	}
	if err := (&Circuit{NumQubits: p.t.n}).validateGate(&op); err != nil {
		return fmt.Errorf("%w: %s", ErrInvalidCircuit, err)
	}
	g, ok := p.judge.gate(&op)
	if !ok {
		return fmt.Errorf("%w: gate %s is not a Clifford gate", ErrMethod, op.GateName())
	}
	var qs [maxCliffordQubits]int
	for j := range g.k {
		qs[j] = op.qubitAt(j)
	}
	p.t.apply(g, qs[:g.k])
	return ctx.Err()
}

func (p *tableauShot) Measure(ctx context.Context, q int, rng *rand.Rand) (bool, error) {
	if err := (&Circuit{NumQubits: p.t.n}).qubit(q); err != nil {
		return false, fmt.Errorf("%w: %s", ErrInvalidCircuit, err)
	}
	random, outcome := p.t.deterministic(q)
	if !random {
		return outcome, ctx.Err()
	}
	m := rng.Float64() < 0.5
	p.t.collapse(q, m)
	return m, ctx.Err()
}

func (p *tableauShot) ResetQubit(ctx context.Context, q int, rng *rand.Rand) error {
	one, err := p.Measure(ctx, q, rng)
	if err == nil && one {
		p.t.flipSign(p.t.n + q)
	}
	return err
}

func (p *tableauShot) ApplyChannel(ctx context.Context, ch *Channel, rng *rand.Rand, qubits ...int) error {
	op := NoiseOp(ch, qubits...)
	if err := (&Circuit{NumQubits: p.t.n}).validateNoise(&op); err != nil {
		return fmt.Errorf("%w: %s", ErrInvalidCircuit, err)
	}
	if !ch.IsPauli() {
		return fmt.Errorf("%w: channel %s is not a Pauli channel", ErrMethod, ch)
	}
	sc := newStabChannel(ch)
	if len(sc.idx) > 0 && rng.Float64() < sc.total {
		p.t.applyPauli(sc.draw(rng.Float64()), qubits)
	}
	return ctx.Err()
}

func (p *tableauShot) ResetAll(ctx context.Context) error {
	p.t.identity()
	return ctx.Err()
}
