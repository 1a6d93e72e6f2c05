package anneal

import (
	"fmt"
	"math"
)

// Schedule is how β goes from the first sweep's to the last's.
type Schedule uint8

const (
	// Geometric spaces β evenly on a log scale (dwave-samplers' default).
	Geometric Schedule = iota
	// Linear spaces β evenly.
	Linear
)

// String is the schedule as runtimeOptions.beta_schedule_type names it.
func (s Schedule) String() string {
	switch s {
	case Geometric:
		return "geometric"
	case Linear:
		return "linear"
	}
	return fmt.Sprintf("Schedule(%d)", uint8(s))
}

// DefaultBetaRange is the [hot, cold] range of β that dwave-samplers'
// SimulatedAnnealingSampler takes for a problem (_default_ising_beta_range,
// on the problem in spins):
//
//   - hot: every spin flips with probability at least 1/2 on the first
//     sweep, however its neighbours lie: ln 2 / (2·max_i(|h_i| + Σ_j |J_ij|)),
//     or 1 when every bias is zero;
//   - cold: the chance that the last sweep excites any spin is about 1%,
//     taking the smallest nonzero bias as each spin's gap:
//     ln(n_min / 0.01) / (2·b_min), where b_min is the smallest nonzero
//     |h_i| or |J_ij| and n_min the number of spins whose smallest nonzero
//     bias is b_min;
//   - [0.1, 1] when every bias is zero.
func DefaultBetaRange(p *Problem) [2]float64 {
	// The problem in spins, its fields only (not the adjacency the
	// solvers build): a QUBO's h_i is a_i/2 plus a quarter of each of its
	// couplings, J a quarter of each.
	n := len(p.Names)
	h := make([]float64, n)
	scale := 1.0
	if p.Kind == QUBO {
		scale = 0.25
		for i, a := range p.Linear {
			h[i] = a / 2
		}
		for _, c := range p.Couplings {
			h[c.U] += c.C / 4
			h[c.V] += c.C / 4
		}
	} else {
		copy(h, p.Linear)
	}
	sum := make([]float64, n)   // Σ|bias| of each spin
	least := make([]float64, n) // its least nonzero |bias|, +Inf if none
	for i, x := range h {
		sum[i] = math.Abs(x)
		least[i] = math.Inf(1)
		if x != 0 {
			least[i] = math.Abs(x)
		}
	}
	for _, c := range p.Couplings {
		j := math.Abs(c.C * scale)
		sum[c.U] += j
		sum[c.V] += j
		if j != 0 {
			least[c.U] = min(least[c.U], j)
			least[c.V] = min(least[c.V], j)
		}
	}
	maxField, minBias, atMin := 0.0, math.Inf(1), 0
	for i := range n {
		maxField = max(maxField, sum[i])
		switch {
		case least[i] < minBias:
			minBias, atMin = least[i], 1
		case least[i] == minBias && !math.IsInf(minBias, 1):
			atMin++
		}
	}
	if math.IsInf(minBias, 1) {
		return [2]float64{0.1, 1}
	}
	hot := 1.0
	if maxField > 0 {
		hot = math.Ln2 / (2 * maxField)
	}
	cold := math.Log(float64(atMin)/0.01) / (2 * minBias)
	return [2]float64{hot, cold}
}

// betas gives the β of each of sweeps sweeps from r[0] to r[1]; a single
// sweep runs at r[1], as dwave-samplers does. Each β is computed when its
// sweep comes, not kept: a run of a billion sweeps holds no schedule.
type betas struct {
	r      [2]float64
	sweeps int
	kind   Schedule
	ratio  float64 // geometric: ln(r[1]/r[0])
}

func newBetas(r [2]float64, sweeps int, kind Schedule) betas {
	b := betas{r: r, sweeps: sweeps, kind: kind}
	if kind == Geometric {
		b.ratio = math.Log(r[1] / r[0])
	}
	return b
}

func (b betas) at(k int) float64 {
	switch {
	case k == b.sweeps-1:
		return b.r[1]
	case k == 0:
		return b.r[0]
	case b.kind == Linear:
		return b.r[0] + float64(k)*(b.r[1]-b.r[0])/float64(b.sweeps-1)
	}
	return b.r[0] * math.Exp(b.ratio*float64(k)/float64(b.sweeps-1))
}
