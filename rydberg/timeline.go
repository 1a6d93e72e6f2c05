package rydberg

import (
	"math"
	"math/cmplx"
	"slices"
)

// The fields as the integrator sees them: the program's time cut at every
// breakpoint of every field, and on each stretch between two breakpoints
// each field's value at its start and its slope.

// linear is a real field on one stretch: v0 at its start, slope after.
type linear struct{ v0, slope float64 }

// clinear is a complex one.
type clinear struct{ v0, slope complex128 }

// stretch is the time between two consecutive breakpoints, with the
// fields on it.
type stretch struct {
	t0, t1    float64
	drives    []clinear
	detunings []linear
}

// timeline walks the stretches of a program in order.
type timeline struct {
	breaks    []float64
	drives    []cfield
	detunings []field
	next      int // the stretch to return next
}

// field is a real field's points; at is the cursor of the stretch walk.
type field struct {
	times, values []float64
	at            int
}

type cfield struct {
	times  []float64
	values []complex128
	at     int
}

// newTimeline simplifies the program's fields (points on a straight line
// with their neighbours carry no kink and are dropped) and collects their
// breakpoints.
func newTimeline(p *Program) *timeline {
	tl := &timeline{}
	breaks := []float64{0, p.Duration}
	for _, d := range p.Drives {
		t, v := simplifyComplex(d.Times, d.Values)
		tl.drives = append(tl.drives, cfield{times: t, values: v})
		breaks = append(breaks, t...)
	}
	for _, d := range p.Detunings {
		t, v := simplifyReal(d.Times, d.Values)
		tl.detunings = append(tl.detunings, field{times: t, values: v})
		breaks = append(breaks, t...)
	}
	slices.Sort(breaks)
	tl.breaks = slices.Compact(breaks)
	return tl
}

// nextStretch returns the next stretch, or false after the last. The
// slices of the stretch are reused by the next call.
func (tl *timeline) nextStretch(s *stretch) bool {
	if tl.next+1 >= len(tl.breaks) {
		return false
	}
	t0, t1 := tl.breaks[tl.next], tl.breaks[tl.next+1]
	tl.next++
	s.t0, s.t1 = t0, t1
	s.drives = s.drives[:0]
	for i := range tl.drives {
		s.drives = append(s.drives, tl.drives[i].on(t0))
	}
	s.detunings = s.detunings[:0]
	for i := range tl.detunings {
		s.detunings = append(s.detunings, tl.detunings[i].on(t0))
	}
	return true
}

// on is the field on the stretch that starts at t0: the piece from the
// last of its points at or before t0 (after a jump at t0, the later value)
// to the next. Stretches are asked for in order, so the cursor only moves
// forward.
func (f *field) on(t0 float64) linear {
	for f.at+2 < len(f.times) && f.times[f.at+1] <= t0 {
		f.at++
	}
	ta, tb := f.times[f.at], f.times[f.at+1]
	va, vb := f.values[f.at], f.values[f.at+1]
	if tb <= ta {
		return linear{v0: vb}
	}
	slope := (vb - va) / (tb - ta)
	return linear{v0: va + slope*(t0-ta), slope: slope}
}

func (f *cfield) on(t0 float64) clinear {
	for f.at+2 < len(f.times) && f.times[f.at+1] <= t0 {
		f.at++
	}
	ta, tb := f.times[f.at], f.times[f.at+1]
	va, vb := f.values[f.at], f.values[f.at+1]
	if tb <= ta {
		return clinear{v0: vb}
	}
	slope := (vb - va) / complex(tb-ta, 0)
	return clinear{v0: va + slope*complex(t0-ta, 0), slope: slope}
}

// collinear is how far, relative to a field's largest value, a run of
// pieces may bend and still count as one straight piece: values sampled
// from a straight line (a Pulser ramp, one sample a nanosecond) differ
// from it by rounding alone.
const collinear = 1e-12

// simplifyReal drops the points that lie on the straight line through
// their run, keeping jumps and kinks.
func simplifyReal(times, values []float64) ([]float64, []float64) {
	scale := 0.0
	for _, v := range values {
		scale = max(scale, math.Abs(v))
	}
	keep := simplify(times, func(a, b int) float64 { return (values[b] - values[a]) / (times[b] - times[a]) },
		func(x, y float64) float64 { return math.Abs(x - y) }, scale)
	t, v := make([]float64, len(keep)), make([]float64, len(keep))
	for i, k := range keep {
		t[i], v[i] = times[k], values[k]
	}
	return t, v
}

func simplifyComplex(times []float64, values []complex128) ([]float64, []complex128) {
	scale := 0.0
	for _, v := range values {
		scale = max(scale, cmplx.Abs(v))
	}
	slope := func(a, b int) complex128 { return (values[b] - values[a]) / complex(times[b]-times[a], 0) }
	keep := simplify(times, slope, func(x, y complex128) float64 { return cmplx.Abs(x - y) }, scale)
	t, v := make([]float64, len(keep)), make([]complex128, len(keep))
	for i, k := range keep {
		t[i], v[i] = times[k], values[k]
	}
	return t, v
}

// simplify returns the indices of the points to keep: the ends, both
// points of a jump, and each point where the slope changes by more than
// collinear·scale over the run it ends.
func simplify[T any](times []float64, slope func(a, b int) T, diff func(x, y T) float64, scale float64) []int {
	n := len(times)
	keep := []int{0}
	start := 0 // the run's first point
	for i := 1; i < n-1; i++ {
		jump := times[i] == times[i-1] || times[i+1] == times[i]
		if jump {
			keep = append(keep, i)
			start = i
			continue
		}
		// Point i may go when the piece after it continues the run's
		// slope: the line from start then misses it by at most the slope
		// difference times the run's length.
		if diff(slope(start, start+1), slope(i, i+1))*(times[i+1]-times[start]) > collinear*scale {
			keep = append(keep, i)
			start = i
		}
	}
	if n > 1 {
		keep = append(keep, n-1)
	}
	return keep
}
