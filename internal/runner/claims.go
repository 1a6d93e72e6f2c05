package runner

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// claimBatch is the runner's side of a BatchClaimer store: a worker that
// looks for work claims at once a job for each free worker, in the turns
// that successive claims would take, within the free memory, in one call
// to the store; the jobs it does not run itself wait in ready for the
// other workers, whom it wakes. The programs come with the claim, so a
// run reads nothing more before it starts.
type claimBatch struct {
	once sync.Once
	bc   storage.BatchClaimer // nil: the store claims one job at a time

	ready []*storage.JobRecord // claimed, not yet handed to a worker; the runner's claimMu guards it
	busy  atomic.Int64         // jobs handed to workers and not yet ended

	mu       sync.Mutex
	programs map[string]*qtype.Program // programs that came with claims, until their runs read them

	// For the cancels that come between a claim and its run
	// (cancelnotes.go); the runner's mu guards notes and marks.
	feedGen atomic.Uint64 // counts the change feed's stops
	notes   map[string]time.Time
	marks   map[string]claimMark
}

// maxTurnOwners bounds the users whose last device served the turns
// remember.
const maxTurnOwners = 1024

// batchClaimer returns the store's BatchClaimer, or nil.
func (r *Runner) batchClaimer() storage.BatchClaimer {
	b := &r.batch
	b.once.Do(func() { b.bc = r.s.store.BatchClaimer() })
	return b.bc
}

// next returns a claimed job for the calling worker to run, or nil when
// there is none; the worker calls ran once it has run it.
func (r *Runner) next() (*storage.JobRecord, error) {
	if r.batchClaimer() == nil {
		return r.claim()
	}
	r.claimMu.Lock()
	defer r.claimMu.Unlock()
	b := &r.batch
	if len(b.ready) == 0 && r.contended.Load() {
		// Several users: one claim at a time, each within its user's
		// share, which a batch claim cannot weigh.
		job, err := r.claimLocked()
		if job != nil {
			b.busy.Add(1)
		}
		return job, err
	}
	if len(b.ready) == 0 {
		if err := r.claimSome(); err != nil {
			return nil, err
		}
	}
	if len(b.ready) == 0 {
		return nil, nil
	}
	job := b.ready[0]
	b.ready = slices.Delete(b.ready, 0, 1)
	b.busy.Add(1)
	if len(b.ready) > 0 {
		r.Wake() // for the other free workers
	}
	return job, nil
}

// ran notes that a job next handed out has been run.
func (r *Runner) ran(job *storage.JobRecord) {
	if r.batchClaimer() == nil {
		return
	}
	r.batch.busy.Add(-1)
	r.takeProgram(job.JobQRN)
	r.forgetMark(job.JobQRN)
}

// claimSome claims a job for each free worker; claimMu is held.
func (r *Runner) claimSome() error {
	b := &r.batch
	room := r.s.workers - int(b.busy.Load()) - len(b.ready)
	if room <= 0 {
		return nil
	}
	devices := r.s.devices.Taking()
	mark := r.markClaim()
	now := r.s.now().UTC()
	c := storage.BatchClaim{Max: room, Devices: devices, First: r.turn.Blocked, LastOwner: r.turn.LastOwner,
		LastDevice: r.turn.LastDevice, MaxMemory: r.s.budget - r.MemoryUsed(), Now: now, LeaseUntil: now.Add(r.s.lease), Node: r.s.node}
	got, err := b.bc.ClaimJobs(r.ctx, c)
	if err != nil {
		if r.ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("claim jobs: %w", err)
	}
	if got.ControlsVersion > r.s.devices.Version() {
		// The controls changed since this node read them: read them
		// before the claimed jobs run (a failure to inject, a latency, a
		// device retired).
		r.reloadControls()
	}
	if len(r.turn.LastDevice) > maxTurnOwners {
		// Owners with nothing queued are not pruned here, as
		// turns.order does: forget them all now and then.
		clear(r.turn.LastDevice)
	}
	for _, cj := range got.Jobs {
		r.holdJob(cj.Job, r.reservation(cj.Job), true)
		r.turn.Served(storage.Queue{Device: cj.Job.DeviceQRN, Owner: cj.Job.Owner})
		if cj.Program != nil {
			r.keepProgram(cj.Job.JobQRN, cj.Program)
		}
		r.markClaimed(cj.Job.JobQRN, mark)
		b.ready = append(b.ready, cj.Job)
	}
	if got.Short == nil {
		return nil
	}
	q := storage.Queue{Device: got.Short.DeviceQRN, Owner: got.Short.Owner}
	if got.Short.MemoryNeed <= r.s.budget {
		r.turn.Block(q) // it waits at the head of its queue for memory
		return nil
	}
	// A job larger than the whole budget is claimed alone, reserving
	// nothing, and execute fails it (claimFrom). Gone meanwhile, or
	// claimed by another node: the next claim looks again.
	if job, err := r.claimFrom(q, r.s.budget-r.MemoryUsed(), false); err == nil {
		r.turn.Served(q)
		b.ready = append(b.ready, job)
	}
	return nil
}

// returnClaimed gives back the jobs claimed that no worker took, when the
// Service closes: they go back to the queue, their attempt not counted.
func (r *Runner) returnClaimed() {
	r.claimMu.Lock()
	defer r.claimMu.Unlock()
	b := &r.batch
	for _, j := range b.ready {
		r.takeProgram(j.JobQRN)
		r.forgetMark(j.JobQRN)
		r.requeue(j.JobQRN, true)
		r.unholdJob(j.JobQRN)
	}
	b.ready = nil
}

// returnReady gives back owner's jobs claimed that no worker took yet:
// other users' jobs wait while owner holds more than a share.
func (r *Runner) returnReady(owner string) {
	r.claimMu.Lock()
	defer r.claimMu.Unlock()
	b := &r.batch
	b.ready = slices.DeleteFunc(b.ready, func(j *storage.JobRecord) bool {
		if j.Owner != owner {
			return false
		}
		r.takeProgram(j.JobQRN)
		r.forgetMark(j.JobQRN)
		r.requeue(j.JobQRN, true)
		r.unholdJob(j.JobQRN)
		return true
	})
}

func (r *Runner) keepProgram(qrn string, p *qtype.Program) {
	b := &r.batch
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.programs == nil {
		b.programs = map[string]*qtype.Program{}
	}
	b.programs[qrn] = p
}

// takeProgram returns and forgets the program that came with the job's
// claim, or nil.
func (r *Runner) takeProgram(qrn string) *qtype.Program {
	b := &r.batch
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.programs[qrn]
	delete(b.programs, qrn)
	return p
}

// program returns the job's program: the one that came with its claim,
// or the store's.
func (r *Runner) program(ctx context.Context, qrn string) (*qtype.Program, error) {
	if p := r.takeProgram(qrn); p != nil {
		return p, nil
	}
	return r.s.store.GetProgram(ctx, qrn)
}
