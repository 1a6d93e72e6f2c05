package quantum

import (
	"context"
	"time"

	"go.uber.org/zap"
)

// ChangeFeed is implemented by a Store that several Services share, each
// one a node: it tells every node about the status changes that any of
// them makes. A job queued on one node then wakes the idle workers of all
// at once, and a cancel received by one node stops the job on the node
// that runs it.
type ChangeFeed interface {
	// WatchChanges calls fn with every change of a job's status in the
	// store, made by any node, until ctx ends or the feed fails, and
	// returns what stopped it. Once it listens it calls fn with a zero
	// Change, meaning that changes before it may have been missed, so the
	// caller looks at the store again. fn is called on the goroutine that
	// called WatchChanges, and should return quickly.
	WatchChanges(ctx context.Context, fn func(Change)) error
}

// Change is a job's move to a new status (or its creation), as a
// ChangeFeed reports it.
type Change struct {
	JobQRN    string
	DeviceQRN string
	Owner     string
	Status    JobStatus
}

// watch follows the store's change feed for as long as the Service runs,
// listening again (with backoff) whenever the feed fails.
func (r *runner) watch(feed ChangeFeed) {
	defer r.wg.Done()
	retry := backoff{base: r.s.retryBase}
	for r.ctx.Err() == nil {
		err := feed.WatchChanges(r.ctx, func(c Change) {
			if c.JobQRN == "" {
				retry.reset()
				r.feedUp.Store(true)
			}
			r.changed(c)
		})
		r.batch.feedGen.Add(1) // before feedUp: see markClaim
		r.feedUp.Store(false)
		if r.ctx.Err() != nil {
			return
		}
		wait := max(retry.next(), time.Second)
		r.s.log.Warn("the store's change feed stopped; listening again", zap.Duration("in", wait), zap.Error(err))
		if !r.sleep(wait, nil) {
			return
		}
	}
}

// changed acts on one change from the feed.
func (r *runner) changed(c Change) {
	if c.JobQRN == "" {
		// Changes may have been missed: look for work, for cancels of the
		// jobs that run here, and tell the watchers to read again.
		r.s.notes.missed()
		r.wake()
		r.recheckCancels()
		return
	}
	r.s.notes.publish(c.JobQRN, c.Owner, nil)
	switch {
	case c.Status == StatusQueued:
		r.wake()
	case c.Status == StatusCancelling:
		r.stopOrNote(c.JobQRN)
	}
}

// recheckCancels stops the jobs running here that a cancel reached while
// the feed was not listening.
func (r *runner) recheckCancels() {
	for _, qrn := range r.runningQRNs() {
		j, err := r.s.store.GetJob(r.ctx, qrn)
		if err == nil && j.Status == StatusCancelling {
			if stop, ok := r.runningHere(qrn); ok {
				stop(errCancelled)
			}
		}
	}
}
