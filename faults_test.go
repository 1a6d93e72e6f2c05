package quantum_test

import (
	"context"
	"errors"
	"fmt"
	"os"
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

// secret stands for whatever a store's error might carry (a path, a
// user's data): it must reach neither a job's statusMsg nor the log.
const secret = "disk full at /var/secret/user-data"

var errSecret = errors.New(secret)

// ends is a Fault.When that picks the moves of a RUNNING job to a
// terminal status: recording a job's end.
func ends(c quantumtest.Call) bool { return c.Expect == quantum.StatusRunning && c.To.IsTerminal() }

// faultyService is a Service on a FaultyStore over a memory store, with
// short retries and one worker, and a device on backend b.
func faultyService(t *testing.T, b quantum.Backend, opts ...quantum.Option) (*quantum.Service, quantum.User, *quantumtest.FaultyStore, string, *observer.ObservedLogs) {
	t.Helper()
	core, logs := observer.New(zapcore.DebugLevel)
	st := quantumtest.NewFaultyStore(store.NewMemory())
	opts = append([]quantum.Option{quantum.WithWorkers(1), quantum.WithLogger(zap.New(core)),
		quantum.WithRetryBaseForTest(time.Millisecond)}, opts...)
	svc, u := quantumtest.NewServiceOn(t, st, opts...)
	return svc, u, st, fakeDevice(t, svc, "fake", b), logs
}

func noSecrets(t *testing.T, j *quantum.Job, logs *observer.ObservedLogs) {
	t.Helper()
	if j.StatusMsg != nil && strings.Contains(*j.StatusMsg, secret) {
		t.Errorf("statusMsg carries the store's error: %q", *j.StatusMsg)
	}
	for _, e := range logs.All() {
		if strings.Contains(e.Message, secret) {
			t.Errorf("log line carries the store's error: %s", e.Message)
		}
	}
}

// A store that fails a few times while a job's end is recorded costs a
// retry, not a second run.
func TestEndRecordedThroughTransientStoreErrors(t *testing.T) {
	b := &quantumtest.FakeBackend{}
	svc, u, st, dev, _ := faultyService(t, b)
	fault := &quantumtest.Fault{Method: "UpdateJob", When: ends, First: 3}
	st.Inject(fault)
	j := quantumtest.WaitForJob(t, svc, u, create(t, svc, u, request(dev, "qasm2", bell2, 10)).JobQRN)
	if j.Status != quantum.StatusCompleted || b.Runs() != 1 || st.Failed(fault) != 3 {
		t.Fatalf("job %s after %d runs and %d injected faults; want COMPLETED after 1 run and 3 faults", j.Status, b.Runs(), st.Failed(fault))
	}
}

// A result the store keeps refusing ends the job FAILED, once, with a
// message that names the cause class and nothing of the store's error.
func TestResultThatCannotBeStoredFailsTheJobOnce(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"store keeps failing", errSecret, "the result could not be recorded"},
		{"result too large", storage.ErrTooLarge, "the result could not be stored"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &quantumtest.FakeBackend{}
			svc, u, st, dev, logs := faultyService(t, b, quantum.WithLease(20*time.Millisecond))
			st.Inject(&quantumtest.Fault{Method: "UpdateJob", When: func(c quantumtest.Call) bool { return c.Result }, Err: tc.err})
			j := quantumtest.WaitForJob(t, svc, u, create(t, svc, u, request(dev, "qasm2", bell2, 10)).JobQRN)
			if j.Status != quantum.StatusFailed || j.StatusMsg == nil || !strings.Contains(*j.StatusMsg, tc.want) {
				t.Fatalf("job %s %v, want FAILED %q", j.Status, quantumtest.StatusMsg(j), tc.want)
			}
			noSecrets(t, j, logs)
			// Long past several leases, it has run once.
			time.Sleep(100 * time.Millisecond)
			if b.Runs() != 1 {
				t.Fatalf("the job ran %d times", b.Runs())
			}
		})
	}
}

// A job whose end can never be recorded is run again when its lease
// expires, but at most WithMaxAttempts times, then fails.
func TestRunsAreBoundedWhenTheEndIsNeverRecorded(t *testing.T) {
	b := &quantumtest.FakeBackend{}
	svc, u, st, dev, logs := faultyService(t, b, quantum.WithLease(30*time.Millisecond), quantum.WithMaxAttempts(3))
	// Every end of the first three runs fails; the store recovers after.
	fault := &quantumtest.Fault{Method: "UpdateJob", When: ends, Err: errSecret}
	st.Inject(fault)
	qrn := create(t, svc, u, request(dev, "qasm2", bell2, 10)).JobQRN
	// Each run tries to record COMPLETED, then FAILED, storeAttempts (6)
	// times each. After the third run's, the store recovers.
	waitFor(t, "three runs whose ends fail", func() bool { return st.Failed(fault) >= 3*2*6 })
	st.Remove(fault)
	j := quantumtest.WaitForJob(t, svc, u, qrn)
	if j.Status != quantum.StatusFailed || !strings.Contains(quantumtest.StatusMsg(j), "gave up after 3 attempts") {
		t.Fatalf("job %s %q, want FAILED gave up after 3 attempts", j.Status, quantumtest.StatusMsg(j))
	}
	if b.Runs() != 3 {
		t.Fatalf("the job ran %d times, want 3", b.Runs())
	}
	noSecrets(t, j, logs)
}

// waitFor polls cond until it holds, failing the test after 30 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 30s for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// A claim that fails is retried: the queue does not wait for a wake-up
// that nothing will send.
func TestFailedClaimDoesNotStallTheQueue(t *testing.T) {
	for _, method := range []string{"ClaimJob", "Queues"} {
		t.Run(method, func(t *testing.T) {
			svc, u, st, dev, _ := faultyService(t, &quantumtest.FakeBackend{})
			st.Inject(&quantumtest.Fault{Method: method, First: 2})
			j := quantumtest.WaitForJob(t, svc, u, create(t, svc, u, request(dev, "qasm2", bell2, 10)).JobQRN)
			if j.Status != quantum.StatusCompleted {
				t.Fatalf("job %s", j.Status)
			}
		})
	}
}

// Jobs whose move to the queue failed are queued later by the sweeper,
// not left INITIALIZING and not failed.
func TestIntakeRecoversFromStoreErrors(t *testing.T) {
	svc, u, st, dev, _ := faultyService(t, &quantumtest.FakeBackend{}, quantum.WithLease(20*time.Millisecond))
	st.Inject(&quantumtest.Fault{Method: "UpdateJob", When: func(c quantumtest.Call) bool {
		return c.Expect == quantum.StatusInitializing && c.To == quantum.StatusQueued
	}, First: 5})
	var qrns []string
	for range 5 {
		qrns = append(qrns, create(t, svc, u, request(dev, "qasm2", bell2, 10)).JobQRN)
	}
	for _, qrn := range qrns {
		if j := quantumtest.WaitForJob(t, svc, u, qrn); j.Status != quantum.StatusCompleted {
			t.Fatalf("job %s %s", j.Status, quantumtest.StatusMsg(j))
		}
	}
}

// With a slow store, a burst of creates is admitted without a backlog in
// memory; Close returns promptly in the middle of it, fails none of the
// jobs, and the next Service runs them all.
func TestSlowStoreBurstAndClose(t *testing.T) {
	const n = 2000
	st := quantumtest.NewFaultyStore(store.NewMemory())
	slow := &quantumtest.Fault{Method: "UpdateJob", First: -1, Delay: time.Millisecond}
	st.Inject(slow)
	opts := []quantum.Option{quantum.WithWorkers(2), quantum.WithMemoryBudget(quantumtest.MemoryBudget), quantum.WithMaxActiveJobsPerUser(n)}
	svc, err := quantum.New(st, opts...)
	if err != nil {
		t.Fatal(err)
	}
	u, _ := svc.AddAPIKey("k", "u")
	dev := fakeDevice(t, svc, "fake", &quantumtest.FakeBackend{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n / 8 {
				if _, err := svc.CreateJob(ctx, u, request(dev, "qasm2", bell2, 1)); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	closeCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := svc.Close(closeCtx); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if n, err := st.CountJobs(ctx, u.ID, []quantum.JobStatus{quantum.StatusFailed}); err != nil || n > 0 {
		t.Fatalf("%d jobs FAILED (%v)", n, err)
	}
	st.Remove(slow)
	svc, err = quantum.New(st, opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close(ctx)
	fakeDevice(t, svc, "fake", &quantumtest.FakeBackend{})
	waitFor(t, "every job to complete", func() bool {
		done, _ := st.CountJobs(ctx, u.ID, []quantum.JobStatus{quantum.StatusCompleted})
		return done == n
	})
}

// Close interrupts a job that is reading its program: the job goes back
// to the queue, not to FAILED.
func TestCloseWhileReadingTheProgramRequeues(t *testing.T) {
	st := quantumtest.NewFaultyStore(store.NewMemory())
	reading := make(chan struct{}, 1)
	st.Inject(&quantumtest.Fault{Method: "GetProgram", First: -1, Delay: time.Hour, When: func(quantumtest.Call) bool {
		select {
		case reading <- struct{}{}:
		default:
		}
		return true
	}})
	svc, err := quantum.New(st, quantum.WithMemoryBudget(quantumtest.MemoryBudget))
	if err != nil {
		t.Fatal(err)
	}
	u, _ := svc.AddAPIKey("k", "u")
	j := create(t, svc, u, request(flagship, "qasm2", bell2, 1))
	<-reading
	if err := svc.Close(ctx); err != nil {
		t.Fatal(err)
	}
	got, err := st.GetJob(ctx, j.JobQRN)
	if err != nil || got.Status != quantum.StatusQueued || got.Attempts != 0 {
		t.Fatalf("after Close: %+v %v; want QUEUED with no attempt counted", got, err)
	}
}

// A second Service on a store another one uses fails New; once the first
// closes, the store is free again.
func TestOneServicePerExclusiveStore(t *testing.T) {
	st := store.NewMemory()
	first, err := quantum.New(st)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := quantum.New(st); !errors.Is(err, storage.ErrStoreInUse) {
		t.Fatalf("second New: %v, want ErrStoreInUse", err)
	}
	if err := first.Close(ctx); err != nil {
		t.Fatal(err)
	}
	second, err := quantum.New(st)
	if err != nil {
		t.Fatalf("New after Close: %v", err)
	}
	_ = second.Close(ctx)
}

// Every option refuses an invalid value at New, or documents a default
// for it and works.
func TestOptionsAreValidated(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  quantum.Option
		ok   bool
	}{
		{"nil logger", quantum.WithLogger(nil), true},
		{"nil clock", quantum.WithClock(nil), true},
		{"no workers", quantum.WithWorkers(0), false},
		{"negative workers", quantum.WithWorkers(-1), false},
		{"no memory", quantum.WithMemoryBudget(0), false},
		{"no active jobs", quantum.WithMaxActiveJobsPerUser(0), false},
		{"no attempts", quantum.WithMaxAttempts(0), false},
		{"zero lease", quantum.WithLease(0), false},
		{"negative timeout", quantum.WithJobTimeout(-time.Second), false},
		{"no work", quantum.WithMaxWork(0), false},
		{"some work", quantum.WithMaxWork(1 << 30), true},
		{"no check slots", quantum.WithConcurrentChecks(0, time.Second), false},
		{"negative check wait", quantum.WithConcurrentChecks(1, -time.Second), false},
		{"empty node", quantum.WithNode(""), false},
		{"node with NUL", quantum.WithNode("a\x00b"), false},
		{"node too long", quantum.WithNode(strings.Repeat("n", 257)), false},
		{"named node", quantum.WithNode("node-7"), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, err := quantum.New(store.NewMemory(), quantum.WithMemoryBudget(quantumtest.MemoryBudget), tc.opt)
			if !tc.ok {
				if err == nil {
					_ = svc.Close(ctx)
					t.Fatal("New accepted it")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer svc.Close(ctx)
			u, _ := svc.AddAPIKey("k", "u")
			j := quantumtest.WaitForJob(t, svc, u, create(t, svc, u, request(flagship, "qasm2", bell2, 1)).JobQRN)
			if j.Status != quantum.StatusCompleted {
				t.Fatalf("job %s", j.Status)
			}
			// The job names the node that ran it: the one given, or
			// "<hostname>-<pid>".
			node, _ := j.Metadata["node"].(string)
			if want := fmt.Sprintf("-%d", os.Getpid()); tc.name == "named node" && node != "node-7" || tc.name != "named node" && !strings.HasSuffix(node, want) {
				t.Fatalf("metadata.node = %q", node)
			}
		})
	}
}

// A create whose idempotency key cannot be looked up stores nothing and
// says so; once the store answers again, the retry makes the one job.
func TestIdempotencyKeyLookupFails(t *testing.T) {
	svc, u, st, _, logs := faultyService(t, &quantumtest.FakeBackend{})
	fault := &quantumtest.Fault{Method: "JobByIdempotencyKey", Err: errSecret}
	st.Inject(fault)
	req := request(flagship, "qasm2", bell2, 10)
	req.IdempotencyKey = "retry-me"
	_, err := svc.CreateJob(ctx, u, req)
	wantCode(t, err, quantum.EINTERNAL)
	if strings.Contains(err.Error(), secret) {
		t.Fatalf("the store's error reached the caller: %v", err)
	}
	if n := countJobs(t, svc, u); n != 0 {
		t.Fatalf("%d jobs stored by a create that failed", n)
	}
	st.Remove(fault)
	first := create(t, svc, u, req)
	if again := create(t, svc, u, req); again.JobQRN != first.JobQRN {
		t.Fatalf("the retry made job %s, want %s", again.JobQRN, first.JobQRN)
	}
	if logs.FilterMessage("internal error").Len() == 0 {
		t.Error("the failed lookup was not logged")
	}
}
