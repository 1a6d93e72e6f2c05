package runner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
	"go.uber.org/zap"
)

// Fair shares: while other users' jobs wait, no user's claimed jobs hold
// more than a share (WithFairShare) of the memory budget or of the
// workers, so that one user's large jobs cannot keep another's small one
// waiting for minutes. When nobody else waits, a user may use it all.
//
//   - A claim made while other users' jobs wait keeps its user within the
//     share; a queue whose head would pass it is passed over, not waited
//     on. A job larger than a whole share runs when no other user's job
//     waits, or when this process runs nothing at all (so that two users'
//     large jobs cannot keep each other waiting for ever).
//   - Jobs claimed while nobody waited are preemptible: when another
//     user's job comes to wait, the governor returns the newest of them to
//     the queue (their run does not count as an attempt) until their user
//     is within the share again, within governEvery.
//   - A run that grows (Task.Grow: the sparse method) past its user's
//     share while other users' jobs wait ends FAILED; one that grows past
//     what is free of the budget goes back to the queue, to be claimed
//     again once that much is free.
//
// Shares are of this process's budget and workers; the waiting jobs are
// those of the whole store, every node's.

// governEvery is how often the governor looks for users past their share.
const governEvery = 250 * time.Millisecond

// shareMemory is the memory one user may hold while others wait.
func (r *Runner) shareMemory() int64 { return int64(float64(r.s.budget) * r.s.share) }

// shareWorkers is how many jobs one user may run while others wait: at
// least one.
func (r *Runner) shareWorkers() int { return max(1, int(float64(r.s.workers)*r.s.share)) }

// waiting returns the users with QUEUED jobs on devices that take jobs.
func (r *Runner) waiting(ctx context.Context) ([]string, error) {
	queues, err := r.s.store.Queues(ctx)
	if err != nil {
		return nil, err
	}
	var owners []string
	for _, q := range r.takingQueues(queues) {
		if !slices.Contains(owners, q.Owner) {
			owners = append(owners, q.Owner)
		}
	}
	return owners, nil
}

// takingQueues drops the queues of devices that are not registered (yet),
// OFFLINE, UNAVAILABLE or held: their jobs wait for the device, not for a
// worker.
func (r *Runner) takingQueues(queues []storage.Queue) []storage.Queue {
	return slices.DeleteFunc(queues, func(q storage.Queue) bool { return !r.s.devices.Takes(q.Device) })
}

// othersAmong reports whether users other than owner are among owners.
func othersAmong(owners []string, owner string) bool {
	return slices.ContainsFunc(owners, func(o string) bool { return o != owner })
}

// noteContention says whether the users with jobs waiting and those with
// jobs held here are more than one: claims are then made one at a time,
// each within its user's share (runner.claim), rather than in batches.
func (r *Runner) noteContention(waiting []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	users := len(waiting)
	for o := range r.usage {
		if !slices.Contains(waiting, o) {
			users++
		}
	}
	r.contended.Store(len(waiting) > 0 && users > 1)
}

// errPreempted is the cause of a run stopped to make room for another
// user's job: the job goes back to the queue.
var errPreempted = errors.New("preempted for another user's job")

// shareExceeded is the cause of a run that would grow past its user's
// share while other users' jobs wait: the job ends FAILED.
type shareExceeded struct{ held, want, share int64 }

func (e *shareExceeded) Error() string {
	return fmt.Sprintf("the job's memory would grow past its user's share of the memory budget while other users' jobs wait: "+
		"its user's jobs hold %s and it asked for %s more, where the share is %s (WithFairShare, the server's -fair-share); "+
		"it can run when no other user's job waits", qtype.ByteSize(e.held), qtype.ByteSize(e.want), qtype.ByteSize(e.share))
}

// memoryShort is the cause of a run that would grow past what is free of
// the budget: the job goes back to the queue, to start again holding
// need.
type memoryShort struct{ need int64 }

func (e *memoryShort) Error() string {
	return fmt.Sprintf("the job needs %s of memory, more than is free now", qtype.ByteSize(e.need))
}

// grow is Task.Grow for the job qrn: it grants delta bytes more when they
// fit what is free and its user's share (or nobody else waits); else it
// stops the run with the cause that says what becomes of the job, and
// returns it.
func (r *Runner) grow(qrn string, delta int64) error {
	if delta <= 0 {
		return nil
	}
	share := r.shareMemory()
	owner, held, done := r.growWithinShare(qrn, delta, share)
	if done {
		return nil
	}
	var cause error
	if held+delta > share {
		waiting, err := r.waiting(r.ctx)
		if err == nil && othersAmong(waiting, owner) {
			r.noteContention(waiting)
			cause = &shareExceeded{held: held, want: delta, share: share}
		}
	}
	if cause == nil {
		need, granted := r.growWithinBudget(qrn, delta)
		if granted {
			return nil
		}
		cause = &memoryShort{need: need}
	}
	if stop, ok := r.runningHere(qrn); ok {
		stop(cause)
	}
	return cause
}

// growWithinShare grants the job delta bytes more when they fit its
// user's share and what is free, and says what its user holds; done is
// true too for a job not held here (a test's own call: nothing to
// account).
func (r *Runner) growWithinShare(qrn string, delta, share int64) (owner string, held int64, done bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.holds[qrn]
	if h == nil {
		return "", 0, true
	}
	owner, held = h.owner, r.usage[h.owner].memory
	if held+delta <= share && r.memUsed+delta <= r.s.budget {
		r.addGrowth(h, qrn, delta)
		return owner, held, true
	}
	return owner, held, false
}

// growWithinBudget grants the job delta bytes more when they fit what is
// free, whatever its user's share; else need is what the job would hold.
func (r *Runner) growWithinBudget(qrn string, delta int64) (need int64, granted bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	h := r.holds[qrn]
	if h != nil && r.memUsed+delta <= r.s.budget {
		r.addGrowth(h, qrn, delta)
		return 0, true
	}
	need = delta
	if h != nil {
		need += h.memory
	}
	return need, false
}

// addGrowth grants a job's run delta bytes more (r.mu held).
func (r *Runner) addGrowth(h *hold, qrn string, delta int64) {
	r.addHold(qrn, delta)
	h.grown += delta
}

// governor returns preemptible jobs to the queue while their users hold
// more than a share and other users' jobs wait.
func (r *Runner) governor() { r.every(governEvery, r.govern) }

func (r *Runner) govern() {
	over := r.overShare()
	if len(over) == 0 && !r.contended.Load() {
		return // nobody to hold back: no need to ask the store
	}
	waiting, err := r.waiting(r.ctx)
	if err != nil {
		if r.ctx.Err() == nil {
			r.s.log.Warn("look for waiting users", zap.Error(err))
		}
		return
	}
	r.noteContention(waiting)
	for _, owner := range over {
		if othersAmong(waiting, owner) {
			r.preempt(owner)
		}
	}
}

// overShare lists the users whose claimed jobs hold more than a share.
func (r *Runner) overShare() []string {
	mem, workers := r.shareMemory(), r.shareWorkers()
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for o, u := range r.usage {
		if u.memory > mem || u.jobs > workers {
			out = append(out, o)
		}
	}
	return out
}

// preempt returns owner's newest preemptible jobs to the queue until
// owner is within the share: those claimed but not yet handed to a worker
// at once, the running ones through their run's context.
func (r *Runner) preempt(owner string) {
	mem, workers := r.shareMemory(), r.shareWorkers()
	r.returnReady(owner)
	for _, stop := range r.runsToPreempt(owner, mem, workers) {
		stop(errPreempted)
	}
}

// runsToPreempt marks owner's newest preemptible running jobs, until the
// rest are within mem and workers, as stopped once, and returns their
// stops.
func (r *Runner) runsToPreempt(owner string, mem int64, workers int) []context.CancelCauseFunc {
	r.mu.Lock()
	defer r.mu.Unlock()
	type victim struct {
		qrn string
		h   hold
	}
	var mine []victim
	for qrn, h := range r.holds {
		if h.owner == owner && h.preemptible {
			mine = append(mine, victim{qrn, *h})
		}
	}
	slices.SortFunc(mine, func(a, b victim) int { return cmp.Compare(b.h.seq, a.h.seq) })
	u := *r.usage[owner]
	var stops []context.CancelCauseFunc
	for _, v := range mine {
		if u.memory <= mem && u.jobs <= workers {
			break
		}
		stop, ok := r.running[v.qrn]
		if !ok {
			continue
		}
		stops = append(stops, stop)
		u.memory -= v.h.memory
		u.jobs--
		r.holds[v.qrn].preemptible = false // stopped once
		r.s.log.Info("preempting a job for other users' jobs", zap.String("job", v.qrn), zap.String("user", owner))
	}
	return stops
}
