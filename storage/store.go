package storage

import (
	"context"
	"errors"
	"time"

	"github.com/qjobs/quantum/qtype"
)

// Store holds jobs, their programs and results. Every change to a job is a
// compare-and-set on the status the caller expects, so two actors racing
// on one job (a worker finishing it, a user cancelling it) can never both
// win, and a terminal status never changes. store/storetest is the
// conformance suite every implementation passes.
//
// The Service retries a call that fails with any other error than the
// ones below (or the end of its context), so a Store may return errors
// that pass, such as a timeout. Its errors are logged: they must not
// carry job data (programs, results, tags, names).
//
// Records are snapshots: a record a Store returns (from GetJob, UpdateJob,
// ClaimJob, ListJobs, Unfinished, JobByIdempotencyKey) is read-only to
// the caller, and the Store never changes it afterwards, so a store may
// hand one record to many callers at once instead of copying it for each
// (the memory Store does: a job read while it polls costs nothing). A
// change to a job makes a new record. The Service copies what it hands
// on to users. Results are read-only in the same way.
type Store interface {
	// CreateJob stores a new job and its program. The job's QRN must be
	// new. A batch's programs come as one Program whose Format is
	// BatchFormat and whose Data is their JSON array. A job or program larger than the store holds gives an error
	// wrapping ErrTooLarge.
	//
	// A job with an IdempotencyKey holds that key for its owner for
	// IdempotencyWindow from its CreatedAt: while another job of the same
	// owner holds the same key (one created after job.CreatedAt minus
	// IdempotencyWindow), CreateJob stores nothing and returns an error
	// wrapping ErrDuplicateKey. Of concurrent creates with one key, at most
	// one succeeds, on every node sharing the store.
	//
	// A store that is a CreditLedger reserves job.Reserved in the same
	// atomic step (see CreditLedger), or stores nothing and returns an
	// error wrapping ErrInsufficientCredits.
	CreateJob(ctx context.Context, job *JobRecord, program qtype.Program) error
	// JobByIdempotencyKey returns the owner's job that holds key, created
	// at or after since, or ErrJobNotFound. A deleted job holds no key.
	JobByIdempotencyKey(ctx context.Context, owner, key string, since time.Time) (*JobRecord, error)
	// GetJob returns the job (read-only, see above), or ErrJobNotFound.
	GetJob(ctx context.Context, qrn string) (*JobRecord, error)
	// GetProgram returns the job's program, or ErrJobNotFound.
	GetProgram(ctx context.Context, qrn string) (*qtype.Program, error)
	// GetResult returns the job's result (read-only), or ErrJobNotFound
	// when the job or its result does not exist.
	GetResult(ctx context.Context, qrn string) (*qtype.Result, error)
	// UpdateJob applies change to the job if its status is expect, and
	// returns the job as stored after the change. change gets a copy of
	// the record whose maps and pointers are still the stored job's: it
	// sets fields, and replaces a map or pointer with a new one rather
	// than modify what it points to (the Store may keep what it puts
	// there). It may be called more than once (a store retrying a
	// transaction), and may panic: the job is then unchanged. A job in another status
	// gives ErrStatusChanged and is left as it was. When result is not nil
	// it is stored in the same atomic step (before or with a move to
	// COMPLETED, so a client that sees COMPLETED can read the result).
	// The job's JobQRN, Owner, DeviceQRN, TimeStamps.CreatedAt and
	// Reserved never change, whatever change does. A result or job larger
	// than the store holds gives an error wrapping ErrTooLarge and changes
	// nothing. A store that is a CreditLedger settles a job's reservation
	// in the same atomic step as its move to a terminal status. The store
	// may keep result: the caller does not change it afterwards.
	UpdateJob(ctx context.Context, qrn string, expect qtype.JobStatus, change func(*JobRecord), result *qtype.Result) (*JobRecord, error)
	// DeleteJob removes the job, its program and its result if its status
	// is expect; otherwise ErrStatusChanged (or ErrJobNotFound).
	DeleteJob(ctx context.Context, qrn string, expect qtype.JobStatus) error
	// ListJobs returns one page of the owner's jobs matching f, newest
	// first (CreatedAt descending, then QRN descending), and how many match
	// in all. A filter that no index answers and that would read more
	// jobs than the store scans for one list gives an error wrapping
	// ErrScanLimit, whose text says how to narrow it.
	ListJobs(ctx context.Context, f JobFilter) ([]*JobRecord, int, error)
	// CountQueued returns how many jobs on the device are QUEUED.
	CountQueued(ctx context.Context, deviceQRN string) (int, error)
	// CountJobs returns how many of the owner's jobs have one of statuses.
	CountJobs(ctx context.Context, owner string, statuses []qtype.JobStatus) (int, error)
	// QueuePosition returns the 1-based place of a QUEUED job in its
	// device's queue, or 0 if it is not queued. A queue is ordered by
	// QueuedAt (UpdatedAt when that is zero), oldest first; jobs queued at
	// the same instant are in an order the store chooses, the same for
	// QueuePosition and ClaimJob.
	QueuePosition(ctx context.Context, qrn string) (int, error)
	// Queues lists the queues that hold QUEUED jobs: one queue per owner
	// and device, so that workers can take turns between users as well as
	// between devices.
	Queues(ctx context.Context) ([]Queue, error)
	// ClaimJob moves the oldest QUEUED job of the queue to RUNNING with a
	// lease that expires at c.LeaseUntil, records c.Node as its Node, adds
	// one to its Attempts, and returns it; ErrNoJob when
	// the queue is empty. If that job needs more memory than c.MaxMemory
	// it stays QUEUED and ClaimJob returns ErrMemoryShort with a copy of
	// the job as it is, so that the caller sees what it needs: the job
	// waits at the head of its queue rather than be overtaken. Concurrent
	// claims never hand out the same job.
	ClaimJob(ctx context.Context, c Claim) (*JobRecord, error)
	// Unfinished returns the jobs whose status is one of statuses and
	// whose UpdatedAt is before the given time (zero: any time), oldest
	// first, at most limit of them.
	Unfinished(ctx context.Context, statuses []qtype.JobStatus, before time.Time, limit int) ([]*JobRecord, error)
}

// JobRecord is a job as a Store keeps it: the Job that users see, and
// the bookkeeping the service keeps about it, which they never see.
type JobRecord struct {
	qtype.Job
	// Owner is the ID of the user the job belongs to.
	Owner string
	// UpdatedAt is when the job last changed; QueuedAt when it last
	// became QUEUED (its place in the device's queue); LeaseUntil, while
	// RUNNING, when a worker's claim on it expires.
	UpdatedAt  time.Time
	QueuedAt   time.Time
	LeaseUntil time.Time
	// MemoryNeed is the memory, in bytes, that running the job holds, as
	// its backend estimated at create: a worker claims the job only once
	// that much of the service's memory budget is free.
	MemoryNeed int64
	// Reserved is the micro-credits the job reserved from its owner's
	// balance when it was stored (WithCredits; 0 when credits are off or
	// the job is free); the store settles them when the job ends.
	Reserved int64
	// Attempts is how many times the job has been claimed to run. A
	// Store's ClaimJob adds one; the service gives up on a job whose
	// runs keep being cut short (by a crash, say) after a bounded number.
	Attempts int
	// Node names the Service that claimed the job last (WithNode), so
	// that an operator can follow a job across the nodes sharing a store.
	Node string
	// IdempotencyKey is the key the job was created with
	// (JobRequest.IdempotencyKey), "" for none; RequestHash identifies
	// the request that created it, so that a repeat of the key with
	// another request is told apart from a retry.
	IdempotencyKey string
	RequestHash    string
}

// IdempotencyWindow is how long a job holds its idempotency key: a create
// that repeats a key within it returns the first job instead of making
// another.
const IdempotencyWindow = 24 * time.Hour

// Clone returns a deep copy of the record.
func (r *JobRecord) Clone() *JobRecord {
	c := *r
	c.Job = r.Job.DeepCopy()
	return &c
}

// ExclusiveStore is implemented by a Store that only one Service may use
// at a time (badger locks its directory; a memory store lives in one
// process and has no leases another Service could see). New acquires it
// and Close releases it: a second Service on a store in use fails New
// with ErrStoreInUse instead of running every job twice. A job RUNNING in
// such a store when a Service starts has no live worker anywhere, so the
// Service takes it over at once instead of waiting for its lease to
// expire.
type ExclusiveStore interface {
	Store
	// Acquire marks the store in use and returns the function that
	// releases it (safe to call more than once); ErrStoreInUse if it is
	// in use already.
	Acquire() (release func(), err error)
}

// Errors a Store returns.
var (
	ErrJobNotFound   = errors.New("job not found")
	ErrJobExists     = errors.New("job already exists")
	ErrStatusChanged = errors.New("job status is not the one expected")
	ErrNoJob         = errors.New("no queued job")
	ErrMemoryShort   = errors.New("the next queued job needs more memory than is free")
	// ErrStoreInUse is Acquire's answer for a store another Service uses.
	ErrStoreInUse = errors.New("the store is already in use by another Service")
	// ErrTooLarge is returned (wrapped, with the sizes) for a job or
	// result larger than the store can hold. Stores never return the
	// data itself in an error.
	ErrTooLarge = errors.New("too large for the store")
	// ErrScanLimit is ListJobs' answer for a filter that no index answers
	// and that would read more jobs than the store scans for one list.
	ErrScanLimit = errors.New("the filter would scan too many jobs")
	// ErrDuplicateKey is CreateJob's answer (wrapped) for a job whose
	// idempotency key another job of its owner holds.
	ErrDuplicateKey = errors.New("another job holds the idempotency key")
)

// Queue names the QUEUED jobs of one owner on one device.
type Queue struct {
	Device string
	Owner  string
}

// Claim says which job ClaimJob may take.
type Claim struct {
	Queue
	// MaxMemory is the most memory (Job.MemoryNeed) the claimed job may
	// need.
	MaxMemory  int64
	Now        time.Time
	LeaseUntil time.Time
	// Node names the claiming Service; ClaimJob records it in the job.
	Node string
}

// JobFilter selects a page of one owner's jobs. Empty fields do not filter.
type JobFilter struct {
	Owner    string
	Statuses []qtype.JobStatus // any of these
	Vendor   string
	Provider string
	// Search matches, case-insensitively, a substring of the name, QRN or
	// device QRN.
	Search string
	// Tags must all be present with equal values.
	Tags map[string]any
	// Offset is how many matching jobs to skip (it may be past the end,
	// up to math.MaxInt); Limit is the most to return (at least 1).
	Offset int
	Limit  int
}

// PageBounds returns the half-open range [start, end) of the matching jobs,
// in order, that make the page when total jobs match: never past total and
// never overflowing, whatever Offset and Limit hold.
func (f JobFilter) PageBounds(total int) (start, end int) {
	start = min(max(f.Offset, 0), total)
	return start, start + min(max(f.Limit, 0), total-start)
}

// Matches reports whether the job passes the filter's tests (all but the
// paging), for stores that filter by scanning.
func (f JobFilter) Matches(j *JobRecord) bool {
	if j.Owner != f.Owner {
		return false
	}
	if len(f.Statuses) > 0 && !containsStatus(f.Statuses, j.Status) {
		return false
	}
	if f.Vendor != "" && j.Vendor != f.Vendor {
		return false
	}
	if f.Provider != "" && j.Provider != f.Provider {
		return false
	}
	if f.Search != "" && !qtype.MatchesSearch(f.Search, j.Name, j.JobQRN, j.DeviceQRN) {
		return false
	}
	for k, v := range f.Tags {
		got, ok := j.Tags[k]
		if !ok || !qtype.SameTagValue(got, v) {
			return false
		}
	}
	return true
}

func containsStatus(list []qtype.JobStatus, s qtype.JobStatus) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
