package apitest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/qjobs/quantum"
)

// testWaitFinished: Wait on a job that has already ended answers it at
// once, as GetJob does, whatever its end.
func testWaitFinished(t *testing.T, target Target) {
	e := open(t, target)
	done := e.wait(e.alice, e.create(e.alice, request(flagship, bell, 10)).JobQRN)
	failed := e.wait(e.alice, e.create(e.alice, request(e.broken(), bell, 10)).JobQRN)
	running := e.create(e.alice, request(e.blocked(), bell, 10))
	e.running(running.JobQRN)
	if err := e.alice.CancelJob(ctx, running.JobQRN); err != nil {
		t.Fatal(err)
	}
	cancelled := e.wait(e.alice, running.JobQRN)
	for _, j := range []*quantum.Job{done, failed, cancelled} {
		for range 2 {
			wantEqual(t, "Wait of a "+string(j.Status)+" job", e.wait(e.alice, j.JobQRN), j)
		}
		wantEqual(t, "GetJob of a "+string(j.Status)+" job", e.get(e.alice, j.JobQRN), j)
	}
}

// wantCancelled checks the error of a call whose context ended.
func wantCancelled(t *testing.T, what string, err error) {
	t.Helper()
	if quantum.ErrorCode(err) != quantum.ECANCELED {
		t.Fatalf("%s: %v, want code %s", what, err, quantum.ECANCELED)
	}
	var qe *quantum.Error
	if !errors.As(err, &qe) {
		t.Fatalf("%s: %v (%T) is not a *quantum.Error", what, err, err)
	}
	if qe.Details != nil || qe.RetryAfter != 0 {
		t.Fatalf("%s: %#v, want no details and no retry", what, qe)
	}
}

// testWaitCancelledContext: Wait with a context that has ended answers
// REQUEST_CANCELLED, for a finished job and an unfinished one alike.
func testWaitCancelledContext(t *testing.T, target Target) {
	e := open(t, target)
	done := e.wait(e.alice, e.create(e.alice, request(flagship, bell, 10)).JobQRN)
	running := e.create(e.alice, request(e.blocked(), bell, 10))
	e.running(running.JobQRN)
	c, cancel := context.WithCancel(ctx)
	cancel()
	for _, qrn := range []string{done.JobQRN, running.JobQRN} {
		j, err := e.alice.Wait(c, qrn)
		if j != nil {
			t.Fatalf("Wait with an ended context answered job %+v", j)
		}
		wantCancelled(t, "Wait with an ended context", err)
	}
}

// testWaitDeadline: Wait for a job that runs on past the context's
// deadline answers REQUEST_CANCELLED at the deadline, and the job runs on.
func testWaitDeadline(t *testing.T, target Target) {
	e := open(t, target)
	running := e.create(e.alice, request(e.blocked(), bell, 10))
	e.running(running.JobQRN)
	before := e.get(e.alice, running.JobQRN)
	c, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	j, err := e.alice.Wait(c, running.JobQRN)
	if j != nil {
		t.Fatalf("Wait past its deadline answered job %+v", j)
	}
	wantCancelled(t, "Wait past its deadline", err)
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("Wait with a 200ms deadline took %v", took)
	}
	wantEqual(t, "job after the Wait", e.get(e.alice, running.JobQRN), before)
}
