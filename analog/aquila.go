package analog

import (
	"fmt"
	"math"
	"strconv"
)

// Aquila's limits (decisions.md, "Devices"; the values of its Braket
// capabilities as the public client's tests record them). Each is
// compared with a relative tolerance of 1e-9 (relTolerance), so that the
// public client's decimal strings at exactly 50 ns or 4 µs pass.
const (
	aquilaSites     = 256
	aquilaWidth     = 75e-6 // m, the extent of the sites in x
	aquilaHeight    = 76e-6 // m, in y
	aquilaSpacing   = 4e-6  // m, the least distance between two sites
	aquilaDuration  = 4e-6  // s
	aquilaRabiMax   = 1.58e7
	aquilaDetuning  = 1.25e8 // |Δ|, rad/s
	aquilaLocalMax  = 1.25e8 // a local detuning's magnitude, rad/s
	aquilaTimeStep  = 5e-8   // s, between two points of a series
	aquilaRabiSlew  = 4e14   // |dΩ/dt|, rad/s²
	aquilaDetuneSlw = 6e15   // |dΔ/dt|, rad/s²
)

// Aquila's typical errors, its default noise model (decisions.md): a
// filled site found empty before the sequence, and a ground atom lost
// (read as Rydberg) after it.
const (
	aquilaFillingError = 0.008
	aquilaAtomLoss     = 0.005
)

// above reports whether x passes the limit beyond the tolerance.
func above(x, limit float64) bool { return x > limit*(1+relTolerance) }

// below reports whether x falls short of the limit beyond the tolerance.
func below(x, limit float64) bool { return x < limit*(1-relTolerance) }

func si(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }

// checkAquila checks a decoded program against Aquila's limits.
func checkAquila(a *ahs, p *problems) {
	if len(a.sites) > aquilaSites {
		p.add(a.sitesPath, "has %d sites; Aquila has %d", len(a.sites), aquilaSites)
	}
	if len(a.sites) > 0 {
		minX, maxX, minY, maxY := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
		for _, s := range a.sites {
			minX, maxX = min(minX, s[0]), max(maxX, s[0])
			minY, maxY = min(minY, s[1]), max(maxY, s[1])
		}
		if above(maxX-minX, aquilaWidth) {
			p.add(a.sitesPath, "span %s m in x; Aquila's area is %s m wide", si(maxX-minX), si(aquilaWidth))
		}
		if above(maxY-minY, aquilaHeight) {
			p.add(a.sitesPath, "span %s m in y; Aquila's area is %s m high", si(maxY-minY), si(aquilaHeight))
		}
	}
	if i, j, d := closest(a.sites); i >= 0 && below(d, aquilaSpacing) {
		p.add(fmt.Sprintf("%s[%d]", a.sitesPath, j), "is %s m from site %d; sites on Aquila are at least %s m apart", si(d), i, si(aquilaSpacing))
	}
	if end := a.amplitude.end(); above(end, aquilaDuration) {
		p.add(a.amplitude.path+".time_series.times["+strconv.Itoa(len(a.amplitude.times)-1)+"]", "ends at %s s; Aquila's programs last at most %s s", si(end), si(aquilaDuration))
	}
	all := []series{a.amplitude, a.phase, a.detuning}
	if a.local != nil {
		all = append(all, *a.local)
	}
	for _, s := range all {
		for i := 1; i < len(s.times); i++ {
			if below(s.times[i]-s.times[i-1], aquilaTimeStep) {
				p.add(s.path+".time_series.times["+strconv.Itoa(i)+"]", "is %s s after the time before it; Aquila's time steps are at least %s s", si(s.times[i]-s.times[i-1]), si(aquilaTimeStep))
				break
			}
		}
	}
	values := func(s series, i int) string { return s.path + ".time_series.values[" + strconv.Itoa(i) + "]" }
	amp := a.amplitude
	for i, v := range amp.values {
		if v < 0 || above(v, aquilaRabiMax) {
			p.add(values(amp, i), "is %s rad/s; Aquila's Rabi frequency is in [0, %s] rad/s", si(v), si(aquilaRabiMax))
		}
	}
	if n := len(amp.values); n > 0 {
		for _, i := range []int{0, n - 1} {
			if math.Abs(amp.values[i]) > relTolerance*aquilaRabiMax {
				p.add(values(amp, i), "is %s rad/s; on Aquila the Rabi frequency starts and ends at 0", si(amp.values[i]))
			}
		}
	}
	for i, v := range a.detuning.values {
		if above(math.Abs(v), aquilaDetuning) {
			p.add(values(a.detuning, i), "is %s rad/s; Aquila's detuning is in [−%s, %s] rad/s", si(v), si(aquilaDetuning), si(aquilaDetuning))
		}
	}
	if a.local != nil {
		for i, v := range a.local.values {
			if v < 0 || above(v, aquilaLocalMax) {
				p.add(values(*a.local, i), "is %s rad/s; Aquila's local detuning is in [0, %s] rad/s", si(v), si(aquilaLocalMax))
			}
		}
	}
	checkSlew(amp, aquilaRabiSlew, "Rabi frequency", p)
	checkSlew(a.detuning, aquilaDetuneSlw, "detuning", p)
}

// checkSlew checks how fast a series changes between its points.
func checkSlew(s series, limit float64, what string, p *problems) {
	for i := 1; i < len(s.times); i++ {
		rate := math.Abs(s.values[i]-s.values[i-1]) / (s.times[i] - s.times[i-1])
		if above(rate, limit) {
			p.add(s.path+".time_series.values["+strconv.Itoa(i)+"]", "changes the %s by %s rad/s² from the value before it; Aquila's slew rate is at most %s rad/s²", what, si(rate), si(limit))
			return
		}
	}
}

// closest are the two sites nearest each other and their distance (−1
// with fewer than two sites, or more than Aquila holds: every pair is
// looked at).
func closest(sites [][2]float64) (int, int, float64) {
	bi, bj, best := -1, -1, math.Inf(1)
	if len(sites) > aquilaSites {
		return bi, bj, best
	}
	for i := range sites {
		for j := i + 1; j < len(sites); j++ {
			if d := math.Hypot(sites[i][0]-sites[j][0], sites[i][1]-sites[j][1]); d < best {
				bi, bj, best = i, j, d
			}
		}
	}
	return bi, bj, best
}
