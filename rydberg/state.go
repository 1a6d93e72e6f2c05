package rydberg

import (
	"cmp"
	"math/rand/v2"
	"slices"
)

// State is the atoms' state at the end of a run, with what the run did.
type State struct {
	sp  *space
	amp []complex128

	// Restricted says that the run simulated only the configurations the
	// blockade radius allows.
	Restricted bool
	// Steps is how many steps the run took, Terms how many terms of the
	// Taylor series they added (each a pass over the Hamiltonian).
	Steps, Terms int
	// Work is the run's work in Options.MaxWork's units.
	Work int64
	// ErrorBound bounds the 2-norm of the final state's error from the
	// series cut short, in exact arithmetic: the sum of what each step
	// left out, bounded from ‖A‖ and ‖B‖ (at most the tolerance).
	ErrorBound float64
	// Roundoff estimates the error rounding adds: machine epsilon times
	// the sizes of the terms summed.
	Roundoff float64
}

// Len is the number of configurations simulated.
func (st *State) Len() int { return st.sp.dim }

// Atoms is the number of atoms.
func (st *State) Atoms() int { return st.sp.n }

// Amplitude is the amplitude of configuration i.
func (st *State) Amplitude(i int) complex128 { return st.amp[i] }

// Rydberg reports whether configuration i has atom k in r.
func (st *State) Rydberg(i, k int) bool { return st.sp.inRydberg(i, k) }

// Index is the configuration whose atoms in r are those set in rydberg
// (one per atom), and whether the run simulated it.
func (st *State) Index(rydberg []bool) (int, bool) {
	sp := st.sp
	if len(rydberg) != sp.n {
		return 0, false
	}
	if !sp.restricted {
		i := 0
		for k, r := range rydberg {
			if r {
				i |= 1 << k
			}
		}
		return i, true
	}
	key := make([]uint64, sp.w)
	for k, r := range rydberg {
		if r {
			key[k/64] |= 1 << (63 - k%64)
		}
	}
	i := sp.find(key)
	return i, i < sp.dim && slices.Equal(sp.config(i), key)
}

// Sample draws shots configurations from the state's probabilities
// |amplitude|², independently, with a generator seeded by seed, and
// returns their indices in the order drawn. It sorts the draws and sweeps
// the probabilities once, so it holds nothing per configuration.
func (st *State) Sample(shots int, seed uint64) []int {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	total := 0.0
	for _, a := range st.amp {
		total += real(a)*real(a) + imag(a)*imag(a)
	}
	type draw struct {
		u    float64
		shot int
	}
	draws := make([]draw, shots)
	for i := range draws {
		draws[i] = draw{rng.Float64() * total, i}
	}
	slices.SortFunc(draws, func(a, b draw) int { return cmp.Compare(a.u, b.u) })
	out := make([]int, shots)
	last := -1 // the last configuration with any probability, for draws rounding leaves past the end
	cum, i := 0.0, 0
	for s, a := range st.amp {
		p := real(a)*real(a) + imag(a)*imag(a)
		if p == 0 {
			continue
		}
		last = s
		cum += p
		for i < shots && draws[i].u < cum {
			out[draws[i].shot] = s
			i++
		}
	}
	for ; i < shots; i++ {
		out[draws[i].shot] = max(last, 0)
	}
	return out
}
