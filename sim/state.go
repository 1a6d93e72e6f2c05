package sim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// State is the state vector of n qubits: 2^n amplitudes, qubit 0 the lowest
// bit of an index.
type State struct {
	n       int
	amp     []complex128
	workers int
	buf     [][]complex128 // scratch per worker for multi-target gates
}

// NewState returns |0…0⟩ on n qubits, after checking n against lim.
func NewState(n int, lim Limits) (*State, error) {
	if err := lim.Check(n); err != nil {
		return nil, err
	}
	s := &State{n: n, amp: make([]complex128, 1<<n), workers: runtime.GOMAXPROCS(0)}
	s.amp[0] = 1
	return s, nil
}

// SetWorkers sets how many goroutines a gate on a large state may use
// (default GOMAXPROCS). Values below 1 mean 1.
func (s *State) SetWorkers(w int) { s.workers = max(w, 1) }

// NumQubits is the number of qubits.
func (s *State) NumQubits() int { return s.n }

// Amplitudes returns the state vector itself, not a copy: it is read-only
// for the caller, and changes as gates are applied.
func (s *State) Amplitudes() []complex128 { return s.amp }

// Amplitude returns the amplitude of basis state i.
func (s *State) Amplitude(i int) complex128 { return s.amp[i] }

// Probabilities returns |a_i|² for every basis state (a new slice of 2^n).
func (s *State) Probabilities() []float64 {
	p := make([]float64, len(s.amp))
	for i, a := range s.amp {
		p[i] = real(a)*real(a) + imag(a)*imag(a)
	}
	return p
}

// Probability returns |a_i|².
func (s *State) Probability(i int) float64 {
	a := s.amp[i]
	return real(a)*real(a) + imag(a)*imag(a)
}

// QubitProbability returns the probability that measuring qubit q gives 1.
func (s *State) QubitProbability(q int) float64 {
	var p float64
	bit := 1 << q
	for i, a := range s.amp {
		if i&bit != 0 {
			p += real(a)*real(a) + imag(a)*imag(a)
		}
	}
	return p
}

// Norm returns the squared norm Σ|a_i|², 1 for a valid state.
func (s *State) Norm() float64 {
	var p float64
	for _, a := range s.amp {
		p += real(a)*real(a) + imag(a)*imag(a)
	}
	return p
}

// Clone returns a copy of the state.
func (s *State) Clone() *State {
	c := &State{n: s.n, amp: make([]complex128, len(s.amp)), workers: s.workers}
	copy(c.amp, s.amp)
	return c
}

// ApplyGate checks g and applies it to the state.
func (s *State) ApplyGate(g Gate) error {
	c := Circuit{NumQubits: s.n, Ops: []Op{{Kind: OpGate, Gate: g}}}
	if err := c.Validate(); err != nil {
		return err
	}
	s.apply(newKernel(&g))
	return nil
}

// parallelMin is the number of loop iterations below which a gate runs on
// one goroutine: starting goroutines costs more than the loop itself.
const parallelMin = 1 << 14

func (s *State) apply(k *kernel) {
	groups := k.groups(s.n)
	d := len(k.off)
	workers := s.workers
	if groups < parallelMin || workers <= 1 {
		k.apply(s.amp, 0, groups, s.scratch(0, d))
		return
	}
	workers = min(workers, groups/(parallelMin/4))
	var wg sync.WaitGroup
	chunk := (groups + workers - 1) / workers
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, groups)
		if lo >= hi {
			break
		}
		buf := s.scratch(w, d)
		wg.Add(1)
		go func() {
			defer wg.Done()
			k.apply(s.amp, lo, hi, buf)
		}()
	}
	wg.Wait()
}

func (s *State) scratch(w, d int) []complex128 {
	if d == 0 {
		return nil
	}
	for len(s.buf) <= w {
		s.buf = append(s.buf, nil)
	}
	if len(s.buf[w]) < d {
		s.buf[w] = make([]complex128, d)
	}
	return s.buf[w]
}

// measure measures qubit q, collapses the state and returns the outcome.
func (s *State) measure(q int, rng *rand.Rand) bool {
	p1 := s.QubitProbability(q)
	one := rng.Float64() < p1
	p := p1
	if !one {
		p = 1 - p1
	}
	scale := complex(1/math.Sqrt(p), 0)
	bit := 1 << q
	for i := range s.amp {
		if (i&bit != 0) == one {
			s.amp[i] *= scale
		} else {
			s.amp[i] = 0
		}
	}
	return one
}

// reset measures qubit q and flips it to |0⟩ if it was 1.
func (s *State) reset(q int, rng *rand.Rand) {
	if s.measure(q, rng) {
		bit := 1 << q
		for i := range s.amp {
			if i&bit != 0 {
				j := i ^ bit
				s.amp[j], s.amp[i] = s.amp[i], 0
			}
		}
	}
}

// Execute runs c once on the state, with real collapse on measurement and
// reset, following conditions and jumps, and returns the classical bits.
// rng drives the measurement outcomes. maxSteps bounds the operations
// executed (0 means DefaultMaxSteps).
func (s *State) Execute(ctx context.Context, c *Circuit, rng *rand.Rand, maxSteps int) ([]bool, error) {
	if c.NumQubits != s.n {
		return nil, fmt.Errorf("%w: circuit has %d qubits, state has %d", ErrInvalidCircuit, c.NumQubits, s.n)
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	p := prepare(c, fusion{})
	clbits := make([]bool, c.NumClbits)
	return clbits, s.run(ctx, p, 0, clbits, rng, maxSteps)
}

// applyAll applies kernels in order, checking ctx between them. Runs of
// kernels on low qubits are applied cache block by cache block.
func (s *State) applyAll(ctx context.Context, ks []*kernel) error {
	for i := 0; i < len(ks); {
		if err := ctx.Err(); err != nil {
			return err
		}
		if s.n > blockBits {
			if n := lowRun(ks[i:]); n >= 2 {
				s.applyBlocked(ks[i : i+n])
				i += n
				continue
			}
		}
		s.apply(ks[i])
		i++
	}
	return ctx.Err()
}

// DefaultMaxSteps bounds the operations one shot may execute when
// Options.MaxSteps is 0.
const DefaultMaxSteps = 10_000_000

// ctxCheckEvery is how many operations run between checks of the context,
// so that a cancel stops a long circuit of small gates promptly without a
// check per gate.
const ctxCheckEvery = 64

// run executes p.ops from index start. With clbits nil it applies only the
// gates: measurements are skipped, for circuits whose measurements are
// terminal and are sampled afterwards.
func (s *State) run(ctx context.Context, p *prepared, start int, clbits []bool, rng *rand.Rand, maxSteps int) error {
	if maxSteps <= 0 {
		maxSteps = DefaultMaxSteps
	}
	steps := 0
	for pc := start; pc < len(p.ops); {
		if steps%ctxCheckEvery == 0 || p.ops[pc].kernel != nil && s.n >= 16 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		steps++
		if steps > maxSteps {
			return fmt.Errorf("%w: a shot ran more than %d operations (a loop that does not end?)", ErrStepLimit, maxSteps)
		}
		op := &p.ops[pc]
		pc++
		if op.If != nil && !op.If.Eval(clbits) {
			continue
		}
		switch op.Kind {
		case OpGate:
			s.apply(op.kernel)
		case OpMeasure:
			if clbits != nil {
				clbits[op.Bit] = s.measure(op.Qubit, rng)
			}
		case OpReset:
			s.reset(op.Qubit, rng)
		case OpSetBits:
			for i, b := range op.Bits {
				clbits[b] = op.Value>>i&1 == 1
			}
		case OpJump:
			pc = op.Target
		}
	}
	return nil
}

// Sample draws shots measurements of every qubit from the state without
// changing it and counts them by bit string (qubit 0 rightmost). It costs
// O(2^n + shots).
func (s *State) Sample(rng *rand.Rand, shots int) map[string]int {
	c, keyFrom := measureAll(&Circuit{NumQubits: s.n})
	return sample(s, c, rng, shots, keyFrom)
}
