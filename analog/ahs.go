package analog

import (
	"math"
	"math/cmplx"
	"strconv"

	"github.com/qjobs/quantum/rydberg"
)

// The format analog: a Braket analog Hamiltonian simulation program, as
// the public client sends it ({"register", "hamiltonian"}, numbers as
// decimal strings) or as Braket's own IR ({"braketSchemaHeader",
// "setup": {"ahs_register"}, "hamiltonian"}, with "shiftingFields" the
// older name of "localDetuning"). Units are SI: metres, seconds, rad/s,
// radians.

// series is a time series as the program gives it, with its path.
type series struct {
	times, values []float64
	path          string // the field's: …drivingFields[0].amplitude
}

func (s series) end() float64 { return s.times[len(s.times)-1] }

// ahs is a decoded analog program, in SI units.
type ahs struct {
	sites     [][2]float64
	filling   []bool
	sitesPath string
	amplitude series
	phase     series
	detuning  series
	// local is the local detuning's magnitude and pattern, if any.
	local        *series
	pattern      []float64
	patternPath  string
	hasLocalSpec bool
}

// c6SI is Aquila's and Braket's interaction coefficient, in rad·m⁶/s.
const c6SI = 5.42e-24

// decodeAHS reads and checks an analog program against the rules every
// device shares (decisions.md); a device's own limits are checked after.
func decodeAHS(data string) (*ahs, error) {
	root, err := parseJSON(data, "program.data")
	if err != nil {
		return nil, err
	}
	var p problems
	if !root.object(&p) {
		return nil, p.err()
	}
	a := &ahs{}
	register, ok := root.field("register")
	if setup, isIR := root.field("setup"); isIR {
		if !setup.object(&p) {
			return nil, p.err()
		}
		register, ok = setup.need("ahs_register", &p)
	} else if !ok {
		p.add("program.data.register", "is required")
	}
	if ok && register.object(&p) {
		a.decodeRegister(register, &p)
	}
	if h, ok := root.need("hamiltonian", &p); ok && h.object(&p) {
		a.decodeHamiltonian(h, &p)
	}
	if !p.ok() {
		return nil, p.err()
	}
	a.checkEnds(&p)
	return a, p.err()
}

func (a *ahs) decodeRegister(reg node, p *problems) {
	sites, okS := reg.need("sites", p)
	filling, okF := reg.need("filling", p)
	if okS {
		a.sitesPath = sites.path
		if items, ok := sites.list(p); ok {
			for _, it := range items {
				xy, ok := it.numbers(p, true)
				if ok && len(xy) != 2 {
					p.add(it.path, "must be [x, y] in metres, got %d numbers", len(xy))
					ok = false
				}
				if ok {
					a.sites = append(a.sites, [2]float64{xy[0], xy[1]})
				} else {
					a.sites = append(a.sites, [2]float64{math.NaN(), math.NaN()})
				}
			}
		}
	}
	if okF {
		if items, ok := filling.list(p); ok {
			for _, it := range items {
				f, ok := it.number(p, true)
				if ok && f != 0 && f != 1 {
					p.add(it.path, "must be 0 (empty) or 1 (filled), got %v", f)
				}
				a.filling = append(a.filling, f == 1)
			}
			if okS && len(items) != len(a.sites) {
				p.add(filling.path, "has %d entries for %d sites: one per site", len(items), len(a.sites))
			}
		}
	}
}

func (a *ahs) decodeHamiltonian(h node, p *problems) {
	if fields, ok := h.need("drivingFields", p); ok {
		if items, ok := fields.list(p); ok {
			if len(items) != 1 {
				p.add(fields.path, "must hold one driving field, got %d", len(items))
			}
			if len(items) >= 1 && items[0].object(p) {
				a.amplitude, _ = physicalField(items[0], "amplitude", p, true)
				a.phase, _ = physicalField(items[0], "phase", p, true)
				a.detuning, _ = physicalField(items[0], "detuning", p, true)
			}
		}
	}
	local, ok := h.field("localDetuning")
	if !ok {
		local, ok = h.field("shiftingFields")
	}
	if !ok {
		return
	}
	items, ok := local.list(p)
	if !ok {
		return
	}
	switch {
	case len(items) > 1:
		p.add(local.path, "may hold at most one local detuning, got %d", len(items))
	case len(items) == 1 && items[0].object(p):
		a.hasLocalSpec = true
		s, pattern := physicalField(items[0], "magnitude", p, false)
		a.local = &s
		if pattern.v != nil {
			a.patternPath = pattern.path
			a.decodePattern(pattern, p)
		}
	}
}

// decodePattern reads a local detuning's pattern: one factor in [0, 1]
// per site.
func (a *ahs) decodePattern(n node, p *problems) {
	if _, isString := n.v.(string); isString {
		p.add(n.path, "must list one factor in [0, 1] per site, not %s", compactJSON(n.v))
		return
	}
	items, ok := n.list(p)
	if !ok {
		return
	}
	for _, it := range items {
		f, ok := it.number(p, true)
		if ok && (f < 0 || f > 1) {
			p.add(it.path, "must be in [0, 1], got %v", f)
		}
		a.pattern = append(a.pattern, f)
	}
	if len(items) != len(a.sites) {
		p.add(n.path, "has %d factors for %d sites: one per site", len(items), len(a.sites))
	}
}

// physicalField reads field key of a driving field or local detuning:
// its time series, and its pattern (which a driving field's must be
// "uniform").
func physicalField(parent node, key string, p *problems, uniform bool) (series, node) {
	f, ok := parent.need(key, p)
	if !ok || !f.object(p) {
		return series{path: parent.path + "." + key}, node{}
	}
	s := series{path: f.path}
	if ts, ok := f.need("time_series", p); ok && ts.object(p) {
		s = timeSeries(ts, p)
		s.path = f.path
	}
	pattern, hasPattern := f.field("pattern")
	switch {
	case uniform && !hasPattern:
		p.add(f.path+".pattern", `is required: "uniform"`)
	case uniform && pattern.v != "uniform":
		p.add(pattern.path, `must be "uniform" for a driving field, got %s`, compactJSON(pattern.v))
	case !uniform && !hasPattern:
		p.add(f.path+".pattern", "is required: one factor in [0, 1] per site")
	}
	return s, pattern
}

// timeSeries reads {"times", "values"}: as many of each, at least two,
// from 0, strictly increasing.
func timeSeries(ts node, p *problems) series {
	var s series
	times, okT := ts.need("times", p)
	values, okV := ts.need("values", p)
	if okT {
		s.times, okT = times.numbers(p, true)
	}
	if okV {
		s.values, okV = values.numbers(p, true)
	}
	if !okT || !okV {
		s.times, s.values = nil, nil
		return s
	}
	switch {
	case len(s.times) != len(s.values):
		p.add(values.path, "has %d values for %d times: one per time", len(s.values), len(s.times))
	case len(s.times) < 2:
		p.add(times.path, "must hold at least 2 times, got %d", len(s.times))
	case s.times[0] != 0:
		p.add(times.path+"[0]", "must be 0, the start, got %v", s.times[0])
	}
	for i := 1; i < len(s.times); i++ {
		if !(s.times[i] > s.times[i-1]) {
			p.add(times.path+"["+strconv.Itoa(i)+"]", "must be after the time before it (%v s), got %v s: times increase strictly", s.times[i-1], s.times[i])
			break
		}
	}
	if !p.ok() {
		s.times, s.values = nil, nil
	}
	return s
}

// checkEnds checks that every series ends at the same time.
func (a *ahs) checkEnds(p *problems) {
	all := []series{a.amplitude, a.phase, a.detuning}
	if a.local != nil {
		all = append(all, *a.local)
	}
	end := a.amplitude.end()
	for _, s := range all[1:] {
		if !within(s.end(), end, relTolerance) {
			p.add(s.path+".time_series.times", "ends at %v s, the amplitude at %v s: every time series ends at the same time", s.end(), end)
		}
	}
}

// relTolerance is how close two values must be to count as equal, or a
// value to a limit to count as within it: decimal strings such as "5E-8"
// are not exact in binary.
const relTolerance = 1e-9

func within(x, y, rel float64) bool { return math.Abs(x-y) <= rel*max(math.Abs(x), math.Abs(y)) }

// program is the Hamiltonian of the filled sites, in the simulator's
// units (µm, µs, rad/µs), and for each site the atom it holds (−1 when
// empty).
func (a *ahs) program() (*rydberg.Program, []int) {
	const um, us, perUs = 1e6, 1e6, 1e-6
	atomOf := make([]int, len(a.sites))
	p := &rydberg.Program{C6: c6SI * math.Pow(um, 6) / us, Duration: a.amplitude.end() * us}
	var weights []float64
	for i, s := range a.sites {
		atomOf[i] = -1
		if a.filling[i] {
			atomOf[i] = len(p.Atoms)
			p.Atoms = append(p.Atoms, rydberg.Atom{X: s[0] * um, Y: s[1] * um})
			if a.local != nil {
				weights = append(weights, a.pattern[i])
			}
		}
	}
	// The end times agree within relTolerance: every series ends at the
	// duration exactly.
	scaled := func(s series, k float64) ([]float64, []float64) {
		t, v := make([]float64, len(s.times)), make([]float64, len(s.values))
		for i := range s.times {
			t[i], v[i] = s.times[i]*us, s.values[i]*k
		}
		t[len(t)-1] = p.Duration
		return t, v
	}
	at, av := scaled(a.amplitude, perUs)
	pt, pv := scaled(a.phase, 1)
	p.Drives = []rydberg.Drive{joinDrive(at, av, pt, pv)}
	t, v := scaled(a.detuning, perUs)
	p.Detunings = []rydberg.Detuning{{Times: t, Values: v}}
	if a.local != nil && len(p.Atoms) > 0 {
		t, v := scaled(*a.local, perUs)
		p.Detunings = append(p.Detunings, rydberg.Detuning{Weights: weights, Times: t, Values: v})
	}
	return p, atomOf
}

// joinDrive joins a piecewise linear amplitude and a piecewise constant
// phase (each value held until the next time) into the complex Rabi
// frequency Ω·e^{iφ}: linear between the times of either, with a jump
// where the phase changes. Both start at 0 and end together.
func joinDrive(at, av, pt, pv []float64) rydberg.Drive {
	var d rydberg.Drive
	end := at[len(at)-1]
	i, j := 0, 0   // the next amplitude and phase points
	phase := pv[0] // the phase after the points passed
	for i < len(at) {
		t := at[i]
		if j < len(pt) && pt[j] < t {
			t = pt[j]
		}
		omega := av[i]
		if at[i] != t { // between amplitude points i−1 and i
			f := (t - at[i-1]) / (at[i] - at[i-1])
			omega = av[i-1] + f*(av[i]-av[i-1])
		} else {
			i++
		}
		before := phase
		if j < len(pt) && pt[j] == t {
			phase = pv[j]
			j++
		}
		after := phase
		if t == end {
			after = before // the last phase would hold from the end on
		}
		if len(d.Times) > 0 && before != after {
			d.Times = append(d.Times, t)
			d.Values = append(d.Values, cmplx.Rect(omega, before))
		}
		d.Times = append(d.Times, t)
		d.Values = append(d.Values, cmplx.Rect(omega, after))
	}
	return d
}
