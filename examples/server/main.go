// Command server runs the quantum job service over HTTP: the built-in
// simulator devices, the /api/v1 API, the web console at / and a demo API
// key to try them with.
//
//	go run ./examples/server
//
// Flags:
//
//	-addr ADDR        listen address (default 127.0.0.1:8080)
//	-store KIND       memory (default), badger or postgres
//	-data DIR         badger's directory (default ./data)
//	-postgres-dsn DSN the PostgreSQL database of -store postgres, such as
//	                  postgres://user:pass@host:5432/db (visible in ps:
//	                  prefer QUANTUM_POSTGRES_DSN)
//	-node NAME        this server's name among the nodes sharing a
//	                  PostgreSQL store (default <hostname>-<pid>)
//	-lease DURATION   how long a running job's claim lasts unrenewed
//	                  before another node takes the job over (default 30s)
//	-api-keys-file F  API keys, one "key user" per line (# comments); the
//	                  file must not be readable by other users (chmod 600).
//	                  A line "key user credits" grants the user that many
//	                  credits and turns credits on.
//	-api-key KEY      an API key; repeat for more users (one user per key).
//	                  Visible to every user of the machine in ps: prefer the
//	                  file or QUANTUM_API_KEYS.
//	                  Without any key from any source, a random demo key is
//	                  made and printed. Keys given are never printed or logged.
//	-credits N        turn credits on and grant N credits to the demo key's
//	                  user and to each -api-key's. A job then reserves its
//	                  estimated cost and is charged its cost; a job the
//	                  balance cannot cover is refused (402). Start-up grants
//	                  are recorded once per user and amount: a restart on
//	                  the same store grants nothing again.
//	-workers N        simulation workers (default: the number of CPUs)
//	-memory-budget B  memory the running jobs may hold together, e.g. 8GiB
//	                  (default: half of the least of the machine's memory,
//	                  its cgroup's memory limit and GOMEMLIMIT)
//	-max-active-jobs N  unfinished jobs one user may have (default 1000)
//	-max-body SIZE    the largest request body, e.g. 64MiB; past it a
//	                  request is answered 413 (default 4MiB)
//	-max-connections N  TCP connections held open at once; past it a new
//	                  one is answered 503 and closed (default 1024)
//	-rate-limit N     requests a second each user may make on average;
//	                  past it 429 (default: no limit)
//	-rate-burst N     requests a user may make at once (default: twice
//	                  -rate-limit, at least 1)
//	-log-level LEVEL  debug, info (default), warn or error
//	-control-key-file F  the control key (at least 16 characters; the file
//	                  readable by its owner only): serves the control API
//	                  for test suites, /control/v1 (docs/testing.md)
//	-control-public   serve the control API on an address that is not
//	                  loopback too (refused without it)
//	-cpuprofile F     write a CPU profile of the whole run to F, complete
//	                  once the server has shut down
//
// Environment:
//
//	QUANTUM_API_KEYS  API keys as `key user` (or `key user credits`)
//	                  entries separated by commas or newlines, added to
//	                  those of the flags
//	QUANTUM_POSTGRES_DSN  the database of -store postgres, when
//	                  -postgres-dsn is not given
//	QUANTUM_CONTROL_KEY  the control key, when -control-key-file is not
//	                  given
package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"go.uber.org/zap"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/metrics"
	"github.com/qjobs/quantum/sim"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store"
	"github.com/qjobs/quantum/store/badger"
	"github.com/qjobs/quantum/store/postgres"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], system{out: os.Stdout, log: os.Stderr, getenv: os.Getenv}); err != nil {
		fmt.Fprintln(os.Stderr, "server:", err)
		os.Exit(1)
	}
}

type keyList []string

func (k *keyList) String() string     { return strings.Join(*k, ",") }
func (k *keyList) Set(v string) error { *k = append(*k, v); return nil }

type config struct {
	addr      string
	store     string
	data      string
	keys      keyList
	keysFile  string
	workers   int
	budget    byteFlag
	maxActive int
	logLevel  string
	logFormat string
	metrics   string
	version   bool
	dsn       string
	node      string
	lease     time.Duration
	timeout   time.Duration
	maxWork   int64
	credits   float64
	maxBody   byteFlag
	maxConns  int
	rate      float64
	burst     int
	fairShare float64
	// controlFile and controlPublic are -control-key-file and
	// -control-public.
	controlFile   string
	controlPublic bool
	// cpuProfile is -cpuprofile.
	cpuProfile string
}

// defaultMaxConnections bounds the connections open at once: about 20 MiB
// of connection state, and room for bench/streams' thousand streams.
const defaultMaxConnections = 1024

// byteFlag is a size in bytes, written as 4294967296, 4GiB, 512MiB or 64KiB.
type byteFlag int64

// String writes b in the largest unit that holds it whole, so that -h
// shows 4MiB rather than 4194304.
func (b *byteFlag) String() string {
	for _, u := range []struct {
		suffix string
		shift  uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}} {
		if n := int64(*b); n != 0 && n&(1<<u.shift-1) == 0 {
			return strconv.FormatInt(n>>u.shift, 10) + u.suffix
		}
	}
	return strconv.FormatInt(int64(*b), 10)
}

// gibibytes writes n bytes as GiB, to a tenth.
func gibibytes(n int64) string { return strconv.FormatFloat(float64(n)/(1<<30), 'f', 1, 64) + "GiB" }

func (b *byteFlag) Set(v string) error {
	units := []struct {
		suffix string
		shift  uint
	}{{"TiB", 40}, {"GiB", 30}, {"MiB", 20}, {"KiB", 10}, {"B", 0}, {"", 0}}
	for _, u := range units {
		num, ok := strings.CutSuffix(v, u.suffix)
		if !ok {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(num), 10, 64)
		if err != nil || n < 1 || n > math.MaxInt64>>u.shift {
			return fmt.Errorf("%q is not a size such as 8GiB, 512MiB or a number of bytes", v)
		}
		*b = byteFlag(n << u.shift)
		return nil
	}
	return fmt.Errorf("%q is not a size", v)
}

func parseFlags(args []string, out io.Writer) (config, error) {
	var c config
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(out)
	fs.StringVar(&c.addr, "addr", "127.0.0.1:8080", "listen address")
	fs.StringVar(&c.store, "store", "memory", "job store: memory, badger or postgres")
	fs.StringVar(&c.data, "data", "./data", "directory of the badger store")
	fs.StringVar(&c.dsn, "postgres-dsn", "", "PostgreSQL database of -store postgres (default $QUANTUM_POSTGRES_DSN; visible in ps, prefer the variable)")
	fs.StringVar(&c.node, "node", "", "this server's name among the nodes sharing a store (default <hostname>-<pid>)")
	fs.DurationVar(&c.lease, "lease", 30*time.Second, "how long a running job's claim lasts unrenewed before another node takes it over")
	fs.Var(&c.keys, "api-key", "an API `KEY` (repeatable; each key is a different user); visible in ps, prefer -api-keys-file")
	fs.StringVar(&c.keysFile, "api-keys-file", "", "`FILE` of API keys, one \"key user\" per line (# comments), readable by its owner only (chmod 600); "+
		"a line \"key user credits\" grants the user that many credits and turns credits on")
	fs.Func("credits", "turn credits on and grant `N` credits to the demo key's user and to each -api-key's: a job reserves its estimated cost, "+
		"is charged its cost, and is refused (402) when the balance cannot cover it; a start-up grant is recorded once per user and amount, "+
		"so a restart on the same store grants nothing again", func(v string) error {
		var err error
		c.credits, err = parseCredits(v)
		return err
	})
	fs.IntVar(&c.workers, "workers", runtime.NumCPU(), "simulation workers")
	fs.Var(&c.budget, "memory-budget", "memory the running jobs may hold together, a `SIZE` such as 8GiB or 512MiB "+
		"(default: half of the least of the machine's memory, its cgroup's memory limit and GOMEMLIMIT; here "+gibibytes(quantum.DefaultMemoryBudget())+")")
	c.maxBody = httpadapter.DefaultMaxBodyBytes
	fs.Var(&c.maxBody, "max-body", "the largest request body, a `SIZE` such as 64MiB or 512KiB; past it a request is answered 413 PAYLOAD_TOO_LARGE. "+
		"A body is held in memory while it is read, and must arrive within the 60 s read timeout")
	fs.IntVar(&c.maxConns, "max-connections", defaultMaxConnections, "the TCP connections the server holds open at once, `N` of at least 1 "+
		"(idle keep-alive connections and event streams included); past it a new connection is answered 503 SERVICE_BUSY with Retry-After: 1 "+
		"and closed. Each costs about 20 KiB and two goroutines")
	fs.Float64Var(&c.rate, "rate-limit", 0, "requests a second each user may make on average, `N` such as 20 or 0.5; past it a request is answered "+
		"429 RATE_LIMITED with Retry-After and nothing is done (default: no limit)")
	fs.IntVar(&c.burst, "rate-burst", 0, "requests a user may make at once before -rate-limit holds them back, `N` of at least 1 "+
		"(default: twice -rate-limit, at least 1)")
	fs.IntVar(&c.maxActive, "max-active-jobs", quantum.DefaultMaxActiveJobsPerUser, "unfinished jobs one user may have")
	fs.Float64Var(&c.fairShare, "fair-share", quantum.DefaultFairShare, "the `SHARE` (above 0, at most 1) of the memory budget and of the workers one user's jobs may hold while other users' jobs wait: "+
		"past it their newest jobs go back to the queue within a second, and a job that would grow past it fails; 1 lets one user take everything")
	fs.DurationVar(&c.timeout, "job-timeout", 10*time.Minute, "how long a job may run before it ends FAILED")
	fs.Int64Var(&c.maxWork, "max-work", sim.DefaultMaxWork, "the work a job may do before it ends FAILED, in amplitudes touched (a gate on n qubits touches 2^n, a measurement twice that, a classical step 1): the default ends a loop that never exits on 20 qubits in about a minute")
	fs.StringVar(&c.logLevel, "log-level", "info", "log level: debug, info, warn, error")
	fs.StringVar(&c.logFormat, "log-format", "", "log format: json or console (default: console on a terminal, else json)")
	fs.StringVar(&c.metrics, "metrics-addr", "", "serve /metrics on this address instead of the main listener")
	fs.BoolVar(&c.version, "version", false, "print the version and exit")
	fs.StringVar(&c.controlFile, "control-key-file", "", "`FILE` holding the control key (at least 16 characters, readable by its owner only): "+
		"serves the control API for test suites at /control/v1 (default $QUANTUM_CONTROL_KEY; none: no control API)")
	fs.BoolVar(&c.controlPublic, "control-public", false, "serve the control API on an -addr that is not loopback too")
	fs.StringVar(&c.cpuProfile, "cpuprofile", "", "write a CPU profile of the whole run to `FILE`, complete once the server has shut down (for measuring: bench/load)")
	fs.Usage = func() {
		fmt.Fprintln(out, "usage: server [flags]")
		fs.PrintDefaults()
		fmt.Fprint(out, `environment:
  QUANTUM_API_KEYS
    	API keys as "key user" (or "key user credits") entries separated by commas or newlines, added to those of the flags
  QUANTUM_POSTGRES_DSN
    	the database of -store postgres when -postgres-dsn is not given
  QUANTUM_CONTROL_KEY
    	the control key when -control-key-file is not given
`)
	}
	if err := fs.Parse(args); err != nil {
		return c, err
	}
	if fs.NArg() > 0 {
		return c, fmt.Errorf("unexpected arguments: %v", fs.Args())
	}
	if c.workers < 1 {
		return c, fmt.Errorf("-workers must be at least 1, got %d", c.workers)
	}
	if c.maxConns < 1 {
		return c, fmt.Errorf("-max-connections must be at least 1, got %d", c.maxConns)
	}
	if err := c.rateFlags(fs); err != nil {
		return c, err
	}
	if c.maxActive < 1 {
		return c, fmt.Errorf("-max-active-jobs must be at least 1, got %d", c.maxActive)
	}
	if !(c.fairShare > 0 && c.fairShare <= 1) {
		return c, fmt.Errorf("-fair-share must be above 0 and at most 1, got %v", c.fairShare)
	}
	if c.lease <= 0 {
		return c, fmt.Errorf("-lease must be positive, got %v", c.lease)
	}
	if c.timeout <= 0 {
		return c, fmt.Errorf("-job-timeout must be positive, got %v", c.timeout)
	}
	if c.maxWork <= 0 {
		return c, fmt.Errorf("-max-work must be positive, got %d", c.maxWork)
	}
	if c.logFormat != "" && c.logFormat != "json" && c.logFormat != "console" {
		return c, fmt.Errorf("-log-format must be json or console, got %q", c.logFormat)
	}
	return c, nil
}

// rateFlags checks -rate-limit and -rate-burst, and sets the burst when
// it was not given.
func (c *config) rateFlags(fs *flag.FlagSet) error {
	burstGiven := false
	fs.Visit(func(f *flag.Flag) { burstGiven = burstGiven || f.Name == "rate-burst" })
	if c.rate < 0 || math.IsNaN(c.rate) || math.IsInf(c.rate, 0) {
		return fmt.Errorf("-rate-limit must be a number of requests a second above 0 (or 0 for no limit), got %v", c.rate)
	}
	switch {
	case burstGiven && c.rate == 0:
		return errors.New("-rate-burst needs -rate-limit")
	case burstGiven && c.burst < 1:
		return fmt.Errorf("-rate-burst must be at least 1, got %d", c.burst)
	case !burstGiven && c.rate > 0:
		// Two seconds' worth: a short burst (a page's few calls, a
		// create and its first polls) passes untouched.
		c.burst = int(min(math.Ceil(2*c.rate), 1<<30))
	}
	return nil
}

// system is what run needs from the process: where to print for the
// operator, where to log, the environment, and (for tests) a callback with
// the address once listening.
type system struct {
	out    io.Writer
	log    io.Writer
	getenv func(string) string
	ready  func(addr string)
}

// run serves until ctx ends, then shuts down gracefully: it stops accepting
// requests, returns running jobs to the queue, and closes the store. The
// Service and the store are closed on every way out, errors included.
func run(ctx context.Context, args []string, sys system) error {
	if sys.getenv == nil {
		sys.getenv = func(string) string { return "" }
	}
	cfg, err := parseFlags(args, sys.out)
	if errors.Is(err, flag.ErrHelp) {
		return nil // -h: the usage is printed, and that is all that was asked
	}
	if err != nil {
		return err
	}
	if cfg.version {
		fmt.Fprintln(sys.out, version())
		return nil
	}
	keys, err := apiKeys(cfg, sys.getenv)
	if err != nil {
		return err
	}
	control, err := controlKey(cfg, sys.getenv, keys)
	if err != nil {
		return err
	}
	log, err := newLogger(cfg.logLevel, logFormat(cfg.logFormat, sys.out), sys.log)
	if err != nil {
		return err
	}
	defer func() { _ = log.Sync() }()
	if cfg.cpuProfile != "" {
		stop, err := cpuProfile(cfg.cpuProfile)
		if err != nil {
			return err
		}
		defer stop()
	}

	if cfg.store == "postgres" && cfg.dsn == "" {
		cfg.dsn = sys.getenv("QUANTUM_POSTGRES_DSN")
	}
	st, closeStore, err := openStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer closeStore()

	m := metrics.New()
	opts := []quantum.Option{quantum.WithLogger(log), quantum.WithWorkers(cfg.workers), quantum.WithMaxActiveJobsPerUser(cfg.maxActive),
		quantum.WithLease(cfg.lease), quantum.WithObserver(m), quantum.WithJobTimeout(cfg.timeout), quantum.WithMaxWork(cfg.maxWork),
		quantum.WithFairShare(cfg.fairShare)}
	if cfg.node != "" {
		opts = append(opts, quantum.WithNode(cfg.node))
	}
	if cfg.budget > 0 {
		opts = append(opts, quantum.WithMemoryBudget(int64(cfg.budget)))
	}
	credits := creditsOn(cfg, keys)
	if credits {
		opts = append(opts, quantum.WithCredits(true))
	}
	svc, err := quantum.New(st, opts...)
	if err != nil {
		return err
	}
	// Deferred after closeStore, so it runs first: the workers stop before
	// the store closes under them. Shutdown below has closed it already on
	// the normal way out; a second Close returns at once.
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
		defer cancel()
		if err := svc.Close(closeCtx); err != nil {
			log.Warn("service close", zap.Error(err))
		}
	}()
	demo := len(keys) == 0
	if demo {
		keys = []apiKey{{demoKey(), "demo", cfg.credits, cfg.credits > 0}}
	}
	for i, k := range keys {
		u, err := svc.AddAPIKey(k.key, k.user)
		if err != nil {
			return fmt.Errorf("api key %d (user %q): %w", i+1, k.user, err)
		}
		if k.credits > 0 {
			if _, err := svc.GrantCreditsOnce(ctx, u, k.credits, "granted at start-up by examples/server", grantID(k.credits)); err != nil {
				return fmt.Errorf("api key %d (user %q): grant %v credits: %w", i+1, k.user, k.credits, err)
			}
		}
	}

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return err
	}
	// Not -metrics-addr's listener: scrapes go on while clients fill
	// this one.
	ln = httpadapter.LimitListener(ln, cfg.maxConns)
	// Every phase of a connection is bounded, so that slow or stalled
	// clients cannot pin a goroutine and its buffers: headers within 10 s
	// and 64 KiB, a whole request (a body of up to -max-body) within a
	// minute, a whole answer (a result of up to tens of MB, streamed)
	// within two.
	// Event streams extend their own write deadline event by event, and
	// end when shutdown begins (Shutdown would wait for them).
	streams, endStreams := context.WithCancel(context.Background())
	defer endStreams()
	m.Watch(svc)
	apiOpts := []httpadapter.Option{httpadapter.WithLogger(log), httpadapter.WithStreamContext(streams), httpadapter.WithObserver(m),
		httpadapter.WithMaxBodyBytes(int64(cfg.maxBody))}
	if cfg.rate > 0 {
		apiOpts = append(apiOpts, httpadapter.WithRateLimit(cfg.rate, cfg.burst))
	}
	if control != "" {
		apiOpts = append(apiOpts, httpadapter.WithControlKey(control))
	}
	api := httpadapter.New(svc, apiOpts...)
	handler, stopMetrics, err := serveMetrics(cfg.metrics, site(api), m, log)
	if err != nil {
		return err
	}
	defer stopMetrics()
	srv := &http.Server{
		Handler:           handler,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      120 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	srv.RegisterOnShutdown(endStreams)
	addr := ln.Addr().String()
	fmt.Fprintf(sys.out, "quantum job service on http://%s (store: %s)\n", addr, describeStore(cfg))
	shown := "$KEY"
	if demo {
		// A key this process made up is no secret of the operator's.
		shown = keys[0].key
		fmt.Fprintf(sys.out, "demo API key (new each start; give keys with -api-keys-file to keep them): %s\n", shown)
	} else {
		fmt.Fprintf(sys.out, "%d API keys loaded\n", len(keys))
	}
	if credits {
		fmt.Fprintf(sys.out, "credits on: a user's balance is GET /api/v1/billing/credits/balance\n")
	}
	if cfg.rate > 0 {
		fmt.Fprintf(sys.out, "rate limit: %g requests a second per user, %d at once\n", cfg.rate, cfg.burst)
	}
	if control != "" {
		fmt.Fprintf(sys.out, "control API for test suites: http://%s/control/v1 (X-CONTROL-KEY; docs/testing.md)\n", addr)
	}
	fmt.Fprintf(sys.out, "web console: http://%s/ (sign in with the API key)\n", addr)
	fmt.Fprintf(sys.out, "try:\n  curl -s -H 'X-API-KEY: %s' http://%s/api/v1/devices\n", shown, addr)
	// From a clone of the repository, where the README runs it.
	fmt.Fprintf(sys.out, "  go run ./examples/client -url http://%s -key %s examples/programs/bell.qasm\n", addr, shown)

	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	if sys.ready != nil {
		sys.ready(addr)
	}

	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	log.Info("shutting down")
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdownCtx); err != nil {
		log.Warn("http shutdown", zap.Error(err))
	}
	if err := svc.Close(shutdownCtx); err != nil {
		log.Warn("service close", zap.Error(err))
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

func describeStore(cfg config) string {
	switch cfg.store {
	case "badger":
		return "badger in " + cfg.data
	case "postgres":
		// Where, but never the password.
		if pc, err := pgx.ParseConfig(cfg.dsn); err == nil {
			return fmt.Sprintf("postgres at %s:%d, database %s", pc.Host, pc.Port, pc.Database)
		}
		return "postgres"
	}
	return "memory: jobs are lost when the server stops"
}

func demoKey() string {
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	return "demo-" + hex.EncodeToString(b)
}

// openStore opens the configured store and returns its closer.
func openStore(ctx context.Context, cfg config, log *zap.Logger) (storage.Store, func(), error) {
	switch cfg.store {
	case "postgres":
		if cfg.dsn == "" {
			return nil, nil, errors.New("-store postgres needs -postgres-dsn or QUANTUM_POSTGRES_DSN")
		}
		openCtx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		p, err := postgres.Open(openCtx, cfg.dsn)
		if err != nil {
			return nil, nil, err
		}
		return p, p.Close, nil
	case "memory":
		return store.NewMemory(), func() {}, nil
	case "badger":
		b, err := badger.Open(cfg.data, badger.WithLogger(log))
		if err != nil {
			return nil, nil, err
		}
		return b, func() {
			if err := b.Close(); err != nil {
				log.Error("close store", zap.Error(err))
			}
		}, nil
	default:
		return nil, nil, fmt.Errorf("-store must be memory, badger or postgres, got %q", cfg.store)
	}
}
