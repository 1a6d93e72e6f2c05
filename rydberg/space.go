package rydberg

import (
	"math/bits"
	"slices"
)

// space is the set of configurations a run simulates: all 2^n of them
// (configuration s has atom k in r when bit k of s is set, so flips are
// computed), or a restricted set listed in increasing order with each
// one's neighbours one flip away.
type space struct {
	n          int
	dim        int
	restricted bool

	// A restricted space's configurations, w words each, atom k at bit
	// 63−k%64 of word k/64: the order of the words is the order of the
	// walk that lists them.
	w       int
	configs []uint64
	// Configuration s's neighbours are nbr[offs[s]:offs[s+1]], those with
	// one atom fewer in r (down) before mid[s], those with one more (up)
	// from it; atom[e] is the atom that edge e flips.
	offs, mid []int32
	nbr       []int32
	atom      []uint16
}

// fullSpace is the space of all configurations of n atoms.
func fullSpace(n int) *space { return &space{n: n, dim: 1 << n} }

// restrictedSpace lists the configurations of p's atoms that obey the
// conflicts, of which the need counted dim, with their neighbours.
func restrictedSpace(p *Program, conflicts [][]int32, need Need) *space {
	n := len(p.Atoms)
	sp := &space{n: n, dim: int(need.Configurations), restricted: true, w: words(n)}
	all := make([]int32, n)
	for i := range all {
		all[i] = int32(i)
	}
	sp.configs = make([]uint64, 0, sp.dim*sp.w)
	sp.offs = make([]int32, 0, sp.dim+1)
	sp.mid = make([]int32, 0, sp.dim)
	edges := int32(0)
	walk(all, conflicts, func(chosen []bool, blocked []int32, rydberg int) bool {
		start := len(sp.configs)
		sp.configs = append(sp.configs, make([]uint64, sp.w)...)
		up := 0
		for k, c := range chosen {
			if c {
				sp.configs[start+k/64] |= 1 << (63 - k%64)
			} else if blocked[k] == 0 {
				up++
			}
		}
		sp.offs = append(sp.offs, edges)
		sp.mid = append(sp.mid, edges+int32(rydberg))
		edges += int32(rydberg + up)
		return true
	})
	sp.offs = append(sp.offs, edges)
	sp.nbr = make([]int32, edges)
	sp.atom = make([]uint16, edges)
	// The same walk again, now that every configuration has its index:
	// it knows which atoms may flip up without testing their conflicts.
	key := make([]uint64, sp.w)
	s := 0
	walk(all, conflicts, func(chosen []bool, blocked []int32, _ int) bool {
		cfg := sp.config(s)
		e := sp.offs[s]
		for k, c := range chosen { // down: each atom in r back to g
			if c {
				copy(key, cfg)
				key[k/64] &^= 1 << (63 - k%64)
				sp.nbr[e], sp.atom[e] = int32(sp.find(key)), uint16(k)
				e++
			}
		}
		for k, c := range chosen { // up: each atom in g none of whose conflicts is in r
			if !c && blocked[k] == 0 {
				copy(key, cfg)
				key[k/64] |= 1 << (63 - k%64)
				sp.nbr[e], sp.atom[e] = int32(sp.find(key)), uint16(k)
				e++
			}
		}
		s++
		return true
	})
	return sp
}

// config is a restricted space's configuration s.
func (sp *space) config(s int) []uint64 { return sp.configs[s*sp.w : (s+1)*sp.w] }

func (sp *space) rydberg(cfg []uint64, k int) bool { return cfg[k/64]&(1<<(63-k%64)) != 0 }

// find is the index of a configuration of a restricted space: binary
// search, the configurations being listed in increasing order.
func (sp *space) find(key []uint64) int {
	lo, hi := 0, sp.dim
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if slices.Compare(sp.config(m), key) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// inRydberg reports whether configuration s has atom k in r.
func (sp *space) inRydberg(s, k int) bool {
	if !sp.restricted {
		return s&(1<<k) != 0
	}
	return sp.rydberg(sp.config(s), k)
}

// count is how many atoms configuration s has in r.
func (sp *space) count(s int) int {
	if !sp.restricted {
		return bits.OnesCount64(uint64(s))
	}
	c := 0
	for _, w := range sp.config(s) {
		c += bits.OnesCount64(w)
	}
	return c
}

// eachRydberg calls f with each atom configuration s has in r, in
// increasing order.
func (sp *space) eachRydberg(s int, f func(k int)) {
	if !sp.restricted {
		for v := uint64(s); v != 0; v &= v - 1 {
			f(bits.TrailingZeros64(v))
		}
		return
	}
	for i, w := range sp.config(s) {
		for w != 0 {
			lz := bits.LeadingZeros64(w) // atom k is bit 63−k%64
			f(i*64 + lz)
			w &^= 1 << (63 - lz)
		}
	}
}

// neighbors is how many neighbours the space's configurations have in
// all: the work of one pass over the Hamiltonian, with the diagonal.
func (sp *space) neighbors() int64 {
	if !sp.restricted {
		return int64(sp.dim) * int64(sp.n)
	}
	return int64(len(sp.nbr))
}

// interactions fills v with each configuration's interaction energy.
func (sp *space) interactions(p *Program, v []float64) {
	n := sp.n
	pair := make([]float64, n*n)
	for i := range n {
		for j := i + 1; j < n; j++ {
			pair[i*n+j] = p.Interaction(i, j)
			pair[j*n+i] = pair[i*n+j]
		}
	}
	if !sp.restricted {
		// Each configuration adds its lowest atom in r to the one without
		// it, which comes before it.
		v[0] = 0
		for s := 1; s < sp.dim; s++ {
			low := bits.TrailingZeros64(uint64(s))
			rest := s &^ (1 << low)
			e := v[rest]
			for r := uint64(rest); r != 0; r &= r - 1 {
				e += pair[low*n+bits.TrailingZeros64(r)]
			}
			v[s] = e
		}
		return
	}
	var ryd []int
	for s := range sp.dim {
		ryd = ryd[:0]
		sp.eachRydberg(s, func(k int) { ryd = append(ryd, k) })
		e := 0.0
		for i, a := range ryd {
			for _, b := range ryd[i+1:] {
				e += pair[a*n+b]
			}
		}
		v[s] = e
	}
}
