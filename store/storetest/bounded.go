package storetest

import (
	"errors"
	"testing"

	"github.com/qjobs/quantum/internal/testenv"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// testBoundedCreates: a BoundedCreator stores a job while its owner has
// fewer jobs than the bound in the statuses given, counted as CountJobs
// counts them, and refuses the next with the count, storing nothing; other
// owners and other statuses are not counted.
func testBoundedCreates(t *testing.T, s storage.Store) {
	bc, ok := s.(storage.BoundedCreator)
	if !ok {
		testenv.Optional(t, "not a storage.BoundedCreator")
	}
	pending := []qtype.JobStatus{qtype.StatusInitializing, qtype.StatusValidating, qtype.StatusQueued, qtype.StatusRunning}
	const bound = 3
	var jobs []*storage.JobRecord
	for i := range bound {
		j := newJob("alice", deviceA, i)
		if err := bc.CreateJobBounded(ctx, j, program, pending, bound); err != nil {
			t.Fatalf("job %d of %d: %v", i+1, bound, err)
		}
		jobs = append(jobs, j)
	}
	queue(t, s, jobs[0], epoch)
	create(t, s, newJob("bob", deviceA, 0)) // another owner's

	over := newJob("alice", deviceB, 9)
	err := bc.CreateJobBounded(ctx, over, program, pending, bound)
	var active *storage.ActiveError
	if !errors.As(err, &active) || active.Count != bound || !errors.Is(err, storage.ErrTooManyActive) {
		t.Fatalf("a create past the bound: %v, want an ActiveError counting %d", err, bound)
	}
	if _, err := s.GetJob(ctx, over.JobQRN); !errors.Is(err, storage.ErrJobNotFound) {
		t.Fatalf("the refused job: %v, want ErrJobNotFound", err)
	}
	if _, err := s.GetProgram(ctx, over.JobQRN); !errors.Is(err, storage.ErrJobNotFound) {
		t.Fatalf("the refused job's program: %v, want ErrJobNotFound", err)
	}
	if n, err := s.CountJobs(ctx, "alice", pending); err != nil || n != bound {
		t.Fatalf("alice's pending jobs after the refusal: %d (%v), want %d", n, err, bound)
	}

	// A job that ends leaves room for one more; the ended one is not counted.
	move(t, s, jobs[1].JobQRN, qtype.StatusInitializing, qtype.StatusFailed, epoch)
	if err := bc.CreateJobBounded(ctx, over, program, pending, bound); err != nil {
		t.Fatalf("a create after a job ended: %v", err)
	}
	if got, err := s.GetJob(ctx, over.JobQRN); err != nil || got.Status != qtype.StatusInitializing {
		t.Fatalf("the stored job: %+v (%v)", got, err)
	}
	// Only the statuses asked for count.
	if err := bc.CreateJobBounded(ctx, newJob("alice", deviceA, 10), program, []qtype.JobStatus{qtype.StatusFailed}, 2); err != nil {
		t.Fatalf("one FAILED job under a bound of 2 FAILED: %v", err)
	}
	err = bc.CreateJobBounded(ctx, newJob("alice", deviceA, 11), program, []qtype.JobStatus{qtype.StatusFailed}, 1)
	if !errors.As(err, &active) || active.Count != 1 {
		t.Fatalf("one FAILED job under a bound of 1 FAILED: %v, want an ActiveError counting 1", err)
	}
}
