package quantum

import (
	"context"
	"errors"
	"time"
)

// Observer receives the Service's measurements as they happen, for
// metrics: package metrics adapts them to Prometheus, and an embedder may
// write its own. Its methods are called on the Service's own goroutines,
// some with a job's lock held: they must be quick and must not call the
// Service.
type Observer interface {
	// JobCreated: a job was stored on the device.
	JobCreated(device string)
	// JobStarted: a worker claimed a job of the device after it waited
	// queueWait in its queue.
	JobStarted(device string, queueWait time.Duration)
	// JobEnded: a job of the device ended in status (COMPLETED, FAILED or
	// CANCELLED) after running for execution (zero if it never ran). A
	// FAILED job's reason is one of the Fail* classes.
	JobEnded(device string, status JobStatus, reason string, execution time.Duration)
	// StoreCall: a call of the Store's method op lasted took, and
	// failed with err (nil: it succeeded; a lost compare-and-set or a
	// missing job is not a failure).
	StoreCall(op string, took time.Duration, err error)
}

// The classes of a job's failure, for JobEnded.
const (
	FailBackend  = "backend"  // the device's backend failed, or returned a broken result
	FailTimeout  = "timeout"  // the run took longer than WithJobTimeout
	FailAttempts = "attempts" // every run was cut short (WithMaxAttempts)
	FailMemory   = "memory"   // the job needs more memory than the service's budget
	FailResult   = "result"   // the result is larger than the store holds
	FailStore    = "store"    // the store failed to give the program or to take the result
)

// FailReasons returns every class of failure, for a metric that shows
// each at 0 before its first.
func FailReasons() []string {
	return []string{FailBackend, FailTimeout, FailAttempts, FailMemory, FailResult, FailStore}
}

// WithObserver reports the Service's measurements to o (default: none).
func WithObserver(o Observer) Option {
	return func(s *Service) {
		if o != nil {
			s.obs = o
		}
	}
}

type nopObserver struct{}

func (nopObserver) JobCreated(string)                                 {}
func (nopObserver) JobStarted(string, time.Duration)                  {}
func (nopObserver) JobEnded(string, JobStatus, string, time.Duration) {}
func (nopObserver) StoreCall(string, time.Duration, error)            {}

// failure is a run's error with the class of failure it is.
type failure struct {
	reason string
	err    error
}

func (f *failure) Error() string { return f.err.Error() }
func (f *failure) Unwrap() error { return f.err }

func failed(reason string, err error) error { return &failure{reason: reason, err: err} }

// failReason is the class of a run's error: a backend's unless said.
func failReason(err error) string {
	var f *failure
	if errors.As(err, &f) {
		return f.reason
	}
	return FailBackend
}

// Stats is a snapshot of the Service for gauges.
type Stats struct {
	// MemoryInUse is the memory the jobs running here hold of the budget,
	// MemoryBudget the budget (WithMemoryBudget).
	MemoryInUse, MemoryBudget int64
	// Workers is how many jobs this Service runs at most at once.
	Workers int
	// Running counts the jobs running on this Service, by device.
	Running map[string]int
	// Queued counts the QUEUED jobs in the store, by registered device.
	Queued map[string]int
}

// Stats reads the Service's state: its own, and the queue depth of each
// device from the store.
func (s *Service) Stats(ctx context.Context) (Stats, error) {
	st := Stats{MemoryInUse: s.runner.memoryUsed(), MemoryBudget: s.budget, Workers: s.workers,
		Running: map[string]int{}, Queued: map[string]int{}}
	for _, qrn := range s.runner.runningQRNs() {
		if dev, ok := jobDevice(qrn); ok {
			st.Running[dev]++
		}
	}
	for _, d := range s.devices.all() {
		n, err := s.store.CountQueued(ctx, d.QRN)
		if err != nil {
			return st, err
		}
		st.Queued[d.QRN] = n
	}
	return st, nil
}
