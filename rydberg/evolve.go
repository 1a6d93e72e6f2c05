package rydberg

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/cmplx"
)

// ErrWorkLimit is the error of a run stopped before its work would pass
// Options.MaxWork.
var ErrWorkLimit = errors.New("rydberg: work limit exceeded")

// TooLargeError refuses a run whose memory would pass Options.MemoryBudget.
type TooLargeError struct {
	Need   Need
	Budget int64
}

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("rydberg: %d atoms, %g configurations, need %.0f bytes, more than the budget of %d", e.Need.Atoms, e.Need.Configurations, e.Need.Bytes, e.Budget)
}

// stepSize is the product of a step's length and the bound on its
// Hamiltonian's norm (shifted to centre its diagonal) that steps aim at.
// A larger product needs fewer terms per unit of time (about 4.5 a unit
// here), but the terms grow to about e^x/√(2πx) before they shrink, and
// the sum loses that much to rounding: at 10 it is 2.8·10³ times machine
// epsilon a step.
const stepSize = 10

// maxTerms is the most terms one step adds before it is cut in half.
const maxTerms = 160

// Evolve runs p from every atom in g over its duration and returns the
// final state. It checks what the run needs against o.MemoryBudget
// before allocating (a *TooLargeError), stops between passes when ctx
// ends (with ctx's error) and before its work would pass o.MaxWork
// (ErrWorkLimit).
func Evolve(ctx context.Context, p *Program, o Options) (*State, error) {
	need, err := Estimate(p, o)
	if err != nil {
		return nil, err
	}
	if o.MemoryBudget > 0 && (need.AtLeast || need.Bytes > float64(o.MemoryBudget)) {
		return nil, &TooLargeError{Need: need, Budget: o.MemoryBudget}
	}
	if need.Configurations > maxConfigurations || need.AtLeast {
		return nil, &TooLargeError{Need: need, Budget: o.MemoryBudget}
	}
	var sp *space
	if need.Restricted {
		sp = restrictedSpace(p, conflictsOf(p, o.BlockadeRadius), need)
	} else {
		sp = fullSpace(len(p.Atoms))
	}
	r := newRun(p, sp, o)
	r.work = int64(sp.dim) + sp.neighbors() // listing the configurations and their energies
	if err := r.integrate(ctx); err != nil {
		return nil, err
	}
	return &State{sp: sp, amp: r.psi, Restricted: sp.restricted, Steps: r.steps, Terms: r.terms,
		Work: r.work, ErrorBound: r.bound, Roundoff: r.roundoff}, nil
}

// run is one evolution: the space, the buffers, the program's fields in
// the form the passes read them, and what it has done.
type run struct {
	p   *Program
	sp  *space
	tol float64

	psi, acc   []complex128
	z          [3][]complex128 // the series' terms, in turn
	v          []float64       // interaction energy of each configuration
	d0, d1     []float64       // the step's diagonal, A's and B's, scaled
	uniform    bool            // every atom driven alike
	alpha      []complex128    // per atom, A's drive: h·c_k/2
	beta       []complex128    // per atom, B's drive: h²·c_k'/2
	localValue []float64       // per atom, the local detunings' sum at the step's start
	localSlope []float64
	hasLocal   bool

	maxWork  int64
	work     int64
	steps    int
	terms    int
	bound    float64
	roundoff float64
	phase    float64 // the global phase the shifts took out, added back at the end
}

func newRun(p *Program, sp *space, o Options) *run {
	n := sp.n
	r := &run{p: p, sp: sp, tol: o.tolerance(), maxWork: o.MaxWork}
	r.psi = make([]complex128, sp.dim)
	r.acc = make([]complex128, sp.dim)
	for i := range r.z {
		r.z[i] = make([]complex128, sp.dim)
	}
	r.v = make([]float64, sp.dim)
	r.d0 = make([]float64, sp.dim)
	r.d1 = make([]float64, sp.dim)
	r.psi[0] = 1 // every atom in g: the first configuration of either space
	sp.interactions(p, r.v)
	r.uniform = true
	for _, d := range p.Drives {
		if d.Atoms != nil && !coversAll(d.Atoms, n) {
			r.uniform = false
		}
	}
	r.alpha = make([]complex128, n)
	r.beta = make([]complex128, n)
	r.localValue = make([]float64, n)
	r.localSlope = make([]float64, n)
	for _, d := range p.Detunings {
		if d.Weights != nil {
			r.hasLocal = true
		}
	}
	return r
}

func coversAll(atoms []int, n int) bool {
	seen := make([]bool, n)
	c := 0
	for _, a := range atoms {
		if !seen[a] {
			seen[a] = true
			c++
		}
	}
	return c == n
}

// integrate walks the program's stretches, taking steps within each.
func (r *run) integrate(ctx context.Context) error {
	if r.p.Duration == 0 {
		return nil
	}
	tl := newTimeline(r.p)
	var st stretch
	for tl.nextStretch(&st) {
		for t := st.t0; t < st.t1; {
			if err := ctx.Err(); err != nil {
				return err
			}
			h, err := r.step(ctx, &st, t)
			if err != nil {
				return err
			}
			if t+h >= st.t1 || h <= 0 {
				break
			}
			t += h
		}
	}
	// The shifts of the diagonal took a global phase out of the series;
	// put it back, so that amplitudes are the solution's own.
	rot := cmplx.Exp(complex(0, -math.Mod(r.phase, 2*math.Pi)))
	for i := range r.psi {
		r.psi[i] *= rot
	}
	return nil
}

// fields is the drive and detuning of a stretch at time t: per atom, the
// drive's value and slope; the global detuning's; the local ones per atom
// (in r.localValue, r.localSlope).
func (r *run) fields(st *stretch, t float64) (drive, driveSlope []complex128, global, globalSlope float64) {
	n := r.sp.n
	drive, driveSlope = r.alpha, r.beta // filled unscaled here, scaled by step
	clear(drive)
	clear(driveSlope)
	dt := t - st.t0
	for j, d := range r.p.Drives {
		c := st.drives[j].v0 + st.drives[j].slope*complex(dt, 0)
		cs := st.drives[j].slope
		if d.Atoms == nil {
			for k := range n {
				drive[k] += c
				driveSlope[k] += cs
			}
			continue
		}
		seen := map[int]bool{}
		for _, k := range d.Atoms {
			if !seen[k] {
				seen[k] = true
				drive[k] += c
				driveSlope[k] += cs
			}
		}
	}
	clear(r.localValue)
	clear(r.localSlope)
	for j, d := range r.p.Detunings {
		val := st.detunings[j].v0 + st.detunings[j].slope*dt
		slope := st.detunings[j].slope
		if d.Weights == nil {
			global += val
			globalSlope += slope
			continue
		}
		for k, w := range d.Weights {
			r.localValue[k] += val * w
			r.localSlope[k] += slope * w
		}
	}
	return drive, driveSlope, global, globalSlope
}

// step takes one step from t within the stretch and returns its length.
func (r *run) step(ctx context.Context, st *stretch, t float64) (float64, error) {
	drive, driveSlope, global, globalSlope := r.fields(st, t)
	// The diagonal at t and its slope: D0 = V − Σ δ n, D1 = −Σ δ' n.
	lo0, hi0, lo1, hi1 := r.diagonal(global, globalSlope)
	c0, c1 := (lo0+hi0)/2, (lo1+hi1)/2
	offA, offB := 0.0, 0.0
	for k := range drive {
		offA += cmplx.Abs(drive[k]) / 2
		offB += cmplx.Abs(driveSlope[k]) / 2
	}
	normA := (hi0-lo0)/2 + offA
	normB := (hi1-lo1)/2 + offB
	left := st.t1 - t
	if offA == 0 && offB == 0 {
		// No drive on the stretch: each configuration only turns its
		// phase, exactly, to the stretch's end.
		r.diagonalStep(left)
		return left, nil
	}
	h := left
	if x := normA + math.Sqrt(2*normB); x*h > stepSize {
		h = stepSize / x
	}
	for {
		ok, err := r.series(ctx, h, c0, c1, normA, normB, drive, driveSlope)
		if err != nil {
			return 0, err
		}
		if ok {
			break
		}
		h /= 2 // the terms did not shrink in time
	}
	r.steps++
	r.phase += c0*h + c1*h*h/2
	r.psi, r.acc = r.acc, r.psi
	return h, nil
}

// diagonal fills d0 and d1 with the diagonal at the step's start and its
// slope, unscaled, and returns their ranges.
func (r *run) diagonal(global, globalSlope float64) (lo0, hi0, lo1, hi1 float64) {
	sp := r.sp
	lo0, hi0, lo1, hi1 = math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for s := range sp.dim {
		cnt := float64(sp.count(s))
		a := r.v[s] - global*cnt
		b := -globalSlope * cnt
		if r.hasLocal {
			sp.eachRydberg(s, func(k int) {
				a -= r.localValue[k]
				b -= r.localSlope[k]
			})
		}
		r.d0[s], r.d1[s] = a, b
		lo0, hi0 = min(lo0, a), max(hi0, a)
		lo1, hi1 = min(lo1, b), max(hi1, b)
	}
	return lo0, hi0, lo1, hi1
}

// diagonalStep turns each configuration's phase by its diagonal over h,
// exactly: the diagonal is linear in time.
func (r *run) diagonalStep(h float64) {
	for s := range r.psi {
		theta := r.d0[s]*h + r.d1[s]*h*h/2
		r.psi[s] *= cmplx.Exp(complex(0, -math.Mod(theta, 2*math.Pi)))
	}
	r.work += int64(r.sp.dim)
	r.steps++
}

// series sums the Taylor series of one step of length h into r.acc; false
// when its terms did not shrink within maxTerms. c0 and c1 centre the
// diagonal; normA and normB bound ‖A − c0‖ and ‖B − c1‖.
func (r *run) series(ctx context.Context, h, c0, c1, normA, normB float64, drive, driveSlope []complex128) (bool, error) {
	slope := false // the diagonal changes over the step
	for s := range r.d0 {
		r.d0[s] = h * (r.d0[s] - c0)
		r.d1[s] = h * h * (r.d1[s] - c1)
		slope = slope || r.d1[s] != 0
	}
	for k := range drive {
		drive[k] *= complex(h/2, 0)
		driveSlope[k] *= complex(h*h/2, 0)
	}
	unscale := func() { // back to the diagonal at t, should the step be cut
		for s := range r.d0 {
			r.d0[s] = r.d0[s]/h + c0
			r.d1[s] = r.d1[s]/(h*h) + c1
		}
	}
	a, b := h*normA, h*h*normB
	tolStep := r.tol / 2 * h / r.p.Duration
	ops := &pass{sp: r.sp, d0: r.d0, d1: r.d1, alpha: drive, beta: driveSlope, uniform: r.uniform, hasD1: slope}
	ops.prepare()
	prev := []complex128(nil)
	cur := r.psi
	copy(r.acc, r.psi)
	normPrev, normCur := 0.0, norm(r.psi)
	sum := normCur
	for k := 0; k < maxTerms; k++ {
		if err := ctx.Err(); err != nil {
			return false, err
		}
		cost := ops.cost(prev != nil)
		if r.maxWork > 0 && r.work+cost > r.maxWork {
			return false, ErrWorkLimit
		}
		r.work += cost
		next := r.z[k%3]
		normNext := ops.term(k, cur, prev, next, r.acc)
		r.terms++
		sum += normNext
		prev, cur = cur, next
		normPrev, normCur = normCur, normNext
		if float64(k+1) < a {
			continue // the terms may still grow
		}
		if tail := tailBound(a, b, k+1, normPrev, normCur); tail <= tolStep {
			r.bound += tail
			r.roundoff += 0x1p-52 * sum * math.Sqrt(float64(r.sp.n+2))
			return true, nil
		}
	}
	unscale()
	for k := range drive {
		drive[k] /= complex(h/2, 0)
		driveSlope[k] /= complex(h*h/2, 0)
	}
	return false, nil
}

func norm(x []complex128) float64 {
	s := 0.0
	for _, v := range x {
		s += real(v)*real(v) + imag(v)*imag(v)
	}
	return math.Sqrt(s)
}

// tailBound bounds the norms of the terms after term k+1, given those of
// terms k and k+1: each term obeys ‖z_{j+1}‖ ≤ (a‖z_j‖ + b‖z_{j−1}‖)/(j+1),
// so the recurrence with equality from the two known norms majorises
// every later one.
func tailBound(a, b float64, k int, ek, ek1 float64) float64 {
	g0, g1 := ek, ek1
	sum := 0.0
	peak := 2*(a+math.Sqrt(b)) + 2 // past it the majorant shrinks at least by half a term
	for j := k; j < k+1000; j++ {
		g2 := (a*g1 + b*g0) / float64(j+1)
		sum += g2
		// Two terms in a row: with a = 0 every other term is zero.
		if g2 == 0 && g1 == 0 || float64(j) > peak && g1+g2 <= sum*1e-17 {
			return sum
		}
		g0, g1 = g1, g2
	}
	return math.Inf(1)
}
