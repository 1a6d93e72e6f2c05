package sim

import (
	"fmt"
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

// blkKey names a block kernel (AVX-512, targets above the register): the
// runs it reads, the size of its blocks and whether the matrix is real.
type blkKey struct {
	runs, m int
	real    bool
}

// matPlan is a kernel's matrix prepared for one precision and level.
type matPlan struct {
	// offs is the byte offset of each input run from the register's
	// base; for a block kernel, those it reads then those it writes.
	offs []int
	maxO int   // the largest offset, in amplitudes
	lows int   // number of low targets
	high []int // high targets, ascending
	// Stretches of amplitudes no high target splits come at a regular
	// stride (bytes) up to the next high target above the consecutive
	// ones from high[0]: outer of them (0: to the end of the state).
	stride, outer int
	// blockRuns is the runs a block kernel reads and writes (0 for the
	// identity, which the plan skips), 0 for other kernels.
	blockRuns int
	identity  bool
	d         []float64
	s         []float32
	f128      func(*complex128, *int, int, int, int, *float64)
	f64       func(*complex64, *int, int, int, int, *float32)
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
	if level == simdAVX512 && len(lows) == 0 {
		if b := blockPlan(k, high, matIndex); b != nil {
			p.setBlocks(b, double, ampBytes)
			return p
		}
	}
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

// blocks is a matrix on high targets taken apart: the runs (indices of
// the targets' bits, matIndex order) of block b's rows and columns, and
// its entries row by row. A matrix whose runs fall into independent
// blocks (outputs that read only some inputs) costs m of R products an
// output: a fused block of H and CX on 4 qubits whose first qubit only
// controls is two 8×8 blocks, half the FMAs of the dense kernel. A
// permutation with phases (swaps, CX alone) is blocks of one, and only
// the runs it changes are read and written.
type blocks struct {
	rows, cols [][]int
	e          [][]complex128
	m          int  // rows of a block
	real       bool // every entry real
}

// blockPlan takes k's matrix on the high targets apart into blocks of
// equal size, or returns nil when it is one block or its blocks differ
// in size. at maps a run (bit j: high target j) to its matrix index.
func blockPlan(k *kernel, high []int, at func(a int) int) *blocks {
	runs := 1 << len(high)
	d := 1 << len(k.targets)
	idx := make([]int, runs)
	for i := range runs {
		o := 0
		for j, t := range high {
			o |= (i >> j & 1) << t
		}
		idx[i] = at(o)
	}
	entry := func(r, c int) complex128 { return k.matrix(idx[r]*d + idx[c]) }
	// Components of rows (0…runs−1) and columns (runs…2runs−1) joined
	// by the non-zero entries.
	parent := make([]int, 2*runs)
	for i := range parent {
		parent[i] = i
	}
	find := func(i int) int {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	for r := range runs {
		for c := range runs {
			if !isZero(entry(r, c)) {
				parent[find(r)] = find(runs + c)
			}
		}
	}
	b := &blocks{real: true}
	comp := map[int]int{} // a component's root → its block
	for i := range 2 * runs {
		root := find(i)
		j, ok := comp[root]
		if !ok {
			j = len(b.rows)
			comp[root] = j
			b.rows, b.cols = append(b.rows, nil), append(b.cols, nil)
		}
		if i < runs {
			b.rows[j] = append(b.rows[j], i)
		} else {
			b.cols[j] = append(b.cols[j], i-runs)
		}
	}
	b.m = len(b.rows[0])
	if b.m == runs {
		return nil // one block: the dense kernel
	}
	for j := range b.rows {
		if len(b.rows[j]) != b.m || len(b.cols[j]) != b.m {
			return nil
		}
	}
	if b.m == 1 {
		// A permutation with phases: the runs it leaves as they are need
		// no pass at all.
		var rows, cols [][]int
		for j := range b.rows {
			if r, c := b.rows[j][0], b.cols[j][0]; r != c || entry(r, c) != 1 {
				rows, cols = append(rows, b.rows[j]), append(cols, b.cols[j])
			}
		}
		b.rows, b.cols = rows, cols
	}
	b.e = make([][]complex128, len(b.rows))
	for j := range b.rows {
		for _, r := range b.rows[j] {
			for _, c := range b.cols[j] {
				v := entry(r, c)
				b.e[j] = append(b.e[j], v)
				b.real = b.real && imag(v) == 0
			}
		}
	}
	return b
}

// setBlocks makes p run b on a block kernel: the runs it reads, then
// those it writes, and the entries as the kernel reads them (internal/simdgen,
// block).
func (p *matPlan) setBlocks(b *blocks, double bool, ampBytes int) {
	all := p.offs // the byte offset of every run
	p.offs = nil
	for _, cols := range b.cols {
		for _, c := range cols {
			p.offs = append(p.offs, all[c])
		}
	}
	for _, rows := range b.rows {
		for _, r := range rows {
			p.offs = append(p.offs, all[r])
		}
	}
	p.blockRuns = len(b.rows) * b.m
	if p.blockRuns == 0 {
		p.identity = true // a fused block that undoes itself
		return
	}
	if !b.real {
		p.d, p.s = make([]float64, 8), make([]float32, 16)
		for j := range p.d {
			p.d[j] = float64(2*(j%2) - 1)
		}
		for j := range p.s {
			p.s[j] = float32(2*(j%2) - 1)
		}
	}
	for _, es := range b.e {
		for _, v := range es {
			p.d = append(p.d, real(v))
			p.s = append(p.s, float32(real(v)))
			if !b.real {
				p.d = append(p.d, imag(v))
				p.s = append(p.s, float32(imag(v)))
			}
		}
	}
	key := blkKey{p.blockRuns, b.m, b.real}
	if double {
		p.f128 = blk128Kernels[key]
	} else {
		p.f64 = blk64Kernels[key]
	}
	if p.f128 == nil && p.f64 == nil {
		panic("sim: no block kernel for " + fmt.Sprint(key)) // the generator writes every shape blockPlan makes
	}
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
	if p.identity {
		return
	}
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
