package apitest

import (
	"testing"
	"time"

	"github.com/qjobs/quantum"
)

// testTooManyActiveJobs: past WithMaxActiveJobsPerUser a create answers
// TOO_MANY_ACTIVE_JOBS with a Retry-After, except a repeat of a create
// that was stored; the limit is per user and frees up as jobs end.
func testTooManyActiveJobs(t *testing.T, target Target) {
	e := open(t, target, quantum.WithMaxActiveJobsPerUser(1))
	blocked := e.blocked()
	keyed := request(blocked, bell, 10)
	keyed.IdempotencyKey = "apitest-limit-1"
	first := e.create(e.alice, keyed)
	e.running(first.JobQRN)

	_, err := e.alice.CreateJob(ctx, request(flagship, bell, 10))
	wantErr(t, "a create past the limit", err, &quantum.Error{
		Code:       quantum.ETOOMANYJOBS,
		Message:    "you have 1 unfinished jobs, the most one user may have; wait for some to finish, or cancel some",
		RetryAfter: 5 * time.Second,
	})

	// A repeat of the stored create still answers its job.
	again, err := e.alice.CreateJob(ctx, keyed)
	if err != nil {
		t.Fatalf("repeated create at the limit: %v", err)
	}
	wantEqual(t, "job of the repeated create", again, e.get(e.alice, first.JobQRN))

	// Bob has a limit of his own.
	if j := e.wait(e.bob, e.create(e.bob, request(flagship, bell, 10)).JobQRN); j.Status != quantum.StatusCompleted {
		t.Fatalf("bob's job ended %s", j.Status)
	}

	// Once alice's job has ended, she may create again.
	if err := e.alice.CancelJob(ctx, first.JobQRN); err != nil {
		t.Fatal(err)
	}
	e.wait(e.alice, first.JobQRN)
	if j := e.wait(e.alice, e.create(e.alice, request(flagship, bell, 10)).JobQRN); j.Status != quantum.StatusCompleted {
		t.Fatalf("alice's job after the limit freed ended %s", j.Status)
	}
}
