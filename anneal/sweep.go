package anneal

import "math/bits"

// start sets state to a random assignment of spins.
func start(state []int8, r *rng) {
	for i := 0; i < len(state); i += 64 {
		b := r.next()
		for k := i; k < min(i+64, len(state)); k++ {
			state[k] = int8(b&1)*2 - 1
			b >>= 1
		}
	}
}

// sweep proposes to flip each spin once, in order, at inverse temperature
// beta: a flip that lowers the energy (or keeps it) is taken, one that
// raises it by d with probability exp(−β·d) (expvariate.go). field caches
// each spin's local field (m.fields), its energy change being −2·s·field:
// kept current on every flip through the flipped spin's row, so a
// proposal costs what its row holds only when it is taken. Caching the
// field rather than the change itself spares that row's update a read of
// each neighbour's spin (as fast within noise, and simpler).
func (m *ising) sweep(state []int8, field []float64, beta float64, r *rng) {
	start, nbr, j := m.start, m.nbr, m.j
	state = state[:len(field)]
	start = start[:len(field)+1]
	s := r.s // the generator's state in a register, stored back at the end
	// Each sweep starts at a spin of its own: in a fixed order, flips that
	// keep the energy (always taken) can cycle for ever through states of
	// one energy, missing the ground state beside them (a square's
	// max-cut ended off its ground in half its reads).
	s += 0xa0761d6478bd642f
	hi0, lo0 := bits.Mul64(s, s^0xe7037ed1a0b428db)
	off := int((hi0 ^ lo0) % uint64(len(field)))
	n := len(field)
	for t := range field {
		i := t + off
		if i >= n {
			i -= n
		}
		old := float64(state[i])
		d := -2 * old * field[i]
		s += 0xa0761d6478bd642f
		hi, lo := bits.Mul64(s, s^0xe7037ed1a0b428db)
		b := hi ^ lo
		layer := b & (zigLayers - 1)
		u := b >> 11
		e := float64(u) * zigW[layer]
		if u >= zigK[layer] {
			r.s = s
			e = expSlow(r, int(layer), e)
			s = r.s
		}
		if beta*d > e {
			continue
		}
		state[i] = -state[i]
		g := -2 * old
		lo2, hi2 := start[i], start[i+1]
		row, w := nbr[lo2:hi2], j[lo2:hi2]
		for k, v := range row {
			field[v] += g * w[k]
		}
	}
	r.s = s
}
