package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/store/postgres"
)

// bellJob is BenchmarkNodes's job: a 2-qubit, 100-shot Bell circuit on the
// built-in simulator.
var bellJob = quantum.JobRequest{DeviceQRN: "qbraid:qbraid:sim:qir-sv", Shots: 100,
	Program: &quantum.Program{Format: "qasm2", Data: "OPENQASM 2.0; include \"qelib1.inc\"; qreg q[2]; creg c[2]; h q[0]; cx q[0],q[1]; measure q -> c;"}}

// memoryBudget is quantumtest's, which BenchmarkNodes's services have.
const memoryBudget int64 = 4 << 30

// runOurs is shape B, what store/postgres's BenchmarkNodes does for nodes
// nodes: a Service a node, each on its own store (postgres.Open, so its own
// pools) with nodeWorkers workers; clients goroutines create the Bell job
// one at a time over the nodes in turn; then, as the benchmark does, every
// job is polled with GetJob on the first node (2 ms apart) until it is
// COMPLETED, in the order they were created. The run ends when the last
// one is seen COMPLETED.
func runOurs(ctx context.Context, srv *server, cfg config) (res result, err error) {
	name, dsn, err := srv.CreateDB(ctx, "quantum_bench")
	if err != nil {
		return res, err
	}
	defer srv.dropDB(name)

	var (
		stores []*postgres.Store
		nodes  []*quantum.Service
		user   quantum.User
	)
	defer func() {
		// The services stop first, then their stores: BenchmarkNodes's
		// cleanups in turn. Close has a context of its own.
		closeCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, svc := range nodes {
			if cerr := svc.Close(closeCtx); cerr != nil && err == nil {
				err = fmt.Errorf("close: %w", cerr)
			}
		}
		for _, st := range stores {
			st.Close()
		}
	}()
	for i := range cfg.nodes {
		st, err := postgres.Open(ctx, dsn)
		if err != nil {
			return res, err
		}
		stores = append(stores, st)
		svc, err := quantum.New(st, quantum.WithMemoryBudget(memoryBudget), quantum.WithNode(fmt.Sprintf("node-%d", i+1)),
			quantum.WithWorkers(cfg.nodeWorkers), quantum.WithMaxActiveJobsPerUser(1_000_000))
		if err != nil {
			return res, err
		}
		nodes = append(nodes, svc)
		// The same key on every node is the same user.
		if user, err = svc.AddAPIKey("river-bench-key", "bench"); err != nil {
			return res, err
		}
	}

	qrns := make([]string, cfg.jobs)
	before := measure(srv.PID())
	start := time.Now()
	err = submit(ctx, cfg.jobs, cfg.clients, func(ctx context.Context, c, i, k int) error {
		j, err := nodes[(c+i)%len(nodes)].CreateJob(ctx, user, bellJob)
		if err != nil {
			return err
		}
		qrns[k] = j.JobQRN
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("create: %w", err)
	}
	res.created = time.Since(start)
	for _, qrn := range qrns {
		if err := awaitCompleted(ctx, nodes[0], user, qrn); err != nil {
			return res, err
		}
	}
	res.elapsed = time.Since(start)
	res.cpu = measure(srv.PID()).sub(before)
	res.jobs = cfg.jobs

	// The result is stored: the last job's counts are there.
	r, err := nodes[0].GetJobResult(ctx, user, qrns[len(qrns)-1])
	if err != nil {
		return res, fmt.Errorf("result: %w", err)
	}
	if len(r.ResultData.MeasurementCounts) == 0 {
		return res, errors.New("result: no counts")
	}
	return res, nil
}

// awaitCompleted polls GetJob until the job ends, as BenchmarkNodes does.
func awaitCompleted(ctx context.Context, svc *quantum.Service, u quantum.User, qrn string) error {
	for {
		j, err := svc.GetJob(ctx, u, qrn)
		if err != nil {
			return err
		}
		if j.Status.IsTerminal() {
			if j.Status != quantum.StatusCompleted {
				msg := ""
				if j.StatusMsg != nil {
					msg = ": " + *j.StatusMsg
				}
				return fmt.Errorf("job %s ended %s%s", qrn, j.Status, msg)
			}
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("job %s still %s: %w", qrn, j.Status, ctx.Err())
		case <-time.After(2 * time.Millisecond):
		}
	}
}
