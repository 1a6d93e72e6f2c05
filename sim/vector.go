package sim

import "context"

// vector is a state's amplitudes in one precision. State calls it once per
// gate or measurement; the loops inside are generic over the precision.
//
// Every method that walks the state takes a context and checks it between
// chunks of amplitudes (see chunked), so that a cancel stops a pass over a
// large state within milliseconds. A pass stopped midway returns ctx's error
// and leaves the amplitudes half updated: the state is garbage then.
type vector interface {
	apply(ctx context.Context, k *kernel, n, workers int) error
	applyBlocked(ctx context.Context, ks []*kernel, n, workers int) error
	amplitude(i int) complex128
	probability(i int) float64
	norm(ctx context.Context) (float64, error)
	// qubitProbability, collapse, moveToZero, clone, copyFrom and reset
	// run on up to workers goroutines on a large state (passes.go).
	qubitProbability(ctx context.Context, q, workers int) (float64, error)
	// collapse keeps the half where qubit q is one (or zero) and scales it.
	collapse(ctx context.Context, q int, one bool, scale float64, workers int) error
	// moveToZero moves the amplitudes where qubit q is 1 to where it is 0.
	moveToZero(ctx context.Context, q, workers int) error
	// sweep hands out sorted uniforms (over [0, norm)) to basis states by
	// cumulative probability and reports each basis state's shots to hit;
	// see sample.
	sweep(ctx context.Context, u *uniforms, hit func(index, n int) error) error
	clone(ctx context.Context, workers int) (vector, error)
	copyFrom(ctx context.Context, o vector, workers int) error
	// reset sets |0…0⟩.
	reset(ctx context.Context, workers int) error
	// touch faults in the pages of a state just made, still |0…0⟩
	// (passes.go).
	touch(ctx context.Context, workers int) error
	// pick draws a basis state by its probability, u uniform in [0, 1)
	// (tail.go).
	pick(ctx context.Context, u float64, workers int) (int, error)
	// scale multiplies every amplitude by the real by.
	scale(ctx context.Context, by float64, workers int) error
	// reduced is the reduced density matrix of one or two targets
	// (expect.go), only its diagonal when diagOnly.
	reduced(ctx context.Context, targets []int, diagOnly bool, workers int) ([16]complex128, error)
	set(i int, a complex128)
}

type vec[T amplitude] struct {
	a   []T
	buf [][]T // scratch per worker for multi-target gates
	// pass, passShare, sums and csums belong to the passes (passes.go).
	pass      passArgs[T]
	passShare func(slot, chunk int)
	sums      []float64
	csums     []complex128
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

// scratches makes the scratch of workers 0…workers−1 before they start:
// they only read v.buf.
func (v *vec[T]) scratches(workers, d int) {
	for w := range workers {
		v.scratch(w, max(d, 1))
	}
}

// parallelMin is the number of loop iterations below which a gate runs on
// one goroutine: starting goroutines costs more than the loop itself.
const parallelMin = 1 << 14

// sharesPerWorker is how many pieces a large kernel is cut into per
// worker: enough that a worker slowed down hands its last pieces to the
// others, few enough that claiming them costs nothing.
const sharesPerWorker = 8

// applyChunks runs k on s for loop counters [lo, hi), step counters at a
// time, checking ctx between steps.
func applyChunks[T amplitude](ctx context.Context, k *kernel, c *coefs[T], s []T, lo, hi, step int, buf []T) error {
	for lo < hi {
		end := min(lo+step, hi)
		applyKernel(k, c, s, lo, end, buf)
		if lo = end; lo < hi {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (v *vec[T]) apply(ctx context.Context, k *kernel, n, workers int) error {
	c := v.coefs(k)
	groups := k.groups(n)
	d := len(k.off)
	step := k.chunkGroups()
	if groups < parallelMin || workers <= 1 {
		return applyChunks(ctx, k, c, v.a, 0, groups, step, v.scratch(0, d))
	}
	workers = min(workers, groups/(parallelMin/4))
	// sharesPerWorker shares a worker, at least parallelMin/4 groups each.
	shares := min(workers*sharesPerWorker, groups/(parallelMin/4))
	chunk := (groups + shares - 1) / shares
	v.scratches(workers, d)
	parallelFor(shares, workers, func(w, share int) {
		lo, hi := share*chunk, min((share+1)*chunk, groups)
		if lo < hi && ctx.Err() == nil { // a share not started is skipped
			_ = applyChunks(ctx, k, c, v.a, lo, hi, step, v.buf[w]) // its error is ctx's, returned below
		}
	})
	return ctx.Err()
}

func (v *vec[T]) applyBlocked(ctx context.Context, ks []*kernel, n, workers int) error {
	blocks := 1 << (n - blockBits)
	size := 1 << blockBits
	maxDim := 0
	cs := make([]*coefs[T], len(ks))
	for i, k := range ks {
		maxDim = max(maxDim, len(k.off))
		cs[i] = v.coefs(k)
	}
	workers = min(workers, blocks)
	v.scratches(workers, maxDim)
	parallelFor(blocks, workers, func(w, b int) {
		buf := v.buf[w]
		sub := v.a[b*size : (b+1)*size]
		for i, k := range ks {
			// A block is 2^14 amplitudes: a check per kernel and block is
			// nothing next to the kernel.
			if ctx.Err() != nil {
				return
			}
			if k.highest() >= blockBits {
				applyDiagRange(k, cs[i], v.a, b*size, (b+1)*size)
				continue
			}
			applyKernel(k, cs[i], sub, 0, k.groups(blockBits), buf)
		}
	})
	return ctx.Err()
}

func (v *vec[T]) amplitude(i int) complex128 { return complex128(v.a[i]) }
func (v *vec[T]) probability(i int) float64  { return abs2(v.a[i]) }
func (v *vec[T]) set(i int, a complex128)    { v.a[i] = T(a) }

// norm adds the probabilities in index order, chunk after chunk into one
// running sum, as sweep does, so that the total and the shots a seed draws
// from it are the same however the loop is cut.

func (v *vec[T]) norm(ctx context.Context) (float64, error) {
	var p float64
	err := chunked(ctx, len(v.a), func(lo, hi int) {
		acc := p
		for _, a := range v.a[lo:hi] {
			acc += abs2(a)
		}
		p = acc
	})
	return p, err
}

func (v *vec[T]) sweep(ctx context.Context, u *uniforms, hit func(index, n int) error) error {
	var cum float64
	last := 0
	for lo := 0; lo < len(v.a) && u.left > 0; lo += chunkAmps {
		if err := ctx.Err(); err != nil {
			return err
		}
		for i, a := range v.a[lo:min(lo+chunkAmps, len(v.a))] {
			p := abs2(a)
			if p == 0 {
				continue
			}
			last = lo + i
			cum += p
			n := 0
			for u.left > 0 && u.next < cum {
				u.take()
				n++
			}
			if n > 0 {
				if err := hit(last, n); err != nil {
					return err
				}
			}
			if u.left == 0 {
				break
			}
		}
	}
	if u.left > 0 { // rounding left the last variates past the final sum
		n := u.left
		u.left = 0
		return hit(last, n)
	}
	return nil
}
