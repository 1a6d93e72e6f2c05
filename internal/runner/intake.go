package runner

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// The intake moves created jobs to QUEUED, in one write: their requests
// were checked in full at create, so a job has nothing left to validate
// and goes from INITIALIZING to QUEUED without being stored VALIDATING
// (a job an earlier build left VALIDATING goes on to QUEUED). It is a few
// goroutines fed by a bounded channel: a burst of creates that overflows
// the channel costs no memory, because the store is the backlog. An
// overflow, or a job the sweeper finds waiting too long, makes one intake
// goroutine read the jobs still before the queue from the store and feed
// them in again.

const (
	intakeWorkers = 4
	intakeBuffer  = 1024
)

// Admit hands a new job to the intake. It never blocks.
func (r *Runner) Admit(qrn string) {
	select {
	case r.admitCh <- qrn:
	default:
		r.rescan()
	}
}

// rescan asks the intake to look in the store for jobs before the queue.
func (r *Runner) rescan() {
	r.backlog.Store(true)
	select {
	case r.kick <- struct{}{}:
	default:
	}
}

func (r *Runner) intake() {
	defer r.wg.Done()
	for {
		select {
		case <-r.ctx.Done():
			return // jobs still INITIALIZING are recovered by the next New
		case qrn := <-r.admitCh:
			r.admitted(qrn, qtype.StatusInitializing)
		case <-r.kick:
		}
		if len(r.admitCh) == 0 && r.backlog.CompareAndSwap(true, false) {
			r.feedBacklog(time.Time{})
		}
	}
}

// admitted queues a job and wakes the workers.
func (r *Runner) admitted(qrn string, from qtype.JobStatus) {
	if r.queue(r.ctx, qrn, from) {
		r.Wake()
	}
}

// feedBacklog queues the jobs the store holds INITIALIZING or VALIDATING
// that last changed before the given time (zero: any), oldest first, a
// batch at a time.
func (r *Runner) feedBacklog(before time.Time) {
	for r.ctx.Err() == nil {
		jobs, err := r.s.store.Unfinished(r.ctx, []qtype.JobStatus{qtype.StatusInitializing, qtype.StatusValidating}, before, sweepBatch)
		if err != nil {
			if r.ctx.Err() == nil {
				r.s.log.Warn("read jobs waiting to be queued; the sweeper retries")
			}
			return
		}
		r.admitAll(jobs)
		if len(jobs) < sweepBatch {
			return
		}
	}
}

// admitAll queues jobs with intakeWorkers goroutines.
func (r *Runner) admitAll(jobs []*storage.JobRecord) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(intakeWorkers, len(jobs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := next.Add(1) - 1; i < int64(len(jobs)) && r.ctx.Err() == nil; i = next.Add(1) - 1 {
				r.admitted(jobs[i].JobQRN, jobs[i].Status)
			}
		}()
	}
	wg.Wait()
}

// queue moves a job from status from (INITIALIZING, or VALIDATING) to
// QUEUED.
func (r *Runner) queue(ctx context.Context, qrn string, from qtype.JobStatus) bool {
	_, err := r.s.store.UpdateJob(ctx, qrn, from, func(j *storage.JobRecord) {
		now := r.s.now().UTC()
		j.Status, j.UpdatedAt, j.QueuedAt, j.LeaseUntil = qtype.StatusQueued, now, now, time.Time{}
	}, nil)
	if err != nil {
		r.logUnexpected(ctx, err, qrn, "queue")
		return false
	}
	return true
}
