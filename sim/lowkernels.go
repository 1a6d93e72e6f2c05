package sim

import "slices"

// Kernels whose lowest qubit lies inside a vector register: their runs of
// consecutive amplitudes are shorter than a register, so the run-by-run
// vector kernels cannot take them. These walk the state register by
// register instead, with coefficients that vary with the position in the
// register (simd.go, posVectors).

// regBits is log2 of the amplitudes a register holds at the current
// level, 0 without vector kernels.
func regBits[T amplitude]() int {
	var zero T
	_, single := any(zero).(complex64)
	switch {
	case simd == simdAVX512 && single:
		return 3
	case simd == simdAVX512, simd == simdAVX2 && single:
		return 2
	case simd == simdAVX2:
		return 1
	}
	return 0
}

// applyRuns is the generic loop: applyRun on each run of consecutive
// groups in counters [lo, hi).
func applyRuns[T amplitude](k *kernel, c *coefs[T], s []T, lo, hi int, buf []T) {
	run := 1 << k.fixed[0]
	for j := lo; j < hi; {
		n := min(run-j&(run-1), hi-j)
		applyRun(k, c, s, k.base(j), n, buf)
		j += n
	}
}

// lowPairCoefs is a 2-qubit matrix for lowPair kernels (target t low, the
// other high): outputs on x then y, each a sum over x, P(x), y, P(y).
type lowPairCoefs struct {
	t int
	d []float64
	s []float32
}

func newLowPairCoefs(m [16]complex128, targets []int, ctrlMask uint64) lowPairCoefs {
	lowT, highT := targets[0], targets[1]
	lowIsBit0 := true
	if highT < lowT {
		lowT, highT = highT, lowT
		lowIsBit0 = false
	}
	if bestSIMD == simdNone || lowT > 2 || ctrlMask&(1<<lowT-1) != 0 {
		return lowPairCoefs{}
	}
	idx := func(low, high int) int {
		if lowIsBit0 {
			return low | high<<1
		}
		return high | low<<1
	}
	d, f := posVectors(8, func(v, p int) complex128 {
		b := p >> lowT & 1
		row := idx(b, v/4)
		var col int
		switch v % 4 {
		case 0: // x at p
			col = idx(b, 0)
		case 1: // P(x): x's partner
			col = idx(1-b, 0)
		case 2:
			col = idx(b, 1)
		default:
			col = idx(1-b, 1)
		}
		return m[row*4+col]
	})
	return lowPairCoefs{t: lowT, d: d, s: f}
}

// applyLowPair runs a kGeneral2 kernel whose low target lies inside a
// register, register by register over each stretch of amplitudes that no
// other fixed qubit splits. It reports false, doing nothing, when the
// kernel does not qualify at the current level.
func applyLowPair[T amplitude](k *kernel, c *coefs[T], s []T, lo, hi int, buf []T) bool {
	rb := regBits[T]()
	if k.lowPair.d == nil || k.lowPair.t >= rb || k.fixed[0] != k.lowPair.t || k.fixed[1] < rb {
		return false
	}
	high := k.targets[0] + k.targets[1] - k.lowPair.t
	half := 1 << (rb - 1)            // counters per register
	stretch := 1 << (k.fixed[1] - 1) // counters between two other fixed bits
	for j := lo; j < hi; {
		end := min(hi, (j/stretch+1)*stretch)
		a := min(end, (j+half-1)/half*half)
		applyRuns(k, c, s, j, a, buf)
		m := (end - a) &^ (half - 1)
		if m > 0 {
			b := k.base(a)
			done := vectorLowPair(&k.lowPair, s[b:b+2*m], s[b+1<<high:b+1<<high+2*m]) / 2
			a += done
		}
		applyRuns(k, c, s, a, end, buf)
		j = end
	}
	return true
}

// vectorLowPair applies a lowPair kernel to the front of x and y and
// returns how many amplitudes of each it did.
func vectorLowPair[T amplitude](c *lowPairCoefs, x, y []T) int {
	n := len(x) &^ (1<<regBits[T]() - 1)
	if n == 0 {
		return 0
	}
	switch x := any(x).(type) {
	case []complex128:
		y := any(y).([]complex128)
		switch {
		case simd == simdAVX512 && c.t == 0:
			lowPair128AVX512t0(&x[0], &y[0], n, &c.d[0])
		case simd == simdAVX512 && c.t == 1:
			lowPair128AVX512t1(&x[0], &y[0], n, &c.d[0])
		case simd == simdAVX2 && c.t == 0:
			lowPair128AVX2t0(&x[0], &y[0], n, &c.d[0])
		default:
			return 0
		}
	case []complex64:
		y := any(y).([]complex64)
		switch {
		case simd == simdAVX512 && c.t == 0:
			lowPair64AVX512t0(&x[0], &y[0], n, &c.s[0])
		case simd == simdAVX512 && c.t == 1:
			lowPair64AVX512t1(&x[0], &y[0], n, &c.s[0])
		case simd == simdAVX512 && c.t == 2:
			lowPair64AVX512t2(&x[0], &y[0], n, &c.s[0])
		case simd == simdAVX2 && c.t == 0:
			lowPair64AVX2t0(&x[0], &y[0], n, &c.s[0])
		case simd == simdAVX2 && c.t == 1:
			lowPair64AVX2t1(&x[0], &y[0], n, &c.s[0])
		default:
			return 0
		}
	}
	return n
}

// diagPatterns is a diagonal's entries laid out for mulSeq: within a
// window of 2^patternBits amplitudes (aligned) the targets below
// patternBits vary and the others (high) are constant, so pattern h (the
// high targets' bits) holds the entry of every amplitude of a window.
type diagPatterns struct {
	high []int     // targets ≥ patternBits, ascending
	d    []float64 // pattern h at h·patternD
	s    []float32 // pattern h at h·patternS
}

const (
	patternBits = 6 // 64 amplitudes: 1 KiB of double
	// maxPatternHigh bounds the patterns to 2^6 (64 KiB of coefficients
	// in double); a diagonal with more high targets keeps the run loop.
	maxPatternHigh = 6
	patternD       = 1 << patternBits * entryD / 4 // float64s per pattern
	patternS       = 1 << patternBits * entryS / 8 // float32s per pattern
)

func newDiagPatterns(targets []int, diag []complex128) *diagPatterns {
	if bestSIMD == simdNone || len(targets) == 0 || slices.Min(targets) >= patternBits {
		return nil
	}
	var high []int
	for _, t := range targets {
		if t >= patternBits {
			high = append(high, t)
		}
	}
	if len(high) > maxPatternHigh {
		return nil
	}
	slices.Sort(high)
	p := &diagPatterns{high: high}
	for h := range 1 << len(high) {
		d, f := seqVectors(1<<patternBits, func(i int) complex128 {
			r := 0
			for j, t := range targets {
				bit := i >> t & 1
				if t >= patternBits {
					bit = h >> slices.Index(high, t) & 1
				}
				r |= bit << j
			}
			return diag[r]
		})
		p.d = append(p.d, d...)
		p.s = append(p.s, f...)
	}
	return p
}

// seqVectors lays out n coefficients, one per amplitude, in the chunks of
// posVectors: 4 complex128 or 8 complex64 per 128 bytes.
func seqVectors(n int, coef func(i int) complex128) ([]float64, []float32) {
	d, s := make([]float64, n/4*entryD), make([]float32, n/8*entryS)
	for i := range n {
		c := coef(i)
		e, p := d[i/4*entryD:], i%4
		e[2*p], e[2*p+1] = real(c), real(c)
		e[entryD/2+2*p], e[entryD/2+2*p+1] = -imag(c), imag(c)
		f, q := s[i/8*entryS:], i%8
		f[2*q], f[2*q+1] = float32(real(c)), float32(real(c))
		f[entryS/2+2*q], f[entryS/2+2*q+1] = -float32(imag(c)), float32(imag(c))
	}
	return d, s
}

// applyDiagLow runs a kDiagK kernel whose lowest target lies below
// patternBits, window by window. A diagonal treats each amplitude alone,
// so counters [lo, hi) stand for the amplitudes [lo·2^k, hi·2^k): the
// workers' shares still cover the state once.
func applyDiagLow[T amplitude](k *kernel, c *coefs[T], s []T, lo, hi int) bool {
	dp := k.diagLow
	if dp == nil || simd == simdNone || k.ctrlMask != 0 || len(s) < 1<<patternBits {
		return false
	}
	const win = 1 << patternBits
	a0, a1 := lo*len(k.off), hi*len(k.off)
	head := min(a1, (a0+win-1)/win*win)
	diagScalar(k, c, s, a0, head)
	tail := max(head, a1&^(win-1))
	for w := head; w < tail; w += win {
		h := 0
		for m, t := range dp.high {
			h |= (w >> t & 1) << m
		}
		mulSeq(dp, h, s[w:w+win])
	}
	diagScalar(k, c, s, tail, a1)
	return true
}

// mulSeq multiplies x, one window, by pattern h.
func mulSeq[T amplitude](dp *diagPatterns, h int, x []T) {
	switch x := any(x).(type) {
	case []complex128:
		if simd == simdAVX512 {
			mulSeq128AVX512(&x[0], len(x), &dp.d[h*patternD])
		} else {
			mulSeq128AVX2(&x[0], len(x), &dp.d[h*patternD])
		}
	case []complex64:
		if simd == simdAVX512 {
			mulSeq64AVX512(&x[0], len(x), &dp.s[h*patternS])
		} else {
			mulSeq64AVX2(&x[0], len(x), &dp.s[h*patternS])
		}
	}
}

// diagScalar multiplies amplitudes [a, b) by their diagonal entries.
func diagScalar[T amplitude](k *kernel, c *coefs[T], s []T, a, b int) {
	for i := a; i < b; i++ {
		r := 0
		for j, t := range k.targets {
			r |= (i >> t & 1) << j
		}
		s[i] *= c.mat[r]
	}
}

// lowBothCoefs is a 2-qubit matrix for lowBoth kernels: targets a < b
// both inside a register.
type lowBothCoefs struct {
	a, b int
	d    []float64
	s    []float32
}

func newLowBothCoefs(m [16]complex128, targets []int) lowBothCoefs {
	a, b := min(targets[0], targets[1]), max(targets[0], targets[1])
	if bestSIMD == simdNone || b > 2 {
		return lowBothCoefs{}
	}
	idx := func(p int) int { // the matrix index of position p's target bits
		return p>>targets[0]&1 | (p>>targets[1]&1)<<1
	}
	d, f := posVectors(4, func(v, p int) complex128 {
		partner := p ^ (v&1)<<a ^ (v>>1&1)<<b
		return m[idx(p)*4+idx(partner)]
	})
	return lowBothCoefs{a: a, b: b, d: d, s: f}
}

// applyLowBoth runs a kGeneral2 kernel whose targets both lie inside a
// register, as applyLowPair does for one.
func applyLowBoth[T amplitude](k *kernel, c *coefs[T], s []T, lo, hi int, buf []T) bool {
	rb := regBits[T]()
	lb := &k.lowBoth
	if lb.d == nil || lb.b >= rb || k.fixed[0] != lb.a || k.fixed[1] != lb.b || len(k.fixed) > 2 && k.fixed[2] < rb {
		return false
	}
	quarter := 1 << (rb - 2) // counters per register
	stretch := hi
	if len(k.fixed) > 2 {
		stretch = 1 << (k.fixed[2] - 2)
	}
	for j := lo; j < hi; {
		end := min(hi, (j/stretch+1)*stretch)
		a := min(end, (j+quarter-1)/quarter*quarter)
		applyRuns(k, c, s, j, a, buf)
		if m := (end - a) &^ (quarter - 1); m > 0 {
			b := k.base(a)
			a += vectorLowBoth(lb, s[b:b+4*m]) / 4
		}
		applyRuns(k, c, s, a, end, buf)
		j = end
	}
	return true
}

// vectorLowBoth applies a lowBoth kernel to the front of x and returns
// how many amplitudes it did.
func vectorLowBoth[T amplitude](c *lowBothCoefs, x []T) int {
	n := len(x) &^ (1<<regBits[T]() - 1)
	if n == 0 {
		return 0
	}
	switch x := any(x).(type) {
	case []complex128:
		if simd != simdAVX512 || c.a != 0 || c.b != 1 {
			return 0
		}
		lowBoth128AVX512t01(&x[0], n, &c.d[0])
	case []complex64:
		switch {
		case simd == simdAVX2 && c.a == 0 && c.b == 1:
			lowBoth64AVX2t01(&x[0], n, &c.s[0])
		case simd == simdAVX512 && c.a == 0 && c.b == 1:
			lowBoth64AVX512t01(&x[0], n, &c.s[0])
		case simd == simdAVX512 && c.a == 0 && c.b == 2:
			lowBoth64AVX512t02(&x[0], n, &c.s[0])
		case simd == simdAVX512 && c.a == 1 && c.b == 2:
			lowBoth64AVX512t12(&x[0], n, &c.s[0])
		default:
			return 0
		}
	}
	return n
}
