package storetest

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// keyed is a new job of owner holding an idempotency key, created at
// epoch + minute minutes.
func keyed(owner, key string, minute int) *storage.JobRecord {
	j := newJob(owner, deviceA, minute)
	j.IdempotencyKey, j.RequestHash = key, "hash of "+key
	return j
}

func holder(t *testing.T, s storage.Store, owner, key string, since time.Time) string {
	t.Helper()
	j, err := s.JobByIdempotencyKey(ctx, owner, key, since)
	if errors.Is(err, storage.ErrJobNotFound) {
		return ""
	}
	if err != nil {
		t.Fatalf("JobByIdempotencyKey(%s, %s): %v", owner, key, err)
	}
	return j.JobQRN
}

func testIdempotencyKeys(t *testing.T, s storage.Store) {
	first := create(t, s, keyed("alice", "k1", 0))
	got, err := s.JobByIdempotencyKey(ctx, "alice", "k1", epoch)
	if err != nil {
		t.Fatal(err)
	}
	if got.JobQRN != first.JobQRN || got.IdempotencyKey != "k1" || got.RequestHash != "hash of k1" || got.Owner != "alice" {
		t.Fatalf("lookup gave %s key %q hash %q owner %q", got.JobQRN, got.IdempotencyKey, got.RequestHash, got.Owner)
	}
	if j, err := s.GetJob(ctx, first.JobQRN); err != nil || j.IdempotencyKey != "k1" || j.RequestHash != "hash of k1" {
		t.Fatalf("GetJob of a keyed job: %+v, %v", j, err)
	}

	// Within the window the key is taken, and nothing is stored.
	dup := keyed("alice", "k1", 60*23)
	if err := s.CreateJob(ctx, dup, program); !errors.Is(err, storage.ErrDuplicateKey) {
		t.Fatalf("a second job with the key: %v, want ErrDuplicateKey", err)
	}
	if _, err := s.GetJob(ctx, dup.JobQRN); !errors.Is(err, storage.ErrJobNotFound) {
		t.Fatalf("the refused job was stored: %v", err)
	}
	if n, _ := s.CountJobs(ctx, "alice", qtype.JobStatuses()); n != 1 {
		t.Fatalf("alice has %d jobs, want 1", n)
	}

	// Keys are per owner; jobs without a key hold none.
	bobs := create(t, s, keyed("bob", "k1", 1))
	if q := holder(t, s, "bob", "k1", epoch); q != bobs.JobQRN {
		t.Fatalf("bob's key points at %q, want %s", q, bobs.JobQRN)
	}
	if q := holder(t, s, "alice", "k1", epoch); q != first.JobQRN {
		t.Fatalf("bob's job took alice's key: it points at %q", q)
	}
	if q := holder(t, s, "carol", "k1", epoch); q != "" {
		t.Fatalf("carol, who has no jobs, holds k1 in %s", q)
	}
	create(t, s, newJob("alice", deviceA, 2))
	create(t, s, newJob("alice", deviceA, 2))
	if q := holder(t, s, "alice", "", epoch.Add(-time.Hour)); q != "" {
		t.Fatalf("the empty key found %s", q)
	}

	// since bounds the lookup: a holder created before it is not found.
	if q := holder(t, s, "alice", "k1", epoch.Add(time.Minute)); q != "" {
		t.Fatalf("a holder created before since was found: %s", q)
	}

	// After the window a new job takes the key, and lookups find it.
	later := keyed("alice", "k1", 60*24+1)
	create(t, s, later)
	if q := holder(t, s, "alice", "k1", epoch); q != later.JobQRN {
		t.Fatalf("after the window the key points at %q, want %s", q, later.JobQRN)
	}
	if _, err := s.GetJob(ctx, first.JobQRN); err != nil {
		t.Fatalf("the expired holder is gone: %v", err)
	}

	// Deleting the holder frees the key; deleting the expired one does
	// not touch it.
	move(t, s, first.JobQRN, qtype.StatusInitializing, qtype.StatusFailed, epoch)
	if err := s.DeleteJob(ctx, first.JobQRN, qtype.StatusFailed); err != nil {
		t.Fatal(err)
	}
	if q := holder(t, s, "alice", "k1", epoch); q != later.JobQRN {
		t.Fatalf("deleting the expired holder moved the key to %q", q)
	}
	move(t, s, later.JobQRN, qtype.StatusInitializing, qtype.StatusFailed, epoch)
	if err := s.DeleteJob(ctx, later.JobQRN, qtype.StatusFailed); err != nil {
		t.Fatal(err)
	}
	if q := holder(t, s, "alice", "k1", epoch); q != "" {
		t.Fatalf("a deleted job still holds its key: %s", q)
	}
	create(t, s, keyed("alice", "k1", 60*24+2))

	// An update cannot change a job's key.
	j := create(t, s, keyed("alice", "k2", 3))
	updated, err := s.UpdateJob(ctx, j.JobQRN, qtype.StatusInitializing, func(r *storage.JobRecord) {
		r.Status, r.IdempotencyKey, r.RequestHash = qtype.StatusValidating, "other", "other"
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if updated.IdempotencyKey != "k2" || updated.RequestHash != "hash of k2" || holder(t, s, "alice", "k2", epoch) != j.JobQRN {
		t.Fatalf("an update changed the key to %q (hash %q)", updated.IdempotencyKey, updated.RequestHash)
	}
}

// testConcurrentKeyedCreates: of creates racing with one key, exactly one
// is stored.
func testConcurrentKeyedCreates(t *testing.T, s storage.Store) {
	const n = 12
	errs := make([]error, n)
	jobs := make([]*storage.JobRecord, n)
	var wg sync.WaitGroup
	for i := range n {
		jobs[i] = keyed("alice", "race", 0)
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.CreateJob(ctx, jobs[i], program)
		}()
	}
	wg.Wait()
	won := ""
	for i, err := range errs {
		switch {
		case err == nil && won == "":
			won = jobs[i].JobQRN
		case err == nil:
			t.Fatalf("two creates with one key were stored: %s and %s", won, jobs[i].JobQRN)
		case !errors.Is(err, storage.ErrDuplicateKey):
			t.Fatalf("create %d: %v, want ErrDuplicateKey", i, err)
		}
	}
	if won == "" {
		t.Fatal("no create was stored")
	}
	if q := holder(t, s, "alice", "race", epoch); q != won {
		t.Fatalf("the key points at %q, want %s", q, won)
	}
	if n, _ := s.CountJobs(ctx, "alice", qtype.JobStatuses()); n != 1 {
		t.Fatalf("alice has %d jobs, want 1", n)
	}
}

// testIdempotencyWindowEdge: a job holds its key while the holder was
// created after the new job's CreatedAt minus the window, and not at the
// window's end exactly; lookups take since inclusively.
func testIdempotencyWindowEdge(t *testing.T, s storage.Store) {
	first := create(t, s, keyed("alice", "edge", 0))
	end := first.TimeStamps.CreatedAt.Add(storage.IdempotencyWindow)

	early := keyed("alice", "edge", 0)
	early.TimeStamps.CreatedAt, early.UpdatedAt = end.Add(-time.Nanosecond), end.Add(-time.Nanosecond)
	if err := s.CreateJob(ctx, early, program); !errors.Is(err, storage.ErrDuplicateKey) {
		t.Fatalf("a create a nanosecond before the window ends: %v, want ErrDuplicateKey", err)
	}
	// A job created before the holder (a clock behind another node's)
	// does not take the key either.
	before := keyed("alice", "edge", -5)
	if err := s.CreateJob(ctx, before, program); !errors.Is(err, storage.ErrDuplicateKey) {
		t.Fatalf("a create dated before the holder: %v, want ErrDuplicateKey", err)
	}

	if q := holder(t, s, "alice", "edge", first.TimeStamps.CreatedAt); q != first.JobQRN {
		t.Fatalf("a lookup since the holder's own CreatedAt found %q, want %s", q, first.JobQRN)
	}
	if q := holder(t, s, "alice", "edge", first.TimeStamps.CreatedAt.Add(time.Nanosecond)); q != "" {
		t.Fatalf("a lookup since a nanosecond after the holder found %s", q)
	}

	next := keyed("alice", "edge", 0)
	next.TimeStamps.CreatedAt, next.UpdatedAt = end, end
	create(t, s, next)
	if q := holder(t, s, "alice", "edge", time.Time{}); q != next.JobQRN {
		t.Fatalf("a create at the window's end: the key points at %q, want %s", q, next.JobQRN)
	}
	if n, _ := s.CountJobs(ctx, "alice", qtype.JobStatuses()); n != 2 {
		t.Fatalf("alice has %d jobs, want 2", n)
	}
	// The job that took the key holds it for a window of its own.
	again := keyed("alice", "edge", 0)
	again.TimeStamps.CreatedAt, again.UpdatedAt = end.Add(time.Hour), end.Add(time.Hour)
	if err := s.CreateJob(ctx, again, program); !errors.Is(err, storage.ErrDuplicateKey) {
		t.Fatalf("a create within the new holder's window: %v, want ErrDuplicateKey", err)
	}
}
