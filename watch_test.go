package quantum_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

// collect reads a watch's events until it is done, or until stop says so
// of the events so far; it fails the test after a deadline.
func collect(t *testing.T, w *quantum.Watch, stop func([]quantum.JobEvent) bool) []quantum.JobEvent {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var all []quantum.JobEvent
	for {
		events, err := w.Next(ctx)
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		all = append(all, events...)
		if w.Done() || stop != nil && stop(all) {
			return all
		}
		select {
		case <-w.Ready():
		case <-ctx.Done():
			t.Fatalf("no more events after %v", statusesOf(all))
		}
	}
}

func statusesOf(events []quantum.JobEvent) []quantum.JobStatus {
	var out []quantum.JobStatus
	for _, ev := range events {
		if ev.Reset {
			out = append(out, "RESET")
			continue
		}
		out = append(out, ev.Job.Status)
	}
	return out
}

var (
	completePath = []quantum.JobStatus{"INITIALIZING", "QUEUED", "RUNNING", "COMPLETED"}
	failPath     = []quantum.JobStatus{"INITIALIZING", "QUEUED", "RUNNING", "FAILED"}
	cancelPath   = []quantum.JobStatus{"INITIALIZING", "QUEUED", "RUNNING", "CANCELLING", "CANCELLED"}
)

// TestWatchSeesEveryChangeInOrder follows jobs that complete, fail and
// are cancelled: a watch of all the user's jobs, opened before the
// create, sees every status in order; a watch of the job, opened after,
// sees its status then, and every later one in order.
func TestWatchSeesEveryChangeInOrder(t *testing.T) {
	for _, tc := range []struct {
		name    string
		backend *quantumtest.FakeBackend
		path    []quantum.JobStatus
	}{
		{"complete", &quantumtest.FakeBackend{}, completePath},
		{"fail", &quantumtest.FakeBackend{Fail: "the device broke"}, failPath},
		{"cancel", &quantumtest.FakeBackend{Block: true}, cancelPath},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, u := quantumtest.NewService(t)
			device := fakeDevice(t, svc, "fake", tc.backend)
			started := tc.backend.Started()
			all, err := svc.WatchJobs(ctx, u, "", "")
			if err != nil {
				t.Fatal(err)
			}
			defer all.Close()
			job := create(t, svc, u, request(device, "qasm2", bell2, 10))
			one, err := svc.WatchJob(ctx, u, job.JobQRN, "")
			if err != nil {
				t.Fatal(err)
			}
			defer one.Close()
			if tc.backend.Block {
				<-started
				if _, err := svc.CancelJob(ctx, u, job.JobQRN); err != nil {
					t.Fatal(err)
				}
			}
			got := statusesOf(collect(t, one, nil))
			if i := slices.Index(tc.path, got[0]); i < 0 || !slices.Equal(got, tc.path[i:]) {
				t.Errorf("job watch saw %v, want a tail of %v", got, tc.path)
			}
			events := collect(t, all, func(evs []quantum.JobEvent) bool {
				return len(evs) > 0 && evs[len(evs)-1].Job.Status.IsTerminal()
			})
			if got := statusesOf(events); !slices.Equal(got, tc.path) {
				t.Errorf("watch of all jobs saw %v, want %v", got, tc.path)
			}
			for i, ev := range events {
				if ev.Job.JobQRN != job.JobQRN {
					t.Errorf("event %d is of job %s", i, ev.Job.JobQRN)
				}
				if i > 0 && ev.ID <= events[i-1].ID && len(ev.ID) <= len(events[i-1].ID) {
					t.Errorf("event IDs %q then %q do not grow", events[i-1].ID, ev.ID)
				}
			}
		})
	}
}

func TestWatchJobResume(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	job := create(t, svc, u, request(flagship, "qasm2", bell2, 10))
	done := quantumtest.WaitForJob(t, svc, u, job.JobQRN)

	w, err := svc.WatchJob(ctx, u, job.JobQRN, "")
	if err != nil {
		t.Fatal(err)
	}
	events := collect(t, w, nil)
	w.Close()
	if len(events) != 1 || events[0].Job.Status != quantum.StatusCompleted || !w.Done() {
		t.Fatalf("a finished job's watch gave %v (done %v), want one COMPLETED event", statusesOf(events), w.Done())
	}
	if events[0].Job.JobQRN != done.JobQRN || events[0].Job.Cost != done.Cost {
		t.Errorf("event job %+v differs from GetJob's %+v", events[0].Job, done)
	}

	// A resume from the last event misses nothing: nothing to send.
	w, err = svc.WatchJob(ctx, u, job.JobQRN, events[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	again, err := w.Next(ctx)
	w.Close()
	if err != nil || len(again) != 0 || !w.Done() {
		t.Fatalf("resume from the end: %v, %v (done %v), want nothing and done", statusesOf(again), err, w.Done())
	}

	// A resume from an older event gives the job as it is now.
	w, err = svc.WatchJob(ctx, u, job.JobQRN, "some-earlier-event")
	if err != nil {
		t.Fatal(err)
	}
	again = collect(t, w, nil)
	w.Close()
	if got := statusesOf(again); !slices.Equal(got, []quantum.JobStatus{quantum.StatusCompleted}) {
		t.Fatalf("resume from an earlier event gave %v, want [COMPLETED]", got)
	}
}

func TestWatchJobsResumeAndFilter(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	if _, err := svc.WatchJobs(ctx, u, "DONE", ""); quantum.ErrorCode(err) != quantum.EVALIDATION {
		t.Fatalf("status DONE: %v, want a Validation error", err)
	}
	completed, err := svc.WatchJobs(ctx, u, quantum.StatusCompleted, "")
	if err != nil {
		t.Fatal(err)
	}
	defer completed.Close()
	all, err := svc.WatchJobs(ctx, u, "", "")
	if err != nil {
		t.Fatal(err)
	}
	first := create(t, svc, u, request(flagship, "qasm2", bell2, 10))
	quantumtest.WaitForJob(t, svc, u, first.JobQRN)
	seen := collect(t, all, func(evs []quantum.JobEvent) bool {
		return len(evs) > 0 && evs[len(evs)-1].Job.Status.IsTerminal()
	})
	all.Close()
	lastID := seen[len(seen)-1].ID

	// While nobody watches, a second job runs: a resume from the last
	// event seen gives it, as it is now, and nothing of the first.
	second := create(t, svc, u, request(flagship, "qasm2", bell2, 10))
	quantumtest.WaitForJob(t, svc, u, second.JobQRN)
	resumed, err := svc.WatchJobs(ctx, u, "", lastID)
	if err != nil {
		t.Fatal(err)
	}
	defer resumed.Close()
	got := collect(t, resumed, func(evs []quantum.JobEvent) bool { return len(evs) > 0 })
	if len(got) != 1 || got[0].Job.JobQRN != second.JobQRN || got[0].Job.Status != quantum.StatusCompleted {
		t.Fatalf("resume gave %v, want the second job COMPLETED", statusesOf(got))
	}

	// An ID this Service never gave: the stream starts with a reset.
	reset, err := svc.WatchJobs(ctx, u, "", "0123456789ab.5")
	if err != nil {
		t.Fatal(err)
	}
	defer reset.Close()
	if got := collect(t, reset, func(evs []quantum.JobEvent) bool { return len(evs) > 0 }); !got[0].Reset {
		t.Fatalf("resume from an unknown ID gave %v, want a reset", statusesOf(got))
	}

	// The filtered watch saw the two ends and nothing else.
	ends := collect(t, completed, func(evs []quantum.JobEvent) bool { return len(evs) >= 2 })
	if got := statusesOf(ends); !slices.Equal(got, []quantum.JobStatus{"COMPLETED", "COMPLETED"}) {
		t.Fatalf("COMPLETED watch saw %v", got)
	}
}

func TestWaitErrors(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	other, err := svc.AddAPIKey("another key", "other")
	if err != nil {
		t.Fatal(err)
	}
	blocked := &quantumtest.FakeBackend{Block: true}
	device := fakeDevice(t, svc, "blocked", blocked)
	job := create(t, svc, u, request(device, "qasm2", bell2, 10))

	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	_, err = svc.Wait(short, u, job.JobQRN)
	wantCode(t, err, quantum.ECANCELED)
	_, err = svc.Wait(ctx, other, job.JobQRN)
	wantCode(t, err, quantum.EFORBIDDEN)
	_, err = svc.Wait(ctx, u, "not-a-qrn")
	wantFields(t, err, "job_qrn")
	last := "0"
	if strings.HasSuffix(job.JobQRN, last) {
		last = "1"
	}
	_, err = svc.Wait(ctx, u, job.JobQRN[:len(job.JobQRN)-1]+last)
	wantCode(t, err, quantum.ENOTFOUND)
	if n, keys := quantum.WatchersForTest(svc); n != 0 || keys != 0 {
		t.Errorf("%d watches under %d keys left after the waits returned", n, keys)
	}
}

// TestManyWaitersOneJob: every waiter is woken by the one change, and
// none is left registered afterwards.
func TestManyWaitersOneJob(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	blocked := &quantumtest.FakeBackend{Block: true}
	started := blocked.Started()
	device := fakeDevice(t, svc, "blocked", blocked)
	job := create(t, svc, u, request(device, "qasm2", bell2, 10))
	<-started

	const waiters = 200
	var wg sync.WaitGroup
	results := make(chan quantum.JobStatus, waiters)
	for range waiters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j, err := svc.Wait(ctx, u, job.JobQRN)
			if err != nil {
				t.Error(err)
				return
			}
			results <- j.Status
		}()
	}
	waitFor(t, "every waiter registered", func() bool { n, _ := quantum.WatchersForTest(svc); return n == waiters })
	if _, err := svc.CancelJob(ctx, u, job.JobQRN); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(results)
	for st := range results {
		if st != quantum.StatusCancelled {
			t.Fatalf("a waiter returned %s", st)
		}
	}
	if n, keys := quantum.WatchersForTest(svc); n != 0 || keys != 0 {
		t.Errorf("%d watches under %d keys left", n, keys)
	}
}
