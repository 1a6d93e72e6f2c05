package quantum

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.uber.org/zap"
)

// runner moves jobs through their lifecycle: intake (INITIALIZING →
// VALIDATING → QUEUED), workers that claim QUEUED jobs fairly across
// devices and run them, and a sweeper for leases and deadlines. Every move
// is a compare-and-set in the store on the status the runner expects.
type runner struct {
	s *Service

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
	turn    turns
	batch   claimBatch // claims of several jobs at once (runner_batch.go)
}

var (
	errShutdown  = errors.New("service closing")
	errCancelled = errors.New("cancelled by the user")
)

func newRunner(s *Service) *runner {
	ctx, stop := context.WithCancel(context.Background())
	return &runner{
		s: s, ctx: ctx, stop: stop,
		notify:  make(chan struct{}),
		admitCh: make(chan string, intakeBuffer),
		kick:    make(chan struct{}, 1),
		running: map[string]context.CancelCauseFunc{},
	}
}

func (r *runner) start() {
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

// beginClose refuses new creates, interrupts running jobs (they return to
// the queue) and tells every goroutine to stop.
func (r *runner) beginClose() {
	func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.closed = true
		for _, cancel := range r.running {
			cancel(errShutdown)
		}
	}()
	r.stop()
	r.s.notes.shutdown()
}

// waitStopped waits for every goroutine until ctx ends.
func (r *runner) waitStopped(ctx context.Context) error {
	done := make(chan struct{})
	go func() { r.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("quantum: close: %w", ctx.Err())
	}
}

func (r *runner) wake() {
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

// isClosed reports whether Close has begun.
func (r *runner) isClosed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.closed
}

func (r *runner) woken() <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.handed = true
	return r.notify
}

// logUnexpected logs a store error other than a lost race (a job that
// was cancelled or deleted meanwhile is not news) or the end of ctx.
func (r *runner) logUnexpected(ctx context.Context, err error, qrn, what string) {
	if err != nil && !errors.Is(err, ErrStatusChanged) && !errors.Is(err, ErrJobNotFound) && ctx.Err() == nil {
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

func (r *runner) idleWait() time.Duration {
	if r.feedUp.Load() {
		return feedPoll
	}
	return idlePoll
}

func (r *runner) worker() {
	defer r.wg.Done()
	defer r.returnClaimed()
	retry := backoff{base: r.s.retryBase}
	for {
		woken := r.woken() // before claiming, so no wake-up is missed
		if r.ctx.Err() != nil || r.isClosed() {
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
func (r *runner) sleep(d time.Duration, woken <-chan struct{}) bool {
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
func (r *runner) claim() (*JobRecord, error) {
	r.claimMu.Lock()
	defer r.claimMu.Unlock()
	return r.claimLocked()
}

// claimLocked is claim with claimMu held.
func (r *runner) claimLocked() (*JobRecord, error) {
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
	var large *Queue // the first queue passed over for a job larger than a share
	for _, q := range r.turn.order(queues) {
		free := r.s.budget - r.memoryUsed()
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
			r.turn.served(q)
			return job, nil
		case errors.Is(err, ErrNoJob):
			r.turn.unblock(q)
		case errors.Is(err, ErrMemoryShort) && job != nil && others && job.MemoryNeed > limit:
			// Past its user's share: other users go first.
			if job.MemoryNeed > r.shareMemory() && large == nil {
				large = &q
			}
			r.turn.unblock(q)
		case errors.Is(err, ErrMemoryShort):
			r.turn.block(q)
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
		if job, err := r.claimFrom(*large, r.s.budget-r.memoryUsed(), false); err == nil {
			r.turn.served(*large)
			return job, nil
		}
	}
	return nil, nil
}

// idle reports whether this process holds no claimed job.
func (r *runner) idle() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.holds) == 0
}

// claimFrom claims the head job of q if it needs at most limit bytes, and
// holds that memory for it. A job that needs more than the whole budget
// (stored under a larger one) would wait forever and hold up every other:
// it is claimed at once, holding nothing, and execute fails it.
func (r *runner) claimFrom(q Queue, limit int64, preemptible bool) (*JobRecord, error) {
	now := r.s.now().UTC()
	c := Claim{Queue: q, MaxMemory: limit, Now: now, LeaseUntil: now.Add(r.s.lease), Node: r.s.node}
	job, err := r.s.store.ClaimJob(r.ctx, c)
	if errors.Is(err, ErrMemoryShort) && job != nil && job.MemoryNeed > r.s.budget {
		c.MaxMemory = math.MaxInt64
		job, err = r.s.store.ClaimJob(r.ctx, c)
	}
	if err != nil {
		return job, err
	}
	r.holdJob(job, r.reservation(job), preemptible)
	return job, nil
}

// cancel follows up a move to CANCELLING from status from: a job that was
// not running is CANCELLED now; a running one is interrupted, and its
// worker records the end.
func (r *runner) cancel(from JobStatus, qrn string) {
	if from != StatusRunning {
		r.finishCancel(qrn, 0)
		r.wake() // a worker waiting for memory behind this job may go on
		return
	}
	r.stopOrNote(qrn)
	// Not running here: another process holds it, or its worker is just
	// finishing and will see CANCELLING. The sweeper ends it if its lease
	// expires.
}
