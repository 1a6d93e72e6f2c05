// Command river measures our PostgreSQL store against River
// (github.com/riverqueue/river) on one PostgreSQL server, in one run, run
// by run alternated, so that the ratio holds on a noisy machine.
//
//	cd bench && go run ./river                       # 5 pairs of 2,000 jobs, 3 nodes
//	cd bench && go run ./river -reps 3 -jobs 5000
//	cd bench && go run ./river -only ours            # one shape, to time whole processes
//	cd bench && go run ./river -only ours -reps 3 -cpuprofile ours.out
//	cd bench && go run ./river -dsn postgres://user@127.0.0.1:5432/postgres
//
// The shape, for both: -nodes nodes (3) on one database, -clients
// goroutines (16) each creating one job at a time, spread over the nodes in
// turn, each job storing a small result, until -jobs jobs are created; the
// run ends when the last of them has completed. jobs/s is the jobs over the
// time from the first create to the last completion seen.
//
// River: -nodes river.Clients in this process, each on a pgxpool of its
// own, one queue of -river-workers slots a client, FetchCooldown 2 ms and
// FetchPollInterval 20 ms as River's own benchmark (riverbench) sets them.
// 100 slots: a fetch then never lacks free slots (16 clients insert about
// 10 jobs in the 2 ms between fetches); with 2 slots River is slower, from
// 16 to 1,000 the same within the noise. The worker records {"counts":
// {"00": 51, "11": 49}} with river.RecordOutput and returns; jobs are
// inserted with Client.Insert and their completion counted from each
// client's event subscription. River's migrations run in the run's own
// database first.
//
// Ours: what BenchmarkNodes (store/postgres/bench_test.go) does: a
// quantum.Service a node, each on its own postgres.Open, with
// -node-workers workers (2) and no limit of active jobs; the job is a
// 2-qubit, 100-shot Bell circuit on qbraid:qbraid:sim:qir-sv, and every
// job is then polled with GetJob on the first node until COMPLETED.
//
// Each run gets a fresh database. Odd pairs run River first, even pairs
// ours first. Without -dsn the program starts a PostgreSQL server of its
// own from the installed binaries (as the tests do: fsync off, on a free
// loopback port) and stops it at the end, on an error, a timeout or an
// interrupt too. CPU a job is this process's (the nodes or River's
// clients, and the submitters) and, for a server started here, the
// server's (its postmaster and live backends).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"syscall"
	"time"
)

// config is the run's flags.
type config struct {
	dsn          string
	reps, jobs   int
	nodes        int
	clients      int
	riverWorkers int
	nodeWorkers  int
	only         string
	timeout      time.Duration
	cpuProfile   string
}

// shape is one side of the comparison.
type shape struct {
	name string
	run  func(context.Context, *server, config) (result, error)
}

var (
	riverShape = shape{"river", runRiver}
	oursShape  = shape{"ours", runOurs}
)

func main() {
	var cfg config
	flag.StringVar(&cfg.dsn, "dsn", "", "a PostgreSQL server to use, whose user may create databases (default: start one here)")
	flag.IntVar(&cfg.reps, "reps", 5, "runs of each shape")
	flag.IntVar(&cfg.jobs, "jobs", 2000, "jobs a run")
	flag.IntVar(&cfg.nodes, "nodes", 3, "nodes: River clients, or our Services")
	flag.IntVar(&cfg.clients, "clients", 16, "goroutines creating jobs, one at a time each")
	flag.IntVar(&cfg.riverWorkers, "river-workers", 100, "workers (MaxWorkers of the queue) a River client")
	flag.IntVar(&cfg.nodeWorkers, "node-workers", 2, "workers a node of ours (quantum.WithWorkers)")
	flag.StringVar(&cfg.only, "only", "", "run only this shape: river or ours")
	flag.DurationVar(&cfg.timeout, "timeout", 10*time.Minute, "bound on the whole run")
	flag.StringVar(&cfg.cpuProfile, "cpuprofile", "", "write a CPU profile of this process over all runs to this file (with -only: of one shape)")
	flag.Parse()
	if cfg.reps < 1 || cfg.jobs < 1 || cfg.nodes < 1 || cfg.clients < 1 || cfg.riverWorkers < 1 || cfg.nodeWorkers < 1 {
		fmt.Fprintln(os.Stderr, "-reps, -jobs, -nodes, -clients, -river-workers and -node-workers must be at least 1")
		os.Exit(2)
	}
	if cfg.only != "" && cfg.only != riverShape.name && cfg.only != oursShape.name {
		fmt.Fprintln(os.Stderr, "-only must be river or ours")
		os.Exit(2)
	}
	if err := run(cfg); err != nil {
		fmt.Fprintln(os.Stderr, "river:", err)
		os.Exit(1)
	}
}

// run starts or finds the server, runs the shapes in turn and prints each
// run and the summary. The server is stopped before it returns, whatever
// happened.
func run(cfg config) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()

	var srv *server
	var err error
	if cfg.dsn != "" {
		srv, err = useServer(ctx, cfg.dsn)
	} else {
		srv, err = startServer(ctx)
	}
	if err != nil {
		return err
	}
	defer srv.Stop()
	if cfg.cpuProfile != "" {
		stopProfile, err := startProfile(cfg.cpuProfile)
		if err != nil {
			return err
		}
		defer stopProfile()
	}

	fmt.Printf("PostgreSQL %s, River %s, GOMAXPROCS %d, %d nodes, %d jobs a run, %d clients, River %d workers a client, ours %d a node\n",
		srv.version, moduleVersion("github.com/riverqueue/river"), runtime.GOMAXPROCS(0),
		cfg.nodes, cfg.jobs, cfg.clients, cfg.riverWorkers, cfg.nodeWorkers)
	fmt.Printf("load average at the start: %s\n", loadAverage())
	fmt.Printf("%-4s %-6s %9s %10s %10s %12s %11s  %s\n", "pair", "shape", "jobs/s", "elapsed", "created", "cpu ms/job", "pg ms/job", "load")

	var runs []runResult
	for rep := 1; rep <= cfg.reps; rep++ {
		order := []shape{riverShape, oursShape}
		if rep%2 == 0 {
			order = []shape{oursShape, riverShape}
		}
		for _, sh := range order {
			if cfg.only != "" && cfg.only != sh.name {
				continue
			}
			load := loadAverage()
			res, err := sh.run(ctx, srv, cfg)
			if err != nil {
				if cause := context.Cause(ctx); cause != nil && !errors.Is(err, cause) {
					err = errors.Join(err, cause)
				}
				return fmt.Errorf("pair %d, %s: %w", rep, sh.name, err)
			}
			r := runResult{rep: rep, shape: sh.name, res: res}
			runs = append(runs, r)
			fmt.Printf("%-4d %-6s %9.0f %10s %10s %12.2f %11s  %s\n", rep, sh.name, res.rate(),
				res.elapsed.Round(time.Millisecond), res.created.Round(time.Millisecond),
				perJob(res.cpu.proc, res.jobs), pgPerJob(srv, res), load)
		}
	}
	fmt.Printf("load average at the end: %s\n", loadAverage())
	summarize(os.Stdout, runs)
	return nil
}

// moduleVersion is the version of a module built into this program.
func moduleVersion(path string) string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, m := range bi.Deps {
			if m.Path == path {
				return m.Version
			}
		}
	}
	return "(unknown)"
}

// loadAverage is /proc/loadavg's three averages.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "-"
	}
	var a, b5, c float64
	if _, err := fmt.Sscan(string(b), &a, &b5, &c); err != nil {
		return "-"
	}
	return fmt.Sprintf("%.2f %.2f %.2f", a, b5, c)
}

func perJob(d time.Duration, jobs int) float64 {
	return float64(d) / float64(time.Millisecond) / float64(jobs)
}

// pgPerJob is the server's CPU a job, "-" for a server not started here.
func pgPerJob(srv *server, res result) string {
	if srv.PID() == 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", perJob(res.cpu.pg, res.jobs))
}
