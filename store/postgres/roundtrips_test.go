package postgres_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/internal/pgtest"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/store/postgres"
)

// roundTrips counts what a store sends to PostgreSQL: every statement
// (Exec, Query, QueryRow; BEGIN and COMMIT are statements too), every
// pipelined batch (one round trip however many statements it holds) and
// every statement preparation (pgx prepares a statement on a connection
// the first time that connection runs it). Statements sent with a
// context marked by asUser are not counted: they are the user's own
// reads, not what running a job costs.
type roundTrips struct {
	mu    sync.Mutex
	on    bool
	total int
	by    map[string]int
}

type userKey struct{}

// asUser marks ctx as the user's: its statements are not counted.
func asUser(ctx context.Context) context.Context { return context.WithValue(ctx, userKey{}, true) }

func newRoundTrips() *roundTrips { return &roundTrips{by: map[string]int{}} }

func (c *roundTrips) count(ctx context.Context, what string) {
	if ctx.Value(userKey{}) != nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.on {
		return
	}
	c.total++
	c.by[what]++
}

// start forgets what was counted and counts from now on.
func (c *roundTrips) start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on, c.total, c.by = true, 0, map[string]int{}
}

// stop ends the count and returns the total and the count per statement.
func (c *roundTrips) stop() (int, map[string]int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on = false
	return c.total, c.by
}

// statementName is a statement's first words, to tell them apart.
func statementName(sql string) string {
	s := strings.Join(strings.Fields(sql), " ")
	if len(s) > 70 {
		s = s[:70]
	}
	return s
}

func (c *roundTrips) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.count(ctx, statementName(d.SQL))
	return ctx
}

func (c *roundTrips) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *roundTrips) TraceBatchStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceBatchStartData) context.Context {
	c.count(ctx, fmt.Sprintf("batch of %d", d.Batch.Len()))
	return ctx
}

func (c *roundTrips) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *roundTrips) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}

func (c *roundTrips) TracePrepareStart(ctx context.Context, _ *pgx.Conn, d pgx.TracePrepareStartData) context.Context {
	c.count(ctx, "prepare: "+statementName(d.SQL))
	return ctx
}

func (c *roundTrips) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}

// maxRoundTripsPerJob is the target of issue 31.
const maxRoundTripsPerJob = 6

// TestRoundTripsPerJob counts the round trips to PostgreSQL that a steady
// stream of jobs costs, from CreateJob to COMPLETED, on one node with the
// built-in simulator: the creates (the bound on the user's unfinished
// jobs is checked in the insert), the intake, the claims, the runs' reads and the ends,
// and the sweeper's and the change feed's statements over the same time.
// The user's own reads (polling GetJob until every job has ended) are not
// counted. It logs the count per statement, and holds it to the target.
func TestRoundTripsPerJob(t *testing.T) {
	dsn := pgtest.DSN(t)
	rt := newRoundTrips()
	st, err := postgres.Open(context.Background(), dsn, postgres.WithTracer(rt))
	if err != nil {
		t.Fatal(err)
	}
	svc, user := quantumtest.NewServiceOn(t, st, quantum.WithNode("node-1"), quantum.WithWorkers(2),
		quantum.WithMaxActiveJobsPerUser(1_000_000))
	t.Cleanup(st.Close)
	req := quantum.JobRequest{DeviceQRN: simDevice, Shots: 100,
		Program: &quantum.Program{Format: "qasm2", Data: "OPENQASM 2.0; include \"qelib1.inc\"; qreg q[2]; creg c[2]; h q[0]; cx q[0],q[1]; measure q -> c;"}}
	ctx := context.Background()
	run := func(jobs, clients int) {
		t.Helper()
		qrns := make(chan string, jobs)
		var wg sync.WaitGroup
		for c := range clients {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := c; i < jobs; i += clients {
					j, err := svc.CreateJob(ctx, user, req)
					if err != nil {
						t.Error(err)
						return
					}
					qrns <- j.JobQRN
				}
			}()
		}
		wg.Wait()
		close(qrns)
		wait, cancel := context.WithTimeout(asUser(ctx), quantumtest.DefaultWait)
		defer cancel()
		for qrn := range qrns {
			// The user's own wait: its reads are not counted.
			j, err := svc.Wait(wait, user, qrn)
			if err != nil {
				t.Fatal(err)
			}
			if j.Status != quantum.StatusCompleted {
				t.Fatalf("job %s ended %s", qrn, j.Status)
			}
		}
	}
	run(20, 4) // every connection has prepared its statements
	const jobs = 300
	rt.start()
	run(jobs, 8)
	total, by := rt.stop()
	names := make([]string, 0, len(by))
	for k := range by {
		names = append(names, k)
	}
	slices.SortFunc(names, func(a, b string) int { return by[b] - by[a] })
	var report strings.Builder
	for _, k := range names {
		fmt.Fprintf(&report, "\n%8.2f  %s", float64(by[k])/jobs, k)
	}
	perJob := float64(total) / jobs
	t.Logf("%d jobs: %d round trips, %.2f a job; per job, by statement:%s", jobs, total, perJob, report.String())
	if perJob > maxRoundTripsPerJob {
		t.Errorf("%.2f round trips a job, want at most %d", perJob, maxRoundTripsPerJob)
	}
}
