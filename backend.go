package quantum

import "context"

// Backend runs jobs for a device: the seam for users. The built-in one
// compiles QASM and runs it on package sim; a test suite can register one
// that fails, hangs or answers slowly on purpose (see quantumtest).
type Backend interface {
	// Check validates a task cheaply when its job is created: the
	// program compiles, fits the device. A *Error is returned as it is;
	// any other error becomes a VALIDATION_ERROR on program.data.
	Check(ctx context.Context, t Task) error
	// Run executes the task. It must stop promptly, returning ctx's error,
	// when ctx is cancelled.
	Run(ctx context.Context, t Task) (*RunResult, error)
	// Cancellable reports whether jobs on this backend can be cancelled.
	Cancellable() bool
}

// Task is one job's work as a backend sees it.
type Task struct {
	JobQRN         string // empty in Check
	Device         *Device
	Program        Program
	Shots          int
	RuntimeOptions map[string]any
	// Seed is runtimeOptions.seed when the job has one.
	Seed *uint64
}

// RunResult is what a backend reports for a completed job.
type RunResult struct {
	// Counts maps measured bit strings (classical bit 0 rightmost) to how
	// often they occurred; they add up to the shots.
	Counts map[string]int
	// Metadata is added to the job's metadata.
	Metadata map[string]any
}
