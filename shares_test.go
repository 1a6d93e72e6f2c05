package quantum_test

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/store"
)

// The program: h then t on 40 qubits. It is neither Clifford nor
// sparse, so it could only fill the memory budget and run for minutes:
// it is refused at create, naming the method, the need and the budget.
func TestDenseProgramRefusedAtCreate(t *testing.T) {
	svc, u := quantumtest.NewService(t, quantum.WithMemoryBudget(8<<30))
	var b strings.Builder
	b.WriteString("OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[40];\ncreg c[40];\n")
	for q := range 40 {
		b.WriteString("h q[" + strconv.Itoa(q) + "];\nt q[" + strconv.Itoa(q) + "];\n")
	}
	b.WriteString("measure q -> c;\n")
	_, err := svc.CreateJob(ctx, u, request(flagship, "qasm2", b.String(), 100))
	wantFields(t, err, "program.data")
	for _, want := range []string{"on the sparse method", "2^40 nonzero amplitudes", "128 TiB", "memory budget of 8 GiB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}

// Two users, one hostile: alice fills the service with large jobs that
// never end, first alone, then while bob waits. Bob's Bell pair completes
// while all of alice's jobs still run or wait: her jobs past her share go
// back to the queue (their runs not counted as attempts) rather than keep
// bob waiting until they end.
func TestHostileUserCannotHoldTheService(t *testing.T) {
	for _, tc := range []struct {
		name   string
		memory int64 // what each of alice's jobs needs, of a 1 GiB budget
		burst  int
	}{
		// Each larger than her share: one runs until bob comes.
		{"jobs larger than a share", 600 << 20, 6},
		// Small ones: two fill both workers until bob comes.
		{"jobs that fill the workers", 100 << 20, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svc, alice := quantumtest.NewService(t, quantum.WithWorkers(2), quantum.WithMemoryBudget(1<<30))
			bob, err := svc.AddAPIKey("bob-key", "bob")
			if err != nil {
				t.Fatal(err)
			}
			hog := &quantumtest.FakeBackend{Block: true, Memory: tc.memory}
			started := hog.Started()
			dev := fakeDevice(t, svc, "hog", hog)
			var burst []*quantum.Job
			for range tc.burst {
				burst = append(burst, create(t, svc, alice, request(dev, "qasm2", bell2, 1)))
			}
			<-started // alice's first job runs, claimed while nobody else waited
			bell := create(t, svc, bob, request(flagship, "qasm2", bell2, 100))
			if j := quantumtest.WaitForJob(t, svc, bob, bell.JobQRN); j.Status != quantum.StatusCompleted {
				t.Fatalf("bob's Bell pair %s: %s", j.Status, quantumtest.StatusMsg(j))
			}
			for _, j := range burst {
				got, err := svc.GetJob(ctx, alice, j.JobQRN)
				if err != nil {
					t.Fatal(err)
				}
				if got.Status.IsTerminal() {
					t.Fatalf("alice's job %s is %s before bob's completed: bob waited for it to end", j.JobQRN, got.Status)
				}
			}
			for _, j := range burst {
				if _, err := svc.CancelJob(ctx, alice, j.JobQRN); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// growBackend runs each job as a test says: it reports that a run
// started, waits to be told to go on, then asks to grow by grow bytes.
type growBackend struct {
	memory, most, grow int64
	started            chan string
	proceed            chan struct{}

	mu   sync.Mutex
	runs map[string]int
}

func newGrowBackend(memory, most, grow int64) *growBackend {
	return &growBackend{memory: memory, most: most, grow: grow, started: make(chan string, 64), proceed: make(chan struct{}), runs: map[string]int{}}
}

func (g *growBackend) Check(ctx context.Context, t quantum.Task) (quantum.Resources, error) {
	return quantum.Resources{Memory: g.memory, MaxMemory: g.most}, nil
}

func (g *growBackend) Cancellable() bool { return true }

func (g *growBackend) Run(ctx context.Context, t quantum.Task) (*quantum.RunResult, error) {
	g.mu.Lock()
	g.runs[t.JobQRN]++
	g.mu.Unlock()
	g.started <- t.JobQRN
	select {
	case <-g.proceed:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if more := g.memory + g.grow - t.Memory; more > 0 {
		if err := t.Grow(more); err != nil {
			return nil, err
		}
	}
	return &quantum.RunResult{Counts: map[string]int{"0": t.Shots}}, nil
}

func (g *growBackend) runsOf(qrn string) int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.runs[qrn]
}

// A run that grows past its user's share while another user's job waits
// ends FAILED, saying so; the same growth with nobody waiting is granted.
func TestGrowthPastTheShare(t *testing.T) {
	svc, alice := quantumtest.NewService(t, quantum.WithWorkers(1), quantum.WithMemoryBudget(1<<30))
	bob, _ := svc.AddAPIKey("bob-key", "bob")
	g := newGrowBackend(10<<20, 900<<20, 600<<20)
	dev := fakeDevice(t, svc, "grow", g)

	alone := create(t, svc, alice, request(dev, "qasm2", bell2, 1))
	<-g.started
	g.proceed <- struct{}{}
	if j := quantumtest.WaitForJob(t, svc, alice, alone.JobQRN); j.Status != quantum.StatusCompleted {
		t.Fatalf("growth past the share with nobody waiting: %s %q", j.Status, quantumtest.StatusMsg(j))
	}

	greedy := create(t, svc, alice, request(dev, "qasm2", bell2, 1))
	<-g.started
	bell := create(t, svc, bob, request(flagship, "qasm2", bell2, 10))
	quantumtest.WaitForStatus(t, svc, bob, bell.JobQRN, quantumtest.DefaultWait, quantum.StatusQueued) // one worker, alice's
	g.proceed <- struct{}{}
	j := quantumtest.WaitForJob(t, svc, alice, greedy.JobQRN)
	if msg := quantumtest.StatusMsg(j); j.Status != quantum.StatusFailed || !strings.Contains(msg, "would grow past its user's share") ||
		!strings.Contains(msg, "-fair-share") {
		t.Fatalf("growth past the share while bob waits: %s %q", j.Status, msg)
	}
	if j := quantumtest.WaitForJob(t, svc, bob, bell.JobQRN); j.Status != quantum.StatusCompleted {
		t.Fatalf("bob's job %s", j.Status)
	}
}

// A run that grows past what is free of the budget goes back to the
// queue, its attempt not counted, and runs again once that much is free,
// holding it from its start.
func TestGrowthPastTheFreeMemory(t *testing.T) {
	svc, alice := quantumtest.NewService(t, quantum.WithWorkers(2), quantum.WithMemoryBudget(1<<30), quantum.WithFairShare(1))
	g := newGrowBackend(10<<20, 900<<20, 600<<20)
	dev := fakeDevice(t, svc, "grow", g)
	hold := &quantumtest.FakeBackend{Block: true, Memory: 500 << 20}
	held := hold.Started()
	blocker := create(t, svc, alice, request(fakeDevice(t, svc, "hold", hold), "qasm2", bell2, 1))
	<-held

	grower := create(t, svc, alice, request(dev, "qasm2", bell2, 1))
	<-g.started
	g.proceed <- struct{}{} // 600 MiB more: 500 are held
	quantumtest.WaitForStatus(t, svc, alice, grower.JobQRN, quantumtest.DefaultWait, quantum.StatusQueued)
	if _, err := svc.CancelJob(ctx, alice, blocker.JobQRN); err != nil {
		t.Fatal(err)
	}
	<-g.started
	g.proceed <- struct{}{}
	j := quantumtest.WaitForJob(t, svc, alice, grower.JobQRN)
	if j.Status != quantum.StatusCompleted || g.runsOf(grower.JobQRN) != 2 {
		t.Fatalf("%s %q after %d runs", j.Status, quantumtest.StatusMsg(j), g.runsOf(grower.JobQRN))
	}
}

// Two users whose jobs are each larger than a share, and nothing else:
// neither keeps the other's waiting for ever.
func TestLargeJobsOfTwoUsers(t *testing.T) {
	svc, alice := quantumtest.NewService(t, quantum.WithWorkers(2), quantum.WithMemoryBudget(1<<30))
	bob, _ := svc.AddAPIKey("bob-key", "bob")
	big := &quantumtest.FakeBackend{Memory: 700 << 20, Delay: 10 * time.Millisecond}
	dev := fakeDevice(t, svc, "big", big)
	var jobs []*quantum.Job
	for i := range 6 {
		u := alice
		if i%2 == 1 {
			u = bob
		}
		jobs = append(jobs, create(t, svc, u, request(dev, "qasm2", bell2, 1)))
	}
	for i, j := range jobs {
		u := alice
		if i%2 == 1 {
			u = bob
		}
		if got := quantumtest.WaitForJob(t, svc, u, j.JobQRN); got.Status != quantum.StatusCompleted {
			t.Fatalf("job %d: %s", i, got.Status)
		}
	}
}

func TestFairShareOption(t *testing.T) {
	for _, f := range []float64{0, -0.5, 1.5} {
		_, err := quantum.New(store.NewMemory(), quantum.WithFairShare(f))
		if err == nil || !strings.Contains(err.Error(), "WithFairShare") {
			t.Errorf("WithFairShare(%v): %v", f, err)
		}
	}
}

// A job on the sparse method starts holding a little of the budget and
// asks for more as its state grows: 20 qubits in superposition, 128 MiB of
// amplitudes at the end, under a budget of 256 MiB. While another job
// holds 200 MiB its growth does not fit: it goes back to the queue, and
// completes once that job has ended, giving everything back.
func TestSparseJobGrowsAsItRuns(t *testing.T) {
	st := store.NewMemory()
	svc, u := quantumtest.NewServiceOn(t, st, quantum.WithMemoryBudget(256<<20), quantum.WithWorkers(2))
	hold := &quantumtest.FakeBackend{Block: true, Memory: 200 << 20}
	held := hold.Started()
	blocker := create(t, svc, u, request(fakeDevice(t, svc, "hold", hold), "qasm2", bell2, 1))
	<-held

	var b strings.Builder
	b.WriteString("OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[20];\ncreg c[20];\n")
	for q := range 20 {
		b.WriteString("h q[" + strconv.Itoa(q) + "];\n")
	}
	b.WriteString("measure q -> c;\n")
	req := request(flagship, "qasm2", b.String(), 100)
	req.RuntimeOptions = map[string]any{"method": "sparse", "seed": 3}
	j := create(t, svc, u, req)
	if rec, _ := st.GetJob(ctx, j.JobQRN); rec.MemoryNeed > 16<<20 {
		t.Fatalf("the job holds %d bytes from its start, not a few MiB", rec.MemoryNeed)
	}
	// It runs, grows past the 56 MiB left, and waits.
	w, err := svc.WatchJob(ctx, u, j.JobQRN, "")
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	wait, cancel := context.WithTimeout(ctx, quantumtest.DefaultWait)
	defer cancel()
	var seen []quantum.JobStatus
	for back := false; !back; {
		evs, err := w.Next(wait)
		if err != nil {
			t.Fatalf("after %v: %v", seen, err)
		}
		for _, ev := range evs {
			s := ev.Job.Status
			if s.IsTerminal() {
				t.Fatalf("the job ended %s (%s) while the memory it grows into was held", s, quantumtest.StatusMsg(ev.Job))
			}
			back = back || s == quantum.StatusQueued && slices.Contains(seen, quantum.StatusRunning)
			seen = append(seen, s)
		}
	}
	if _, err := svc.CancelJob(ctx, u, blocker.JobQRN); err != nil {
		t.Fatal(err)
	}
	done := quantumtest.WaitForJob(t, svc, u, j.JobQRN)
	if done.Status != quantum.StatusCompleted || done.Metadata["method"] != "sparse" {
		t.Fatalf("%s %q, metadata %v", done.Status, quantumtest.StatusMsg(done), done.Metadata)
	}
	if rec, _ := st.GetJob(ctx, j.JobQRN); rec.MemoryNeed <= 56<<20 {
		t.Errorf("it ran again holding %d bytes from its start, no more than what it could not have", rec.MemoryNeed)
	}
	stats, err := svc.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if stats.MemoryInUse != 0 {
		t.Fatalf("%d bytes still held after the jobs ended", stats.MemoryInUse)
	}
}
