package sim

import (
	"context"
	"math/rand/v2"
)

// A trajectory's terminal measurements: when a noisy circuit run shot by
// shot ends in a run of unconditional measurements (the common case, a
// noise model on a circuit measured at its end), nothing acts between
// them, so together they are one measurement of the shot's final state in
// the computational basis. One basis state drawn with its probability
// gives every one of their bits, in one pass over the state where
// measuring qubit after qubit takes two a qubit. Circuits without noise
// keep measuring one qubit at a time, so that a seed gives the counts it
// always gave.

// setTail marks the run of unconditional measurements that ends the
// per-shot part of p, if any, to be measured at once, and works out what
// it costs: its steps, and one pass over a state of n qubits.
func (p *prepared) setTail(n int) {
	t := len(p.ops)
	for t > p.prefix && p.ops[t-1].Kind == OpMeasure && p.ops[t-1].Cond() == nil {
		t--
	}
	if t == len(p.ops) {
		return
	}
	p.tail, p.hasTail = t, true
	p.tailCost = 0
	for i := t; i < len(p.ops); i++ {
		p.tailCost += p.ops[i].cost
	}
	p.tailWork = p.tailCost + passWork(n, 1)
}

// measureTail draws one basis state of the state with its probability and
// writes the bit of each measurement of ops from it. The state is left as
// it was: nothing runs after the tail.
func (s *State) measureTail(ctx context.Context, ops []preparedOp, clbits []bool, rng *rand.Rand) error {
	i, err := s.v.pick(ctx, rng.Float64(), s.workers)
	if err != nil {
		return err
	}
	for j := range ops {
		clbits[ops[j].Bit()] = i>>ops[j].Qubit()&1 == 1
		misread(clbits, ops[j].Op, rng)
	}
	return nil
}

// misread flips the bit a measurement op just wrote with its readout
// error's probability. A measurement without one draws nothing, so that
// a seed gives the counts it gave before readout errors existed.
func misread(clbits []bool, op *Op, rng *rand.Rand) {
	if r := op.ReadoutError(); r > 0 && rng.Float64() < r {
		clbits[op.Bit()] = !clbits[op.Bit()]
	}
}

// pick returns the basis state at which the running sum of the
// probabilities passes u times their total: the chunks' sums in one pass
// on up to workers goroutines, added in order, then the chunk that holds
// it walked alone.
func (v *vec[T]) pick(ctx context.Context, u float64, workers int) (int, error) {
	v.pass = passArgs[T]{kind: passNorms}
	if c := v.passChunks(); len(v.sums) != c {
		v.sums = make([]float64, c)
	}
	if err := v.runPass(ctx, workers); err != nil {
		return 0, err
	}
	var total float64
	for _, s := range v.sums {
		total += s
	}
	target := u * total
	last := 0 // the last basis state of probability above 0, for rounding
	for c, s := range v.sums {
		if s == 0 {
			continue
		}
		lo := c * chunkAmps
		if target >= s && c < len(v.sums)-1 {
			target -= s
			last = lo
			continue
		}
		for i, a := range v.a[lo:min(lo+chunkAmps, len(v.a))] {
			p := abs2(a)
			if p == 0 {
				continue
			}
			if last = lo + i; target < p {
				return last, nil
			}
			target -= p
		}
	}
	return last, nil
}
