package quantum

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"
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

	mu      sync.Mutex
	notify  chan struct{}                      // closed and replaced to wake idle workers
	pending []string                           // jobs to admit, in order
	admitCh chan struct{}                      // signals the intake
	running map[string]context.CancelCauseFunc // jobs this process runs
	closed  bool                               // Close has begun
	memUsed int64                              // memory reserved by the jobs this process runs

	// Claims are made one at a time, so that each decides on the memory
	// that is free after the one before it.
	claimMu sync.Mutex
	turn    turns
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
		admitCh: make(chan struct{}, 1),
		running: map[string]context.CancelCauseFunc{},
	}
}

func (r *runner) start() {
	r.wg.Add(2 + r.s.workers)
	go r.intake()
	go r.sweeper()
	for range r.s.workers {
		go r.worker()
	}
}

// stopWorkers interrupts running jobs (they return to the queue) and waits
// for every goroutine until ctx ends.
func (r *runner) stopWorkers(ctx context.Context) error {
	func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.closed = true
		for _, cancel := range r.running {
			cancel(errShutdown)
		}
	}()
	r.stop()
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
	close(r.notify)
	r.notify = make(chan struct{})
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
	return r.notify
}

// admit hands a new job to the intake. It never blocks.
func (r *runner) admit(qrn string) {
	func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.pending = append(r.pending, qrn)
	}()
	select {
	case r.admitCh <- struct{}{}:
	default:
	}
}

// intake moves created jobs to QUEUED. Their requests were checked in full
// at create, so validation here is the status change alone.
func (r *runner) intake() {
	defer r.wg.Done()
	for {
		select {
		case <-r.ctx.Done():
			return // jobs still INITIALIZING are recovered by the next New
		case <-r.admitCh:
		}
		for _, qrn := range r.takePending() {
			if r.queue(qrn, StatusInitializing) {
				r.wake()
			}
		}
	}
}

func (r *runner) takePending() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	batch := r.pending
	r.pending = nil
	return batch
}

// queue moves a job from status from through VALIDATING to QUEUED.
func (r *runner) queue(qrn string, from JobStatus) bool {
	ctx := context.Background()
	if from == StatusInitializing {
		_, err := r.s.store.UpdateJob(ctx, qrn, StatusInitializing, func(j *Job) {
			j.Status, j.UpdatedAt = StatusValidating, r.s.now().UTC()
		}, nil)
		if err != nil {
			r.logUnexpected(err, qrn, "validate")
			return false
		}
		from = StatusValidating
	}
	_, err := r.s.store.UpdateJob(ctx, qrn, from, func(j *Job) {
		now := r.s.now().UTC()
		j.Status, j.UpdatedAt, j.QueuedAt, j.LeaseUntil = StatusQueued, now, now, time.Time{}
	}, nil)
	if err != nil {
		r.logUnexpected(err, qrn, "queue")
		return false
	}
	return true
}

// logUnexpected logs a store error other than a lost race: a job that
// was cancelled or deleted meanwhile is not news.
func (r *runner) logUnexpected(err error, qrn, what string) {
	if err != nil && !errors.Is(err, ErrStatusChanged) && !errors.Is(err, ErrJobNotFound) {
		r.s.log.Error("job transition failed", zap.String("job", qrn), zap.String("step", what), zap.Error(err))
	}
}

func (r *runner) worker() {
	defer r.wg.Done()
	for {
		woken := r.woken() // before claiming, so no wake-up is missed
		if r.ctx.Err() != nil {
			return
		}
		job := r.claim()
		if job == nil {
			select {
			case <-woken:
			case <-r.ctx.Done():
				return
			}
			continue
		}
		r.execute(job)
	}
}

// claim takes the next job that fits the free memory: users take turns,
// and each user's devices take turns, so that neither one user's backlog
// nor one busy device starves the others. A job that does not fit waits at
// the head of its queue and nothing overtakes it (it would starve if small
// jobs kept passing it); the workers then wait until running jobs release
// memory.
func (r *runner) claim() *Job {
	r.claimMu.Lock()
	defer r.claimMu.Unlock()
	queues, err := r.s.store.Queues(r.ctx)
	if err != nil {
		if r.ctx.Err() == nil {
			r.s.log.Error("list queues", zap.Error(err))
		}
		return nil
	}
	queues = slices.DeleteFunc(queues, func(q Queue) bool {
		_, ok := r.s.devices.backendOf(q.Device)
		return !ok // jobs of a device not registered (yet) wait
	})
	for _, q := range r.turn.order(queues) {
		job, err := r.claimFrom(q)
		switch {
		case err == nil:
			r.turn.served(q)
			return job
		case errors.Is(err, ErrNoJob):
			r.turn.unblock(q)
		case errors.Is(err, ErrMemoryShort):
			r.turn.block(q)
			return nil
		default:
			if r.ctx.Err() == nil {
				r.s.log.Error("claim job", zap.String("device", q.Device), zap.Error(err))
			}
			return nil
		}
	}
	return nil
}

// claimFrom claims the head job of q if it fits the memory that is free,
// and reserves that memory for it. A job that needs more than the whole
// budget (stored under a larger one) would wait forever and hold up every
// other: it is claimed at once, reserving nothing, and execute fails it.
func (r *runner) claimFrom(q Queue) (*Job, error) {
	now := r.s.now().UTC()
	c := Claim{Queue: q, MaxMemory: r.s.budget - r.memoryUsed(), Now: now, LeaseUntil: now.Add(r.s.lease)}
	job, err := r.s.store.ClaimJob(r.ctx, c)
	if errors.Is(err, ErrMemoryShort) && job != nil && job.MemoryNeed > r.s.budget {
		c.MaxMemory = math.MaxInt64
		job, err = r.s.store.ClaimJob(r.ctx, c)
	}
	if err != nil {
		return nil, err
	}
	r.reserve(r.reservation(job))
	return job, nil
}

// reservation is the memory a claimed job holds of the budget: its need,
// or nothing for a job too large to ever run.
func (r *runner) reservation(j *Job) int64 {
	if j.MemoryNeed > r.s.budget {
		return 0
	}
	return max(j.MemoryNeed, 0)
}

func (r *runner) memoryUsed() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.memUsed
}

// reserve takes n bytes of the budget for a claimed job.
func (r *runner) reserve(n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.memUsed += n
}

// release gives back what reserve took and wakes the workers, one of
// which may be waiting for that memory.
func (r *runner) release(n int64) {
	func() {
		r.mu.Lock()
		defer r.mu.Unlock()
		r.memUsed -= n
	}()
	r.wake()
}

// execute runs a claimed (RUNNING) job to its end.
func (r *runner) execute(job *Job) {
	qrn := job.JobQRN
	defer r.release(r.reservation(job))
	if job.MemoryNeed > r.s.budget {
		r.finish(job, 0, nil, fmt.Errorf("the job needs %s of memory, more than the service's budget of %s", byteSize(job.MemoryNeed), byteSize(r.s.budget)))
		return
	}
	d, _ := r.s.devices.get(job.DeviceQRN)
	b, _ := r.s.devices.backendOf(job.DeviceQRN)
	prog, err := r.s.store.GetProgram(r.ctx, qrn)
	if err != nil {
		r.finish(job, 0, nil, fmt.Errorf("the job's program could not be read: %w", err))
		return
	}
	seed, _ := seedOption(job.RuntimeOptions)

	ctx, cancel := context.WithCancelCause(r.ctx)
	ctx, cancelTimeout := context.WithTimeoutCause(ctx, r.s.jobTimeout, context.DeadlineExceeded)
	defer cancelTimeout()
	r.track(qrn, cancel)
	defer func() {
		r.untrack(qrn)
		cancel(nil)
	}()
	// A cancel that came between the claim and the line above found no
	// running job to stop: look once more.
	if j, err := r.s.store.GetJob(ctx, qrn); err == nil && j.Status == StatusCancelling {
		cancel(errCancelled)
	}

	start := time.Now()
	res, err := runBackend(ctx, b, Task{JobQRN: qrn, Device: d, Program: *prog, Shots: job.Shots, RuntimeOptions: job.RuntimeOptions, Seed: seed})
	elapsed := time.Since(start)
	if err == nil {
		err = checkCounts(res, job.Shots)
	}
	if err != nil {
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, errShutdown) || r.ctx.Err() != nil:
			r.requeue(qrn)
			return
		case errors.Is(cause, errCancelled):
			r.finishCancel(qrn, elapsed)
			return
		case errors.Is(cause, context.DeadlineExceeded) && ctx.Err() != nil:
			err = fmt.Errorf("execution exceeded the time limit of %v", r.s.jobTimeout)
		}
	}
	r.finish(job, elapsed, res, err)
}

// track notes a job this process runs, with the way to interrupt it.
func (r *runner) track(qrn string, cancel context.CancelCauseFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running[qrn] = cancel
}

func (r *runner) untrack(qrn string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.running, qrn)
}

// runningHere returns the interrupt of a job this process runs.
func (r *runner) runningHere(qrn string) (context.CancelCauseFunc, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	stop, ok := r.running[qrn]
	return stop, ok
}

// runBackend calls the backend, turning a panic in it into an error: a
// user's backend must not take the service down.
func runBackend(ctx context.Context, b Backend, t Task) (res *RunResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("the backend panicked: %v", p)
		}
	}()
	return b.Run(ctx, t)
}

func checkCounts(res *RunResult, shots int) error {
	if res == nil || res.Counts == nil {
		return errors.New("the backend returned no counts")
	}
	total := 0
	for _, n := range res.Counts {
		if n < 0 {
			return errors.New("the backend returned a negative count")
		}
		total += n
	}
	if total != shots {
		return fmt.Errorf("the backend returned counts for %d shots, not %d", total, shots)
	}
	return nil
}

// finish records the end of a job that ran: COMPLETED with its result
// (stored in the same step), or FAILED with why. If the job was cancelled
// meanwhile, it ends CANCELLED instead.
func (r *runner) finish(job *Job, elapsed time.Duration, res *RunResult, runErr error) {
	qrn := job.JobQRN
	d, _ := r.s.devices.get(job.DeviceQRN)
	now := r.s.now().UTC()
	ms := elapsed.Milliseconds()
	var err error
	if runErr == nil {
		_, err = r.s.store.UpdateJob(context.Background(), qrn, StatusRunning, func(j *Job) {
			j.Status, j.UpdatedAt, j.LeaseUntil = StatusCompleted, now, time.Time{}
			j.TimeStamps.EndedAt = &now
			j.TimeStamps.ExecutionDuration = ms
			if d != nil {
				j.Cost = d.cost(j.Shots, elapsed)
			}
			for k, v := range res.Metadata {
				j.Metadata[k] = v
			}
		}, res.Counts)
	} else {
		msg := failMessage(runErr)
		logJobFailure(r.s.log, qrn, runErr)
		_, err = r.s.store.UpdateJob(context.Background(), qrn, StatusRunning, func(j *Job) {
			j.Status, j.UpdatedAt, j.LeaseUntil = StatusFailed, now, time.Time{}
			j.StatusMsg = &msg
			j.TimeStamps.EndedAt = &now
			j.TimeStamps.ExecutionDuration = ms
			j.Cost = 0
		}, nil)
	}
	if errors.Is(err, ErrStatusChanged) {
		r.finishCancel(qrn, elapsed) // a cancel won the race
		return
	}
	r.logUnexpected(err, qrn, "finish")
}

// finishCancel ends a CANCELLING job CANCELLED.
func (r *runner) finishCancel(qrn string, elapsed time.Duration) {
	now := r.s.now().UTC()
	_, err := r.s.store.UpdateJob(context.Background(), qrn, StatusCancelling, func(j *Job) {
		j.Status, j.UpdatedAt, j.LeaseUntil = StatusCancelled, now, time.Time{}
		j.TimeStamps.EndedAt = &now
		j.TimeStamps.ExecutionDuration = elapsed.Milliseconds()
		j.Cost = 0
	}, nil)
	r.logUnexpected(err, qrn, "cancel")
}

// requeue returns an interrupted RUNNING (or CANCELLING) job: to the queue,
// or to CANCELLED if a cancel was asked for.
func (r *runner) requeue(qrn string) {
	_, err := r.s.store.UpdateJob(context.Background(), qrn, StatusRunning, func(j *Job) {
		now := r.s.now().UTC()
		j.Status, j.UpdatedAt, j.QueuedAt, j.LeaseUntil = StatusQueued, now, now, time.Time{}
	}, nil)
	if errors.Is(err, ErrStatusChanged) {
		r.finishCancel(qrn, 0)
		return
	}
	r.logUnexpected(err, qrn, "requeue")
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
	if stop, ok := r.runningHere(qrn); ok {
		stop(errCancelled)
	}
	// Not running here: another process holds it, or its worker is just
	// finishing and will see CANCELLING. The sweeper ends it if its lease
	// expires.
}
