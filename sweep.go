package quantum

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"

	"go.uber.org/zap"
)

// sweepBatch bounds the jobs one sweep looks at per status group.
const sweepBatch = 10_000

// recover runs once when the Service starts: jobs a previous process left
// INITIALIZING or VALIDATING are queued (they were checked at create and
// their programs are stored); RUNNING jobs whose lease has expired go back
// to the queue, and CANCELLING ones become CANCELLED. Jobs whose lease is
// still live may belong to another process sharing the store: the sweeper
// takes them over if the lease expires.
func (r *runner) recover(ctx context.Context) error {
	for {
		jobs, err := r.s.store.Unfinished(ctx, []JobStatus{StatusInitializing, StatusValidating}, time.Time{}, sweepBatch)
		if err != nil {
			return err
		}
		for _, j := range jobs {
			r.queue(j.JobQRN, j.Status)
		}
		if len(jobs) < sweepBatch {
			break
		}
	}
	if ex, ok := r.s.store.(ExclusiveStore); ok && ex.Exclusive() {
		return r.takeOver(ctx, time.Time{}) // no other process can hold a lease
	}
	return r.takeOverExpired(ctx)
}

// takeOverExpired requeues RUNNING jobs and ends CANCELLING ones whose
// lease has expired and that this process does not run.
func (r *runner) takeOverExpired(ctx context.Context) error { return r.takeOver(ctx, r.s.now()) }

// takeOver requeues RUNNING jobs and ends CANCELLING ones whose lease ends
// before now (zero: every one) and that this process does not run.
func (r *runner) takeOver(ctx context.Context, now time.Time) error {
	jobs, err := r.s.store.Unfinished(ctx, []JobStatus{StatusRunning, StatusCancelling}, time.Time{}, sweepBatch)
	if err != nil {
		return err
	}
	for _, j := range jobs {
		_, mine := r.runningHere(j.JobQRN)
		if mine || !now.IsZero() && j.LeaseUntil.After(now) {
			continue
		}
		if j.Status == StatusRunning {
			r.requeue(j.JobQRN)
			r.s.log.Warn("requeued a job whose lease expired", zap.String("job", j.JobQRN))
		} else {
			r.finishCancel(j.JobQRN, 0)
		}
	}
	if len(jobs) > 0 {
		r.wake()
	}
	return nil
}

// sweeper renews the leases of this process's running jobs, takes over
// expired ones, and fails jobs stuck before the queue past the job timeout.
func (r *runner) sweeper() {
	defer r.wg.Done()
	every := min(r.s.lease/3, 10*time.Second, r.s.jobTimeout/2)
	t := time.NewTicker(max(every, 10*time.Millisecond))
	defer t.Stop()
	for {
		select {
		case <-r.ctx.Done():
			return
		case <-t.C:
		}
		r.renewLeases()
		if err := r.takeOverExpired(r.ctx); err != nil && r.ctx.Err() == nil {
			r.s.log.Error("sweep expired leases", zap.Error(err))
		}
		r.failStuck()
	}
}

func (r *runner) renewLeases() {
	for _, qrn := range r.runningQRNs() {
		for _, st := range []JobStatus{StatusRunning, StatusCancelling} {
			_, err := r.s.store.UpdateJob(context.Background(), qrn, st, func(j *Job) {
				j.LeaseUntil = r.s.now().UTC().Add(r.s.lease)
			}, nil)
			if !errors.Is(err, ErrStatusChanged) {
				r.logUnexpected(err, qrn, "renew lease")
				break
			}
		}
	}
}

func (r *runner) runningQRNs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Collect(maps.Keys(r.running))
}

// failStuck fails jobs that have stayed INITIALIZING or VALIDATING longer
// than the job timeout. (A RUNNING job's own context carries the timeout.)
func (r *runner) failStuck() {
	before := r.s.now().Add(-r.s.jobTimeout)
	jobs, err := r.s.store.Unfinished(r.ctx, []JobStatus{StatusInitializing, StatusValidating}, before, sweepBatch)
	if err != nil {
		if r.ctx.Err() == nil {
			r.s.log.Error("sweep stuck jobs", zap.Error(err))
		}
		return
	}
	msg := fmt.Sprintf("the job was not queued within the time limit of %v", r.s.jobTimeout)
	for _, j := range jobs {
		now := r.s.now().UTC()
		_, err := r.s.store.UpdateJob(context.Background(), j.JobQRN, j.Status, func(j *Job) {
			j.Status, j.UpdatedAt = StatusFailed, now
			j.StatusMsg = &msg
			j.TimeStamps.EndedAt = &now
		}, nil)
		r.logUnexpected(err, j.JobQRN, "fail stuck")
	}
}
