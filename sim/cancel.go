package sim

import "context"

// Cancellation: every phase of a run (validation, preparation, fusion,
// gate application, the shots, sampling, counting) checks its context often
// enough that a cancel takes effect within milliseconds, whatever the input:
// a client's program must not be able to keep a worker busy after its job is
// cancelled. Checks are spaced so that they cost nothing measurable:
// ctx.Err() is an atomic load, but loops over gates or amplitudes run
// billions of times.

// tickEvery is how many units of work (a gate fused, an operation
// prepared, an outcome counted: each well under a microsecond) a loop does
// between two checks of its context.
const tickEvery = 1024

// ticker checks a context at its first unit of work and then every
// tickEvery units.
type ticker struct {
	ctx  context.Context
	left int // units until the next check
}

// tick counts one unit of work and returns ctx's error when it is time to
// check.
func (t *ticker) tick() error { return t.step(1) }

// step counts w units of work, for work items of very different sizes (a
// gate's matrix of 4 or 1024 entries).
func (t *ticker) step(w int) error {
	t.left -= w
	if t.left > 0 {
		return nil
	}
	t.left = tickEvery
	return t.ctx.Err()
}

// chunkAmps is how many amplitudes a loop over the state handles between two
// checks of its context. 2^16 amplitudes (1 MiB in double precision) stream
// through in tens of microseconds: a cancel is seen well within a
// millisecond, and one check per chunk is lost in the noise.
const chunkAmps = 1 << 16

// chunked calls f on the consecutive chunks [lo, hi) of [0, n), checking ctx
// before each. For n a power of two (a state's length always is) every chunk
// is a power of two aligned to its size, so a chunk lies either within one
// half of a qubit's stride or covers whole pairs of halves.
func chunked(ctx context.Context, n int, f func(lo, hi int)) error {
	for lo := 0; lo < n; lo += chunkAmps {
		if err := ctx.Err(); err != nil {
			return err
		}
		f(lo, min(lo+chunkAmps, n))
	}
	return nil
}

// testHook, when set (by tests, through export_test.go), is called as a run
// enters each phase, so that a test can cancel a run it knows has started
// that phase instead of sleeping and hoping.
var testHook func(phase string)

// enter reports entering a phase to testHook.
func enter(phase string) {
	if testHook != nil {
		testHook(phase)
	}
}
