package sim

import "math/rand/v2"

// sample draws shots outcomes from the final state s of a circuit whose
// measurements are all terminal, and counts them by the string of classical
// bits keyFrom to keyTo−1.
//
// It costs O(2^n + shots): the shots' uniform variates are generated already
// sorted (normalised partial sums of exponential variates), then one sweep
// over the amplitudes' cumulative probability hands each its shots. Nothing
// of size 2^n is allocated.
func sample(s *State, c *Circuit, rng *rand.Rand, shots, keyFrom, keyTo int) map[string]int {
	// Which qubit each classical bit ends up holding (the last measurement
	// into a bit wins); -1 for bits never measured, which read 0.
	source := make([]int, c.NumClbits)
	for i := range source {
		source[i] = -1
	}
	for _, op := range c.Ops {
		if op.Kind == OpMeasure {
			source[op.Bit] = op.Qubit
		}
	}

	// Sorted uniforms in [0, total).
	total := s.Norm()
	u := make([]float64, shots)
	var sum float64
	for i := range u {
		sum += rng.ExpFloat64()
		u[i] = sum
	}
	sum += rng.ExpFloat64()
	scale := total / sum
	for i := range u {
		u[i] *= scale
	}

	hits := s.v.sweep(u)

	// Basis states that agree on the measured qubits give the same key.
	var mask int
	for _, q := range source[keyFrom:keyTo] {
		if q >= 0 {
			mask |= 1 << q
		}
	}
	byMeasured := make(map[int]int, len(hits))
	for _, h := range hits {
		byMeasured[h.index&mask] += h.n
	}
	counts := make(map[string]int, len(byMeasured))
	key := make([]byte, keyTo-keyFrom)
	for idx, n := range byMeasured {
		for b, q := range source[keyFrom:keyTo] {
			key[len(key)-1-b] = '0'
			if q >= 0 && idx>>q&1 == 1 {
				key[len(key)-1-b] = '1'
			}
		}
		counts[string(key)] += n
	}
	return counts
}
