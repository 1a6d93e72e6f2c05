package quantum

import (
	"context"
	"errors"
	"hash/fnv"
	"sync"
	"time"

	"go.uber.org/zap"
)

// observedStore is the Service's view of its Store. Every change of a
// job's status it makes is published to the notifier, in the order the
// store made them: a change and its publication hold a lock of the job's
// stripe, so that two changes of one job (the intake queueing it, a
// worker claiming it) are never published in the opposite order. And
// every call is timed for the Observer.
type observedStore struct {
	Store
	n       *notifier
	obs     Observer
	log     *zap.Logger // each change at Debug: a job's life, line by line
	credits credited    // the Observer's credit counts, if it keeps them
	stripes [256]sync.Mutex
	// untimed says the Observer throws the timings away (nopObserver):
	// reading the clock twice for every call, every poll, is then waste.
	untimed bool
}

// now is when a call begins, for timed; zero when nobody keeps timings.
func (o *observedStore) now() time.Time {
	if o.untimed {
		return time.Time{}
	}
	return time.Now()
}

func (o *observedStore) stripe(qrn string) *sync.Mutex {
	h := fnv.New32a()
	h.Write([]byte(qrn))
	return &o.stripes[h.Sum32()%uint32(len(o.stripes))]
}

// timed reports a call that began at start. The answers that are part of
// a store's contract (a lost compare-and-set, no job) are not failures.
func (o *observedStore) timed(op string, start time.Time, err error) {
	if o.untimed {
		return
	}
	switch {
	case errors.Is(err, ErrStatusChanged), errors.Is(err, ErrJobNotFound), errors.Is(err, ErrNoJob),
		errors.Is(err, ErrMemoryShort), errors.Is(err, ErrDuplicateKey), errors.Is(err, ErrJobExists),
		errors.Is(err, ErrInsufficientCredits):
		err = nil
	}
	o.obs.StoreCall(op, time.Since(start), err)
}

func (o *observedStore) CreateJob(ctx context.Context, job *JobRecord, program Program) (err error) {
	defer func(start time.Time) { o.timed("CreateJob", start, err) }(o.now())
	mu := o.stripe(job.JobQRN)
	mu.Lock()
	defer mu.Unlock()
	if err = o.Store.CreateJob(ctx, job, program); err != nil {
		return err
	}
	// job is the caller's, to hand on to its user: watchers get a copy,
	// made only if someone watches.
	var snap *JobRecord
	if o.n.watching(job.JobQRN, job.Owner) {
		snap = job.Clone()
	}
	o.changed(snap, job)
	o.obs.JobCreated(job.DeviceQRN)
	o.credits.stored(job)
	return nil
}

func (o *observedStore) UpdateJob(ctx context.Context, qrn string, expect JobStatus, change func(*JobRecord), result *Result) (rec *JobRecord, err error) {
	start := o.now()
	mu := o.stripe(qrn)
	mu.Lock()
	defer mu.Unlock()
	rec, err = o.Store.UpdateJob(ctx, qrn, expect, change, result)
	o.timed("UpdateJob", start, err)
	if err == nil && rec.Status != expect {
		o.changed(rec, rec) // the store's snapshot (see Store)
		o.credits.changed(expect, rec)
	}
	return rec, err
}

func (o *observedStore) ClaimJob(ctx context.Context, c Claim) (*JobRecord, error) {
	start := o.now()
	rec, err := o.Store.ClaimJob(ctx, c)
	o.timed("ClaimJob", start, err)
	if err != nil {
		return rec, err
	}
	queued := rec.QueuedAt
	if queued.IsZero() {
		queued = rec.UpdatedAt
	}
	o.obs.JobStarted(rec.DeviceQRN, max(c.Now.Sub(queued), 0))
	// The claim is made; its publication waits for the one of the change
	// before it (the queueing), which may still hold the stripe.
	mu := o.stripe(rec.JobQRN)
	mu.Lock()
	defer mu.Unlock()
	o.changed(rec, rec) // the store's snapshot (see Store)
	return rec, nil
}

// changed publishes snap, a snapshot nobody changes (nil: watchers read
// the job themselves), of the job as it is now, job.
func (o *observedStore) changed(snap, job *JobRecord) {
	if ce := o.log.Check(zap.DebugLevel, "job status"); ce != nil {
		ce.Write(zap.String("job", job.JobQRN), zap.String("status", string(job.Status)), zap.String("node", job.Node))
	}
	o.n.publish(job.JobQRN, job.Owner, snap)
}

// The calls that change nothing are only timed.

func (o *observedStore) GetJob(ctx context.Context, qrn string) (r *JobRecord, err error) {
	defer func(start time.Time) { o.timed("GetJob", start, err) }(o.now())
	return o.Store.GetJob(ctx, qrn)
}

func (o *observedStore) GetProgram(ctx context.Context, qrn string) (p *Program, err error) {
	defer func(start time.Time) { o.timed("GetProgram", start, err) }(o.now())
	return o.Store.GetProgram(ctx, qrn)
}

func (o *observedStore) GetResult(ctx context.Context, qrn string) (r *Result, err error) {
	defer func(start time.Time) { o.timed("GetResult", start, err) }(o.now())
	return o.Store.GetResult(ctx, qrn)
}

func (o *observedStore) JobByIdempotencyKey(ctx context.Context, owner, key string, since time.Time) (r *JobRecord, err error) {
	defer func(start time.Time) { o.timed("JobByIdempotencyKey", start, err) }(o.now())
	return o.Store.JobByIdempotencyKey(ctx, owner, key, since)
}

func (o *observedStore) DeleteJob(ctx context.Context, qrn string, expect JobStatus) (err error) {
	defer func(start time.Time) { o.timed("DeleteJob", start, err) }(o.now())
	return o.Store.DeleteJob(ctx, qrn, expect)
}

func (o *observedStore) ListJobs(ctx context.Context, f JobFilter) (rs []*JobRecord, n int, err error) {
	defer func(start time.Time) { o.timed("ListJobs", start, err) }(o.now())
	return o.Store.ListJobs(ctx, f)
}

func (o *observedStore) CountQueued(ctx context.Context, device string) (n int, err error) {
	defer func(start time.Time) { o.timed("CountQueued", start, err) }(o.now())
	return o.Store.CountQueued(ctx, device)
}

func (o *observedStore) CountJobs(ctx context.Context, owner string, statuses []JobStatus) (n int, err error) {
	defer func(start time.Time) { o.timed("CountJobs", start, err) }(o.now())
	return o.Store.CountJobs(ctx, owner, statuses)
}

func (o *observedStore) QueuePosition(ctx context.Context, qrn string) (n int, err error) {
	defer func(start time.Time) { o.timed("QueuePosition", start, err) }(o.now())
	return o.Store.QueuePosition(ctx, qrn)
}

func (o *observedStore) Queues(ctx context.Context) (qs []Queue, err error) {
	defer func(start time.Time) { o.timed("Queues", start, err) }(o.now())
	return o.Store.Queues(ctx)
}

func (o *observedStore) Unfinished(ctx context.Context, statuses []JobStatus, before time.Time, limit int) (rs []*JobRecord, err error) {
	defer func(start time.Time) { o.timed("Unfinished", start, err) }(o.now())
	return o.Store.Unfinished(ctx, statuses, before, limit)
}
