package quantum_test

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/storage"
)

func keyed(key string, tags map[string]any) quantum.JobRequest {
	req := request(flagship, "qasm2", bell2, 10)
	req.IdempotencyKey, req.Tags = key, tags
	return req
}

func countJobs(t *testing.T, svc *quantum.Service, u quantum.User) int {
	t.Helper()
	page, err := svc.ListJobs(ctx, u, quantum.JobQuery{})
	if err != nil {
		t.Fatal(err)
	}
	return page.Pagination.Total
}

func TestIdempotentCreate(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	first := create(t, svc, u, keyed("order-1", map[string]any{"n": 3}))

	// The same request, spelled as JSON would (3.0 for 3), is a retry.
	again := create(t, svc, u, keyed("order-1", map[string]any{"n": 3.0}))
	if again.JobQRN != first.JobQRN {
		t.Fatalf("a retry made job %s, want %s", again.JobQRN, first.JobQRN)
	}
	if n := countJobs(t, svc, u); n != 1 {
		t.Fatalf("%d jobs after a retry, want 1", n)
	}

	// The same key with another request is the client's mistake.
	_, err := svc.CreateJob(ctx, u, keyed("order-1", map[string]any{"n": 4}))
	wantFields(t, err, "Idempotency-Key")
	if !strings.Contains(err.Error(), first.JobQRN) {
		t.Errorf("%v does not name the job that holds the key", err)
	}

	// Keys are the user's own: another user's same key makes their job.
	other, _ := svc.AddAPIKey("other key", "other")
	theirs := create(t, svc, other, keyed("order-1", map[string]any{"n": 3}))
	if theirs.JobQRN == first.JobQRN {
		t.Fatal("another user's key returned this user's job")
	}

	// A retry after the job ended answers it as it is now.
	done := quantumtest.WaitForJob(t, svc, u, first.JobQRN)
	again = create(t, svc, u, keyed("order-1", map[string]any{"n": 3}))
	if again.JobQRN != first.JobQRN || again.Status != done.Status {
		t.Fatalf("a late retry answered %s %s, want %s %s", again.JobQRN, again.Status, first.JobQRN, done.Status)
	}

	// Deleting the job frees its key.
	if err := svc.DeleteJob(ctx, u, first.JobQRN); err != nil {
		t.Fatal(err)
	}
	if fresh := create(t, svc, u, keyed("order-1", nil)); fresh.JobQRN == first.JobQRN {
		t.Fatal("the key of a deleted job still answered it")
	}
}

func TestIdempotencyKeyRules(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	for _, key := range []string{"has space", "tab\there", "é", strings.Repeat("k", 256)} {
		_, err := svc.CreateJob(ctx, u, keyed(key, nil))
		wantFields(t, err, "Idempotency-Key")
	}
	create(t, svc, u, keyed(strings.Repeat("k", 255), nil))
}

func TestIdempotencyKeysExpire(t *testing.T) {
	var now atomic.Pointer[time.Time]
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now.Store(&start)
	svc, u := quantumtest.NewService(t, quantum.WithClock(func() time.Time { return *now.Load() }))
	first := create(t, svc, u, keyed("daily", nil))
	later := start.Add(storage.IdempotencyWindow - time.Second)
	now.Store(&later)
	if j := create(t, svc, u, keyed("daily", nil)); j.JobQRN != first.JobQRN {
		t.Fatalf("within the window the key made job %s", j.JobQRN)
	}
	expired := start.Add(storage.IdempotencyWindow + time.Second)
	now.Store(&expired)
	second := create(t, svc, u, keyed("daily", map[string]any{"any": "request"}))
	if second.JobQRN == first.JobQRN {
		t.Fatal("an expired key still answered its job")
	}
	if j := create(t, svc, u, keyed("daily", map[string]any{"any": "request"})); j.JobQRN != second.JobQRN {
		t.Fatalf("the key's new job is %s, want %s", j.JobQRN, second.JobQRN)
	}
}

// TestConcurrentCreatesWithOneKey: whichever create stores first, every
// one answers its job, and only one job exists.
func TestConcurrentCreatesWithOneKey(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	const n = 16
	qrns := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			j, err := svc.CreateJob(ctx, u, keyed("once", nil))
			if err != nil {
				t.Error(err)
				return
			}
			qrns[i] = j.JobQRN
		}()
	}
	wg.Wait()
	for _, q := range qrns {
		if q != qrns[0] {
			t.Fatalf("concurrent creates with one key made jobs %v", qrns)
		}
	}
	if c := countJobs(t, svc, u); c != 1 {
		t.Fatalf("%d jobs, want 1", c)
	}
}

// A retry is answered even when the user is at their limit: the job that
// counts against it is the one the retry asks for.
func TestRetryAtTheActiveLimit(t *testing.T) {
	svc, u := quantumtest.NewService(t, quantum.WithMaxActiveJobsPerUser(1))
	device := fakeDevice(t, svc, "blocked", &quantumtest.FakeBackend{Block: true})
	req := keyed("limit", nil)
	req.DeviceQRN = device
	first := create(t, svc, u, req)
	if again := create(t, svc, u, req); again.JobQRN != first.JobQRN {
		t.Fatalf("retry made %s", again.JobQRN)
	}
	req.IdempotencyKey = "another"
	_, err := svc.CreateJob(ctx, u, req)
	wantCode(t, err, quantum.ETOOMANYJOBS)
}
