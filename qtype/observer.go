package qtype

import "time"

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

// NopObserver is an Observer that throws every measurement away: the
// Service's default.
type NopObserver struct{}

func (NopObserver) JobCreated(string) {}

func (NopObserver) JobStarted(string, time.Duration) {}

func (NopObserver) JobEnded(string, JobStatus, string, time.Duration) {}

func (NopObserver) StoreCall(string, time.Duration, error) {}

// CreditObserver is an Observer that is also told of credits (WithCredits):
// package metrics counts them by device. The Service calls it as it does
// an Observer's methods.
type CreditObserver interface {
	// CreditsReserved: a job of the device reserved credits when it was
	// stored.
	CreditsReserved(device string, credits float64)
	// CreditsCharged: a job of the device that had reserved credits ended
	// and was charged credits (0 for FAILED and CANCELLED).
	CreditsCharged(device string, credits float64)
}
