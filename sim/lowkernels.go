package sim

import (
	"slices"
	"sync"
)

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

// lazyPatterns builds a kernel's diagPatterns on first use.
type lazyPatterns struct {
	once    sync.Once
	targets []int
	diag    []complex128
	p       *diagPatterns
}

func newLazyPatterns(targets []int, diag []complex128) *lazyPatterns {
	if bestSIMD == simdNone || len(targets) == 0 || slices.Min(targets) >= patternBits {
		return nil
	}
	return &lazyPatterns{targets: targets, diag: diag}
}

func (l *lazyPatterns) get() *diagPatterns {
	if l == nil {
		return nil
	}
	l.once.Do(func() { l.p = newDiagPatterns(l.targets, l.diag) })
	return l.p
}

func newDiagPatterns(targets []int, diag []complex128) *diagPatterns {
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
	dp := k.diagLow.get()
	if dp == nil || simd == simdNone || k.ctrlMask != 0 || len(s) < 1<<patternBits {
		return false
	}
	diagWindows(k, c, s, lo*len(k.off), hi*len(k.off))
	return true
}

// diagWindows multiplies the amplitudes [a0, a1) of s by the entries of
// the kDiagK kernel k, whose patterns exist, window by window.
func diagWindows[T amplitude](k *kernel, c *coefs[T], s []T, a0, a1 int) {
	dp := k.diagLow.get()
	const win = 1 << patternBits
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
