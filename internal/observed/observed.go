// Package observed is a Service's view of its Store: every change of a
// job's status it makes is published to the notifier, in the order the
// store made them, and every call is timed for the Observer.
package observed

import (
	"context"
	"errors"
	"hash/fnv"
	"sync"
	"time"

	"github.com/qjobs/quantum/internal/notify"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
	"go.uber.org/zap"
)

// Store is the Service's view of its store. Every change of a job's
// status it makes is published to the notifier, in the order the store
// made them: a change and its publication hold a lock of the job's
// stripe, so that two changes of one job (the intake queueing it, a
// worker claiming it) are never published in the opposite order. And
// every call is timed for the Observer.
type Store struct {
	storage.Store
	n       *notify.Notifier
	obs     qtype.Observer
	log     *zap.Logger // each change at Debug: a job's life, line by line
	credits credited    // the Observer's credit counts, if it keeps them
	stripes [256]sync.Mutex
	// untimed says the Observer throws the timings away (qtype.NopObserver):
	// reading the clock twice for every call, every poll, is then waste.
	untimed bool
}

// now is when a call begins, for timed; zero when nobody keeps timings.
func (o *Store) now() time.Time {
	if o.untimed {
		return time.Time{}
	}
	return time.Now()
}

func (o *Store) stripe(qrn string) *sync.Mutex {
	h := fnv.New32a()
	h.Write([]byte(qrn))
	return &o.stripes[h.Sum32()%uint32(len(o.stripes))]
}

// timed reports a call that began at start. The answers that are part of
// a store's contract (a lost compare-and-set, no job) are not failures.
func (o *Store) timed(op string, start time.Time, err error) {
	if o.untimed {
		return
	}
	switch {
	case errors.Is(err, storage.ErrStatusChanged), errors.Is(err, storage.ErrJobNotFound), errors.Is(err, storage.ErrNoJob),
		errors.Is(err, storage.ErrMemoryShort), errors.Is(err, storage.ErrDuplicateKey), errors.Is(err, storage.ErrJobExists),
		errors.Is(err, storage.ErrInsufficientCredits), errors.Is(err, storage.ErrTooManyActive):
		err = nil
	}
	o.obs.StoreCall(op, time.Since(start), err)
}

func (o *Store) CreateJob(ctx context.Context, job *storage.JobRecord, program qtype.Program) (err error) {
	return o.create(job, func() error { return o.Store.CreateJob(ctx, job, program) })
}

// BoundedCreator returns o, which creates through its store's
// CreateJobBounded, if the store is a storage.BoundedCreator; else nil.
func (o *Store) BoundedCreator() storage.BoundedCreator {
	if _, ok := o.Store.(storage.BoundedCreator); ok {
		return o
	}
	return nil
}

// BatchesCreates reports whether the store batches its creates and
// bounds each after those before it (storage.BatchCreator).
func (o *Store) BatchesCreates() bool {
	bc, ok := o.Store.(storage.BatchCreator)
	return ok && bc.BatchesCreates()
}

// CreateJobBounded creates through the store's BoundedCreator, and
// reports and publishes the job as CreateJob does.
func (o *Store) CreateJobBounded(ctx context.Context, job *storage.JobRecord, program qtype.Program, statuses []qtype.JobStatus, max int) error {
	return o.create(job, func() error {
		return o.Store.(storage.BoundedCreator).CreateJobBounded(ctx, job, program, statuses, max)
	})
}

// create stores job with store, under its stripe, and publishes it.
func (o *Store) create(job *storage.JobRecord, store func() error) (err error) {
	defer func(start time.Time) { o.timed("CreateJob", start, err) }(o.now())
	mu := o.stripe(job.JobQRN)
	mu.Lock()
	defer mu.Unlock()
	if err = store(); err != nil {
		return err
	}
	// job is the caller's, to hand on to its user: watchers get a copy,
	// made only if someone watches.
	var snap *storage.JobRecord
	if o.n.Watching(job.JobQRN, job.Owner) {
		snap = job.Clone()
	}
	o.changed(snap, job)
	o.obs.JobCreated(job.DeviceQRN)
	o.credits.stored(job)
	return nil
}

func (o *Store) UpdateJob(ctx context.Context, qrn string, expect qtype.JobStatus, change func(*storage.JobRecord), result *qtype.Result) (rec *storage.JobRecord, err error) {
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

func (o *Store) ClaimJob(ctx context.Context, c storage.Claim) (*storage.JobRecord, error) {
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
func (o *Store) changed(snap, job *storage.JobRecord) {
	if ce := o.log.Check(zap.DebugLevel, "job status"); ce != nil {
		ce.Write(zap.String("job", job.JobQRN), zap.String("status", string(job.Status)), zap.String("node", job.Node))
	}
	o.n.Publish(job.JobQRN, job.Owner, snap)
}

// The calls that change nothing are only timed.

func (o *Store) GetJob(ctx context.Context, qrn string) (r *storage.JobRecord, err error) {
	defer func(start time.Time) { o.timed("GetJob", start, err) }(o.now())
	return o.Store.GetJob(ctx, qrn)
}

func (o *Store) GetProgram(ctx context.Context, qrn string) (p *qtype.Program, err error) {
	defer func(start time.Time) { o.timed("GetProgram", start, err) }(o.now())
	return o.Store.GetProgram(ctx, qrn)
}

func (o *Store) GetResult(ctx context.Context, qrn string) (r *qtype.Result, err error) {
	defer func(start time.Time) { o.timed("GetResult", start, err) }(o.now())
	return o.Store.GetResult(ctx, qrn)
}

func (o *Store) JobByIdempotencyKey(ctx context.Context, owner, key string, since time.Time) (r *storage.JobRecord, err error) {
	defer func(start time.Time) { o.timed("JobByIdempotencyKey", start, err) }(o.now())
	return o.Store.JobByIdempotencyKey(ctx, owner, key, since)
}

func (o *Store) DeleteJob(ctx context.Context, qrn string, expect qtype.JobStatus) (err error) {
	defer func(start time.Time) { o.timed("DeleteJob", start, err) }(o.now())
	return o.Store.DeleteJob(ctx, qrn, expect)
}

func (o *Store) ListJobs(ctx context.Context, f storage.JobFilter) (rs []*storage.JobRecord, n int, err error) {
	defer func(start time.Time) { o.timed("ListJobs", start, err) }(o.now())
	return o.Store.ListJobs(ctx, f)
}

func (o *Store) CountQueued(ctx context.Context, device string) (n int, err error) {
	defer func(start time.Time) { o.timed("CountQueued", start, err) }(o.now())
	return o.Store.CountQueued(ctx, device)
}

func (o *Store) CountJobs(ctx context.Context, owner string, statuses []qtype.JobStatus) (n int, err error) {
	defer func(start time.Time) { o.timed("CountJobs", start, err) }(o.now())
	return o.Store.CountJobs(ctx, owner, statuses)
}

func (o *Store) QueuePosition(ctx context.Context, qrn string) (n int, err error) {
	defer func(start time.Time) { o.timed("QueuePosition", start, err) }(o.now())
	return o.Store.QueuePosition(ctx, qrn)
}

func (o *Store) Queues(ctx context.Context) (qs []storage.Queue, err error) {
	defer func(start time.Time) { o.timed("Queues", start, err) }(o.now())
	return o.Store.Queues(ctx)
}

func (o *Store) Unfinished(ctx context.Context, statuses []qtype.JobStatus, before time.Time, limit int) (rs []*storage.JobRecord, err error) {
	defer func(start time.Time) { o.timed("Unfinished", start, err) }(o.now())
	return o.Store.Unfinished(ctx, statuses, before, limit)
}

// credited tells the CreditObserver, if any, of a job stored with a
// reservation or ended with a settlement.
type credited struct{ obs qtype.CreditObserver }

func (c credited) stored(j *storage.JobRecord) {
	if c.obs != nil && j.Reserved > 0 {
		c.obs.CreditsReserved(j.DeviceQRN, storage.FromMicroCredits(j.Reserved))
	}
}

func (c credited) changed(old qtype.JobStatus, j *storage.JobRecord) {
	if c.obs == nil || j.Reserved <= 0 || old.IsTerminal() || !j.Status.IsTerminal() {
		return
	}
	var charge float64
	if e, ok := storage.SettlementOf(&storage.JobRecord{Job: qtype.Job{Status: old}, Reserved: j.Reserved}, j); ok {
		charge = storage.FromMicroCredits(-e.Amount)
	}
	c.obs.CreditsCharged(j.DeviceQRN, charge)
}

// ClaimJobs claims through the store's BatchClaimer, and reports and
// publishes each claim as ClaimJob does.
func (o *Store) ClaimJobs(ctx context.Context, c storage.BatchClaim) (*storage.ClaimedJobs, error) {
	start := o.now()
	out, err := o.Store.(storage.BatchClaimer).ClaimJobs(ctx, c)
	o.timed("ClaimJobs", start, err)
	if err != nil {
		return nil, err
	}
	for _, cj := range out.Jobs {
		rec := cj.Job
		queued := rec.QueuedAt
		if queued.IsZero() {
			queued = rec.UpdatedAt
		}
		o.obs.JobStarted(rec.DeviceQRN, max(c.Now.Sub(queued), 0))
		func() {
			mu := o.stripe(rec.JobQRN)
			mu.Lock()
			defer mu.Unlock()
			o.changed(rec, rec) // the store's snapshot (see Store)
		}()
	}
	return out, nil
}

// New wraps store, publishing its changes to n and timing its calls for
// obs, whose credit counts it keeps too if obs is a CreditObserver.
func New(store storage.Store, n *notify.Notifier, obs qtype.Observer, log *zap.Logger) *Store {
	credits, _ := obs.(qtype.CreditObserver)
	_, untimed := obs.(qtype.NopObserver)
	return &Store{Store: store, n: n, obs: obs, log: log, credits: credited{credits}, untimed: untimed}
}

// BatchClaimer returns o, which claims in batches through its store's
// ClaimJobs, if the store is a storage.BatchClaimer; else nil.
func (o *Store) BatchClaimer() storage.BatchClaimer {
	if _, ok := o.Store.(storage.BatchClaimer); ok {
		return o
	}
	return nil
}
