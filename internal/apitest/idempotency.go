package apitest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qjobs/quantum"
)

// testIdempotency: a create repeated with the same key and request answers
// the first one's job as it is now, and makes no other; the same request
// spelled otherwise (7.0 for 7) is the same; the same key with another
// request is a VALIDATION_ERROR on Idempotency-Key; keys are per user.
func testIdempotency(t *testing.T, target Target) {
	e := open(t, target)
	blocked := e.blocked()
	keyed := request(blocked, bell, 10)
	keyed.IdempotencyKey = "apitest-key-1"
	keyed.RuntimeOptions = map[string]any{"seed": 7}
	keyed.Tags = map[string]any{"n": 3}
	first := e.create(e.alice, keyed)
	e.running(first.JobQRN)
	running := e.get(e.alice, first.JobQRN)
	if running.Status != quantum.StatusRunning {
		t.Fatalf("job is %s, want RUNNING", running.Status)
	}

	again, err := e.alice.CreateJob(ctx, keyed)
	if err != nil {
		t.Fatalf("repeated create: %v", err)
	}
	wantEqual(t, "job of the repeated create", again, running)

	respelled := keyed
	respelled.RuntimeOptions = map[string]any{"seed": 7.0}
	respelled.Tags = map[string]any{"n": 3.0}
	again, err = e.alice.CreateJob(ctx, respelled)
	if err != nil {
		t.Fatalf("repeated create with 7.0 for 7: %v", err)
	}
	wantEqual(t, "job of the repeated create with 7.0 for 7", again, running)

	other := keyed
	other.Shots = 11
	_, err = e.alice.CreateJob(ctx, other)
	wantErr(t, "the key with another request", err, invalid(field("Idempotency-Key", fmt.Sprintf(
		"was used for another request (job %s) in the last 24h0m0s; send a new key with a new request", first.JobQRN))))

	page := e.list(e.alice, quantum.JobQuery{})
	wantEqual(t, "alice's jobs", page, &quantum.JobPage{Jobs: []*quantum.Job{running},
		Pagination: quantum.Pagination{Page: 1, Limit: 50, Total: 1, TotalPages: 1}})

	// Bob's key space is his own: the same key makes him a job.
	bobs := e.create(e.bob, keyed)
	tag := e.bobUser.OrganizationUserID[20:]
	if bobs.JobQRN == first.JobQRN || !strings.HasPrefix(bobs.JobQRN, blocked+"-"+tag+"-qjob-") {
		t.Fatalf("bob's create with alice's key gave job %s, want a job of his own (%s-%s-qjob-…)", bobs.JobQRN, blocked, tag)
	}

	// Once the job has ended, a repeat answers it as it is then.
	if err := e.alice.CancelJob(ctx, first.JobQRN); err != nil {
		t.Fatal(err)
	}
	end := e.wait(e.alice, first.JobQRN)
	if end.Status != quantum.StatusCancelled {
		t.Fatalf("job ended %s, want CANCELLED", end.Status)
	}
	again, err = e.alice.CreateJob(ctx, keyed)
	if err != nil {
		t.Fatalf("repeated create after the end: %v", err)
	}
	wantEqual(t, "job of the create repeated after the end", again, end)
}
