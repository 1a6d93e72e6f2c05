package runner

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"math/rand/v2"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
	"go.uber.org/zap"
)

// A store call that fails for a reason that may pass (a timeout, a full
// disk being cleared, a lost connection) is tried storeAttempts times in
// all, waiting between tries from retryBase, doubling, up to retryMax.
const (
	storeAttempts = 6
	retryBase     = 50 * time.Millisecond
	retryMax      = 5 * time.Second
)

// backoff gives growing waits with jitter, so that workers retrying
// against one store do not retry in step.
type backoff struct {
	base time.Duration // the first wait; 0 means retryBase
	n    int
}

func (b *backoff) next() time.Duration {
	base := b.base
	if base <= 0 {
		base = retryBase
	}
	d := min(base<<min(b.n, 16), retryMax)
	b.n++
	return d/2 + rand.N(d/2+1)
}

func (b *backoff) reset() { b.n = 0 }

// permanent reports whether retrying a store call that failed with err
// cannot help.
func permanent(err error) bool {
	return errors.Is(err, storage.ErrStatusChanged) || errors.Is(err, storage.ErrJobNotFound) || errors.Is(err, storage.ErrTooLarge) ||
		errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// retrying calls fn until it succeeds, fails for good, ctx ends, or fn
// has failed storeAttempts times.
func retrying[T any](ctx context.Context, r *Runner, what, qrn string, fn func() (T, error)) (T, error) {
	retry := backoff{base: r.s.retryBase}
	for attempt := 1; ; attempt++ {
		v, err := fn()
		if err == nil || permanent(err) || attempt == storeAttempts {
			return v, err
		}
		wait := retry.next()
		r.s.log.Warn("store call failed; retrying", zap.String("job", qrn), zap.String("step", what),
			zap.Int("attempt", attempt), zap.Duration("in", wait), zap.Error(err))
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return v, err
		}
	}
}

// update changes a job, retrying as retrying does. It runs on after the
// Service begins to close: an end that happened is recorded.
func (r *Runner) update(what, qrn string, expect qtype.JobStatus, change func(*storage.JobRecord), result *qtype.Result) (*storage.JobRecord, error) {
	return retrying(context.Background(), r, what, qrn, func() (*storage.JobRecord, error) {
		return r.s.store.UpdateJob(context.Background(), qrn, expect, change, result)
	})
}

// finish records the end of a job that ran: COMPLETED with its result
// (stored in the same step), or FAILED with why. If the job was cancelled
// meanwhile, it ends CANCELLED instead. A result the store cannot take,
// or a store that keeps failing, ends the job FAILED rather than leave it
// RUNNING to be run again; if even that cannot be recorded, the job is
// run again once its lease expires, at most WithMaxAttempts times.
func (r *Runner) finish(job *storage.JobRecord, elapsed time.Duration, out *ran, runErr error) {
	qrn := job.JobQRN
	r.unholdJob(qrn) // its memory is free before its end is seen
	ms := elapsed.Milliseconds()
	if runErr == nil {
		d, _ := r.s.devices.Get(job.DeviceQRN)
		meta := out.metadata
		_, err := r.update("record the result", qrn, qtype.StatusRunning, func(j *storage.JobRecord) {
			now := r.s.now().UTC()
			j.Status, j.UpdatedAt, j.LeaseUntil = qtype.StatusCompleted, now, time.Time{}
			j.TimeStamps.EndedAt = &now
			j.TimeStamps.ExecutionDuration = ms
			switch {
			case d == nil:
			case out.result.Circuits != nil:
				j.Cost = d.BatchCost(out.result.Circuits)
			default:
				j.Cost = d.Cost(j.Shots, elapsed)
			}
			// A new map: the record's own is the stored job's.
			merged := make(map[string]any, len(j.Metadata)+len(meta))
			maps.Copy(merged, j.Metadata)
			for k, v := range meta {
				merged[k] = v
			}
			j.Metadata = merged
		}, out.result)
		switch {
		case err == nil:
			r.s.obs.JobEnded(job.DeviceQRN, qtype.StatusCompleted, "", elapsed)
			return
		case errors.Is(err, storage.ErrJobNotFound):
			return
		case errors.Is(err, storage.ErrStatusChanged):
			r.finishCancel(qrn, elapsed) // a cancel won the race
			return
		case errors.Is(err, storage.ErrTooLarge):
			runErr = failed(qtype.FailResult, fmt.Errorf("the result could not be stored: %w", err))
		default:
			r.s.log.Error("recording a job's result failed; the job ends FAILED", zap.String("job", qrn), zap.Error(err))
			runErr = failed(qtype.FailStore, errors.New("the result could not be recorded: the job store kept failing"))
		}
	}
	msg := failMessage(runErr)
	logJobFailure(r.s.log, qrn, runErr)
	_, err := r.update("record the failure", qrn, qtype.StatusRunning, func(j *storage.JobRecord) {
		now := r.s.now().UTC()
		j.Status, j.UpdatedAt, j.LeaseUntil = qtype.StatusFailed, now, time.Time{}
		j.StatusMsg = &msg
		j.TimeStamps.EndedAt = &now
		j.TimeStamps.ExecutionDuration = ms
		j.Cost = 0
	}, nil)
	switch {
	case err == nil:
		r.s.obs.JobEnded(job.DeviceQRN, qtype.StatusFailed, failReason(runErr), elapsed)
	case errors.Is(err, storage.ErrStatusChanged):
		r.finishCancel(qrn, elapsed)
	case err != nil && !errors.Is(err, storage.ErrJobNotFound):
		r.s.log.Error("the end of a job could not be recorded; it runs again once its lease expires, up to the attempt limit",
			zap.String("job", qrn), zap.Error(err))
	}
}

// finishCancel ends a CANCELLING job CANCELLED.
func (r *Runner) finishCancel(qrn string, elapsed time.Duration) {
	j, err := r.update("record the cancel", qrn, qtype.StatusCancelling, func(j *storage.JobRecord) {
		now := r.s.now().UTC()
		j.Status, j.UpdatedAt, j.LeaseUntil = qtype.StatusCancelled, now, time.Time{}
		j.TimeStamps.EndedAt = &now
		j.TimeStamps.ExecutionDuration = elapsed.Milliseconds()
		j.Cost = 0
	}, nil)
	if err == nil {
		r.s.obs.JobEnded(j.DeviceQRN, qtype.StatusCancelled, "", elapsed)
	}
	r.logUnexpected(context.Background(), err, qrn, "cancel")
}

// requeue returns a RUNNING job to the queue, or to CANCELLED if a cancel
// was asked for meanwhile. A run the Service stopped on purpose (Close)
// gives its attempt back; a run whose lease expired keeps it counted.
func (r *Runner) requeue(qrn string, stopped bool) { r.sendBack(qrn, stopped, false, 0) }

// requeueNeeding returns a RUNNING job that was stopped for other jobs
// (shares.go) to the queue, at its place (its QueuedAt kept), its attempt
// given back, needing need bytes when it is claimed again: what its run
// had grown to, so that it starts again holding it.
func (r *Runner) requeueNeeding(qrn string, need int64) { r.sendBack(qrn, true, true, need) }

// sendBack is requeue and requeueNeeding: stopped gives the attempt back,
// atPlace keeps the job's place in its queue, need raises its need.
func (r *Runner) sendBack(qrn string, stopped, atPlace bool, need int64) {
	_, err := r.update("requeue", qrn, qtype.StatusRunning, func(j *storage.JobRecord) {
		now := r.s.now().UTC()
		j.Status, j.UpdatedAt, j.LeaseUntil = qtype.StatusQueued, now, time.Time{}
		if !atPlace {
			j.QueuedAt = now
		}
		j.MemoryNeed = max(j.MemoryNeed, need)
		if stopped && j.Attempts > 0 {
			j.Attempts--
		}
	}, nil)
	if errors.Is(err, storage.ErrStatusChanged) {
		r.finishCancel(qrn, 0)
		return
	}
	r.logUnexpected(context.Background(), err, qrn, "requeue")
}
