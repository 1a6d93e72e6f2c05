package quantum_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store"
)

// Every normal path of a job (complete, fail, cancel while queued, cancel
// while running, delete, an invalid request) logs nothing at Error: an
// operator's error log holds faults only.
func TestNormalPathsLogNoErrors(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	st := store.NewMemory()
	svc, u := quantumtest.NewServiceOn(t, st, quantum.WithWorkers(1), quantum.WithLogger(zap.New(core)), quantum.WithLease(30*time.Millisecond))
	block := &quantumtest.FakeBackend{Block: true}
	started := block.Started()
	blockDev := fakeDevice(t, svc, "block", block)
	failDev := fakeDevice(t, svc, "fail", &quantumtest.FakeBackend{Fail: "calibration lost"})

	done := create(t, svc, u, request(flagship, "qasm3", bell3, 100))
	if j := quantumtest.WaitForJob(t, svc, u, done.JobQRN); j.Status != quantum.StatusCompleted {
		t.Fatalf("job %s", j.Status)
	}
	failed := create(t, svc, u, request(failDev, "qasm2", bell2, 1))
	if j := quantumtest.WaitForJob(t, svc, u, failed.JobQRN); j.Status != quantum.StatusFailed {
		t.Fatalf("job %s", j.Status)
	}
	running := create(t, svc, u, request(blockDev, "qasm2", bell2, 1))
	<-started
	queued := create(t, svc, u, request(blockDev, "qasm2", bell2, 1))
	quantumtest.WaitForStatus(t, svc, u, queued.JobQRN, 5*time.Second, quantum.StatusQueued)
	// The sweeper renews the running job's lease several times meanwhile.
	deadline := time.Now().Add(5 * time.Second)
	for renewed := 0; renewed < 3 && time.Now().Before(deadline); {
		j, _ := st.GetJob(ctx, running.JobQRN)
		if lease := j.LeaseUntil; !lease.IsZero() {
			time.Sleep(10 * time.Millisecond)
			if k, _ := st.GetJob(ctx, running.JobQRN); k.LeaseUntil.After(lease) {
				renewed++
			}
		}
	}
	for _, j := range []*quantum.Job{queued, running} {
		if _, err := svc.CancelJob(ctx, u, j.JobQRN); err != nil {
			t.Fatal(err)
		}
		if end := quantumtest.WaitForJob(t, svc, u, j.JobQRN); end.Status != quantum.StatusCancelled {
			t.Fatalf("job %s", end.Status)
		}
	}
	if err := svc.DeleteJob(ctx, u, done.JobQRN); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateJob(ctx, u, request(flagship, "qasm2", "OPENQASM 2.0;\nqreg q[1];\nfoo q[0];\n", 1)); err == nil {
		t.Fatal("an invalid program was accepted")
	}
	if errs := logs.FilterLevelExact(zapcore.ErrorLevel).All(); len(errs) > 0 {
		for _, e := range errs {
			t.Errorf("logged at Error: %s %v", e.Message, e.ContextMap())
		}
	}
}

// One user's backlog does not starve another's single job: with one
// worker, the second user's job runs next, not after the backlog.
func TestClaimsAreFairAcrossUsers(t *testing.T) {
	svc, alice := quantumtest.NewService(t, quantum.WithWorkers(1))
	bob, _ := svc.AddAPIKey("bob-key", "bob")
	// The backlog is the user's who comes first in any fixed order, so
	// that only taking turns lets the other one through.
	busy, other := alice, bob
	if bob.ID < alice.ID {
		busy, other = bob, alice
	}
	gate := &quantumtest.FakeBackend{Block: true}
	started := gate.Started()
	hold := fakeDevice(t, svc, "hold", gate)
	rec := &ownerRecorder{}
	dev := fakeDevice(t, svc, "shared", rec)

	blocker := create(t, svc, busy, request(hold, "qasm2", bell2, 1))
	<-started
	var last *quantum.Job
	for range 6 {
		last = create(t, svc, busy, request(dev, "qasm2", bell2, 1))
	}
	quantumtest.WaitForStatus(t, svc, busy, last.JobQRN, 5*time.Second, quantum.StatusQueued)
	single := create(t, svc, other, request(dev, "qasm2", bell2, 1))
	quantumtest.WaitForStatus(t, svc, other, single.JobQRN, 5*time.Second, quantum.StatusQueued)
	if _, err := svc.CancelJob(ctx, busy, blocker.JobQRN); err != nil {
		t.Fatal(err)
	}
	quantumtest.WaitForJob(t, svc, other, single.JobQRN)
	quantumtest.WaitForJob(t, svc, busy, last.JobQRN)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if i := indexOf(rec.order, single.JobQRN); i > 1 {
		t.Fatalf("the single job ran %d-th, after %d of the backlog; want it first or second", i+1, i)
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// ownerRecorder notes the order jobs run in.
type ownerRecorder struct {
	quantumtest.FakeBackend
	mu    sync.Mutex
	order []string
}

func (r *ownerRecorder) Run(ctx context.Context, t quantum.Task) (*quantum.RunResult, error) {
	r.mu.Lock()
	r.order = append(r.order, t.JobQRN)
	r.mu.Unlock()
	return r.FakeBackend.Run(ctx, t)
}

// shortWatch is a store that reports every claim refused for lack of
// memory.
type shortWatch struct {
	*store.Memory
	short chan storage.Queue
}

func (s shortWatch) ClaimJob(ctx context.Context, c storage.Claim) (*storage.JobRecord, error) {
	j, err := s.Memory.ClaimJob(ctx, c)
	if errors.Is(err, storage.ErrMemoryShort) {
		select {
		case s.short <- c.Queue:
		default:
		}
	}
	return j, err
}

// ClaimJobs reports a batch claim stopped by a job that needs more memory
// than is free, as ClaimJob reports ErrMemoryShort.
func (s shortWatch) ClaimJobs(ctx context.Context, c storage.BatchClaim) (*storage.ClaimedJobs, error) {
	got, err := s.Memory.ClaimJobs(ctx, c)
	if err == nil && got.Short != nil {
		select {
		case s.short <- storage.Queue{Device: got.Short.DeviceQRN, Owner: got.Short.Owner}:
		default:
		}
	}
	return got, err
}

// The memory budget is the whole service's: jobs run together only while
// their needs fit it, a job that does not fit waits at the head of the
// line (a smaller one behind it does not overtake it), and a job that
// could never fit is refused at create.
func TestMemoryBudgetIsServiceWide(t *testing.T) {
	st := shortWatch{store.NewMemory(), make(chan storage.Queue, 100)}
	svc, err := quantum.New(st, quantum.WithWorkers(3), quantum.WithMemoryBudget(100))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(ctx) })
	u, _ := svc.AddAPIKey("k", "k")
	big := &quantumtest.FakeBackend{Block: true, Memory: 60}
	bigStarted := big.Started()
	small := &quantumtest.FakeBackend{Memory: 10}
	smallStarted := small.Started()
	bigDev := fakeDevice(t, svc, "big", big)
	smallDev := fakeDevice(t, svc, "small", small)

	_, err = svc.CreateJob(ctx, u, request(fakeDevice(t, svc, "huge", &quantumtest.FakeBackend{Memory: 101}), "qasm2", bell2, 1))
	wantFields(t, err, "program.data")
	if !strings.Contains(err.Error(), "budget") {
		t.Fatalf("refusal %q does not name the budget", err)
	}

	first := create(t, svc, u, request(bigDev, "qasm2", bell2, 1))
	<-bigStarted
	second := create(t, svc, u, request(bigDev, "qasm2", bell2, 1))
	quantumtest.WaitForStatus(t, svc, u, second.JobQRN, 5*time.Second, quantum.StatusQueued)
	// A worker finds the second big job does not fit beside the first.
	if q := within(t, st.short); q.Device != bigDev {
		t.Fatalf("memory short on %v", q)
	}
	third := create(t, svc, u, request(smallDev, "qasm2", bell2, 1))
	quantumtest.WaitForStatus(t, svc, u, third.JobQRN, 5*time.Second, quantum.StatusQueued)
	// The workers look again once the small job is queued (registering a
	// device wakes them): still short, and the small job, which would fit,
	// must not pass.
	drain(st.short)
	fakeDevice(t, svc, "wake", &quantumtest.FakeBackend{})
	if q := within(t, st.short); q.Device != bigDev {
		t.Fatalf("memory short on %v", q)
	}
	if j, _ := svc.GetJob(ctx, u, third.JobQRN); j.Status != quantum.StatusQueued {
		t.Fatalf("the small job overtook the big one that waits: %s", j.Status)
	}
	if _, err := svc.CancelJob(ctx, u, first.JobQRN); err != nil {
		t.Fatal(err)
	}
	if got := <-bigStarted; got != second.JobQRN {
		t.Fatalf("started %s, want the second big job", got)
	}
	if got := <-smallStarted; got != third.JobQRN {
		t.Fatalf("started %s, want the small job", got)
	}
	quantumtest.WaitForJob(t, svc, u, third.JobQRN)
	if _, err := svc.CancelJob(ctx, u, second.JobQRN); err != nil {
		t.Fatal(err)
	}
	quantumtest.WaitForJob(t, svc, u, second.JobQRN)
}

// within receives from c, failing the test after 10 seconds.
func within[T any](t *testing.T, c chan T) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(10 * time.Second):
		t.Fatal("nothing arrived within 10 s")
	}
	var zero T
	return zero
}

func drain[T any](c chan T) {
	for {
		select {
		case <-c:
		default:
			return
		}
	}
}

// A job stored under a larger budget than the service now has (a restart
// with a smaller one) fails with a message naming the budget, at once: it
// neither waits forever nor holds up the jobs behind it while others run.
func TestJobThatCanNeverFitFails(t *testing.T) {
	st := store.NewMemory()
	hold := &quantumtest.FakeBackend{Block: true, Memory: 10}
	big := &quantumtest.FakeBackend{Memory: 500}
	small := &quantumtest.FakeBackend{Memory: 1}
	first, err := quantum.New(st, quantum.WithMemoryBudget(1000), quantum.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := first.AddAPIKey("k", "k")
	started := hold.Started()
	holdDev := fakeDevice(t, first, "a-hold", hold)
	bigDev := fakeDevice(t, first, "big", big)
	held := create(t, first, u, request(holdDev, "qasm2", bell2, 1))
	<-started
	j := create(t, first, u, request(bigDev, "qasm2", bell2, 1))
	quantumtest.WaitForStatus(t, first, u, j.JobQRN, 5*time.Second, quantum.StatusQueued)
	// The held job goes back to the queue; its device sorts first, so the
	// next service claims it before the big job.
	if err := first.Close(ctx); err != nil {
		t.Fatal(err)
	}

	second, err := quantum.New(st, quantum.WithMemoryBudget(100), quantum.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = second.Close(ctx) })
	u, _ = second.AddAPIKey("k", "k")
	fakeDevice(t, second, "a-hold", hold)
	fakeDevice(t, second, "big", big)
	smallDev := fakeDevice(t, second, "small", small)
	quantumtest.WaitForStatus(t, second, u, held.JobQRN, 5*time.Second, quantum.StatusRunning)
	end := quantumtest.WaitForJob(t, second, u, j.JobQRN)
	if end.Status != quantum.StatusFailed || end.StatusMsg == nil || !strings.Contains(*end.StatusMsg, "budget") {
		t.Fatalf("job %s (%v), want FAILED naming the budget", end.Status, end.StatusMsg)
	}
	// The held job still runs and holds 10 of 100: a small job runs too.
	if s := quantumtest.WaitForJob(t, second, u, create(t, second, u, request(smallDev, "qasm2", bell2, 1)).JobQRN); s.Status != quantum.StatusCompleted {
		t.Fatalf("small job %s", s.Status)
	}
	if h, _ := second.GetJob(ctx, u, held.JobQRN); h.Status != quantum.StatusRunning {
		t.Fatalf("held job %s, want still RUNNING", h.Status)
	}
}

// Past WithMaxActiveJobsPerUser, creates answer TOO_MANY_ACTIVE_JOBS with
// a RetryAfter; other users are not affected, and finished jobs do not
// count.
func TestMaxActiveJobsPerUser(t *testing.T) {
	svc, alice := quantumtest.NewService(t, quantum.WithMaxActiveJobsPerUser(3))
	bob, _ := svc.AddAPIKey("bob-key", "bob")
	dev := fakeDevice(t, svc, "block", &quantumtest.FakeBackend{Block: true})
	var jobs []*quantum.Job
	for range 3 {
		jobs = append(jobs, create(t, svc, alice, request(dev, "qasm2", bell2, 1)))
	}
	_, err := svc.CreateJob(ctx, alice, request(dev, "qasm2", bell2, 1))
	wantCode(t, err, quantum.ETOOMANYJOBS)
	var qe *quantum.Error
	if !errors.As(err, &qe) || qe.RetryAfter <= 0 || !strings.Contains(qe.Message, "3 unfinished") {
		t.Fatalf("refusal %+v: want a RetryAfter and the count", qe)
	}
	create(t, svc, bob, request(dev, "qasm2", bell2, 1))
	if _, err := svc.CancelJob(ctx, alice, jobs[0].JobQRN); err != nil {
		t.Fatal(err)
	}
	quantumtest.WaitForJob(t, svc, alice, jobs[0].JobQRN)
	create(t, svc, alice, request(dev, "qasm2", bell2, 1))

	// Concurrent creates do not get past the limit together.
	carol, _ := svc.AddAPIKey("carol-key", "carol")
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted := 0
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := svc.CreateJob(ctx, carol, request(dev, "qasm2", bell2, 1)); err == nil {
				mu.Lock()
				accepted++
				mu.Unlock()
			} else if quantum.ErrorCode(err) != quantum.ETOOMANYJOBS {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if accepted != 3 {
		t.Fatalf("%d of 20 concurrent creates accepted, want 3", accepted)
	}
}

// After Close, creates answer SERVICE_BUSY instead of storing jobs that
// nothing would run.
func TestCreateAfterClose(t *testing.T) {
	svc, err := quantum.New(store.NewMemory())
	if err != nil {
		t.Fatal(err)
	}
	u, _ := svc.AddAPIKey("k", "k")
	if err := svc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = svc.CreateJob(ctx, u, request(flagship, "qasm2", bell2, 1))
	wantCode(t, err, quantum.EBUSY)
	page, _ := svc.ListJobs(ctx, u, quantum.JobQuery{})
	if page.Pagination.Total != 0 {
		t.Fatalf("%d jobs stored after Close", page.Pagination.Total)
	}
}

// A result past the cap on distinct outcomes × key width ends the job
// FAILED with a message that names the limit, found while counting.
func TestResultTooLargeFails(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	const src = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[16] q;\nbit[4096] c;\nh q;\nfor int i in [0:15] { c[i] = measure q[i]; }\n"
	j := quantumtest.WaitForJob(t, svc, u, create(t, svc, u, request(flagship, "qasm3", src, 200_000)).JobQRN)
	if j.Status != quantum.StatusFailed || j.StatusMsg == nil || !strings.Contains(*j.StatusMsg, "MaxResultBytes") {
		t.Fatalf("job %s (%v), want FAILED naming MaxResultBytes", j.Status, j.StatusMsg)
	}
}
