package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver/riverpgxv5"
	"github.com/riverqueue/river/rivermigrate"
)

// benchArgs is River's job: its number, as riverbench's.
type benchArgs struct {
	Num int `json:"num"`
}

func (benchArgs) Kind() string { return "bench" }

// benchOutput is the small result each job stores, like the counts of a
// 2-qubit Bell job.
type benchOutput struct {
	Counts map[string]int `json:"counts"`
}

// outputWorker records its output with river.RecordOutput (stored on the
// job's row, in its metadata, when the job completes) and returns.
type outputWorker struct {
	river.WorkerDefaults[benchArgs]
}

func (outputWorker) Work(ctx context.Context, _ *river.Job[benchArgs]) error {
	return river.RecordOutput(ctx, benchOutput{Counts: map[string]int{"00": 51, "11": 49}})
}

// runRiver is shape A: nodes River clients in this process, each on a pool
// of its own (as each of our nodes has its own store), one queue with
// workers slots a client, riverbench's fetch settings; clients goroutines
// insert jobs one at a time, spread over the clients, and the run ends at
// the nth completion event, counted from every client's subscription.
func runRiver(ctx context.Context, srv *server, cfg config) (res result, err error) {
	name, dsn, err := srv.CreateDB(ctx, "river_bench")
	if err != nil {
		return res, err
	}
	defer srv.dropDB(name)

	var pools []*pgxpool.Pool
	defer func() {
		for _, p := range pools {
			p.Close()
		}
	}()
	for range cfg.nodes {
		p, err := pgxpool.New(ctx, dsn)
		if err != nil {
			return res, err
		}
		pools = append(pools, p)
	}
	m, err := rivermigrate.New(riverpgxv5.New(pools[0]), nil)
	if err != nil {
		return res, err
	}
	if _, err := m.Migrate(ctx, rivermigrate.DirectionUp, nil); err != nil {
		return res, fmt.Errorf("river migrate: %w", err)
	}

	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	var clients []*river.Client[pgx.Tx]
	for i, p := range pools {
		workers := river.NewWorkers()
		river.AddWorker(workers, &outputWorker{})
		c, err := river.NewClient(riverpgxv5.New(p), &river.Config{
			ID:                fmt.Sprintf("river-%d", i+1),
			FetchCooldown:     2 * time.Millisecond, // riverbench's
			FetchPollInterval: 20 * time.Millisecond,
			Logger:            logger,
			Queues:            map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: cfg.riverWorkers}},
			Workers:           workers,
		})
		if err != nil {
			return res, err
		}
		clients = append(clients, c)
	}

	// Every client reports the jobs it completed: the nth event, whoever
	// sends it, ends the run.
	var (
		completed atomic.Int64
		end       time.Time
		done      = make(chan struct{})
		failed    = make(chan error, 1)
		wg        sync.WaitGroup
	)
	subCtx, stopSubs := context.WithCancel(ctx)
	defer func() { stopSubs(); wg.Wait() }()
	for _, c := range clients {
		events, cancel := c.SubscribeConfig(&river.SubscribeConfig{ChanSize: cfg.jobs,
			Kinds: []river.EventKind{river.EventKindJobCompleted, river.EventKindJobFailed, river.EventKindJobCancelled}})
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer cancel()
			for {
				select {
				case <-subCtx.Done():
					return
				case e, ok := <-events:
					if !ok {
						return
					}
					if e.Kind != river.EventKindJobCompleted {
						select {
						case failed <- fmt.Errorf("river job %d: %s (%s)", e.Job.ID, e.Kind, e.Job.State):
						default:
						}
						continue
					}
					if completed.Add(1) == int64(cfg.jobs) {
						end = time.Now()
						close(done)
					}
				}
			}
		}()
	}

	// The clients run on a context that the run's deadline does not end:
	// River's listener retries at once, without end, on a context that is
	// done. Stop ends them (a client not started is let be), after a
	// timeout or an interrupt too, with a context of its own.
	defer func() {
		stopCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		for _, c := range clients {
			if serr := c.Stop(stopCtx); serr != nil && err == nil {
				err = fmt.Errorf("river stop: %w", serr)
			}
		}
	}()
	for _, c := range clients {
		if err := c.Start(context.WithoutCancel(ctx)); err != nil {
			return res, err
		}
	}

	before := measure(srv.PID())
	start := time.Now()
	err = submit(ctx, cfg.jobs, cfg.clients, func(ctx context.Context, c, i, k int) error {
		_, err := clients[(c+i)%len(clients)].Insert(ctx, benchArgs{Num: k}, nil)
		return err
	})
	if err != nil {
		return res, fmt.Errorf("river insert: %w", err)
	}
	res.created = time.Since(start)
	select {
	case <-done:
	case err := <-failed:
		return res, err
	case <-ctx.Done():
		return res, fmt.Errorf("river: %d of %d jobs completed: %w", completed.Load(), cfg.jobs, ctx.Err())
	}
	res.cpu = measure(srv.PID()).sub(before)
	res.elapsed = end.Sub(start)
	res.jobs = cfg.jobs

	// Every job is stored as completed, with its output.
	var n int
	if err := pools[0].QueryRow(ctx,
		"SELECT count(*) FROM river_job WHERE state = 'completed' AND metadata->'output' IS NOT NULL").Scan(&n); err != nil {
		return res, err
	}
	if n != cfg.jobs {
		return res, fmt.Errorf("river: %d of %d jobs stored as completed with their output", n, cfg.jobs)
	}
	return res, nil
}
