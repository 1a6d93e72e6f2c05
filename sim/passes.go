package sim

import "context"

// The passes that measurement and per-shot runs make over the whole state
// (a qubit's probability, collapse, moving a qubit to 0, copying the
// shared prefix or starting from |0…0⟩ again, renormalising a trajectory) run chunk by chunk on the worker pool on a large state,
// as gates do. A per-shot run makes several of them every shot, so they
// allocate nothing: the pass's arguments live in the vector, which one
// goroutine uses at a time, and the pool's jobs are recycled.

type passKind uint8

const (
	passQubitProbability passKind = iota + 1
	passCollapse
	passMoveToZero
	passCopy
	passZero
	passScale
	passReduced
	passNorms
	passTouch
)

// passArgs are the current pass's: set by runPass's callers, read by the
// chunks.
type passArgs[T amplitude] struct {
	kind  passKind
	ctx   context.Context
	q     int
	one   bool // collapse: keep the half where q is 1
	scale float64
	src   []T // copy
	// reduced (expect.go): the targets, and whether the diagonal is enough
	targets  [2]int
	nt       int
	diagOnly bool
}

// runPass runs v.pass over the chunks of the state, on up to workers
// goroutines when there are two chunks or more, checking ctx before each
// chunk; chunks not started when ctx is done are skipped.
func (v *vec[T]) runPass(ctx context.Context, workers int) error {
	p := &v.pass
	p.ctx = ctx
	defer func() { p.ctx, p.src = nil, nil }()
	chunks := v.passChunks()
	if workers <= 1 || chunks < 2 {
		for c := range chunks {
			if err := ctx.Err(); err != nil {
				return err
			}
			v.passChunk(c)
		}
		return nil
	}
	if v.passShare == nil {
		v.passShare = func(_, c int) {
			if v.pass.ctx.Err() == nil {
				v.passChunk(c)
			}
		}
	}
	parallelFor(chunks, workers, v.passShare)
	return ctx.Err()
}

// passChunks is the number of chunks of chunkAmps amplitudes the pass
// walks: the whole state, or for moving a qubit whose halves lie in
// different chunks, the zeros' half only (each chunk then writes its own
// amplitudes and the ones' chunk it takes them from, which no other chunk
// touches).
func (v *vec[T]) passChunks() int {
	n := len(v.a)
	if v.pass.kind == passMoveToZero && 1<<v.pass.q >= chunkAmps {
		n /= 2
	}
	return (n + chunkAmps - 1) / chunkAmps
}

// passChunk runs the pass on chunk c.
func (v *vec[T]) passChunk(c int) {
	p := &v.pass
	lo, hi := c*chunkAmps, min((c+1)*chunkAmps, len(v.a))
	stride := 1 << p.q
	switch p.kind {
	case passQubitProbability:
		var acc float64
		if hi-lo <= stride { // within one half
			if lo&stride != 0 {
				for _, a := range v.a[lo:hi] {
					acc += abs2(a)
				}
			}
		} else {
			for b := lo + stride; b < hi; b += 2 * stride {
				for _, a := range v.a[b : b+stride] {
					acc += abs2(a)
				}
			}
		}
		v.sums[c] = acc
	case passCollapse:
		keep := 0
		if p.one {
			keep = stride
		}
		if hi-lo <= stride { // within one half
			if lo&stride == keep {
				scaleBy(v.a[lo:hi], p.scale)
			} else {
				clear(v.a[lo:hi])
			}
			return
		}
		for b := lo; b < hi; b += 2 * stride {
			kept, dropped := v.a[b:b+stride], v.a[b+stride:b+2*stride]
			if p.one {
				kept, dropped = dropped, kept
			}
			scaleBy(kept, p.scale)
			clear(dropped)
		}
	case passMoveToZero:
		if stride >= chunkAmps { // c counts the zeros' chunks
			hi = lo + min(chunkAmps, len(v.a)/2-lo)
			z := lo/stride*2*stride + lo%stride // lo with a 0 inserted at q
			copy(v.a[z:z+hi-lo], v.a[z+stride:z+stride+hi-lo])
			clear(v.a[z+stride : z+stride+hi-lo])
			return
		}
		for b := lo; b < hi; b += 2 * stride {
			copy(v.a[b:b+stride], v.a[b+stride:b+2*stride])
			clear(v.a[b+stride : b+2*stride])
		}
	case passCopy:
		copy(v.a[lo:hi], p.src[lo:hi])
	case passZero:
		clear(v.a[lo:hi])
	case passScale:
		scaleBy(v.a[lo:hi], p.scale)
	case passReduced:
		v.reducedChunk(c)
	case passNorms:
		var acc float64
		for _, a := range v.a[lo:hi] {
			acc += abs2(a)
		}
		v.sums[c] = acc
	case passTouch:
		for i := lo; i < hi; i += touchAmps[T]() {
			v.a[i] = 0
		}
	}
}

// touchAmps is how many amplitudes a 4 KiB page holds, the smallest page
// size of the systems Go runs on: a larger page is written more than once,
// which costs nothing next to faulting it.
func touchAmps[T amplitude]() int {
	var zero T
	if _, single := any(zero).(complex64); single {
		return 4096 / 8
	}
	return 4096 / 16
}

// scaleBy multiplies x by the real s.
func scaleBy[T amplitude](x []T, s float64) {
	sc := T(complex(s, 0))
	for i := range x {
		x[i] *= sc
	}
}

// qubitProbability adds the chunks' sums in index order, so that the
// result does not depend on how many workers ran.
func (v *vec[T]) qubitProbability(ctx context.Context, q, workers int) (float64, error) {
	v.pass = passArgs[T]{kind: passQubitProbability, q: q}
	if c := v.passChunks(); len(v.sums) != c {
		v.sums = make([]float64, c)
	}
	if err := v.runPass(ctx, workers); err != nil {
		return 0, err
	}
	var p float64
	for _, s := range v.sums {
		p += s
	}
	return p, nil
}

func (v *vec[T]) collapse(ctx context.Context, q int, one bool, scale float64, workers int) error {
	v.pass = passArgs[T]{kind: passCollapse, q: q, one: one, scale: scale}
	return v.runPass(ctx, workers)
}

func (v *vec[T]) moveToZero(ctx context.Context, q, workers int) error {
	v.pass = passArgs[T]{kind: passMoveToZero, q: q}
	return v.runPass(ctx, workers)
}

func (v *vec[T]) copyFrom(ctx context.Context, o vector, workers int) error {
	v.pass = passArgs[T]{kind: passCopy, src: o.(*vec[T]).a}
	return v.runPass(ctx, workers)
}

func (v *vec[T]) clone(ctx context.Context, workers int) (vector, error) {
	c := &vec[T]{a: make([]T, len(v.a))}
	return c, c.copyFrom(ctx, v, workers)
}

func (v *vec[T]) scale(ctx context.Context, by float64, workers int) error {
	v.pass = passArgs[T]{kind: passScale, scale: by}
	return v.runPass(ctx, workers)
}

// touch writes a zero into every page of a state just allocated at
// |0…0⟩, on the pool, and sets amplitude 0 again. Pages fresh from the
// operating system that a kernel reads before it writes fault twice (the
// read maps the shared zero page, the write copies it): a 64 MiB state
// took 32,768 faults, a third of a 22-qubit QFT's CPU time as a job, and
// the first kernel took them all on the cores that ran it. Written first,
// each page faults once, on every core at once; pages the allocator
// already cleared cost a store each.
func (v *vec[T]) touch(ctx context.Context, workers int) error {
	v.pass = passArgs[T]{kind: passTouch}
	err := v.runPass(ctx, workers)
	v.a[0] = 1
	return err
}

func (v *vec[T]) reset(ctx context.Context, workers int) error {
	v.pass = passArgs[T]{kind: passZero}
	if err := v.runPass(ctx, workers); err != nil {
		return err
	}
	v.a[0] = 1
	return nil
}
