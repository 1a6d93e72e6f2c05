package sim

import (
	"context"
	"math/rand/v2"
)

// sample draws shots outcomes from the final state s of a circuit whose
// measurements are all terminal, and counts them by key: key bit b (the
// rightmost first) is the value of qubit source[b], or 0 where source[b] is
// −1 (a classical bit never measured) and 1 where it is sourceOne (a bit a
// stream's classical operations set).
//
// It costs O(2^n + shots) time and holds nothing of size 2^n, nor of size
// shots past a few thousand (uniforms): the
// shots' uniform variates are generated already sorted (normalised partial
// sums of exponential variates) one at a time, one sweep over the
// amplitudes' cumulative probability hands each basis state its shots, and
// only the distinct outcomes are kept, within lim.
func sample(ctx context.Context, s *State, src *rand.PCG, shots int, source []int, lim outcomeLimit) (map[string]int, error) {
	enter("sample")
	total, err := s.v.norm(ctx)
	if err != nil {
		return nil, err
	}
	u, err := newUniforms(ctx, src, shots, total)
	if err != nil {
		return nil, err
	}

	// Basis states that agree on the measured qubits give the same key.
	var mask int
	for _, q := range source {
		if q >= 0 {
			mask |= 1 << q
		}
	}
	// outcomes are the values of the measured qubits drawn (index & mask)
	// with their shots. When every qubit is measured each basis state is an
	// outcome of its own, and the sweep hands them out in order, each once
	// (but the last, which can come again); otherwise the states that agree
	// on the measured qubits are merged in a map first.
	var outcomes []hit
	var merged map[int]int
	if mask != 1<<s.n-1 {
		merged = make(map[int]int)
	}
	err = s.v.sweep(ctx, u, func(i, n int) error {
		m := i & mask
		if merged != nil {
			if c, ok := merged[m]; ok {
				merged[m] = c + n
				return nil
			}
		} else if len(outcomes) > 0 && outcomes[len(outcomes)-1].index == m {
			outcomes[len(outcomes)-1].n += n
			return nil
		}
		if len(outcomes)+len(merged) >= lim.max {
			return lim.err()
		}
		if merged != nil {
			merged[m] = n
		} else {
			outcomes = append(outcomes, hit{m, n})
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if merged != nil {
		outcomes = make([]hit, 0, len(merged))
		for m, n := range merged {
			outcomes = append(outcomes, hit{m, n})
		}
	}

	enter("count")
	tick := ticker{ctx: ctx}
	counts := make(map[string]int, len(outcomes))
	key := make([]byte, len(source))
	for _, o := range outcomes {
		if err := tick.step(1 + len(key)/64); err != nil {
			return nil, err
		}
		for b, q := range source {
			key[len(key)-1-b] = '0'
			if q >= 0 && o.index>>q&1 == 1 || q == sourceOne {
				key[len(key)-1-b] = '1'
			}
		}
		counts[string(key)] = o.n
	}
	return counts, nil
}

// hit is how many shots landed on one basis state, or on the basis states
// of one value of the measured qubits.
type hit struct{ index, n int }

// uniforms hands out shots uniform variates over [0, total) in increasing
// order, one at a time, without holding them: the k-th is the sum of k
// exponential variates scaled by total over the sum of shots+1 of them. A
// first pass over a copy of the generator computes that normaliser; the
// second draws the same variates again. The variates are those an array of
// them held before: a seed gives the counts it always gave. Up to
// keptVariates shots the first pass keeps what it drew instead (a few KB),
// and the second reads them back: the same variates, drawn once.
type uniforms struct {
	rng        *rand.Rand
	kept       []float64 // the variates of the first pass, when kept
	left       int       // variates not handed out yet
	sum, scale float64   // the partial sum, the normaliser
	next       float64   // the next variate, valid while left > 0
}

// keptVariates is the most exponential variates the first pass keeps.
const keptVariates = 1 << 14

func newUniforms(ctx context.Context, src *rand.PCG, shots int, total float64) (*uniforms, error) {
	replay := *src
	rng := rand.New(src)
	tick := ticker{ctx: ctx}
	var kept []float64
	if shots < keptVariates {
		kept = make([]float64, 0, shots+1)
	}
	var sum float64
	for range shots {
		if err := tick.tick(); err != nil {
			return nil, err
		}
		e := rng.ExpFloat64()
		if kept != nil {
			kept = append(kept, e)
		}
		sum += e
	}
	sum += rng.ExpFloat64()
	u := &uniforms{rng: rand.New(&replay), kept: kept, left: shots, scale: total / sum}
	if shots > 0 {
		u.sum = u.draw()
		u.next = u.sum * u.scale
	}
	return u, nil
}

// draw is the next exponential variate of the second pass.
func (u *uniforms) draw() float64 {
	if u.kept != nil {
		e := u.kept[0]
		u.kept = u.kept[1:]
		return e
	}
	return u.rng.ExpFloat64()
}

// take hands out the current variate and draws the next.
func (u *uniforms) take() {
	u.left--
	if u.left > 0 {
		u.sum += u.draw()
		u.next = u.sum * u.scale
	}
}
