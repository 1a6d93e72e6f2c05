package sim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
)

// The operations a front end needs to drive a State itself, shot by shot,
// when its programs' control flow is more than a Circuit's jumps can say
// (QIR's adaptive profile: integer and float arithmetic, calls, memory).
// Each checks its qubit and ctx as Execute does.

func (s *State) checkQubit(q int) error {
	if q < 0 || q >= s.n {
		return fmt.Errorf("%w: qubit %d of a %d-qubit state", ErrInvalidCircuit, q, s.n)
	}
	return nil
}

// Measure measures qubit q, collapses the state and returns the outcome.
func (s *State) Measure(ctx context.Context, q int, rng *rand.Rand) (bool, error) {
	if err := s.checkQubit(q); err != nil {
		return false, err
	}
	return s.measure(ctx, q, rng)
}

// ResetQubit measures qubit q and moves it to |0⟩: the state collapses as
// a measurement's would.
func (s *State) ResetQubit(ctx context.Context, q int, rng *rand.Rand) error {
	if err := s.checkQubit(q); err != nil {
		return err
	}
	return s.reset(ctx, q, rng)
}

// Collapse projects qubit q onto |1⟩ (one) or |0⟩ and renormalises, as a
// measurement with that outcome would, and returns the probability the
// outcome had. An outcome of probability 0 is an error and leaves the
// state as it was. It lets a caller follow every branch of a program's
// measurements with its exact weight.
func (s *State) Collapse(ctx context.Context, q int, one bool) (float64, error) {
	if err := s.checkQubit(q); err != nil {
		return 0, err
	}
	p1, err := s.v.qubitProbability(ctx, q, s.workers)
	if err != nil {
		return 0, err
	}
	p := p1
	if !one {
		p = 1 - p1
	}
	if p <= 0 {
		return 0, fmt.Errorf("sim: outcome %v of qubit %d has probability 0", one, q)
	}
	return p, s.v.collapse(ctx, q, one, 1/math.Sqrt(p), s.workers)
}

// ResetAll returns the state to |0…0⟩.
func (s *State) ResetAll(ctx context.Context) error {
	s.norm2 = 1
	return s.v.reset(ctx, s.workers)
}

// ApplyGateContext is ApplyGate that stops when ctx is done; the state is
// then garbage, as after a cancelled Execute.
func (s *State) ApplyGateContext(ctx context.Context, g Gate) error {
	c := Circuit{NumQubits: s.n, Ops: []Op{GateOp(g)}}
	if err := c.Validate(); err != nil {
		return err
	}
	return s.v.apply(ctx, newKernelFor(&g, s.n), s.n, s.workers)
}

// ApplyOp checks the gate op and applies it, stopping when ctx is done as
// ApplyGateContext does. A standard gate's matrix is built from its
// parameters here, and shared when it has none.
func (s *State) ApplyOp(ctx context.Context, op Op) error {
	if op.Kind != OpGate {
		return fmt.Errorf("%w: ApplyOp applies gates, not %s", ErrInvalidCircuit, op.Kind)
	}
	if op.Cond() != nil {
		return fmt.Errorf("%w: ApplyOp applies unconditional gates", ErrInvalidCircuit)
	}
	c := Circuit{NumQubits: s.n}
	if err := c.validateGate(&op); err != nil {
		return fmt.Errorf("%w: %s", ErrInvalidCircuit, err)
	}
	g := op.gate()
	return s.v.apply(ctx, newKernelFor(&g, s.n), s.n, s.workers)
}
