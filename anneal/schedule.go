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
func DefaultBetaRange(p *Problem) [2]float64 { return p.toIsing().betaRange() }

func (m *ising) betaRange() [2]float64 {
	maxField, minBias, atMin := 0.0, math.Inf(1), 0
	for i, h := range m.h {
		sum := math.Abs(h)
		least := math.Inf(1)
		if h != 0 {
			least = math.Abs(h)
		}
		for _, j := range m.j[m.start[i]:m.start[i+1]] {
			sum += math.Abs(j)
			if j != 0 {
				least = min(least, math.Abs(j))
			}
		}
		maxField = max(maxField, sum)
		switch {
		case least < minBias:
			minBias, atMin = least, 1
		case least == minBias && !math.IsInf(least, 1):
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
