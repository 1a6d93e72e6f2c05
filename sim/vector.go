package sim

import "sync"

// vector is a state's amplitudes in one precision. State calls it once per
// gate or measurement; the loops inside are generic over the precision.
type vector interface {
	apply(k *kernel, n, workers int)
	applyBlocked(ks []*kernel, n, workers int)
	amplitude(i int) complex128
	probability(i int) float64
	norm() float64
	qubitProbability(q int) float64
	// collapse keeps the half where qubit q is one (or zero) and scales it.
	collapse(q int, one bool, scale float64)
	// moveToZero moves the amplitudes where qubit q is 1 to where it is 0.
	moveToZero(q int)
	// sweep hands out sorted uniforms u (over [0, norm)) to basis states
	// by cumulative probability; see sample.
	sweep(u []float64) []hit
	clone() vector
	copyFrom(o vector)
	set(i int, a complex128)
}

// hit is how many shots landed on one basis state.
type hit struct{ index, n int }

type vec[T amplitude] struct {
	a   []T
	buf [][]T // scratch per worker for multi-target gates
}

func newVec[T amplitude](n int) *vec[T] { return &vec[T]{a: make([]T, 1<<n)} }

func abs2[T amplitude](a T) float64 {
	c := complex128(a)
	return real(c)*real(c) + imag(c)*imag(c)
}

func (v *vec[T]) coefs(k *kernel) *coefs[T] {
	var zero T
	if _, single := any(zero).(complex64); single {
		return any(&k.c64).(*coefs[T])
	}
	return any(&k.c128).(*coefs[T])
}

func (v *vec[T]) scratch(w, d int) []T {
	if d == 0 {
		return nil
	}
	for len(v.buf) <= w {
		v.buf = append(v.buf, nil)
	}
	if len(v.buf[w]) < d {
		v.buf[w] = make([]T, d)
	}
	return v.buf[w]
}

// parallelMin is the number of loop iterations below which a gate runs on
// one goroutine: starting goroutines costs more than the loop itself.
const parallelMin = 1 << 14

func (v *vec[T]) apply(k *kernel, n, workers int) {
	c := v.coefs(k)
	groups := k.groups(n)
	d := len(k.off)
	if groups < parallelMin || workers <= 1 {
		applyKernel(k, c, v.a, 0, groups, v.scratch(0, d))
		return
	}
	workers = min(workers, groups/(parallelMin/4))
	var wg sync.WaitGroup
	chunk := (groups + workers - 1) / workers
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, groups)
		if lo >= hi {
			break
		}
		buf := v.scratch(w, d)
		wg.Add(1)
		go func() {
			defer wg.Done()
			applyKernel(k, c, v.a, lo, hi, buf)
		}()
	}
	wg.Wait()
}

func (v *vec[T]) applyBlocked(ks []*kernel, n, workers int) {
	blocks := 1 << (n - blockBits)
	size := 1 << blockBits
	maxDim := 0
	cs := make([]*coefs[T], len(ks))
	for i, k := range ks {
		maxDim = max(maxDim, len(k.off))
		cs[i] = v.coefs(k)
	}
	workers = min(workers, blocks)
	var wg sync.WaitGroup
	chunk := (blocks + workers - 1) / workers
	for w := range workers {
		lo, hi := w*chunk, min((w+1)*chunk, blocks)
		if lo >= hi {
			break
		}
		buf := v.scratch(w, maxDim)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := lo; b < hi; b++ {
				sub := v.a[b*size : (b+1)*size]
				for i, k := range ks {
					applyKernel(k, cs[i], sub, 0, k.groups(blockBits), buf)
				}
			}
		}()
	}
	wg.Wait()
}

func (v *vec[T]) amplitude(i int) complex128 { return complex128(v.a[i]) }
func (v *vec[T]) probability(i int) float64  { return abs2(v.a[i]) }
func (v *vec[T]) set(i int, a complex128)    { v.a[i] = T(a) }

func (v *vec[T]) norm() float64 {
	var p float64
	for _, a := range v.a {
		p += abs2(a)
	}
	return p
}

func (v *vec[T]) qubitProbability(q int) float64 {
	var p float64
	stride := 1 << q
	for b := stride; b < len(v.a); b += 2 * stride {
		for _, a := range v.a[b : b+stride] {
			p += abs2(a)
		}
	}
	return p
}

func (v *vec[T]) collapse(q int, one bool, scale float64) {
	stride := 1 << q
	sc := T(complex(scale, 0))
	for b := 0; b < len(v.a); b += 2 * stride {
		zero, ones := v.a[b:b+stride], v.a[b+stride:b+2*stride]
		keep, drop := zero, ones
		if one {
			keep, drop = ones, zero
		}
		for i := range keep {
			keep[i] *= sc
		}
		clear(drop)
	}
}

func (v *vec[T]) moveToZero(q int) {
	stride := 1 << q
	for b := 0; b < len(v.a); b += 2 * stride {
		copy(v.a[b:b+stride], v.a[b+stride:b+2*stride])
		clear(v.a[b+stride : b+2*stride])
	}
}

func (v *vec[T]) sweep(u []float64) []hit {
	var hits []hit
	var cum float64
	k, last := 0, 0
	for i, a := range v.a {
		p := abs2(a)
		if p == 0 {
			continue
		}
		last = i
		cum += p
		n := 0
		for k < len(u) && u[k] < cum {
			k++
			n++
		}
		if n > 0 {
			hits = append(hits, hit{i, n})
		}
		if k == len(u) {
			break
		}
	}
	if k < len(u) { // rounding left the last variates past the final sum
		if len(hits) > 0 && hits[len(hits)-1].index == last {
			hits[len(hits)-1].n += len(u) - k
		} else {
			hits = append(hits, hit{last, len(u) - k})
		}
	}
	return hits
}

func (v *vec[T]) clone() vector {
	c := &vec[T]{a: make([]T, len(v.a))}
	copy(c.a, v.a)
	return c
}

func (v *vec[T]) copyFrom(o vector) { copy(v.a, o.(*vec[T]).a) }
