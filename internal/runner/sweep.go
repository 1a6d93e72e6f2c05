package runner

import (
	"context"
	"errors"
	"maps"
	"slices"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
	"go.uber.org/zap"
)

// sweepBatch bounds the jobs one sweep looks at per status group.
const sweepBatch = 10_000

// Recover runs once when the Service starts: jobs a previous process left
// INITIALIZING or VALIDATING are handed to the intake, which queues them
// once it starts (they were checked at create and their programs are
// stored); RUNNING jobs whose lease has expired go back to the queue (the
// run counts as an attempt), and CANCELLING ones become CANCELLED. Jobs
// whose lease is still live may belong to another process sharing the
// store: the sweeper takes them over if the lease expires.
func (r *Runner) Recover(ctx context.Context) error {
	r.rescan()
	if r.s.exclusive {
		return r.takeOver(ctx, time.Time{}) // no other process can hold a lease
	}
	return r.takeOverExpired(ctx)
}

// takeOverExpired requeues RUNNING jobs and ends CANCELLING ones whose
// lease has expired and that this process does not run.
func (r *Runner) takeOverExpired(ctx context.Context) error { return r.takeOver(ctx, r.s.now()) }

// takeOver requeues RUNNING jobs and ends CANCELLING ones whose lease ends
// before now (zero: every one) and that this process does not run.
func (r *Runner) takeOver(ctx context.Context, now time.Time) error {
	jobs, err := r.s.store.Unfinished(ctx, []qtype.JobStatus{qtype.StatusRunning, qtype.StatusCancelling}, time.Time{}, sweepBatch)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		_, mine := r.runningHere(j.JobQRN)
		if mine || !now.IsZero() && j.LeaseUntil.After(now) {
			continue
		}
		if j.Status == qtype.StatusRunning {
			r.requeue(j.JobQRN, false)
			r.s.log.Warn("requeued a job whose lease expired", zap.String("job", j.JobQRN))
		} else {
			r.finishCancel(j.JobQRN, 0)
		}
	}
	if len(jobs) > 0 {
		r.Wake()
	}
	return nil
}

// sweeper renews the leases of this process's running jobs, takes over
// expired ones, and hands the intake jobs that wait too long before the
// queue (their admission was dropped, or the store failed meanwhile).
func (r *Runner) sweeper() {
	every := min(r.s.lease/3, 10*time.Second, r.s.jobTimeout/2)
	r.every(max(every, 10*time.Millisecond), func() {
		r.renewLeases()
		if err := r.takeOverExpired(r.ctx); err != nil && r.ctx.Err() == nil {
			r.s.log.Error("sweep expired leases", zap.Error(err))
		}
		r.findWaiting()
	})
}

// every calls fn every d until the Service closes; it is a goroutine of
// the runner's wait group.
func (r *Runner) every(d time.Duration, fn func()) {
	defer r.wg.Done()
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-t.C:
		}
		fn()
	}
}

func (r *Runner) renewLeases() {
	for _, qrn := range r.RunningQRNs() {
		for _, st := range []qtype.JobStatus{qtype.StatusRunning, qtype.StatusCancelling} {
			_, err := r.s.store.UpdateJob(context.Background(), qrn, st, func(j *storage.JobRecord) {
				j.LeaseUntil = r.s.now().UTC().Add(r.s.lease)
			}, nil)
			if !errors.Is(err, storage.ErrStatusChanged) {
				r.logUnexpected(r.ctx, err, qrn, "renew lease")
				break
			}
		}
	}
}

func (r *Runner) RunningQRNs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Collect(maps.Keys(r.running))
}

// findWaiting asks the intake to read the store again when some job has
// stayed INITIALIZING or VALIDATING longer than a lease.
func (r *Runner) findWaiting() {
	jobs, err := r.s.store.Unfinished(r.ctx, []qtype.JobStatus{qtype.StatusInitializing, qtype.StatusValidating}, r.s.now().Add(-r.s.lease), 1)
	switch {
	case err != nil:
		if r.ctx.Err() == nil {
			r.s.log.Warn("look for jobs waiting to be queued", zap.Error(err))
		}
	case len(jobs) > 0:
		r.rescan()
	}
}
