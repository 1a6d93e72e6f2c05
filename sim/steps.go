package sim

import (
	"fmt"
	"math"
)

// Work: a circuit with jumps can loop, so what a run does is not bounded by
// its length, and an operation costs what its state costs: an H on 20
// qubits touches a million amplitudes, a classical step one bit. Two limits
// bound it:
//
//   - MaxSteps counts the operations one shot executes, whatever their
//     size: a loop that never ends meets it quickly on a small state. A
//     circuit whose loops no measurement steers runs once (stream.go),
//     not shot by shot, and only MaxWork bounds it.
//   - MaxWork bounds the work of the whole run in units of one amplitude
//     read and written (about a nanosecond on the machines this was measured
//     on): a gate on n qubits costs 2^n, a measurement 2·2^n (its
//     probability, then the collapse), a reset 3·2^n, starting a shot from
//     a copy of the state 2^n; a classical step costs 1 (and one more per 64
//     nodes of its condition or expression, or per 64 classical bits a shot
//     holds); a sampled shot costs 1. A channel in a trajectory costs a
//     step, and a pass 2^n when it applies a branch drawn with fixed
//     probabilities (a Pauli other than I), or 2·2^n when it draws by the
//     state (its qubits' reduced density matrix, then the branch); the
//     measurements that end a trajectory a step each and one pass; on the
//     density matrix every fused kernel of the doubled circuit costs 4^n.
//     Every quantum operation costs at least opFloor, what applying it
//     costs however small the state. A circuit run once through its loops
//     (stream.go) costs streamStepWork for each step of each operation it
//     executes, and its fused chunks their passes. Work is
//     charged before it is done: a sampled run's sampling up front and its
//     gates a fused chunk at a time (applyHead), a stream's operations as
//     they run, a run shot by shot operation by operation, so a run stops
//     before the work that would pass the bound.

const (
	// DefaultMaxSteps bounds the operations one shot may execute when
	// Options.MaxSteps is 0.
	DefaultMaxSteps = 10_000_000
	// DefaultMaxWork bounds a run's work when Options.MaxWork is 0:
	// 6·10^10 amplitudes, about a minute of a 2-core machine's passes over
	// a state (a loop of an H and a measurement on 20 qubits that never
	// exits ends after about 19,000 iterations, in 38 s on AMD EPYC), while
	// a QFT on 28 qubits (about 80 fused passes over 2^28 amplitudes,
	// 2.2·10^10) or a million sampled shots fit.
	DefaultMaxWork int64 = 60_000_000_000
	// opFloor is the least a quantum operation costs.
	opFloor = 16
)

// PassWork is the work of k passes over a state of n qubits as MaxWork
// counts it, k·2^n and at least 16: what a front end that drives a State
// itself charges for its operations (a gate one pass, a measurement two, a
// reset three).
func PassWork(n, k int) int64 { return max(int64(k)<<n, opFloor) }

func passWork(n, k int) int64 { return PassWork(n, k) }

// workBudget is what a run may still do.
type workBudget struct {
	perShot int64 // MaxSteps, in operations
	total   int64 // MaxWork, for the message
	left    int64 // what remains of total
}

// newWorkBudget returns the budget for MaxSteps and MaxWork (either 0 or
// less: its default).
func newWorkBudget(maxSteps int, maxWork int64) workBudget {
	b := workBudget{perShot: int64(maxSteps), total: maxWork}
	if b.perShot <= 0 {
		b.perShot = DefaultMaxSteps
	}
	if b.total <= 0 {
		b.total = DefaultMaxWork
	}
	b.left = b.total
	return b
}

// shotWork is what a shot costs besides its operations: its start (a copy
// or a reset of the state, a pass over it), and one per 64 classical bits
// it clears and turns into a key, so that a million shots of a 65,536-bit
// register count for what they cost.
func shotWork(n, numClbits int) int64 { return passWork(n, 1) + int64(numClbits)/64 }

// charge takes w of what is left, or fails with what is over.
func (b *workBudget) charge(w int64) error {
	if w > b.left {
		return b.exceeded()
	}
	b.left -= w
	return nil
}

// stepsExceeded is the error of a shot that ran more operations than
// MaxSteps.
func (b *workBudget) stepsExceeded() error {
	return fmt.Errorf("%w: a shot ran more than %d operations (MaxSteps; a loop that does not end?)", ErrStepLimit, b.perShot)
}

func (b *workBudget) exceeded() error {
	return fmt.Errorf("%w: the run would do more than %d units of work (MaxWork: amplitudes touched, 2^n a gate on n qubits; a loop that does not end?)", ErrWorkLimit, b.total)
}

// headWork is the work of applying kernels once to a state of n qubits.
func headWork(ks []*kernel, n int) int64 {
	w := passWork(n, 1)
	if int64(len(ks)) > math.MaxInt64/w {
		return math.MaxInt64
	}
	return int64(len(ks)) * w
}

// sampleWork is the work of sampling shots from a state of n qubits: the
// probabilities, their running sums, then a step a shot.
func sampleWork(n, shots int) int64 { return addWork(passWork(n, 2), int64(shots)) }

// addWork adds two amounts of work, which are never negative, saturating.
func addWork(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}
