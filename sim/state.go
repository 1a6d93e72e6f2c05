package sim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
)

// Precision is the floating-point precision of a state's amplitudes.
type Precision uint8

const (
	// Double stores amplitudes as complex128 (16 bytes): the default.
	Double Precision = iota
	// Single stores amplitudes as complex64 (8 bytes): half the memory and
	// memory traffic, for users who accept errors around 1e-6.
	Single
)

func (p Precision) String() string {
	if p == Single {
		return "single"
	}
	return "double"
}

// bytesPerAmplitude is the size of one amplitude.
func (p Precision) bytesPerAmplitude() int64 {
	if p == Single {
		return 8
	}
	return 16
}

// State is the state vector of n qubits: 2^n amplitudes, qubit 0 the lowest
// bit of an index.
type State struct {
	n       int
	prec    Precision
	v       vector
	workers int
	// norm2 is the squared norm of the amplitudes: 1, but within a run's
	// trajectory, which applies a channel's Kraus matrices unscaled
	// (trajectory.go) and lets measurements divide by it.
	norm2 float64
}

// NewState returns |0…0⟩ on n qubits in double precision, after checking n
// against lim.
func NewState(n int, lim Limits) (*State, error) { return NewStatePrecision(n, Double, lim) }

// NewStatePrecision returns |0…0⟩ on n qubits in the given precision, after
// checking the state's size against lim.
func NewStatePrecision(n int, p Precision, lim Limits) (*State, error) {
	if err := lim.CheckPrecision(n, p); err != nil {
		return nil, err
	}
	s := &State{n: n, prec: p, workers: runtime.GOMAXPROCS(0), norm2: 1}
	if p == Single {
		s.v = newVec[complex64](n)
	} else {
		s.v = newVec[complex128](n)
	}
	s.v.set(0, 1)
	return s, nil
}

// maxWorkers bounds SetWorkers: a gate never splits into more goroutines
// than this, whatever the caller asks.
const maxWorkers = 256

// SetWorkers sets how many goroutines a gate on a large state may use
// (default GOMAXPROCS). Values below 1 mean 1; values above 256 mean 256.
func (s *State) SetWorkers(w int) { s.workers = min(max(w, 1), maxWorkers) }

// NumQubits is the number of qubits.
func (s *State) NumQubits() int { return s.n }

// Precision is the precision of the amplitudes.
func (s *State) Precision() Precision { return s.prec }

// Amplitudes returns the state vector. In double precision it is the
// vector itself, not a copy: read-only for the caller, and it changes as
// gates are applied. In single precision it is a converted copy.
func (s *State) Amplitudes() []complex128 {
	if v, ok := s.v.(*vec[complex128]); ok {
		return v.a
	}
	out := make([]complex128, 1<<s.n)
	for i := range out {
		out[i] = s.v.amplitude(i)
	}
	return out
}

// Amplitude returns the amplitude of basis state i.
func (s *State) Amplitude(i int) complex128 { return s.v.amplitude(i) }

// Probabilities returns |a_i|² for every basis state (a new slice of 2^n).
func (s *State) Probabilities() []float64 {
	p := make([]float64, 1<<s.n)
	for i := range p {
		p[i] = s.v.probability(i)
	}
	return p
}

// Probability returns |a_i|².
func (s *State) Probability(i int) float64 { return s.v.probability(i) }

// QubitProbability returns the probability that measuring qubit q gives 1.
func (s *State) QubitProbability(q int) float64 {
	p, _ := s.v.qubitProbability(context.Background(), q, s.workers) // never cancelled
	return p
}

// Norm returns the squared norm Σ|a_i|², 1 for a valid state.
func (s *State) Norm() float64 {
	p, _ := s.v.norm(context.Background()) // never cancelled
	return p
}

// Clone returns a copy of the state.
func (s *State) Clone() *State {
	c := *s
	c.v, _ = s.v.clone(context.Background(), s.workers) // never cancelled
	return &c
}

// ApplyGate checks g and applies it to the state.
func (s *State) ApplyGate(g Gate) error {
	c := Circuit{NumQubits: s.n, Ops: []Op{GateOp(g)}}
	if err := c.Validate(); err != nil {
		return err
	}
	return s.v.apply(context.Background(), newKernelFor(&g, s.n), s.n, s.workers) // never cancelled
}

// measure measures qubit q, collapses the state and returns the outcome.
// The collapse leaves the state normalised.
func (s *State) measure(ctx context.Context, q int, rng *rand.Rand) (bool, error) {
	p1, err := s.v.qubitProbability(ctx, q, s.workers)
	if err != nil {
		return false, err
	}
	if s.norm2 != 1 {
		p1 /= s.norm2
	}
	one := rng.Float64() < p1
	p := p1
	if !one {
		p = 1 - p1
	}
	// p·1 is p: a state that was normalised collapses as it always has.
	err = s.v.collapse(ctx, q, one, 1/math.Sqrt(p*s.norm2), s.workers)
	s.norm2 = 1
	return one, err
}

// normalise scales a trajectory's state back to norm 1.
func (s *State) normalise(ctx context.Context) error {
	if s.norm2 == 1 {
		return nil
	}
	err := s.v.scale(ctx, 1/math.Sqrt(s.norm2), s.workers)
	s.norm2 = 1
	return err
}

// reset measures qubit q and moves it to |0⟩ if it was 1.
func (s *State) reset(ctx context.Context, q int, rng *rand.Rand) error {
	one, err := s.measure(ctx, q, rng)
	if err != nil || !one {
		return err
	}
	return s.v.moveToZero(ctx, q, s.workers)
}

// Execute runs c once on the state, with real collapse on measurement and
// reset, following conditions and jumps, and returns the classical bits.
// rng drives the measurement outcomes. maxSteps bounds the operations
// executed (0 means DefaultMaxSteps).
//
// ctx is checked throughout, within a gate or a measurement too on a large
// state. A cancel can stop a gate halfway: Execute then returns ctx's error
// and the state is garbage, to be discarded.
func (s *State) Execute(ctx context.Context, c *Circuit, rng *rand.Rand, maxSteps int) ([]bool, error) {
	if c.NumQubits != s.n {
		return nil, fmt.Errorf("%w: circuit has %d qubits, state has %d", ErrInvalidCircuit, c.NumQubits, s.n)
	}
	if err := c.validate(ctx); err != nil {
		return nil, err
	}
	p, err := prepare(ctx, c, nil, fusion{}, true)
	if err != nil {
		return nil, err
	}
	if err := p.applyHead(ctx, s, nil); err != nil {
		return nil, err
	}
	clbits := make([]bool, c.NumClbits)
	budget := newWorkBudget(maxSteps, math.MaxInt64)
	err = s.run(ctx, p, p.prefix, clbits, rng, &budget)
	if err == nil {
		err = s.normalise(ctx)
	}
	return clbits, err
}

// applyAll applies kernels in order, checking ctx between them and within
// them. Runs of kernels on low qubits are applied cache block by cache
// block.
func (s *State) applyAll(ctx context.Context, ks []*kernel) error {
	if len(ks) > 0 {
		enter("apply")
	}
	for i := 0; i < len(ks); {
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.n > blockBits {
			if n := lowRun(ks[i:]); n >= 2 {
				if err := s.v.applyBlocked(ctx, ks[i:i+n], s.n, s.workers); err != nil {
					return err
				}
				i += n
				continue
			}
		}
		if err := s.v.apply(ctx, ks[i], s.n, s.workers); err != nil {
			return err
		}
		i++
	}
	return ctx.Err()
}

// ctxCheckEvery is how many operations run between checks of the context,
// so that a cancel stops a long circuit of small gates promptly without a
// check per gate.
const ctxCheckEvery = 64

// run executes p.ops from index start, one shot, taking its steps from
// budget. ctx is checked every ctxCheckEvery operations, and within the
// operations that sweep a large state.
func (s *State) run(ctx context.Context, p *prepared, start int, clbits []bool, rng *rand.Rand, budget *workBudget) error {
	var steps, work int64
	for n, pc := 0, start; pc < len(p.ops); n++ {
		if n%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if p.hasTail && pc == p.tail {
			if steps += p.tailCost; steps > budget.perShot {
				return budget.stepsExceeded()
			}
			if work += p.tailWork; work > budget.left {
				return budget.exceeded()
			}
			if err := s.measureTail(ctx, p.ops[pc:], clbits, rng); err != nil {
				return err
			}
			break
		}
		op := &p.ops[pc]
		if steps += op.cost; steps > budget.perShot {
			return budget.stepsExceeded()
		}
		if work += op.work; work > budget.left {
			return budget.exceeded()
		}
		pc++
		if c := op.Cond(); c != nil && !c.Eval(clbits) {
			continue
		}
		var err error
		switch op.Kind {
		case OpGate:
			err = s.v.apply(ctx, p.kernel(op, s.n), s.n, s.workers)
		case OpMeasure:
			clbits[op.Bit()], err = s.measure(ctx, op.Qubit(), rng)
			misread(clbits, op.Op, rng)
		case OpReset:
			err = s.reset(ctx, op.Qubit(), rng)
		case OpNoise:
			err = s.applyNoise(ctx, p, op, rng, &work, budget)
		case OpSetBits, OpCompute:
			if err := classical(op.Op, clbits, pc-1); err != nil {
				return err
			}
		case OpJump:
			pc = op.JumpTarget()
		}
		if err != nil {
			return err
		}
	}
	budget.left -= work
	return nil
}

// Sample draws shots measurements of every qubit from the state without
// changing it and counts them by bit string (qubit 0 rightmost). It costs
// O(2^n + shots) and holds nothing of size shots. The variates come from a
// generator seeded by two draws from rng. The counts are not bounded by
// DefaultMaxResultBytes.
func (s *State) Sample(rng *rand.Rand, shots int) map[string]int {
	source := make([]int, s.n)
	for q := range source {
		source[q] = q
	}
	src := rand.NewPCG(rng.Uint64(), rng.Uint64())
	lim := outcomeLimit{max: math.MaxInt}
	counts, _ := sample(context.Background(), s, src, max(shots, 0), source, lim) // never cancelled, never over lim
	return counts
}
