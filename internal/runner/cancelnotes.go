package runner

import (
	"context"
	"time"

	"github.com/qjobs/quantum/qtype"
)

// A cancel of a RUNNING job stops it through the runner's table of the
// jobs it runs. One that comes between the claim and the moment the run
// is tracked finds nothing to stop: the runner notes it (stopOrNote), and
// the run, once tracked, looks at the notes (cancelledBeforeRun). A run
// looks in the store instead only when a cancel may have passed the
// notes: the store is shared and its change feed was not listening all
// the while since the claim, or the claim is older than the notes last.

// noteTTL is how long a cancel of a job not running here is noted.
const noteTTL = time.Minute

// maxNotes is how many notes are kept before the old ones are dropped.
const maxNotes = 1024

// claimMark is what the runner knew of the change feed when it claimed a
// job: whether every cancel since has reached stopOrNote.
type claimMark struct {
	at     time.Time
	feedUp bool
	gen    uint64
}

// markClaim notes the state of the change feed before a claim.
func (r *Runner) markClaim() claimMark {
	gen := r.batch.feedGen.Load() // before feedUp: a feed that stops counts first
	return claimMark{at: time.Now(), feedUp: r.feedUp.Load(), gen: gen}
}

// heard reports whether every cancel made since m was taken has reached
// stopOrNote: in a store of its own every cancel is this Service's; in a
// shared one, the change feed brings the others', if it listened all the
// while.
func (r *Runner) heard(m claimMark) bool {
	if time.Since(m.at) > noteTTL/2 {
		return false
	}
	if r.s.exclusive {
		return true
	}
	return m.feedUp && r.feedUp.Load() && r.batch.feedGen.Load() == m.gen
}

// stopOrNote stops the job if it runs here, and notes its cancel
// otherwise.
func (r *Runner) stopOrNote(qrn string) {
	if stop, ok := r.runningOrNoted(qrn); ok {
		stop(errCancelled)
	}
}

// runningOrNoted returns the stop of the job if it runs here; else it
// notes the job's cancel.
func (r *Runner) runningOrNoted(qrn string) (stop context.CancelCauseFunc, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if stop, ok := r.running[qrn]; ok {
		return stop, true
	}
	b := &r.batch
	if b.notes == nil {
		b.notes = map[string]time.Time{}
	}
	now := time.Now()
	if len(b.notes) >= maxNotes {
		for k, at := range b.notes {
			if now.Sub(at) > noteTTL {
				delete(b.notes, k)
			}
		}
	}
	if len(b.notes) < 2*maxNotes {
		b.notes[qrn] = now
	}
	return nil, false
}

// cancelledBeforeRun reports whether a cancel of the job, now tracked,
// came before it was: from the notes when they are sure to hold it, from
// the store otherwise.
func (r *Runner) cancelledBeforeRun(ctx context.Context, qrn string) bool {
	noted, m, marked := r.takeNote(qrn)
	if noted {
		return true
	}
	if marked && r.heard(m) {
		return false
	}
	j, err := r.s.store.GetJob(ctx, qrn)
	return err == nil && j.Status == qtype.StatusCancelling
}

// takeNote removes and returns what the runner noted of the job: a
// cancel, and the mark of its claim.
func (r *Runner) takeNote(qrn string) (noted bool, m claimMark, marked bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := &r.batch
	_, noted = b.notes[qrn]
	delete(b.notes, qrn)
	m, marked = b.marks[qrn]
	delete(b.marks, qrn)
	return noted, m, marked
}

// markClaimed keeps m for a job just claimed, until its run starts.
func (r *Runner) markClaimed(qrn string, m claimMark) {
	r.mu.Lock()
	defer r.mu.Unlock()
	b := &r.batch
	if b.marks == nil {
		b.marks = map[string]claimMark{}
	}
	b.marks[qrn] = m
}

// forgetMark drops the mark of a job whose run did not look at it.
func (r *Runner) forgetMark(qrn string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.batch.marks, qrn)
}
