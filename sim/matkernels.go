package sim

import (
	"slices"
	"sync"
)

// Dense matrices of 2 to 4 targets without controls (fused blocks, most
// 2-qubit gates) run on the mat kernels of simd_amd64.s: the targets at or
// above the register's width (high) select runs of amplitudes, those below
// it (low) vary inside a register. Each output register is a
// sum, over the input runs and the flips of the low targets, of a shuffled
// input times coefficients that depend on the position in the register.

// matKey names a mat kernel: the level, the number of high targets and the
// low targets as digits ("" for none, "01" for 0 and 1).
type matKey struct {
	level simdLevel
	high  int
	lows  string
	real  bool // the kernel for a matrix without imaginary parts
}

// matPlan is a kernel's matrix prepared for one precision and level.
type matPlan struct {
	offs []int // byte offset of each input run from the register's base
	maxO int   // the largest offset, in amplitudes
	lows int   // number of low targets
	high []int // high targets, ascending
	// Stretches of amplitudes no high target splits come at a regular
	// stride (bytes) up to the next high target above the consecutive
	// ones from high[0]: outer of them (0: to the end of the state).
	stride, outer int
	d             []float64
	s             []float32
	f128          func(*complex128, *int, int, int, int, *float64)
	f64           func(*complex64, *int, int, int, int, *float32)
}

// matPlans are built on first use, per precision and level: a 4-qubit
// block's coefficients take 32 KiB in double, and a run uses one.
type matPlans [2][3]struct {
	once sync.Once
	plan *matPlan
}

func (k *kernel) matPlan(double bool, level simdLevel, rb int) *matPlan {
	if k.mats == nil || level == simdNone {
		return nil
	}
	pi := 0
	if double {
		pi = 1
	}
	e := &k.mats[pi][level]
	e.once.Do(func() { e.plan = newMatPlan(k, double, level, rb) })
	return e.plan
}

func newMatPlan(k *kernel, double bool, level simdLevel, rb int) *matPlan {
	var lows, high []int
	for _, t := range k.targets {
		if t < rb {
			lows = append(lows, t)
		} else {
			high = append(high, t)
		}
	}
	slices.Sort(lows)
	slices.Sort(high)
	key := matKey{level: level, high: len(high)}
	for _, t := range lows {
		key.lows += string(rune('0' + t))
	}
	p := &matPlan{lows: len(lows), high: high}
	if len(lows) == 0 {
		key.real = isRealMatrix(k)
	}
	if len(lows) > 0 && isRealMatrix(k) {
		// The same coefficients by position, their imaginary parts
		// unread (posVectors below, as for a complex matrix).
		rkey := key
		rkey.real = true
		if double {
			p.f128 = mat128Kernels[rkey]
		} else {
			p.f64 = mat64Kernels[rkey]
		}
	}
	if p.f128 == nil && p.f64 == nil {
		if double {
			p.f128 = mat128Kernels[key]
		} else {
			p.f64 = mat64Kernels[key]
		}
	}
	if p.f128 == nil && p.f64 == nil {
		return nil
	}
	ampBytes := 8
	if double {
		ampBytes = 16
	}
	runs, flips := 1<<len(high), 1<<len(lows)
	p.offs = make([]int, runs)
	for i := range runs {
		o := 0
		for m, t := range high {
			o |= (i >> m & 1) << t
		}
		p.offs[i] = o * ampBytes
		p.maxO = max(p.maxO, o)
	}
	// matIndex is the matrix index of the targets' bits in amplitude
	// index a: bit j is target j.
	matIndex := func(a int) int {
		r := 0
		for j, t := range k.targets {
			r |= (a >> t & 1) << j
		}
		return r
	}
	if len(high) > 0 {
		e := high[0]
		for slices.Contains(high, e+1) {
			e++
		}
		p.stride = 1 << (e + 1) * ampBytes
		if i := slices.IndexFunc(high, func(t int) bool { return t > e }); i >= 0 {
			p.outer = 1 << (high[i] - e - 1)
		}
	}
	d := 1 << len(k.targets)
	if key.real {
		// One scalar an entry, output by output and input by input; on
		// AVX2, which has no broadcast operands, over a whole ymm.
		repD, repS := 1, 1
		if level == simdAVX2 {
			repD, repS = 4, 8
		}
		for out := range runs {
			for in := range runs {
				e := real(k.matrix(matIndex(p.offs[out]/ampBytes)*d + matIndex(p.offs[in]/ampBytes)))
				for range repD {
					p.d = append(p.d, e)
				}
				for range repS {
					p.s = append(p.s, float32(e))
				}
			}
		}
		return p
	}
	if level == simdAVX512 && len(lows) == 0 {
		// The broadcast form (internal/simdgen, matBroadcast): the signs
		// (−1, +1, …) over 64 bytes, then (mr, mi) of each entry, output
		// by output and input by input.
		p.d, p.s = make([]float64, 8, 8+2*runs*runs), make([]float32, 16, 16+2*runs*runs)
		for j := range p.d {
			p.d[j] = float64(2*(j%2) - 1)
		}
		for j := range p.s {
			p.s[j] = float32(2*(j%2) - 1)
		}
		for out := range runs {
			for in := range runs {
				e := k.matrix(matIndex(p.offs[out]/ampBytes)*d + matIndex(p.offs[in]/ampBytes))
				p.d = append(p.d, real(e), imag(e))
				p.s = append(p.s, float32(real(e)), float32(imag(e)))
			}
		}
		return p
	}
	defer func() {
		if level == simdAVX2 && len(lows) == 0 {
			p.d, p.s = compactVectors(p.d, p.s)
		}
	}()
	p.d, p.s = posVectors(runs*runs*flips, func(v, pos int) complex128 {
		pos &= 1<<rb - 1 // positions past the register repeat
		f, in, out := v%flips, v/flips%runs, v/flips/runs
		var flip int
		for j, t := range lows {
			flip |= (f >> j & 1) << t
		}
		row := matIndex(pos | p.offs[out]/ampBytes)
		col := matIndex(pos ^ flip | p.offs[in]/ampBytes)
		return k.matrix(row*d + col)
	})
	return p
}

// isRealMatrix reports whether every entry of k's matrix is real.
func isRealMatrix(k *kernel) bool {
	for e := range 1 << (2 * len(k.targets)) {
		if imag(k.matrix(e)) != 0 {
			return false
		}
	}
	return true
}

// matrix is entry e of a dense kernel's matrix.
func (k *kernel) matrix(e int) complex128 {
	switch k.kind {
	case kDiag1, kAntiDiag1, kGeneral1:
		return k.c128.m[e]
	case kGeneral2:
		return k.c128.m2[e]
	}
	return k.c128.mat[e]
}

// applyMat runs k on counters [lo, hi) with a mat kernel: whole
// stretches of amplitudes that no high target splits in one call each run
// of them at a regular stride, and the ends of a range that do not fill a
// register in the pure-Go loop. It reports false, doing nothing, when no
// mat kernel fits.
func applyMat[T amplitude](k *kernel, c *coefs[T], s []T, lo, hi int, buf []T) bool {
	rb := regBits[T]()
	var zero T
	_, double := any(zero).(complex128)
	p := k.matPlan(double, simd, rb)
	if p == nil {
		return false
	}
	per := 1 << (rb - p.lows) // counters per register
	inner := 1 << 62          // counters per stretch: unbounded without high targets
	if len(p.high) > 0 {
		inner = 1 << (p.high[0] - p.lows)
	}
	for j := lo; j < hi; {
		end := min(hi, (j/inner+1)*inner)
		if j%inner == 0 && end-j == inner {
			// Whole stretches from here, as many as come at the stride.
			q := (hi - j) / inner
			if p.outer > 0 {
				q = min(q, p.outer-j/inner%p.outer)
			}
			p.call(s, k.base(j), inner<<p.lows, q)
			j += q * inner
			continue
		}
		a := min(end, (j+per-1)/per*per)
		applyScalar(k, c, s, j, a, buf)
		if m := (end - a) &^ (per - 1); m > 0 {
			p.call(s, k.base(a), m<<p.lows, 1)
			a += m
		}
		applyScalar(k, c, s, a, end, buf)
		j = end
	}
	return true
}

// applyScalar runs k on counters [lo, hi) in pure Go.
func applyScalar[T amplitude](k *kernel, c *coefs[T], s []T, lo, hi int, buf []T) {
	switch k.kind {
	case kDiag1, kAntiDiag1, kGeneral1:
		apply1(k, c, s, lo, hi)
	default:
		applyRuns(k, c, s, lo, hi, buf)
	}
}

// call runs the kernel on q stretches of n amplitudes from s[b].
func (p *matPlan) call(s any, b, n, q int) {
	switch x := s.(type) {
	case []complex128:
		if b+(q-1)*p.stride/16+n+p.maxO > len(x) {
			panic("sim: a mat kernel past the state") // a bug, not an input
		}
		p.f128(&x[b], &p.offs[0], n, q, p.stride, &p.d[0])
	case []complex64:
		if b+(q-1)*p.stride/8+n+p.maxO > len(x) {
			panic("sim: a mat kernel past the state")
		}
		p.f64(&x[b], &p.offs[0], n, q, p.stride, &p.s[0])
	}
}

// compactVectors keeps of each posVectors entry what an AVX2 kernel
// without low targets reads, 64 bytes: the first ymm of R, then of I.
func compactVectors(d []float64, s []float32) ([]float64, []float32) {
	cd := make([]float64, 0, len(d)/2)
	for e := 0; e < len(d); e += entryD {
		cd = append(cd, d[e:e+4]...)
		cd = append(cd, d[e+entryD/2:e+entryD/2+4]...)
	}
	cs := make([]float32, 0, len(s)/2)
	for e := 0; e < len(s); e += entryS {
		cs = append(cs, s[e:e+8]...)
		cs = append(cs, s[e+entryS/2:e+entryS/2+8]...)
	}
	return cd, cs
}
