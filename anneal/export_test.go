package anneal

// SweepStates runs sweeps at one β on p (in spins) from a random start and
// counts the states it is in after each sweep, by code (bit i set: spin i
// up).
func SweepStates(p *Problem, beta float64, sweeps int, seed uint64) []int {
	m := p.toIsing()
	state := make([]int8, len(m.h))
	delta := make([]float64, len(m.h))
	r := rng{s: seed}
	start(state, &r)
	m.fields(state, delta)
	counts := make([]int, 1<<len(state))
	for range sweeps {
		m.sweep(state, delta, beta, &r)
		code := 0
		for i, s := range state {
			if s > 0 {
				code |= 1 << i
			}
		}
		counts[code]++
	}
	return counts
}
