package quantum_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store"
)

// failingClaims is a memory store whose first batch claims fail.
type failingClaims struct {
	*store.Memory
	fail  atomic.Int64
	calls atomic.Int64
}

func (s *failingClaims) ClaimJobs(ctx context.Context, c storage.BatchClaim) (*storage.ClaimedJobs, error) {
	s.calls.Add(1)
	if s.fail.Add(-1) >= 0 {
		return nil, errors.New("injected claim failure")
	}
	return s.Memory.ClaimJobs(ctx, c)
}

// A batch claim that fails is retried, and claims nothing meanwhile: the
// jobs run once the store answers again.
func TestFailedBatchClaimIsRetried(t *testing.T) {
	st := &failingClaims{Memory: store.NewMemory()}
	st.fail.Store(2)
	svc, u := quantumtest.NewServiceOn(t, st, quantum.WithWorkers(2), quantum.WithRetryBaseForTest(time.Millisecond))
	dev := fakeDevice(t, svc, "fake", &quantumtest.FakeBackend{})
	var qrns []string
	for range 4 {
		qrns = append(qrns, create(t, svc, u, request(dev, "qasm2", bell2, 10)).JobQRN)
	}
	for _, qrn := range qrns {
		if j := quantumtest.WaitForJob(t, svc, u, qrn); j.Status != quantum.StatusCompleted {
			t.Fatalf("job %s", j.Status)
		}
	}
	if n := st.calls.Load(); n < 3 {
		t.Fatalf("%d batch claims, want the two that failed and more", n)
	}
}

// cancelOnClaim is a memory store that, once, has a job cancelled right
// after a batch claim took it: before the runner tracks the run.
type cancelOnClaim struct {
	*store.Memory
	cancel func(qrn string)
	done   atomic.Bool
}

func (s *cancelOnClaim) ClaimJobs(ctx context.Context, c storage.BatchClaim) (*storage.ClaimedJobs, error) {
	got, err := s.Memory.ClaimJobs(ctx, c)
	if err == nil && len(got.Jobs) > 0 && s.done.CompareAndSwap(false, true) {
		s.cancel(got.Jobs[0].Job.JobQRN)
	}
	return got, err
}

// A cancel that comes between a claim and the run finds no run to stop;
// the runner notes it, and the run, once it starts, stops at once: the
// job ends CANCELLED, although its backend would run until cancelled.
func TestCancelBetweenClaimAndRun(t *testing.T) {
	st := &cancelOnClaim{Memory: store.NewMemory()}
	svc, u := quantumtest.NewServiceOn(t, st, quantum.WithWorkers(2))
	st.cancel = func(qrn string) {
		if _, err := svc.CancelJob(context.Background(), u, qrn); err != nil {
			t.Errorf("cancel: %v", err)
		}
	}
	dev := fakeDevice(t, svc, "block", &quantumtest.FakeBackend{Block: true})
	j := create(t, svc, u, request(dev, "qasm2", bell2, 10))
	if got := quantumtest.WaitForJob(t, svc, u, j.JobQRN); got.Status != quantum.StatusCancelled {
		t.Fatalf("job %s, want CANCELLED", got.Status)
	}
}
