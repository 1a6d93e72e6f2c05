// Package runner is the engine of a Service: it moves jobs through their
// lifecycle once they are stored. The intake queues them; workers claim
// them from the store, fairly across users and devices and within the
// memory budget and each user's share, run them on their device's
// backend and record their end; a sweeper renews leases, takes over the
// jobs of nodes that died and finds jobs the intake missed. Every move is
// a compare-and-set in the store on the status the runner expects.
package runner

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qjobs/quantum/internal/catalogue"
	"github.com/qjobs/quantum/internal/notify"
	"github.com/qjobs/quantum/internal/observed"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
	"go.uber.org/zap"
)

// Runner moves jobs through their lifecycle: intake (INITIALIZING →
// QUEUED), workers that claim QUEUED jobs fairly across
// devices and run them, and a sweeper for leases and deadlines.
type Runner struct {
	s *settings

	ctx  context.Context // ends when the Service closes
	stop context.CancelFunc
	wg   sync.WaitGroup

	admitCh chan string   // new jobs for the intake
	kick    chan struct{} // tells the intake to look at backlog
	backlog atomic.Bool   // jobs may wait in the store that admitCh did not take

	mu      sync.Mutex
	notify  chan struct{}                      // closed and replaced to wake idle workers
	handed  bool                               // a worker holds notify: a wake must close it
	running map[string]context.CancelCauseFunc // jobs this process runs
	closed  bool                               // Close has begun
	memUsed int64                              // memory held by the jobs this process has claimed
	holds   map[string]*hold                   // by job (holds.go)
	usage   map[string]*usage                  // by user
	seq     uint64                             // claims so far, for hold.seq

	// contended says that more than one user has jobs waiting or held
	// here: claims are made one at a time, within each user's share
	// (shares.go).
	contended atomic.Bool

	// feedUp says that the store's ChangeFeed is listening: wake-ups come
	// from every node, and idle workers poll only as a fallback.
	feedUp atomic.Bool

	// Claims are made one at a time, so that each decides on the memory
	// that is free after the one before it.
	claimMu sync.Mutex
	turn    storage.Turns
	batch   claimBatch // claims of several jobs at once (claims.go)
}

var (
	errShutdown  = errors.New("service closing")
	errCancelled = errors.New("cancelled by the user")
)

// Config is what a Runner needs of its Service.
type Config struct {
	Store   *observed.Store
	Devices *catalogue.Catalogue
	Notes   *notify.Notifier
	Feed    storage.ChangeFeed // the store's, if it has one
	// Controls is the store's, if several Services share its controls
	// (controls.go).
	Controls storage.ControlStore
	Log      *zap.Logger
	Observer qtype.Observer
	Now      func() time.Time
	// Exclusive says that no other Service shares the store.
	Exclusive bool
	// Node names this Service among those sharing the store.
	Node string
	// The Service's options (see package quantum's With… functions).
	Workers     int
	Budget      int64
	Share       float64
	MaxWork     int64
	MaxAttempts int
	Lease       time.Duration
	JobTimeout  time.Duration
	RetryBase   time.Duration
}

// settings are the Config, by the names the engine's code reads them.
type settings struct {
	store       *observed.Store
	devices     *catalogue.Catalogue
	notes       *notify.Notifier
	feed        storage.ChangeFeed
	controls    storage.ControlStore
	log         *zap.Logger
	obs         qtype.Observer
	now         func() time.Time
	exclusive   bool
	node        string
	workers     int
	budget      int64
	share       float64
	maxWork     int64
	maxAttempts int
	lease       time.Duration
	jobTimeout  time.Duration
	retryBase   time.Duration
}

// New returns a Runner of cfg; Recover, then Start, set it going.
func New(cfg Config) *Runner {
	s := &settings{store: cfg.Store, devices: cfg.Devices, notes: cfg.Notes, feed: cfg.Feed, controls: cfg.Controls, log: cfg.Log, obs: cfg.Observer,
		now: cfg.Now, exclusive: cfg.Exclusive, node: cfg.Node, workers: cfg.Workers, budget: cfg.Budget, share: cfg.Share,
		maxWork: cfg.MaxWork, maxAttempts: cfg.MaxAttempts, lease: cfg.Lease, jobTimeout: cfg.JobTimeout, retryBase: cfg.RetryBase}
	ctx, stop := context.WithCancel(context.Background())
	return &Runner{
		s: s, ctx: ctx, stop: stop,
		notify:  make(chan struct{}),
		admitCh: make(chan string, intakeBuffer),
		kick:    make(chan struct{}, 1),
		running: map[string]context.CancelCauseFunc{},
	}
}

func (r *Runner) Start() {
	r.wg.Add(intakeWorkers + 2 + r.s.workers)
	for range intakeWorkers {
		go r.intake()
	}
	go r.sweeper()
	go r.governor()
	if r.s.feed != nil {
		r.wg.Add(1)
		go r.watch(r.s.feed)
	}
	for range r.s.workers {
		go r.worker()
	}
}

// BeginClose refuses new creates, interrupts running jobs (they return to
// the queue) and tells every goroutine to stop.
func (r *Runner) BeginClose() {
	func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.closed = true
		for _, cancel := range r.running {
			cancel(errShutdown)
		}
	}()
	r.stop()
	r.s.notes.Shutdown()
}

// WaitStopped waits for every goroutine until ctx ends.
func (r *Runner) WaitStopped(ctx context.Context) error {
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("quantum: close: %w", ctx.Err())
	}
}

func (r *Runner) Wake() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.handed {
		// No worker is between woken and its sleep: each will claim
		// before it sleeps, and see what this wake is about.
		return
	}
	close(r.notify)
	r.notify, r.handed = make(chan struct{}), false
}

// IsClosed reports whether Close has begun.
func (r *Runner) IsClosed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

func (r *Runner) woken() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.handed = true
	return r.notify
}

// logUnexpected logs a store error other than a lost race (a job that
// was cancelled or deleted meanwhile is not news) or the end of ctx.
func (r *Runner) logUnexpected(ctx context.Context, err error, qrn, what string) {
	if err != nil && !errors.Is(err, storage.ErrStatusChanged) && !errors.Is(err, storage.ErrJobNotFound) && ctx.Err() == nil {
		r.s.log.Error("job transition failed", zap.String("job", qrn), zap.String("step", what), zap.Error(err))
	}
}

// idlePoll is how often an idle worker looks for work on its own, so
// that no job waits on a wake-up that was lost. With a store's change
// feed listening, jobs queued by other nodes wake the workers too, and
// polling is only the fallback, at feedPoll.
const (
	idlePoll = 2 * time.Second
	feedPoll = 30 * time.Second
)

func (r *Runner) idleWait() time.Duration {
	if r.feedUp.Load() {
		return feedPoll
	}
	return idlePoll
}

func (r *Runner) worker() {
	defer r.wg.Done()
	defer r.returnClaimed()
	retry := backoff{base: r.s.retryBase}
	for {
		woken := r.woken() // before claiming, so no wake-up is missed
		if r.ctx.Err() != nil || r.IsClosed() {
			// Closed but not yet stopped: a job this worker just gave
			// back must not be followed by a claim.
			return
		}
		job, err := r.next()
		if err == nil && job != nil {
			retry.reset()
			r.execute(job)
			r.ran(job)
			continue
		}
		wait := r.idleWait()
		if err != nil {
			woken = nil // a failing store is not asked again at once
			wait = retry.next()
			r.s.log.Warn("claiming a job failed; retrying", zap.Duration("in", wait), zap.Error(err))
		} else {
			retry.reset()
		}
		if !r.sleep(wait, woken) {
			return
		}
	}
}

// sleep waits for d, or for woken to close; false if the Service closes.
func (r *Runner) sleep(d time.Duration, woken <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-woken:
	case <-r.ctx.Done():
		return false
	}
	return true
}

// claim takes the next job that fits the free memory: users take turns,
// and each user's devices take turns, so that neither one user's backlog
// nor one busy device starves the others. A job that does not fit waits at
// the head of its queue and nothing overtakes it (it would starve if small
// jobs kept passing it); the workers then wait until running jobs release
// memory. While other users' jobs wait, each claim keeps its user within
// the fair share (shares.go): a queue whose head would pass it is passed
// over.
func (r *Runner) claim() (*storage.JobRecord, error) {
	r.claimMu.Lock()
	defer r.claimMu.Unlock()
	return r.claimLocked()
}

// claimLocked is claim with claimMu held.
func (r *Runner) claimLocked() (*storage.JobRecord, error) {
	queues, err := r.s.store.Queues(r.ctx)
	if err != nil {
		return nil, fmt.Errorf("list queues: %w", err)
	}
	queues = r.takingQueues(queues)
	waiting := make([]string, 0, 2)
	for _, q := range queues {
		if !slices.Contains(waiting, q.Owner) {
			waiting = append(waiting, q.Owner)
		}
	}
	r.noteContention(waiting)
	var large *storage.Queue // the first queue passed over for a job larger than a share
	for _, q := range r.turn.Order(queues) {
		free := r.s.budget - r.MemoryUsed()
		limit, others := free, othersAmong(waiting, q.Owner)
		if others {
			u := r.usageOf(q.Owner)
			if u.jobs >= r.shareWorkers() {
				continue // this user runs its share of the workers already
			}
			limit = min(free, r.shareMemory()-u.memory)
		}
		job, err := r.claimFrom(q, limit, !others)
		switch {
		case err == nil:
			r.turn.Served(q)
			return job, nil
		case errors.Is(err, storage.ErrNoJob):
			r.turn.Unblock(q)
		case errors.Is(err, storage.ErrMemoryShort) && job != nil && others && job.MemoryNeed > limit:
			// Past its user's share: other users go first.
			if job.MemoryNeed > r.shareMemory() && large == nil {
				large = &q
			}
			r.turn.Unblock(q)
		case errors.Is(err, storage.ErrMemoryShort):
			r.turn.Block(q)
			return nil, nil
		case r.ctx.Err() != nil:
			return nil, nil
		default:
			return nil, fmt.Errorf("claim a job of device %s: %w", q.Device, err)
		}
	}
	if large != nil && r.idle() {
		// Nothing else runs here: a job larger than a share runs now, or
		// two users' large jobs would keep each other waiting.
		if job, err := r.claimFrom(*large, r.s.budget-r.MemoryUsed(), false); err == nil {
			r.turn.Served(*large)
			return job, nil
		}
	}
	return nil, nil
}

// idle reports whether this process holds no claimed job.
func (r *Runner) idle() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.holds) == 0
}

// claimFrom claims the head job of q if it needs at most limit bytes, and
// holds that memory for it. A job that needs more than the whole budget
// (stored under a larger one) would wait forever and hold up every other:
// it is claimed at once, holding nothing, and execute fails it.
func (r *Runner) claimFrom(q storage.Queue, limit int64, preemptible bool) (*storage.JobRecord, error) {
	now := r.s.now().UTC()
	c := storage.Claim{Queue: q, MaxMemory: limit, Now: now, LeaseUntil: now.Add(r.s.lease), Node: r.s.node}
	job, err := r.s.store.ClaimJob(r.ctx, c)
	if errors.Is(err, storage.ErrMemoryShort) && job != nil && job.MemoryNeed > r.s.budget {
		c.MaxMemory = math.MaxInt64
		job, err = r.s.store.ClaimJob(r.ctx, c)
	}
	if err != nil {
		return job, err
	}
	r.holdJob(job, r.reservation(job), preemptible)
	return job, nil
}

// Cancel follows up a move to CANCELLING from status from: a job that was
// not running is CANCELLED now; a running one is interrupted, and its
// worker records the end.
func (r *Runner) Cancel(from qtype.JobStatus, qrn string) {
	if from != qtype.StatusRunning {
		r.finishCancel(qrn, 0)
		r.Wake() // a worker waiting for memory behind this job may go on
		return
	}
	r.stopOrNote(qrn)
	// Not running here: another process holds it, or its worker is just
	// finishing and will see CANCELLING. The sweeper ends it if its lease
	// expires.
}
