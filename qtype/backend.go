package qtype

import "context"

// Backend runs jobs for a device: the seam for users. The built-in one
// compiles QASM and runs it on package sim; a test suite can register one
// that fails, hangs or answers slowly on purpose (see quantumtest).
type Backend interface {
	// Check validates a task cheaply when its job is created (the program
	// compiles, fits the device) and says what running it will hold. A
	// *Error is returned as it is; a context's error means the caller
	// gave up; any other error becomes a VALIDATION_ERROR on program.data.
	// The Service runs at most a few Checks at once (one per CPU), so a
	// slow Check makes creates wait, then answer SERVICE_BUSY.
	Check(ctx context.Context, t Task) (Resources, error)
	// Run executes the task. It must stop promptly, returning ctx's error,
	// when ctx is cancelled.
	Run(ctx context.Context, t Task) (*RunResult, error)
	// Cancellable reports whether jobs on this backend can be cancelled.
	Cancellable() bool
}

// Resources is what running a task holds, as its backend's Check
// estimates it.
type Resources struct {
	// Memory is the memory, in bytes, the run holds from its start. The
	// Service reserves it from its memory budget (WithMemoryBudget) before
	// a worker claims the job, so that jobs running together never need
	// more than the budget. Zero for a backend whose work happens
	// elsewhere.
	Memory int64
	// MaxMemory, when above Memory, is the most the run may come to hold
	// by asking for the rest as it grows (Task.Grow): a task whose
	// MaxMemory (or Memory) is more than the whole budget is refused at
	// create.
	MaxMemory int64
}

// Task is one job's work as a backend sees it.
type Task struct {
	JobQRN         string // empty in Check
	Device         *Device
	Program        Program
	Shots          int
	RuntimeOptions map[string]any
	// Seed is runtimeOptions.seed when the job has one. Circuit i of a
	// batch runs with the batch's seed + i.
	Seed *uint64
	// Circuit is the index of the program in its batch (0 for a job of
	// one program).
	Circuit int
	// MaxWork, when above zero, bounds the run's work in the units of
	// WithMaxWork: a batch's circuits share the job's bound, so each runs
	// with what the ones before it left.
	MaxWork int64
	// Memory, in Run, is what the Service holds for the run from its
	// start: Resources.Memory, or more for a job whose earlier run grew
	// and was stopped to wait for that memory.
	Memory int64
	// Grow, in Run (nil in Check), asks the Service for delta more bytes
	// of its memory budget beyond Resources.Memory, for a run whose memory
	// grows with its state; what it grants is held until Run returns. A
	// refusal is an error the run must stop with, returning it: the job
	// then ends FAILED (it would pass its user's share of the budget while
	// other users' jobs wait) or goes back to the queue until that much
	// memory is free.
	Grow func(delta int64) error
}

// RunResult is what a backend reports for a completed job.
type RunResult struct {
	// Counts maps measured bit strings (classical bit 0 rightmost) to how
	// often they occurred; they add up to the shots.
	Counts map[string]int
	// Metadata is added to the job's metadata (a batch's holds what every
	// circuit's run reported alike).
	Metadata map[string]any
	// Work is the work the run did in the units of WithMaxWork, for a
	// backend that counts it (0 otherwise).
	Work int64
	// Data, when not nil, is what the run reports beside its counts: keys
	// added to the result's resultData, as JSON values (an analog
	// device's measurements of each shot, an annealer's solutions). It
	// may not use measurementCounts, and a batch's circuits report none.
	// Counts may then be nil: a run that samples no bit strings (an
	// annealer) reports its reads in Data alone.
	Data map[string]any
}
