package storage

import (
	"context"
	"errors"
	"fmt"

	"github.com/qjobs/quantum/qtype"
)

// BoundedCreator is implemented by a Store that holds an owner's
// unfinished jobs under a bound in the step that stores a new job: one
// round trip where a CountJobs and a CreateJob would take two. The
// Service bounds each user's unfinished jobs (WithMaxActiveJobsPerUser)
// through it when its store is one.
type BoundedCreator interface {
	// CreateJobBounded is CreateJob, except that when the job's owner has
	// max or more jobs in the given statuses (as CountJobs counts them) it
	// stores nothing and returns an *ActiveError. The count is of what
	// was committed when it was made: creates of one owner made at once
	// by several callers may each pass it (a Service makes one user's
	// creates one at a time, unless the store is a BatchCreator; Services
	// sharing a store may each make one).
	CreateJobBounded(ctx context.Context, job *JobRecord, program qtype.Program, statuses []qtype.JobStatus, max int) error
}

// BatchCreator is a BoundedCreator that puts the creates made through it
// at the same time into batches, sent one after another, and counts each
// job of a batch against its owner's bound after the jobs before it: among
// the callers of one Store the bound is exact, without the callers taking
// turns (the Service then makes one user's creates at once, not one at a
// time).
type BatchCreator interface {
	BoundedCreator
	// BatchesCreates reports whether the creates are batched so (a
	// wrapper of a store says what the store does).
	BatchesCreates() bool
}

// ErrTooManyActive is wrapped by an ActiveError.
var ErrTooManyActive = errors.New("the owner has too many unfinished jobs")

// ActiveError is CreateJobBounded's refusal of a job whose owner has too
// many unfinished jobs.
type ActiveError struct {
	// Count is how many jobs in the statuses asked for the owner had.
	Count int
}

func (e *ActiveError) Error() string {
	return fmt.Sprintf("the owner has %d unfinished jobs", e.Count)
}

func (e *ActiveError) Unwrap() error { return ErrTooManyActive }
