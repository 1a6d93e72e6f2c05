// Package quantum is a complete quantum job service that runs inside a Go
// program: users submit OpenQASM programs to devices as jobs, watch them
// move through their states, and read measurement counts, cost and
// timestamps. The built-in devices run on this module's state-vector
// simulator (package sim); an embedding program can register devices of
// its own with any Backend.
//
// The Service's methods mirror the endpoints of the /api/v1 contract one
// for one; package httpadapter serves them over HTTP. Jobs live in a store:
// store.NewMemory for a process's lifetime, or a durable one.
//
// This package holds what an embedder or a backend author calls. The
// nouns it shares with stores and backends are package qtype's, named here
// too; the contract of a store is package storage; the built-in devices
// are package devices; the engine that runs jobs is internal.
package quantum

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qjobs/quantum/devices"
	"github.com/qjobs/quantum/internal/catalogue"
	"github.com/qjobs/quantum/internal/gate"
	"github.com/qjobs/quantum/internal/notify"
	"github.com/qjobs/quantum/internal/observed"
	"github.com/qjobs/quantum/internal/runner"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/sim"
	"github.com/qjobs/quantum/storage"
	"go.uber.org/zap"
)

// Service is the job service. Create one with New; it is safe for
// concurrent use.
type Service struct {
	store       *observed.Store
	log         *zap.Logger
	workers     int
	budget      int64
	jobTimeout  time.Duration
	maxWork     int64
	lease       time.Duration
	builtin     bool
	now         func() time.Time
	maxActive   int
	maxAttempts int
	retryBase   time.Duration        // the first wait before a failed store call is retried
	node        string               // this Service's name among the nodes sharing the store
	credits     bool                 // WithCredits
	share       float64              // WithFairShare
	ledger      storage.CreditLedger // the store's, if it keeps credits (with credits off too: balances are answered)
	controls    storage.ControlStore // the store's, if several Services share its controls

	mu   sync.RWMutex
	keys map[[32]byte]keyEntry

	checks    *gate.Gate
	userLocks [64]sync.Mutex // one user's creates count and store one at a time
	// atLimit holds, for the users of each of userLocks' stripes, when
	// one was last refused for too many unfinished jobs (UnixNano): see
	// countFirst.
	atLimit [64]atomic.Int64

	devices *catalogue.Catalogue
	// simulator is the backend of the built-in devices (Simulator).
	simulator *devices.Simulator
	runner    *runner.Runner
	notes     *notify.Notifier   // tells Wait and event streams about job changes
	feed      storage.ChangeFeed // the store's, if it has one
	obs       Observer           // measurements, for metrics

	// release gives back an ExclusiveStore; exclusive says whether the
	// store is one (no other Service can hold a lease in it).
	release   func()
	exclusive bool
	closeOnce sync.Once
}

// Option configures a Service.
type Option func(*Service)

// WithLogger logs internal errors and job failures. The default, and a
// nil l, log nothing. API keys are never logged.
func WithLogger(l *zap.Logger) Option {
	return func(s *Service) {
		if l == nil {
			l = zap.NewNop()
		}
		s.log = l
	}
}

// WithWorkers sets how many jobs run at once (default: the number of CPUs).
func WithWorkers(n int) Option { return func(s *Service) { s.workers = n } }

// WithMemoryBudget bounds, in bytes, the memory that the jobs the Service
// runs at once may hold together (default: DefaultMemoryBudget, half of the
// memory the process may use). A worker claims a job only when the memory
// its backend estimated at create is free; jobs that do not fit yet wait
// in their queue, and the first of them is not overtaken. A job that needs
// more than the whole budget is refused at create. For the built-in
// devices a job needs its state vector (16·2^n bytes for n qubits), its
// sampling buffers and its result.
func WithMemoryBudget(bytes int64) Option { return func(s *Service) { s.budget = bytes } }

// WithFairShare sets the share (above 0, at most 1) of the memory budget
// and of the workers that one user's jobs may hold while other users' jobs
// wait (default DefaultFairShare, a half): claims keep a user within it,
// jobs claimed beyond it while nobody else waited go back to the queue
// within a second once someone does (their run does not count as an
// attempt), and a run that would grow past it then ends FAILED. A job
// larger than a share runs when no other user's job waits, or when the
// Service runs nothing else. 1 lets one user take everything whoever
// waits. New refuses other values.
func WithFairShare(f float64) Option { return func(s *Service) { s.share = f } }

// WithMaxActiveJobsPerUser bounds how many unfinished jobs one user may
// have (default DefaultMaxActiveJobsPerUser). Past it, CreateJob answers
// TOO_MANY_ACTIVE_JOBS (HTTP 429) with a RetryAfter.
func WithMaxActiveJobsPerUser(n int) Option { return func(s *Service) { s.maxActive = n } }

// WithConcurrentChecks bounds how many creates check (compile) their
// programs at once (default: the number of CPUs). A create that finds
// every slot busy waits up to wait (default 1 second) and then answers
// SERVICE_BUSY (HTTP 503) with a RetryAfter, as it does at once when more
// than 64 creates per slot are already waiting: a flood of expensive
// creates queues briefly and is then turned away, instead of piling up
// compiles that together exhaust memory.
func WithConcurrentChecks(n int, wait time.Duration) Option {
	return func(s *Service) { s.checks = gate.New(n, wait) }
}

// WithJobTimeout fails a job that runs longer than d (default 10
// minutes), with a statusMsg that says so. New refuses d <= 0.
func WithJobTimeout(d time.Duration) Option { return func(s *Service) { s.jobTimeout = d } }

// WithMaxWork bounds the work of one job on the built-in devices (default
// sim.DefaultMaxWork, 6·10^10), in amplitudes touched: a gate on n qubits
// touches 2^n, a measurement twice that, a classical step or a sampled
// shot counts 1. Work is charged before it is done (a chunk of up to
// 1,024 fused gates, or an operation of a shot, at a time), so a job stops
// before the work that would pass the bound. It ends FAILED with a
// statusMsg naming the bound. The default ends a loop of gates and
// measurements on 20 qubits that never exits in about a minute on two
// cores, and leaves room for a QFT on 28 qubits or a million shots. New
// refuses n <= 0.
func WithMaxWork(n int64) Option { return func(s *Service) { s.maxWork = n } }

// WithBuiltinDevices includes (default) or leaves out the built-in devices.
func WithBuiltinDevices(on bool) Option { return func(s *Service) { s.builtin = on } }

// WithLease sets how long a worker's claim on a running job lasts before
// another may take the job over (default 30 seconds); a running job's lease
// is renewed while it runs. New refuses d <= 0.
func WithLease(d time.Duration) Option { return func(s *Service) { s.lease = d } }

// WithNode names this Service among the nodes that share a store
// (default "<hostname>-<pid>"). Every job it claims records the name, and
// shows it as "node" in its metadata. New refuses an empty name or one
// that is not valid text.
func WithNode(name string) Option { return func(s *Service) { s.node = name } }

// WithClock sets the source of time, for tests. A nil now means
// time.Now, the default.
func WithClock(now func() time.Time) Option {
	return func(s *Service) {
		if now == nil {
			now = time.Now
		}
		s.now = now
	}
}

// WithMaxAttempts bounds how many times one job is run (default
// DefaultMaxAttempts). A run counts when it is cut short without its end
// being recorded: the process crashed, or the job's lease expired. A run
// that Close interrupts does not count. A job whose runs reach the bound
// ends FAILED "gave up after n attempts". New refuses n < 1.
func WithMaxAttempts(n int) Option { return func(s *Service) { s.maxAttempts = n } }

// withRetryBase sets the first wait before a failed store call is
// retried, for tests that inject faults.
func withRetryBase(d time.Duration) Option { return func(s *Service) { s.retryBase = d } }

// The defaults of the options.
const (
	// DefaultMaxAttempts is how many times a job is run at most unless
	// WithMaxAttempts says otherwise.
	DefaultMaxAttempts = 3
	// DefaultMaxActiveJobsPerUser is how many unfinished jobs a user may
	// have unless WithMaxActiveJobsPerUser says otherwise.
	DefaultMaxActiveJobsPerUser = 1000
	// DefaultFairShare is the share of the memory budget and of the
	// workers one user's jobs may hold while other users' jobs wait,
	// unless WithFairShare says otherwise.
	DefaultFairShare = 0.5
)

// maxNodeLen bounds a node's name, which every job it claims stores.
const maxNodeLen = 256

// defaultNode is "<hostname>-<pid>": unique among the processes running at
// one time, and telling an operator where to look.
func defaultNode() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	return fmt.Sprintf("%s-%d", host, os.Getpid())
}

// New returns a Service over store and starts its workers. Jobs that a
// previous process left unfinished in the store are recovered first: back
// to QUEUED (their programs are stored) or, if they were being cancelled,
// CANCELLED. Close stops the workers; the caller closes the store.
func New(store storage.Store, opts ...Option) (*Service, error) {
	if store == nil {
		return nil, errors.New("quantum: New needs a Store")
	}
	s := &Service{
		log:         zap.NewNop(),
		workers:     runtime.NumCPU(),
		budget:      DefaultMemoryBudget(),
		maxActive:   DefaultMaxActiveJobsPerUser,
		maxAttempts: DefaultMaxAttempts,
		share:       DefaultFairShare,
		checks:      gate.New(runtime.NumCPU(), time.Second),
		jobTimeout:  10 * time.Minute,
		maxWork:     sim.DefaultMaxWork,
		lease:       30 * time.Second,
		builtin:     true,
		now:         time.Now,
		keys:        map[[32]byte]keyEntry{},
		devices:     catalogue.New(),
		node:        defaultNode(),
		obs:         qtype.NopObserver{},
	}
	for _, o := range opts {
		o(s)
	}
	switch {
	case s.workers < 1:
		return nil, fmt.Errorf("quantum: WithWorkers(%d): need at least 1", s.workers)
	case s.budget < 16:
		return nil, fmt.Errorf("quantum: WithMemoryBudget(%d): too small", s.budget)
	case s.jobTimeout <= 0:
		return nil, fmt.Errorf("quantum: WithJobTimeout(%v): must be positive", s.jobTimeout)
	case s.maxWork <= 0:
		return nil, fmt.Errorf("quantum: WithMaxWork(%d): must be positive", s.maxWork)
	case s.lease <= 0:
		return nil, fmt.Errorf("quantum: WithLease(%v): must be positive", s.lease)
	case s.maxActive < 1:
		return nil, fmt.Errorf("quantum: WithMaxActiveJobsPerUser(%d): need at least 1", s.maxActive)
	case s.maxAttempts < 1:
		return nil, fmt.Errorf("quantum: WithMaxAttempts(%d): need at least 1", s.maxAttempts)
	case !(s.share > 0 && s.share <= 1):
		return nil, fmt.Errorf("quantum: WithFairShare(%v): need a share above 0 and at most 1", s.share)
	case s.node == "" || !validText(s.node) || len(s.node) > maxNodeLen:
		return nil, fmt.Errorf("quantum: WithNode(%q): need 1 to %d bytes of %s", s.node, maxNodeLen, strings.TrimPrefix(textRule, "must be "))
	case s.checks.Slots() < 1 || s.checks.Wait < 0:
		return nil, fmt.Errorf("quantum: WithConcurrentChecks(%d, %v): need at least 1 slot and a wait of 0 or more", s.checks.Slots(), s.checks.Wait)
	}
	s.ledger, _ = store.(storage.CreditLedger)
	if s.credits && s.ledger == nil {
		return nil, fmt.Errorf("quantum: WithCredits(true): the store keeps no credits (it is not a storage.CreditLedger, as store.NewMemory, store/badger and store/postgres are)")
	}
	s.simulator = devices.NewSimulator(s.budget, s.maxWork)
	if s.builtin {
		for _, f := range devices.Builtin(s.simulator, s.now()) {
			for _, d := range f.Devices {
				if err := s.RegisterDevice(d, f.Backend); err != nil {
					return nil, err
				}
			}
		}
	}
	if ex, ok := store.(storage.ExclusiveStore); ok {
		release, err := ex.Acquire()
		if err != nil {
			return nil, fmt.Errorf("quantum: New: %w (close the other Service first, or open a store of its own)", err)
		}
		s.release, s.exclusive = release, true
	}
	s.feed, _ = store.(storage.ChangeFeed)
	s.controls, _ = store.(storage.ControlStore)
	s.notes = notify.New()
	s.store = observed.New(store, s.notes, s.obs, s.log)
	if err := s.loadControls(context.Background()); err != nil {
		s.releaseStore()
		return nil, fmt.Errorf("quantum: reading the controls: %w", err)
	}
	s.runner = runner.New(runner.Config{Store: s.store, Devices: s.devices, Notes: s.notes, Feed: s.feed, Controls: s.controls, Log: s.log,
		Observer: s.obs, Now: s.now, Exclusive: s.exclusive, Node: s.node, Workers: s.workers, Budget: s.budget,
		Share: s.share, MaxWork: s.maxWork, MaxAttempts: s.maxAttempts, Lease: s.lease, JobTimeout: s.jobTimeout,
		RetryBase: s.retryBase})
	if err := s.runner.Recover(context.Background()); err != nil {
		s.releaseStore()
		return nil, fmt.Errorf("quantum: recovering unfinished jobs: %w", err)
	}
	s.runner.Start()
	return s, nil
}

// Close stops the workers. Running jobs are interrupted and returned to
// the queue, to run again when a Service next opens the store; Close waits
// for that until ctx ends. Creates are refused from the moment Close
// begins. It is safe to call more than once: a call after one whose ctx
// ended waits again. The store is released (for another Service) only
// once every worker has stopped.
func (s *Service) Close(ctx context.Context) error {
	s.closeOnce.Do(s.runner.BeginClose)
	if err := s.runner.WaitStopped(ctx); err != nil {
		return err
	}
	s.releaseStore()
	return nil
}

// releaseStore lets another Service use an ExclusiveStore. It is not
// released while workers of this one may still be running.
func (s *Service) releaseStore() {
	if s.release != nil {
		s.release() // safe to call again
	}
}

// User is who a method acts for.
type User struct {
	ID                 string `json:"userId"`
	OrganizationUserID string `json:"organizationUserId"` // 24 hex; its last 4 appear in the user's job QRNs
	OrganizationID     string `json:"organizationId"`
	Name               string `json:"userName"`
}

// qrnTag is the 4 hex of the user in their job QRNs.
func (u User) qrnTag() string {
	if len(u.OrganizationUserID) < 4 {
		return "0000"
	}
	return u.OrganizationUserID[len(u.OrganizationUserID)-4:]
}

// AddAPIKey makes key valid, for a user of its own. The user's IDs are
// derived from a hash of the key, so a service restarted with the same key
// finds the same user and their stored jobs. Keys are kept only as SHA-256
// hashes. Adding a key twice returns the same user.
func (s *Service) AddAPIKey(key, userName string) (User, error) {
	if key == "" {
		return User{}, errors.New("quantum: empty API key")
	}
	h := keyHash(key)
	u := userOfKey(h, userName)
	s.mu.Lock()
	defer s.mu.Unlock()
	if old, ok := s.keys[h]; ok {
		return old.user, nil
	}
	s.keys[h] = keyEntry{hash: h, user: u}
	return u, nil
}

// keyHash is what the Service keeps of an API key.
func keyHash(key string) [32]byte { return sha256.Sum256([]byte("quantum api key\x00" + key)) }

// userOfKey is the user of a key's hash: the same on every node and
// after every restart, so that a key finds its user's stored jobs.
func userOfKey(h [32]byte, name string) User {
	id := hex.EncodeToString(h[:])
	return User{ID: id[:24], OrganizationUserID: id[24:48], OrganizationID: id[40:64], Name: name}
}

func (s *Service) keyOf(h [32]byte) (keyEntry, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	e, ok := s.keys[h]
	return e, ok
}

// keepKey remembers a key read from the store.
func (s *Service) keepKey(e keyEntry) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keys[e.hash] = e
}

type keyEntry struct {
	hash [32]byte
	user User
}

// Authenticate returns the user of an API key.
func (s *Service) Authenticate(ctx context.Context, apiKey string) (User, error) {
	if apiKey == "" {
		return User{}, qtype.Errorf(ENOVALIDAUTH, "an API key is required in the X-API-KEY header")
	}
	// Keys are looked up by their SHA-256: the lookup's timing depends on
	// the hash alone, which tells an attacker nothing about how much of a
	// real key they guessed; the stored hash is then compared in constant
	// time.
	h := keyHash(apiKey)
	e, ok := s.keyOf(h)
	if !ok && s.controls != nil {
		// A key the control API added on another node.
		k, err := s.controls.APIKeyByHash(ctx, h)
		switch {
		case err == nil:
			e, ok = keyEntry{hash: k.Hash, user: User{ID: k.UserID, OrganizationUserID: k.OrganizationUserID, OrganizationID: k.OrganizationID, Name: k.Name}}, true
			s.keepKey(e)
		case !errors.Is(err, storage.ErrKeyNotFound):
			return User{}, s.internal(ctx, err, "look up the API key")
		}
	}
	if !ok || subtle.ConstantTimeCompare(e.hash[:], h[:]) != 1 {
		return User{}, qtype.Errorf(EINVALIDAPIKEY, "the API key is not valid")
	}
	return e.user, nil
}

// internal logs err and returns an INTERNAL_ERROR that does not echo it.
// An error that comes from the caller's own context ending is the caller
// giving up, not a fault: it becomes REQUEST_CANCELLED and is not logged
// as an error. (A store's own timeout is a fault: ctx is still live.)
func (s *Service) internal(ctx context.Context, err error, what string) *Error {
	if qtype.IsContextErr(err) && ctx.Err() != nil {
		return qtype.Errorf(ECANCELED, "the request ended before %s: %v", what, err)
	}
	s.log.Error("internal error", zap.String("during", what), zap.Error(err))
	return qtype.Errorf(EINTERNAL, "internal error")
}

// Simulator returns the backend the built-in devices run on: OpenQASM 2
// and 3 and QIR on package sim, within the Service's memory budget and
// work bound, enforcing a device's Topology and Calibration (its coupled
// qubits). Register devices of your own on it: a mock QPU of the layout
// your code targets, say.
func (s *Service) Simulator() Backend { return s.simulator }

// RegisterDevice adds a device that runs on backend, or replaces the one
// with the same QRN. The QRN must be vendor:provider:sim|qpu:name, and
// Vendor one of Vendors. An error names the device (its QRN, else its
// Name) and the field at fault.
func (s *Service) RegisterDevice(d Device, b Backend) error {
	id := d.QRN
	if id == "" {
		id = d.Name
	}
	vendors := strings.Join(qtype.Vendors, ", ")
	switch {
	case d.QRN == "":
		return fmt.Errorf("quantum: device %q: qrn is required (vendor:provider:sim|qpu:name)", id)
	case !qtype.ValidDeviceQRN(d.QRN):
		return fmt.Errorf("quantum: device %q: qrn is not vendor:provider:sim|qpu:name (lowercase letters and digits)", id)
	case d.Vendor == "":
		return fmt.Errorf("quantum: device %q: vendor is required (one of %s)", id, vendors)
	case !slices.Contains(qtype.Vendors, d.Vendor):
		return fmt.Errorf("quantum: device %q: vendor %q is not one of %s", id, d.Vendor, vendors)
	case b == nil:
		return fmt.Errorf("quantum: device %q: a backend is required", id)
	}
	if err := d.CheckTopology(); err != nil {
		return fmt.Errorf("quantum: device %q: %w", id, err)
	}
	if _, err := sim.ParseMethod(d.Method); d.Method != "" && err != nil {
		return fmt.Errorf("quantum: device %q: method: %w", id, err)
	}
	d = d.Clone() // the caller's topology and calibration stay theirs
	if err := devices.SetUpNoise(&d); err != nil {
		return fmt.Errorf("quantum: device %q: %w", id, err)
	}
	if d.Status == "" {
		d.Status = DeviceOnline
	}
	if d.Paradigm == "" {
		d.Paradigm = "gate_model"
	}
	if d.PricingModel == "" {
		d.PricingModel = "fixed"
	}
	if d.RunInputTypes == nil {
		d.RunInputTypes = []string{}
	}
	if d.Precisions == nil && b == s.simulator {
		d.Precisions = slices.Clone(qtype.SimulatorPrecisions)
	}
	s.devices.Put(&d, b)
	if s.runner != nil {
		s.runner.Wake()
	}
	return nil
}
