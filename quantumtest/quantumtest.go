// Package quantumtest helps test code that uses the quantum job service, in
// the spirit of net/http/httptest: a ready Service on a memory store, a
// wait for a job's end with a deadline, an HTTP server, and a fake Backend
// that fails, delays or blocks on purpose.
package quantumtest

import (
	"context"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store"
)

// APIKey is the key of the user NewService makes.
const APIKey = "quantumtest-key"

// MemoryBudget is the memory budget of a Service from NewService unless a
// test sets another: 4 GiB, one 28-qubit state, on any machine.
const MemoryBudget int64 = 4 << 30

// NewService returns a Service on a fresh memory store with the built-in
// devices, and a user (whose key is APIKey). The service is closed when the
// test ends. opts are passed to quantum.New, after a memory budget of
// MemoryBudget: the default budget depends on the machine, and a test
// should not.
func NewService(t testing.TB, opts ...quantum.Option) (*quantum.Service, quantum.User) {
	t.Helper()
	return NewServiceOn(t, store.NewMemory(), opts...)
}

// NewServiceOn is NewService on the given store: a wrapper that injects
// faults, say, or a store the test inspects.
func NewServiceOn(t testing.TB, st storage.Store, opts ...quantum.Option) (*quantum.Service, quantum.User) {
	t.Helper()
	svc, err := quantum.New(st, append([]quantum.Option{quantum.WithMemoryBudget(MemoryBudget)}, opts...)...)
	if err != nil {
		t.Fatalf("quantumtest: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := svc.Close(ctx); err != nil {
			t.Errorf("quantumtest: close: %v", err)
		}
	})
	u, err := svc.AddAPIKey(APIKey, "quantumtest")
	if err != nil {
		t.Fatalf("quantumtest: %v", err)
	}
	return svc, u
}

// NewServer serves svc's /api/v1 over HTTP on a loopback port until the
// test ends. Its URL is the base address for clients.
func NewServer(t testing.TB, svc *quantum.Service) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(httpadapter.New(svc))
	t.Cleanup(srv.Close)
	return srv
}

// DefaultWait is how long WaitForJob waits.
const DefaultWait = 30 * time.Second

// WaitForJob waits (Service.Wait: no polling) until the job is COMPLETED,
// FAILED or CANCELLED and returns it, failing the test if that takes
// longer than DefaultWait.
func WaitForJob(t testing.TB, svc *quantum.Service, u quantum.User, qrn string) *quantum.Job {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), DefaultWait)
	defer cancel()
	j, err := svc.Wait(ctx, u, qrn)
	if err != nil {
		if last, gerr := svc.GetJob(context.Background(), u, qrn); gerr == nil {
			t.Fatalf("quantumtest: job %s still %s after %v: %v", qrn, last.Status, DefaultWait, err)
		}
		t.Fatalf("quantumtest: wait for job %s: %v", qrn, err)
	}
	return j
}

// WaitForResult waits for the job as WaitForJob does and returns its
// result, failing the test unless the job COMPLETED (its status message
// says why).
func WaitForResult(t testing.TB, svc *quantum.Service, u quantum.User, qrn string) *quantum.JobResult {
	t.Helper()
	j := WaitForJob(t, svc, u, qrn)
	if j.Status != quantum.StatusCompleted {
		msg := ""
		if j.StatusMsg != nil {
			msg = ": " + *j.StatusMsg
		}
		t.Fatalf("quantumtest: job %s is %s%s", qrn, j.Status, msg)
	}
	res, err := svc.GetJobResult(context.Background(), u, qrn)
	if err != nil {
		t.Fatalf("quantumtest: result of job %s: %v", qrn, err)
	}
	return res
}

// WaitForStatus waits until the job's status is one of want, failing the
// test after timeout or if the job reaches another terminal status. It
// follows the job's changes (Service.WatchJob) rather than polling; a
// status the job passes through faster than the watch reads it may be
// missed, so wait for statuses the job stays in (a blocked backend's
// RUNNING, say).
func WaitForStatus(t testing.TB, svc *quantum.Service, u quantum.User, qrn string, timeout time.Duration, want ...quantum.JobStatus) *quantum.Job {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	w, err := svc.WatchJob(ctx, u, qrn, "")
	if err != nil {
		t.Fatalf("quantumtest: watch job %s: %v", qrn, err)
	}
	defer w.Close()
	last := quantum.JobStatus("")
	for {
		events, err := w.Next(ctx)
		if err != nil {
			t.Fatalf("quantumtest: watch job %s: %v", qrn, err)
		}
		for _, ev := range events {
			j := ev.Job
			last = j.Status
			if slices.Contains(want, j.Status) {
				return j
			}
			if j.Status.IsTerminal() {
				t.Fatalf("quantumtest: job %s ended %s (%s), want %v", qrn, j.Status, StatusMsg(j), want)
			}
		}
		select {
		case <-w.Ready():
		case <-ctx.Done():
			t.Fatalf("quantumtest: job %s still %s after %v, want %v", qrn, last, timeout, want)
		}
	}
}

// StatusMsg is the job's statusMsg, or "" when it has none.
func StatusMsg(j *quantum.Job) string {
	if j.StatusMsg == nil {
		return "no status message"
	}
	return *j.StatusMsg
}
