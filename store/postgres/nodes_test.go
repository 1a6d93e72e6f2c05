package postgres_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/internal/pgtest"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store/postgres"
)

// The multi-node test runs three Services on one database, each with a
// pool and a name of its own, as three processes would. One of them dies
// mid-run: its store calls all fail from that moment, as a crashed or
// partitioned node's would, and it is never closed while the test looks.
// The other two take its jobs over once their leases expire.

const (
	slowDevice  = "qbraid:qbraid:sim:slow"  // a FakeBackend that takes a moment
	blockDevice = "qbraid:qbraid:sim:block" // a FakeBackend that runs until cancelled
	simDevice   = "qbraid:qbraid:sim:qir-sv"
	nodeLease   = 2 * time.Second
)

type node struct {
	name  string
	svc   *quantum.Service
	user  quantum.User
	slow  *quantumtest.FakeBackend
	block *quantumtest.FakeBackend
	fault *quantumtest.FaultyStore // nil but on the node that dies
}

func startNode(t *testing.T, dsn, name string, doomed bool) *node {
	t.Helper()
	st, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	n := &node{name: name,
		slow:  &quantumtest.FakeBackend{Delay: 300 * time.Millisecond, Counts: map[string]int{"00": 1, "11": 1}},
		block: &quantumtest.FakeBackend{Block: true}}
	var s storage.Store = st
	if doomed {
		// Its slow jobs run until it dies: they are running when it does.
		n.slow = &quantumtest.FakeBackend{Block: true}
		n.fault = quantumtest.NewFaultyStore(st)
		s = n.fault
	}
	n.slow.Started()
	n.block.Started()
	n.svc, n.user = quantumtest.NewServiceOn(t, s, quantum.WithNode(name), quantum.WithLease(nodeLease),
		quantum.WithWorkers(3), quantum.WithMaxActiveJobsPerUser(10_000), quantum.WithJobTimeout(time.Minute))
	t.Cleanup(st.Close) // after the Service's Close, registered before it
	for qrn, b := range map[string]*quantumtest.FakeBackend{slowDevice: n.slow, blockDevice: n.block} {
		if err := n.svc.RegisterDevice(quantumtest.Device(qrn), b); err != nil {
			t.Fatal(err)
		}
	}
	return n
}

// kill makes every store call of the node fail from now on.
func (n *node) kill() { n.fault.Inject(&quantumtest.Fault{}) }

// watchEnds counts, from the database's change feed, how many times each
// job reached a terminal status.
func watchEnds(t *testing.T, dsn string) (ends func() map[string]int) {
	t.Helper()
	st, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	if _, err := st.FollowAll(ctx); err != nil { // every change, the ends among them; until st closes
		t.Fatal(err)
	}
	var mu sync.Mutex
	seen := map[string]int{}
	listening := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = st.WatchChanges(ctx, func(c storage.Change) {
			if c.JobQRN == "" {
				close(listening)
				return
			}
			if c.Status.IsTerminal() {
				mu.Lock()
				defer mu.Unlock()
				seen[c.JobQRN]++
			}
		})
	}()
	t.Cleanup(func() { cancel(); <-done; st.Close() })
	select {
	case <-listening:
	case <-done:
		t.Fatal("the change feed stopped before it listened")
	}
	return func() map[string]int {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(seen)
	}
}

func TestNodesShareOneDatabase(t *testing.T) {
	dsn := pgtest.DSN(t)
	if _, err := postgres.Open(context.Background(), dsn); err != nil { // migrate once, up front
		t.Fatal(err)
	}
	ends := watchEnds(t, dsn)
	nodes := []*node{startNode(t, dsn, "node-1", false), startNode(t, dsn, "node-2", false), startNode(t, dsn, "node-3", true)}
	live, doomed := nodes[:2], nodes[2]
	ctx := context.Background()

	// 300 jobs across the three nodes: real simulations with a seed, and
	// slow fake ones that keep workers busy when node-3 dies.
	acked := map[string]bool{}
	var simJobs []string
	submit := func(i int, n *node) {
		req := quantum.JobRequest{DeviceQRN: slowDevice, Shots: 10, Name: fmt.Sprintf("job %d", i),
			Program: &quantum.Program{Format: "qasm2", Data: "OPENQASM 2.0; qreg q[1];"}}
		if i%2 == 0 {
			req.DeviceQRN, req.Shots = simDevice, 64
			req.Program = &quantum.Program{Format: "qasm3", Data: "OPENQASM 3.0; qubit[3] q; bit[3] c; h q[0]; cx q[0], q[1]; rx(0.7) q[2]; c = measure q;"}
			req.RuntimeOptions = map[string]any{"seed": i}
		}
		j, err := n.svc.CreateJob(ctx, n.user, req)
		if err != nil {
			t.Fatalf("create job %d on %s: %v", i, n.name, err)
		}
		acked[j.JobQRN] = true
		if req.DeviceQRN == simDevice {
			simJobs = append(simJobs, j.JobQRN)
		}
	}
	for i := range 150 {
		submit(i, nodes[i%3])
	}
	// node-3 dies while it runs jobs.
	var cutShort []string
	for range 2 {
		select {
		case qrn := <-doomed.slow.Started():
			cutShort = append(cutShort, qrn)
		case <-time.After(30 * time.Second):
			t.Fatal("node-3 never ran a job")
		}
	}
	doomed.kill()
	for i := 150; i < 300; i++ {
		submit(i, live[i%2])
	}

	// Every acknowledged job ends, and its end is recorded once.
	deadline := time.Now().Add(2 * time.Minute)
	for qrn := range acked {
		for {
			j, err := live[0].svc.GetJob(ctx, live[0].user, qrn)
			if err != nil {
				t.Fatal(err)
			}
			if j.Status.IsTerminal() {
				if j.Status != quantum.StatusCompleted {
					t.Fatalf("job %s ended %s: %v", qrn, j.Status, quantumtest.StatusMsg(j))
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("job %s is still %s (node %v)", qrn, j.Status, j.Metadata["node"])
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitFor(t, "every end announced", func() bool { return len(ends()) >= len(acked) })
	for qrn, n := range ends() {
		if n != 1 || !acked[qrn] {
			t.Errorf("job %s: %d terminal changes (acknowledged: %v)", qrn, n, acked[qrn])
		}
	}
	// Results read the same through either live node, and a job names
	// the node that ran it.
	ranOn := map[string]int{}
	for _, qrn := range simJobs {
		a, err := live[0].svc.GetJobResult(ctx, live[0].user, qrn)
		if err != nil {
			t.Fatal(err)
		}
		b, err := live[1].svc.GetJobResult(ctx, live[1].user, qrn)
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(a.ResultData.MeasurementCounts, b.ResultData.MeasurementCounts) {
			t.Fatalf("job %s: results differ between nodes: %v and %v", qrn, a.ResultData.MeasurementCounts, b.ResultData.MeasurementCounts)
		}
		j, _ := live[1].svc.GetJob(ctx, live[1].user, qrn)
		node, _ := j.Metadata["node"].(string)
		ranOn[node]++
	}
	if ranOn["node-1"] == 0 || ranOn["node-2"] == 0 {
		t.Errorf("simulations ran on %v; want both live nodes", ranOn)
	}
	// The jobs that node-3 was running when it died were taken over and
	// completed on a live node.
	for _, qrn := range cutShort {
		j, err := live[0].svc.GetJob(ctx, live[0].user, qrn)
		if err != nil {
			t.Fatal(err)
		}
		if j.Status != quantum.StatusCompleted || j.Metadata["node"] == doomed.name {
			t.Errorf("job %s, cut short on node-3: %s on %v", qrn, j.Status, j.Metadata["node"])
		}
	}
	if runs := live[0].slow.Runs() + live[1].slow.Runs(); runs != 150 {
		t.Errorf("the live nodes ran %d slow jobs, want all 150", runs)
	}

	t.Run("cancel reaches the node that runs the job", func(t *testing.T) {
		from := live[0]
		j, err := from.svc.CreateJob(ctx, from.user, quantum.JobRequest{DeviceQRN: blockDevice, Shots: 1,
			Program: &quantum.Program{Format: "qasm2", Data: "OPENQASM 2.0; qreg q[1];"}})
		if err != nil {
			t.Fatal(err)
		}
		var runner, other *node
		select {
		case <-live[0].block.Started():
			runner, other = live[0], live[1]
		case <-live[1].block.Started():
			runner, other = live[1], live[0]
		case <-time.After(30 * time.Second):
			t.Fatal("the blocking job never started")
		}
		if _, err := other.svc.CancelJob(ctx, other.user, j.JobQRN); err != nil {
			t.Fatal(err)
		}
		// The job blocks until its context ends and its lease is renewed:
		// only the cancel, heard through the feed, can end it.
		got := quantumtest.WaitForStatus(t, runner.svc, runner.user, j.JobQRN, 20*time.Second, quantum.StatusCancelled)
		if got.Metadata["node"] != runner.name {
			t.Errorf("cancelled job's node = %v, want %s", got.Metadata["node"], runner.name)
		}
	})

	t.Run("a job created on a busy node wakes an idle one", func(t *testing.T) {
		// node-1's three workers block on a device that only node-1 has;
		// a job created there then runs only if node-2 hears of it, and
		// node-2's fallback poll (30 s with a feed) is far longer than
		// the wait below.
		busy, idle := live[0], live[1]
		const onlyHere = "qbraid:qbraid:sim:node1"
		only := &quantumtest.FakeBackend{Block: true}
		started := only.Started()
		if err := busy.svc.RegisterDevice(quantumtest.Device(onlyHere), only); err != nil {
			t.Fatal(err)
		}
		for range 3 {
			b, err := busy.svc.CreateJob(ctx, busy.user, quantum.JobRequest{DeviceQRN: onlyHere, Shots: 1,
				Program: &quantum.Program{Format: "qasm2", Data: "OPENQASM 2.0; qreg q[1];"}})
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _, _ = busy.svc.CancelJob(ctx, busy.user, b.JobQRN) }()
			select {
			case <-started:
			case <-time.After(30 * time.Second):
				t.Fatal("a blocking job never started")
			}
		}
		j, err := busy.svc.CreateJob(ctx, busy.user, quantum.JobRequest{DeviceQRN: slowDevice, Shots: 1,
			Program: &quantum.Program{Format: "qasm2", Data: "OPENQASM 2.0; qreg q[1];"}})
		if err != nil {
			t.Fatal(err)
		}
		got := quantumtest.WaitForStatus(t, busy.svc, busy.user, j.JobQRN, 10*time.Second, quantum.StatusCompleted)
		if got.Metadata["node"] != idle.name {
			t.Errorf("the job ran on %v, want %s", got.Metadata["node"], idle.name)
		}
	})
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestWaitAcrossNodes: a node that does not run a job learns of each of
// its changes from the database's notifications: its Wait returns once
// the node that runs it ends it, and its event watch sees every change.
func TestWaitAcrossNodes(t *testing.T) {
	dsn := pgtest.DSN(t)
	a := startNode(t, dsn, "node-a", false)
	b := startNode(t, dsn, "node-b", false)
	// Only node b has the device, so only b runs the job.
	onlyB := &quantumtest.FakeBackend{Block: true}
	started := onlyB.Started()
	if err := b.svc.RegisterDevice(quantumtest.Device("qbraid:qbraid:sim:only-b"), onlyB); err != nil {
		t.Fatal(err)
	}
	job, err := b.svc.CreateJob(context.Background(), b.user, quantum.JobRequest{
		DeviceQRN: "qbraid:qbraid:sim:only-b", Shots: 10, Program: &quantum.Program{Format: "qasm2", Data: "OPENQASM 2.0;\nqreg q[1];\n"},
	})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-started:
	case <-time.After(20 * time.Second):
		t.Fatal("the job did not start")
	}
	watch, err := a.svc.WatchJob(context.Background(), a.user, job.JobQRN, "")
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	first, err := watch.Next(context.Background())
	if err != nil || len(first) != 1 || first[0].Job.Status != quantum.StatusRunning {
		t.Fatalf("the other node's watch began with %v, %v; want the job RUNNING", first, err)
	}
	done := make(chan *quantum.Job, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		j, err := a.svc.Wait(ctx, a.user, job.JobQRN)
		if err != nil {
			t.Error(err)
		}
		done <- j
	}()
	if _, err := b.svc.CancelJob(context.Background(), b.user, job.JobQRN); err != nil {
		t.Fatal(err)
	}
	select {
	case j := <-done:
		if j == nil || j.Status != quantum.StatusCancelled {
			t.Fatalf("Wait on the other node returned %v", j)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Wait on the other node did not return: no notification reached it")
	}
	seen := []quantum.JobStatus{first[0].Job.Status}
	for {
		events, err := watch.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range events {
			seen = append(seen, ev.Job.Status)
		}
		if seen[len(seen)-1].IsTerminal() {
			break
		}
		select {
		case <-watch.Ready():
		case <-time.After(20 * time.Second):
			t.Fatalf("the other node's watch saw %v, then nothing", seen)
		}
	}
	if seen[0] != quantum.StatusRunning || seen[len(seen)-1] != quantum.StatusCancelled {
		t.Fatalf("the other node's watch saw %v", seen)
	}
}

// TestWatchAcrossNodesFollowsJobs: a watch of all of a user's jobs on
// one node follows a job that another node creates and runs, in order,
// to its end: while it lasts, the nodes send every change.
func TestWatchAcrossNodesFollowsJobs(t *testing.T) {
	dsn := pgtest.DSN(t)
	a := startNode(t, dsn, "node-a", false)
	b := startNode(t, dsn, "node-b", false)
	// A run long enough that the job's end comes after what node b reads
	// of it on hearing that it was queued: only the end's own
	// notification ends the watch.
	onlyA := &quantumtest.FakeBackend{Delay: 200 * time.Millisecond}
	if err := a.svc.RegisterDevice(quantumtest.Device("qbraid:qbraid:sim:only-a"), onlyA); err != nil {
		t.Fatal(err)
	}
	req := quantum.JobRequest{DeviceQRN: "qbraid:qbraid:sim:only-a", Shots: 10, Program: &quantum.Program{Format: "qasm2", Data: "OPENQASM 2.0;\nqreg q[1];\n"}}
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	watch, err := b.svc.WatchJobs(ctx, b.user, "", "")
	if err != nil {
		t.Fatal(err)
	}
	defer watch.Close()
	// Node b follows once its feed listens (at once, if it did when the
	// watch began; if it did not, the watch begins with a reset).
	waitFor(t, "node b to follow", func() bool { held, _ := followLocks(t, conn); return held == 64 })
	job, err := a.svc.CreateJob(ctx, a.user, req)
	if err != nil {
		t.Fatal(err)
	}
	if job.Status != quantum.StatusInitializing {
		t.Errorf("the create answered %s, want INITIALIZING", job.Status)
	}
	var seen []quantum.JobStatus
	for len(seen) == 0 || !seen[len(seen)-1].IsTerminal() {
		events, err := watch.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, ev := range events {
			if ev.Reset && len(seen) == 0 {
				continue // node b's feed began to listen after the watch: it may have missed something
			}
			if ev.Reset || ev.Job.JobQRN != job.JobQRN {
				t.Fatalf("the watch sent %+v after %v", ev, seen)
			}
			seen = append(seen, ev.Job.Status)
		}
		if len(seen) > 0 && seen[len(seen)-1].IsTerminal() {
			break
		}
		select {
		case <-watch.Ready():
		case <-time.After(20 * time.Second):
			t.Fatalf("the other node's watch saw %v, then nothing", seen)
		}
	}
	// The other node reads the job at each change it hears of: changes
	// close together may show as one, the later.
	path := []quantum.JobStatus{quantum.StatusInitializing, quantum.StatusQueued, quantum.StatusRunning, quantum.StatusCompleted}
	at := 0
	for _, st := range seen {
		i := slices.Index(path[at:], st)
		if i < 0 {
			t.Fatalf("the other node's watch saw %v: not in the order of %v", seen, path)
		}
		at += i + 1
	}
	if seen[len(seen)-1] != quantum.StatusCompleted {
		t.Errorf("the other node's watch saw %v, want it to end COMPLETED", seen)
	}
}

// TestIdempotentCreateAcrossNodes: creates with one key racing on two
// nodes make one job, and every one of them answers it.
func TestIdempotentCreateAcrossNodes(t *testing.T) {
	dsn := pgtest.DSN(t)
	nodes := []*node{startNode(t, dsn, "node-a", false), startNode(t, dsn, "node-b", false)}
	req := quantum.JobRequest{DeviceQRN: slowDevice, Shots: 10, IdempotencyKey: "one-job",
		Program: &quantum.Program{Format: "qasm2", Data: "OPENQASM 2.0;\nqreg q[1];\n"}}
	const each = 8
	qrns := make(chan string, 2*each)
	var wg sync.WaitGroup
	for _, n := range nodes {
		for range each {
			wg.Add(1)
			go func() {
				defer wg.Done()
				j, err := n.svc.CreateJob(context.Background(), n.user, req)
				if err != nil {
					t.Error(err)
					return
				}
				qrns <- j.JobQRN
			}()
		}
	}
	wg.Wait()
	close(qrns)
	var first string
	for q := range qrns {
		if first == "" {
			first = q
		}
		if q != first {
			t.Fatalf("creates with one key answered jobs %s and %s", first, q)
		}
	}
	page, err := nodes[0].svc.ListJobs(context.Background(), nodes[0].user, quantum.JobQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if page.Pagination.Total != 1 {
		t.Fatalf("%d jobs, want 1", page.Pagination.Total)
	}
}
