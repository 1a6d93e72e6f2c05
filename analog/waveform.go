package analog

import (
	"math"
	"slices"
)

// Pulser's waveforms, sampled once a nanosecond as Pulser samples them
// (pulser/waveforms.py): sample k is the value at k ns.

// maxSequence is the longest a sequence may last here, in ns (ours): its
// channels are sampled once a nanosecond, so this bounds what a check
// holds, and at 20 µs it is well past what Pasqal's devices run (at most
// 6 µs on AnalogDevice).
const maxSequence = 20_000

// waveform is a waveform's samples and, for the kinds Pulser can
// stretch to a channel's clock (constant, ramp, blackman, interpolated),
// how to sample it again over another duration.
type waveform struct {
	samples []float64
	redo    func(duration int) []float64 // nil: cannot be stretched
}

// waveformOf reads and samples a waveform.
func (vars variables) waveformOf(n node, p *problems, depth int) (*waveform, bool) {
	if depth > maxDepth {
		p.add(n.path, "nests composite waveforms more than %d deep", maxDepth)
		return nil, false
	}
	if !n.object(p) {
		return nil, false
	}
	kindNode, ok := n.need("kind", p)
	if !ok {
		return nil, false
	}
	k, ok := kindNode.str(p)
	if !ok {
		return nil, false
	}
	num := func(key string) (float64, bool) {
		f, ok := n.need(key, p)
		if !ok {
			return 0, false
		}
		return vars.scalar(f, p)
	}
	dur := func() (int, bool) {
		f, ok := n.need("duration", p)
		if !ok {
			return 0, false
		}
		d, ok := vars.integer(f, p)
		switch {
		case ok && d < 1:
			p.add(f.path, "must be at least 1 ns, got %d", d)
			return 0, false
		case ok && d > maxSequence:
			p.add(f.path, "is %d ns; sequences here last at most %d ns", d, maxSequence)
			return 0, false
		}
		return d, ok
	}
	switch k {
	case "constant":
		d, okD := dur()
		v, okV := num("value")
		if !okD || !okV {
			return nil, false
		}
		constant := func(d int) []float64 {
			s := make([]float64, d)
			for i := range s {
				s[i] = v
			}
			return s
		}
		return &waveform{samples: constant(d), redo: constant}, true
	case "ramp":
		d, okD := dur()
		start, okA := num("start")
		stop, okB := num("stop")
		if !okD || !okA || !okB {
			return nil, false
		}
		r := func(d int) []float64 { return ramp(d, start, stop) }
		return &waveform{samples: r(d), redo: r}, true
	case "blackman":
		d, okD := dur()
		area, okA := num("area")
		if !okD || !okA {
			return nil, false
		}
		b := func(d int) []float64 { return blackman(d, area) }
		return &waveform{samples: b(d), redo: b}, true
	case "blackman_max":
		peak, okM := num("max_val")
		area, okA := num("area")
		if !okM || !okA {
			return nil, false
		}
		if peak == 0 || math.Signbit(peak) != math.Signbit(area) || area == 0 {
			p.add(n.path, "max_val (%v) and area (%v) must be nonzero and of the same sign", peak, area)
			return nil, false
		}
		// Its duration is about area/(0.42·max_val) µs.
		if d := math.Abs(area/(0.42*peak)) * 1e3; d > maxSequence-2 {
			p.add(n.path, "would last %.0f ns; sequences here last at most %d ns", d, maxSequence)
			return nil, false
		}
		b := func(d int) []float64 { return blackman(d, area) }
		return &waveform{samples: blackmanMax(peak, area), redo: b}, true
	case "interpolated":
		d, okD := dur()
		vn, okV := n.need("values", p)
		tn, okT := n.need("times", p)
		if !okD || !okV || !okT {
			return nil, false
		}
		values, _, okV := vars.eval(vn, p, 0)
		times, _, okT := vars.eval(tn, p, 0)
		if !okV || !okT {
			return nil, false
		}
		if len(values) != len(times) || len(values) < 2 {
			p.add(tn.path, "must hold as many times as values (%d), at least 2, got %d", len(values), len(times))
			return nil, false
		}
		for i, t := range times {
			if t < 0 || t > 1 || i > 0 && t <= times[i-1] {
				p.add(tn.path, "must be fractions of the duration from 0 to 1, increasing, got %v", times)
				return nil, false
			}
		}
		f := func(d int) []float64 { return pchipSamples(d, times, values) }
		return &waveform{samples: f(d), redo: f}, true
	case "custom":
		sn, ok := n.need("samples", p)
		if !ok {
			return nil, false
		}
		s, _, ok := vars.eval(sn, p, 0)
		if ok && len(s) == 0 {
			p.add(sn.path, "must hold at least one sample")
			ok = false
		}
		return &waveform{samples: s}, ok
	case "composite":
		wn, ok := n.need("waveforms", p)
		if !ok {
			return nil, false
		}
		items, ok := wn.list(p)
		if !ok {
			return nil, false
		}
		if len(items) == 0 {
			p.add(wn.path, "must hold at least one waveform")
			return nil, false
		}
		var all []float64
		for _, it := range items {
			w, ok := vars.waveformOf(it, p, depth+1)
			if !ok {
				return nil, false
			}
			if len(all)+len(w.samples) > maxSequence {
				p.add(wn.path, "lasts more than %d ns, the longest a sequence here lasts", maxSequence)
				return nil, false
			}
			all = append(all, w.samples...)
		}
		return &waveform{samples: all}, true
	case "kaiser", "kaiser_max":
		p.add(kindNode.path, "%q waveforms are not supported here: use constant, ramp, blackman, blackman_max, interpolated, custom or composite", k)
		return nil, false
	}
	p.add(kindNode.path, "must be one of constant, ramp, blackman, blackman_max, interpolated, custom, composite; got %q", k)
	return nil, false
}

// ramp is Pulser's RampWaveform: start + slope·k with slope =
// (stop − start)/(duration − 1), kept within [start, stop].
func ramp(d int, start, stop float64) []float64 {
	s := make([]float64, d)
	if d == 1 {
		s[0] = start
		return s
	}
	slope := (stop - start) / float64(d-1)
	lo, hi := min(start, stop), max(start, stop)
	for i := range s {
		s[i] = min(max(start+slope*float64(i), lo), hi)
	}
	return s
}

// blackman is Pulser's BlackmanWaveform: numpy's Blackman window of d
// points, negative rounding clipped to 0, scaled so that the samples
// (1 ns each) add up to the area in rad (values in rad/µs).
func blackman(d int, area float64) []float64 {
	w := blackmanWindow(d)
	sum := 0.0
	for _, x := range w {
		sum += x
	}
	scale := area / sum * 1e3
	for i := range w {
		w[i] *= scale
	}
	return w
}

func blackmanWindow(d int) []float64 {
	w := make([]float64, d)
	if d == 1 {
		w[0] = 1
		return w
	}
	for i := range w {
		x := 2 * math.Pi * float64(i) / float64(d-1)
		w[i] = max(0.42-0.5*math.Cos(x)+0.08*math.Cos(2*x), 0)
	}
	return w
}

// blackmanMax is Pulser's BlackmanWaveform.from_max_val: the shortest
// Blackman window of the area whose scale stays within max_val, or the one
// before it when that one (of even length) peaks closer to max_val.
func blackmanMax(peak, area float64) []float64 {
	sign := 1.0
	if area < 0 {
		sign, peak, area = -1, -peak, -area
	}
	scaleOf := func(d int) float64 {
		sum := 0.0
		for _, x := range blackmanWindow(d) {
			sum += x
		}
		return area / sum * 1e3
	}
	d := int(math.Ceil(area / (0.42 * peak) * 1e3))
	d = max(d, 1)
	prev := 0
	for scaleOf(d) > peak {
		prev = d
		d++
	}
	s := blackman(d, area)
	if prev != 0 && d%2 == 1 {
		ps := blackman(prev, area)
		if slices.Max(s) < slices.Max(ps) && slices.Max(ps) <= peak {
			s = ps
		}
	}
	for i := range s {
		s[i] *= sign
	}
	return s
}

// pchipSamples is Pulser's InterpolatedWaveform with its default
// interpolator: the points (times·(d−1), values) joined by SciPy's
// PchipInterpolator (monotone cubic Hermite), sampled at 0 … d−1 ns and
// kept within the values' range.
func pchipSamples(d int, times, values []float64) []float64 {
	x := make([]float64, len(times))
	for i, t := range times {
		x[i] = t * float64(d-1)
	}
	slopes := pchipSlopes(x, values)
	lo, hi := slices.Min(values), slices.Max(values)
	s := make([]float64, d)
	j := 0
	for i := range s {
		t := float64(i)
		for j+2 < len(x) && t > x[j+1] {
			j++
		}
		h := x[j+1] - x[j]
		u := (t - x[j]) / h
		h00 := (1 + 2*u) * (1 - u) * (1 - u)
		h10 := u * (1 - u) * (1 - u)
		h01 := u * u * (3 - 2*u)
		h11 := u * u * (u - 1)
		v := h00*values[j] + h10*h*slopes[j] + h01*values[j+1] + h11*h*slopes[j+1]
		s[i] = min(max(v, lo), hi)
	}
	return s
}

// pchipSlopes are the derivatives SciPy's PchipInterpolator gives its
// points: zero where the secants change sign or one is flat, else their
// weighted harmonic mean; at the ends the three-point estimate, kept
// monotone.
func pchipSlopes(x, y []float64) []float64 {
	n := len(x)
	h := make([]float64, n-1)
	m := make([]float64, n-1)
	for k := range n - 1 {
		h[k] = x[k+1] - x[k]
		m[k] = (y[k+1] - y[k]) / h[k]
	}
	d := make([]float64, n)
	if n == 2 {
		d[0], d[1] = m[0], m[0]
		return d
	}
	for k := 1; k < n-1; k++ {
		if m[k-1] == 0 || m[k] == 0 || math.Signbit(m[k-1]) != math.Signbit(m[k]) {
			continue
		}
		w1, w2 := 2*h[k]+h[k-1], h[k]+2*h[k-1]
		d[k] = (w1 + w2) / (w1/m[k-1] + w2/m[k])
	}
	edge := func(h0, h1, m0, m1 float64) float64 {
		v := ((2*h0+h1)*m0 - h0*m1) / (h0 + h1)
		switch {
		case math.Signbit(v) != math.Signbit(m0) || v == 0 || m0 == 0:
			return 0
		case math.Signbit(m0) != math.Signbit(m1) && math.Abs(v) > 3*math.Abs(m0):
			return 3 * m0
		}
		return v
	}
	d[0] = edge(h[0], h[1], m[0], m[1])
	d[n-1] = edge(h[n-2], h[n-3], m[n-2], m[n-3])
	return d
}
