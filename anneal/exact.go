package anneal

import (
	"cmp"
	"container/heap"
	"math"
	"math/bits"
	"slices"
	"sync/atomic"
)

// MaxExactVariables bounds the exact method: 2^30 assignments, seconds to
// tens of seconds of work.
const MaxExactVariables = 30

// exactNeed is Exact's memory and work: the ising form, one state, the
// kept states, and a Gray code's flips, variable k of the order flipping
// 2^(n−1−k) times and updating its row each time.
func exactNeed(p *Problem, o Options) (memory, work int64) {
	n, m := int64(len(p.Names)), int64(len(p.Couplings))
	memory = isingBytes(n, m) + 9*n + 4*n + int64(o.kept()+1)*(16+n+48)
	if n > MaxExactVariables {
		return memory, math.MaxInt64
	}
	deg := p.degrees()
	order := flipOrder(deg)
	work = n + m // the first state's energy and fields
	for k, v := range order {
		work += int64(1) << (int(n) - 1 - k) * (1 + int64(deg[v]))
	}
	return memory, work
}

// flipOrder puts the variables with the fewest couplings where the Gray
// code flips most often.
func flipOrder(deg []int32) []int32 {
	order := make([]int32, len(deg))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return cmp.Compare(deg[a], deg[b]) })
	return order
}

// kept is an assignment among the lowest seen: its energy as the
// enumeration added it up, and its Gray code (bit k is variable order[k]).
type kept struct {
	e    float64
	code uint32
}

// highest is a max-heap of kept assignments by energy.
type highest []kept

func (h highest) Len() int           { return len(h) }
func (h highest) Less(i, j int) bool { return h[i].e > h[j].e }
func (h highest) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *highest) Push(x any)        { *h = append(*h, x.(kept)) }
func (h *highest) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// exact walks every assignment in Gray-code order, one flip from the last,
// keeping its energy current through the flipped variable's row, and the
// lowest it has seen. Rounding adds up over 2^30 flips, so the energies
// kept are only a shortlist: each is recomputed from its assignment, and
// those within a billionth of the problem's scale of the lowest are its
// ground states.
func exact(p *Problem, o Options, stop *atomic.Bool) (*Result, error) {
	m := p.toIsing()
	n := len(m.h)
	order := flipOrder(p.degrees())
	state := make([]int8, n)
	for i := range state {
		state[i] = -1
	}
	field := make([]float64, n)
	m.fields(state, field)
	e := m.energy(state)
	limit := o.kept() + 1 // one more than returned: a full shortlist of ground states says there are more
	h := make(highest, 0, limit)
	h = append(h, kept{e: e})
	code := uint32(0)
	for i := uint64(1); i < uint64(1)<<n; i++ {
		if i&0xffff == 0 && stop.Load() {
			return &Result{}, nil
		}
		k := bits.TrailingZeros64(i)
		v := order[k]
		old := float64(state[v])
		e -= 2 * old * field[v]
		state[v] = -state[v]
		for r := m.start[v]; r < m.start[v+1]; r++ {
			field[m.nbr[r]] -= 2 * old * m.j[r]
		}
		code ^= 1 << k
		switch {
		case len(h) < limit:
			heap.Push(&h, kept{e: e, code: code})
		case e < h[0].e:
			h[0] = kept{e: e, code: code}
			heap.Fix(&h, 0)
		}
	}
	return groundStates(p, order, h, o.kept()), nil
}

// groundStates are the shortlist's assignments of the lowest energy,
// recomputed, at most most of them in the order of their values.
func groundStates(p *Problem, order []int32, list highest, most int) *Result {
	sols := make([]Solution, len(list))
	low := int8(-1)
	if p.Kind == QUBO {
		low = 0
	}
	best := math.Inf(1)
	for i, k := range list {
		values := make([]int8, len(p.Names))
		for b, v := range order {
			values[v] = low
			if k.code>>b&1 == 1 {
				values[v] = 1
			}
		}
		sols[i] = Solution{Values: values, Energy: p.Energy(values), Occurrences: 1}
		best = min(best, sols[i].Energy)
	}
	tol := 1e-9 * max(scale(p), 1e-300)
	ground := sols[:0]
	for _, s := range sols {
		if s.Energy <= best+tol {
			ground = append(ground, s)
		}
	}
	slices.SortFunc(ground, func(a, b Solution) int {
		return cmp.Or(compareFloat(a.Energy, b.Energy), slices.Compare(a.Values, b.Values))
	})
	res := &Result{Solutions: ground}
	if len(ground) > most {
		res.Solutions, res.Truncated = ground[:most], true
	}
	return res
}

// scale is the largest energy the problem's terms can add up to.
func scale(p *Problem) float64 {
	s := 0.0
	for _, c := range p.Linear {
		s += math.Abs(c)
	}
	for _, c := range p.Couplings {
		s += math.Abs(c.C)
	}
	return s
}
