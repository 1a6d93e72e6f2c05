package quantum_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/store"
)

// failingClaims is a memory store whose first batch claims fail.
type failingClaims struct {
	*store.Memory
	fail  atomic.Int64
	calls atomic.Int64
}

func (s *failingClaims) ClaimJobs(ctx context.Context, c quantum.BatchClaim) (*quantum.ClaimedJobs, error) {
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
