package storetest

import (
	"errors"
	"sync"
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

// testBatchCreates: a BatchCreator's concurrent creates of one owner
// store exactly as many jobs as the bound allows, whichever of them come
// in one batch, and each stored job reads back whole; another owner's
// creates among them are not counted against it, and a device not ONLINE
// refuses its jobs without using the bound.
func testBatchCreates(t *testing.T, s storage.Store) {
	bc, ok := s.(storage.BatchCreator)
	if !ok || !bc.BatchesCreates() {
		testenv.Optional(t, "not a storage.BatchCreator")
	}
	if cs, ok := s.(storage.ControlStore); ok {
		if _, err := cs.UpdateControl(ctx, deviceB, func(c *storage.DeviceControl) { c.Status = qtype.DeviceOffline }); err != nil {
			t.Fatal(err)
		}
	}
	pending := qtype.StatusGroups()["pending"]
	const bound, creates = 5, 40
	var (
		wg                             sync.WaitGroup
		mu                             sync.Mutex
		stored, refused, offline, bobs []*storage.JobRecord
	)
	for i := range creates {
		wg.Add(1)
		go func() {
			defer wg.Done()
			owner, device := "alice", deviceA
			switch {
			case i%4 == 1:
				owner = "bob"
			case i%8 == 2:
				device = deviceB // OFFLINE where the store keeps controls
			}
			j := newJob(owner, device, i)
			err := bc.CreateJobBounded(ctx, j, program, pending, bound)
			var active *storage.ActiveError
			locked(&mu, func() {
				switch {
				case err == nil && owner == "bob":
					bobs = append(bobs, j)
				case err == nil:
					stored = append(stored, j)
				case errors.As(err, &active):
					if active.Count < bound {
						t.Errorf("refused with a count of %d, under the bound of %d", active.Count, bound)
					}
					refused = append(refused, j)
				case errors.Is(err, storage.ErrDeviceNotOnline):
					offline = append(offline, j)
				default:
					t.Errorf("create %d: %v", i, err)
				}
			})
		}()
	}
	wg.Wait()
	if len(stored) != bound {
		t.Errorf("%d of alice's jobs stored, want the bound, %d (%d refused, %d offline)", len(stored), bound, len(refused), len(offline))
	}
	if n, err := s.CountJobs(ctx, "alice", pending); err != nil || n != bound {
		t.Errorf("alice's pending jobs: %d (%v), want %d", n, err, bound)
	}
	if len(bobs) != bound {
		t.Errorf("%d of bob's jobs stored, want %d", len(bobs), bound)
	}
	for _, j := range append(stored, bobs...) {
		got, err := s.GetJob(ctx, j.JobQRN)
		if err != nil || got.Owner != j.Owner || got.DeviceQRN != j.DeviceQRN || got.Name != j.Name || got.Status != qtype.StatusInitializing {
			t.Errorf("stored job %s reads %+v, %v", j.JobQRN, got, err)
		}
		if p, err := s.GetProgram(ctx, j.JobQRN); err != nil || *p != program {
			t.Errorf("stored job %s's program: %+v, %v", j.JobQRN, p, err)
		}
	}
	for _, j := range append(refused, offline...) {
		if _, err := s.GetJob(ctx, j.JobQRN); !errors.Is(err, storage.ErrJobNotFound) {
			t.Errorf("refused job %s: %v, want ErrJobNotFound", j.JobQRN, err)
		}
	}
}
