package runner

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// execute runs a claimed (RUNNING) job to its end, and records that end.
func (r *Runner) execute(job *storage.JobRecord) {
	qrn := job.JobQRN
	defer r.unholdJob(qrn)
	ctx, cancel := context.WithCancelCause(r.ctx)
	ctx, cancelTimeout := context.WithTimeoutCause(ctx, r.s.jobTimeout, context.DeadlineExceeded)
	defer cancelTimeout()
	// Tracked from the start, so that the sweeper renews the lease while
	// the end is being recorded too.
	r.track(qrn, cancel)
	defer func() {
		r.untrack(qrn)
		cancel(nil)
	}()

	switch {
	case job.Attempts > r.s.maxAttempts:
		r.finish(job, 0, nil, failed(qtype.FailAttempts, fmt.Errorf("gave up after %d attempts: every run was cut short before its end was recorded (the service stopped or lost the job's lease)", r.s.maxAttempts)))
		return
	case job.MemoryNeed > r.s.budget:
		r.finish(job, 0, nil, failed(qtype.FailMemory, fmt.Errorf("the job needs %s of memory, more than the service's budget of %s", qtype.ByteSize(job.MemoryNeed), qtype.ByteSize(r.s.budget))))
		return
	}
	d, _ := r.s.devices.Get(job.DeviceQRN)
	b, _ := r.s.devices.BackendOf(job.DeviceQRN)
	if d != nil && d.Status == qtype.DeviceRetired {
		r.finish(job, 0, nil, failed(qtype.FailBackend, fmt.Errorf("device %s is retired", d.QRN)))
		return
	}
	if msg, ok := r.takeFailure(job.DeviceQRN); ok {
		r.finish(job, 0, nil, failed(qtype.FailBackend, errors.New(msg)))
		return
	}
	prog, err := retrying(r.ctx, r, "read program", qrn, func() (*qtype.Program, error) { return r.program(r.ctx, qrn) })
	if err != nil {
		if r.ctx.Err() != nil {
			r.requeue(qrn, true)
			return
		}
		r.finish(job, 0, nil, failed(qtype.FailStore, errors.New("the job's program could not be read from the store")))
		return
	}
	jp, err := qtype.DecodeProgram(prog)
	if err != nil {
		r.finish(job, 0, nil, failed(qtype.FailStore, errors.New("the job's program could not be read from the store")))
		return
	}
	seed, _ := qtype.SeedOption(job.RuntimeOptions)

	// A cancel that came between the claim and track found no running
	// job to stop: look once more (cancelnotes.go).
	if r.cancelledBeforeRun(ctx, qrn) {
		cancel(errCancelled)
	}

	start := time.Now()
	task := qtype.Task{JobQRN: qrn, Device: d, Shots: job.Shots, RuntimeOptions: job.RuntimeOptions, Seed: seed,
		Memory: r.reservation(job), Grow: func(delta int64) error { return r.grow(qrn, delta) }}
	var out *ran
	if jp.Batch != nil {
		out, err = r.runBatch(ctx, b, task, jp.Batch, r.reservation(job))
	} else {
		task.Program = jp.Program
		out, err = r.runOne(ctx, b, task)
	}
	if least := r.leastRunTime(d); err == nil && least > 0 {
		err = holdUntil(ctx, start.Add(least))
	}
	elapsed := time.Since(start)
	// The run's memory is free now, before its end is seen: a caller who
	// sees the job end finds its memory given back.
	grown := r.grownBy(qrn)
	r.unholdJob(qrn)
	if err != nil {
		var short *memoryShort
		switch cause := context.Cause(ctx); {
		case errors.Is(cause, errShutdown) || r.ctx.Err() != nil:
			r.requeue(qrn, true)
			return
		case errors.Is(cause, errCancelled):
			r.finishCancel(qrn, elapsed)
			return
		case errors.Is(cause, errPreempted):
			// It starts again holding what it had grown to.
			r.requeueNeeding(qrn, min(job.MemoryNeed+grown, r.s.budget))
			return
		case errors.As(cause, &short):
			r.requeueNeeding(qrn, min(short.need, r.s.budget))
			return
		case errors.As(cause, new(*shareExceeded)):
			err = failed(qtype.FailMemory, cause)
		case errors.Is(cause, context.DeadlineExceeded) && ctx.Err() != nil:
			err = failed(qtype.FailTimeout, fmt.Errorf("execution exceeded the time limit of %v", r.s.jobTimeout))
		}
	}
	r.finish(job, elapsed, out, err)
}

// ran is what a run produced: the result to store and the metadata to
// add to the job.
type ran struct {
	result   *qtype.Result
	metadata map[string]any
}

// runOne runs a job of one program.
func (r *Runner) runOne(ctx context.Context, b qtype.Backend, t qtype.Task) (*ran, error) {
	// What the run is granted (Task.Grow) is held until the job's end:
	// nothing to give back before it.
	res, err := callBackend(ctx, b, t)
	if err == nil {
		err = checkCounts(res, t.Shots)
	}
	if err != nil {
		return nil, err
	}
	return &ran{result: &qtype.Result{Counts: res.Counts, Data: res.Data}, metadata: res.Metadata}, nil
}

// track notes a job this process runs, with the way to interrupt it.
func (r *Runner) track(qrn string, cancel context.CancelCauseFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.running[qrn] = cancel
}

func (r *Runner) untrack(qrn string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.running, qrn)
}

// runningHere returns the interrupt of a job this process runs.
func (r *Runner) runningHere(qrn string) (context.CancelCauseFunc, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	stop, ok := r.running[qrn]
	return stop, ok
}

// runCircuit calls the backend for one circuit of a batch, with what its
// run is granted by Task.Grow given back when it returns: the batch's
// next circuit starts again from the job's need.
func (r *Runner) runCircuit(ctx context.Context, b qtype.Backend, t qtype.Task) (*qtype.RunResult, error) {
	if grow := t.Grow; grow != nil {
		var granted atomic.Int64
		t.Grow = func(delta int64) error {
			if delta <= 0 {
				return nil
			}
			if err := grow(delta); err != nil {
				return err
			}
			granted.Add(delta)
			return nil
		}
		defer func() { r.unholdSome(t.JobQRN, granted.Load()) }()
	}
	return callBackend(ctx, b, t)
}

// callBackend calls the backend, turning a panic in it into an error: a
// user's backend must not take the service down.
func callBackend(ctx context.Context, b qtype.Backend, t qtype.Task) (res *qtype.RunResult, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("the backend panicked: %v", p)
		}
	}()
	return b.Run(ctx, t)
}

func checkCounts(res *qtype.RunResult, shots int) error {
	switch {
	case res == nil || res.Counts == nil && res.Data == nil:
		return errors.New("the backend returned no counts")
	case res.Data != nil && res.Data["measurementCounts"] != nil:
		return errors.New("the backend returned data named measurementCounts, which is its counts' name")
	case res.Counts == nil:
		return nil // a run that samples no bit strings
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

// holdUntil waits until t, or until ctx ends (with its error): a QPU's job
// takes at least its device's MinRunTime, and a cancel still stops it at
// once.
func holdUntil(ctx context.Context, t time.Time) error {
	wait := time.Until(t)
	if wait <= 0 {
		return nil
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
