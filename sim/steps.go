package sim

import "fmt"

// Steps: a circuit with jumps can loop, so the work of a per-shot run is
// not bounded by its length. MaxSteps bounds one shot (a loop that never
// ends); MaxTotalSteps bounds all the shots of a run together, which would
// otherwise be bounded only by MaxSteps × shots: 10^13 operations for a
// million shots.

const (
	// DefaultMaxSteps bounds the operations one shot may execute when
	// Options.MaxSteps is 0.
	DefaultMaxSteps = 10_000_000
	// DefaultMaxTotalSteps bounds the steps of all the shots of a run
	// together when Options.MaxTotalSteps is 0. An operation on a small
	// state takes 20 to 100 ns, so 10^8 steps are seconds of one core: a
	// million shots of up to 100 operations each, or ten shots that each
	// reach DefaultMaxSteps, but not a million shots of a long loop.
	// (On a large state every step is a pass over 2^n amplitudes; there
	// the job's deadline bounds the time.)
	DefaultMaxTotalSteps int64 = 100_000_000
)

// stepBudget is what the shots of a run may still execute.
type stepBudget struct {
	perShot int64 // MaxSteps
	total   int64 // MaxTotalSteps, for the message
	left    int64 // what remains of total
}

// newStepBudget returns the budget for MaxSteps and MaxTotalSteps (either 0
// or less: its default).
func newStepBudget(maxSteps int, maxTotal int64) stepBudget {
	b := stepBudget{perShot: int64(maxSteps), total: maxTotal}
	if b.perShot <= 0 {
		b.perShot = DefaultMaxSteps
	}
	if b.total <= 0 {
		b.total = DefaultMaxTotalSteps
	}
	b.left = b.total
	return b
}

// shotSteps is what a shot costs besides its operations: one step for its
// start (a copy or a reset of the state: a pass over it, like a gate), and
// one per 64 classical bits it clears and turns into a key, so that a
// million shots of a 65,536-bit register count for what they cost.
func shotSteps(numClbits int) int64 { return 1 + int64(numClbits)/64 }

// charge takes n steps of the total, for a shot's start.
func (b *stepBudget) charge(n int64) error {
	if n > b.left {
		return b.totalExceeded()
	}
	b.left -= n
	return nil
}

// exceeded is the error of a shot that ran steps operations, more than its
// limit: MaxSteps, or what was left of MaxTotalSteps.
func (b *stepBudget) exceeded(steps int64) error {
	if steps > b.perShot {
		return fmt.Errorf("%w: a shot ran more than %d steps (MaxSteps; a loop that does not end?)", ErrStepLimit, b.perShot)
	}
	return b.totalExceeded()
}

// sampleSteps checks the shots of a sampled run against MaxTotalSteps
// (0 or less: the default): drawing a shot costs a step.
func sampleSteps(shots int, maxTotal int64) error {
	if maxTotal <= 0 {
		maxTotal = DefaultMaxTotalSteps
	}
	if int64(shots) > maxTotal {
		return fmt.Errorf("%w: %d shots to sample, more than the %d steps of MaxTotalSteps (a step a shot)", ErrStepLimit, shots, maxTotal)
	}
	return nil
}

func (b *stepBudget) totalExceeded() error {
	return fmt.Errorf("%w: the shots together ran more than %d steps (MaxTotalSteps)", ErrStepLimit, b.total)
}
