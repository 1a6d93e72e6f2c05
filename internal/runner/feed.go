package runner

import (
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
	"go.uber.org/zap"
)

// watch follows the store's change feed for as long as the Service runs,
// listening again (with backoff) whenever the feed fails.
func (r *Runner) watch(feed storage.ChangeFeed) {
	defer r.wg.Done()
	retry := backoff{base: r.s.retryBase}
	for r.ctx.Err() == nil {
		err := feed.WatchChanges(r.ctx, func(c storage.Change) {
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
func (r *Runner) changed(c storage.Change) {
	if c.Controls {
		r.reloadControls()
		return
	}
	if c.JobQRN == "" {
		r.reloadControls() // their changes may have been missed too
		// Changes may have been missed: look for work, for cancels of the
		// jobs that run here, and tell the watchers to read again.
		r.s.notes.Missed()
		r.Wake()
		r.recheckCancels()
		return
	}
	r.s.notes.Publish(c.JobQRN, c.Owner, nil)
	switch {
	case c.Status == qtype.StatusQueued:
		r.Wake()
	case c.Status == qtype.StatusCancelling:
		r.stopOrNote(c.JobQRN)
	}
}

// recheckCancels stops the jobs running here that a cancel reached while
// the feed was not listening.
func (r *Runner) recheckCancels() {
	for _, qrn := range r.RunningQRNs() {
		j, err := r.s.store.GetJob(r.ctx, qrn)
		if err == nil && j.Status == qtype.StatusCancelling {
			if stop, ok := r.runningHere(qrn); ok {
				stop(errCancelled)
			}
		}
	}
}
