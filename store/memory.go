// Package store holds the memory Store: NewMemory keeps jobs for the
// life of the process. The Stores that keep them longer have packages of
// their own, so that a program links only the one it uses: store/badger
// (on disk) and store/postgres (shared by several nodes). Package
// storetest is the conformance suite every Store passes.
package store

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store/internal/inproc"
	"github.com/qjobs/quantum/store/internal/ordered"
)

// Memory is a Store that keeps everything in memory, safe for concurrent
// use. Jobs are lost when the process ends.
//
// A stored record is never changed: an update stores a new one. So every
// read hands out the stored record itself, read-only as the Store
// contract says, and costs no copy; a create copies the caller's record
// once, and an update copies the record (not its maps) once.
//
// One mutex guards the jobs and every index of them (the owners' lists,
// the counts, the queues, the jobs by status): each index changes in the
// same critical section as the job it mirrors. Every method releases the
// mutex with defer, so a panic inside a critical section (a caller's
// change function, say) leaves the store usable.
//
// Costs, with n jobs: claims, queue positions and depths, creates,
// updates and deletes take O(log n); an unfiltered list takes O(log n)
// plus its page. A filtered list reads every job of the owner, testing
// each against the filter in memory (no decoding), a chunk of listChunk
// jobs per hold of the mutex, so that a list of a million jobs never
// holds the store for more than a few tens of microseconds at a time.
// Unfinished takes O(log n) plus what it returns per status.
type Memory struct {
	inUse   inproc.Guard
	mu      sync.Mutex
	jobs    map[string]*entry
	owners  map[string]*owned
	changed map[qtype.JobStatus]*ordered.Set[inproc.ChangeKey] // each status's jobs, oldest change first
	devices map[string]*ordered.Set[queueKey]                  // device → its QUEUED jobs, oldest first: positions and depth
	queues  map[storage.Queue]*ordered.Set[queueKey]           // owner and device → their QUEUED jobs: claims
	seq     uint64                                             // how many times a job became QUEUED
	keys    map[idemKey]string                                 // an owner's idempotency key → the job that took it last
	ledgers map[string]*ledger                                 // owner → their credits

	// hook, when set (by tests), is called inside every critical section
	// with the method's name.
	hook func(method string)
}

// owned is one owner's jobs, newest first, and how many are in each status.
type owned struct {
	jobs   *ordered.Set[listKey]
	counts map[qtype.JobStatus]int
}

type idemKey struct{ owner, key string }

type entry struct {
	job     *storage.JobRecord
	program qtype.Program
	result  *qtype.Result
	queued  queueKey // the job's place in its queues while QUEUED
}

// listKey orders an owner's jobs newest first: CreatedAt descending, then
// QRN descending.
type listKey struct {
	created time.Time
	qrn     string
}

func compareList(a, b listKey) int {
	if c := b.created.Compare(a.created); c != 0 {
		return c
	}
	return strings.Compare(b.qrn, a.qrn)
}

// queueKey orders a queue: by the time the job became QUEUED (QueuedAt,
// or UpdatedAt when that is zero), then by arrival in the queue.
type queueKey struct {
	at  time.Time
	seq uint64
	qrn string
}

func compareQueue(a, b queueKey) int {
	if c := a.at.Compare(b.at); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

func queuedAt(j *storage.JobRecord) time.Time {
	if j.QueuedAt.IsZero() {
		return j.UpdatedAt
	}
	return j.QueuedAt
}

var _ storage.ExclusiveStore = (*Memory)(nil)

// NewMemory returns an empty memory Store.
func NewMemory() *Memory {
	return &Memory{
		jobs:    map[string]*entry{},
		owners:  map[string]*owned{},
		changed: map[qtype.JobStatus]*ordered.Set[inproc.ChangeKey]{},
		devices: map[string]*ordered.Set[queueKey]{},
		queues:  map[storage.Queue]*ordered.Set[queueKey]{},
		keys:    map[idemKey]string{},
		ledgers: map[string]*ledger{},
	}
}

// Acquire marks the store in use by one Service; storage.ErrStoreInUse
// while another holds it. The returned release may be called more than
// once.
func (m *Memory) Acquire() (release func(), err error) { return m.inUse.Acquire() }

// lock takes the store's mutex and returns its unlock, for use as
// defer m.lock()().
func (m *Memory) lock() func() {
	m.mu.Lock()
	return m.mu.Unlock
}

// fault calls the test hook, if any, from inside a critical section.
func (m *Memory) fault(method string) {
	if m.hook != nil {
		m.hook(method)
	}
}

// Close does nothing: a memory Store has nothing to release. It is here so
// that callers can close any Store alike.
func (m *Memory) Close() error { return nil }

func (m *Memory) CreateJob(ctx context.Context, job *storage.JobRecord, program qtype.Program) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	j := job.Clone() // outside the lock: it may be large
	defer m.lock()()
	m.fault("CreateJob")
	if _, ok := m.jobs[j.JobQRN]; ok {
		return storage.ErrJobExists
	}
	k := idemKey{j.Owner, j.IdempotencyKey}
	if k.key != "" {
		if holder, ok := m.jobs[m.keys[k]]; ok && holder.job.TimeStamps.CreatedAt.After(j.TimeStamps.CreatedAt.Add(-storage.IdempotencyWindow)) {
			return fmt.Errorf("store: job %s: %w", holder.job.JobQRN, storage.ErrDuplicateKey)
		}
	}
	if err := m.reserve(j); err != nil {
		return fmt.Errorf("store: job %s: %w", j.JobQRN, err)
	}
	if k.key != "" {
		m.keys[k] = j.JobQRN // an expired holder keeps its key field, but no longer holds it
	}
	e := &entry{job: j, program: program}
	m.jobs[j.JobQRN] = e
	o := m.owners[j.Owner]
	if o == nil {
		o = &owned{jobs: ordered.New(compareList), counts: map[qtype.JobStatus]int{}}
		m.owners[j.Owner] = o
	}
	o.jobs.Insert(listKey{j.TimeStamps.CreatedAt, j.JobQRN})
	m.index(e, nil)
	return nil
}

// index moves e, whose job was old (nil for a new job), between the
// counts, the status sets and the queues, to where its job is now.
func (m *Memory) index(e *entry, old *storage.JobRecord) {
	j := e.job
	o := m.owners[j.Owner]
	if old != nil {
		m.unindexStatus(old)
	}
	o.counts[j.Status]++
	ordered.InsertIn(m.changed, j.Status, inproc.ChangeKey{At: j.UpdatedAt, QRN: j.JobQRN}, inproc.CompareChange)
	wasQueued := old != nil && old.Status == qtype.StatusQueued
	isQueued := j.Status == qtype.StatusQueued
	if wasQueued && isQueued && queuedAt(j).Equal(e.queued.at) {
		return // an update that keeps the job QUEUED in its place
	}
	if wasQueued {
		m.unqueue(e, old)
	}
	if isQueued {
		m.seq++
		e.queued = queueKey{queuedAt(j), m.seq, j.JobQRN}
		ordered.InsertIn(m.devices, j.DeviceQRN, e.queued, compareQueue)
		ordered.InsertIn(m.queues, storage.Queue{Device: j.DeviceQRN, Owner: j.Owner}, e.queued, compareQueue)
	}
}

// unindexStatus takes a job that was old out of its status's count and set.
func (m *Memory) unindexStatus(old *storage.JobRecord) {
	o := m.owners[old.Owner]
	if o.counts[old.Status]--; o.counts[old.Status] == 0 {
		delete(o.counts, old.Status)
	}
	// A status's set stays when it empties (there are a handful): a job
	// passing through an empty status would otherwise build it anew.
	m.changed[old.Status].Delete(inproc.ChangeKey{At: old.UpdatedAt, QRN: old.JobQRN})
}

// unqueue takes e, whose job was old and QUEUED, out of its queues.
func (m *Memory) unqueue(e *entry, old *storage.JobRecord) {
	m.devices[old.DeviceQRN].Delete(e.queued) // kept when empty, as the statuses' sets
	ordered.DeleteIn(m.queues, storage.Queue{Device: old.DeviceQRN, Owner: old.Owner}, e.queued)
	e.queued = queueKey{}
}

func (m *Memory) GetJob(ctx context.Context, qrn string) (*storage.JobRecord, error) {
	defer m.lock()()
	m.fault("GetJob")
	e, ok := m.jobs[qrn]
	if !ok {
		return nil, storage.ErrJobNotFound
	}
	return e.job, nil
}

func (m *Memory) JobByIdempotencyKey(ctx context.Context, owner, key string, since time.Time) (*storage.JobRecord, error) {
	if key == "" {
		return nil, storage.ErrJobNotFound
	}
	defer m.lock()()
	m.fault("JobByIdempotencyKey")
	e, ok := m.jobs[m.keys[idemKey{owner, key}]]
	if !ok || e.job.TimeStamps.CreatedAt.Before(since) {
		return nil, storage.ErrJobNotFound
	}
	return e.job, nil
}

func (m *Memory) GetProgram(ctx context.Context, qrn string) (*qtype.Program, error) {
	defer m.lock()()
	m.fault("GetProgram")
	e, ok := m.jobs[qrn]
	if !ok {
		return nil, storage.ErrJobNotFound
	}
	p := e.program
	return &p, nil
}

func (m *Memory) GetResult(ctx context.Context, qrn string) (*qtype.Result, error) {
	defer m.lock()()
	m.fault("GetResult")
	e, ok := m.jobs[qrn]
	if !ok || e.result == nil {
		return nil, storage.ErrJobNotFound
	}
	return e.result, nil // never changed, only replaced
}

func (m *Memory) UpdateJob(ctx context.Context, qrn string, expect qtype.JobStatus, change func(*storage.JobRecord), result *qtype.Result) (*storage.JobRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	defer m.lock()()
	m.fault("UpdateJob")
	e, ok := m.jobs[qrn]
	if !ok {
		return nil, storage.ErrJobNotFound
	}
	if e.job.Status != expect || expect.IsTerminal() {
		return nil, storage.ErrStatusChanged
	}
	old := e.job
	j := new(storage.JobRecord)
	*j = *old // its maps are old's: change replaces them, never writes in them
	change(j) // may panic: nothing has changed yet
	j.JobQRN, j.Owner, j.DeviceQRN, j.TimeStamps.CreatedAt = old.JobQRN, old.Owner, old.DeviceQRN, old.TimeStamps.CreatedAt
	j.IdempotencyKey, j.RequestHash, j.Reserved = old.IdempotencyKey, old.RequestHash, old.Reserved
	if err := m.settle(old, j); err != nil {
		return nil, err
	}
	e.job = j
	if result != nil {
		e.result = result
	}
	m.index(e, old)
	return j, nil
}

func (m *Memory) DeleteJob(ctx context.Context, qrn string, expect qtype.JobStatus) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	defer m.lock()()
	m.fault("DeleteJob")
	e, ok := m.jobs[qrn]
	if !ok {
		return storage.ErrJobNotFound
	}
	j := e.job
	if j.Status != expect {
		return storage.ErrStatusChanged
	}
	m.unindexStatus(j)
	if j.Status == qtype.StatusQueued {
		m.unqueue(e, j)
	}
	delete(m.jobs, qrn)
	if k := (idemKey{j.Owner, j.IdempotencyKey}); k.key != "" && m.keys[k] == qrn {
		delete(m.keys, k)
	}
	o := m.owners[j.Owner]
	if o.jobs.Delete(listKey{j.TimeStamps.CreatedAt, qrn}); o.jobs.Len() == 0 {
		delete(m.owners, j.Owner)
	}
	return nil
}

// listChunk is how many jobs a filtered list tests per hold of the mutex.
const listChunk = 1024

func (m *Memory) ListJobs(ctx context.Context, f storage.JobFilter) ([]*storage.JobRecord, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	unfiltered := len(f.Statuses) == 0 && f.Vendor == "" && f.Provider == "" && f.Search == "" && len(f.Tags) == 0
	if unfiltered {
		defer m.lock()()
		m.fault("ListJobs")
		o := m.owners[f.Owner]
		if o == nil {
			return nil, 0, nil
		}
		total := o.jobs.Len()
		start, end := f.PageBounds(total)
		var page []*storage.JobRecord
		for c := o.jobs.At(start); c.Valid() && len(page) < end-start; c.Next() {
			page = append(page, m.jobs[c.Key().qrn].job)
		}
		return page, total, nil
	}
	// Walk the owner's jobs newest first, a chunk at a time, resuming
	// after the last key seen: each job is tested once, as it is when
	// its chunk is read. A job's key (its creation time and QRN) never
	// changes, so none is seen twice.
	var page []*storage.JobRecord
	total := 0
	first, last := f.PageBounds(int(^uint(0) >> 1))
	var after *listKey
	for done := false; !done; {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		func() {
			defer m.lock()()
			m.fault("ListJobs")
			o := m.owners[f.Owner]
			if o == nil {
				done = true
				return
			}
			c := o.jobs.First()
			if after != nil {
				if c = o.jobs.Seek(*after); c.Valid() && compareList(c.Key(), *after) == 0 {
					c.Next()
				}
			}
			for n := 0; n < listChunk && c.Valid(); c.Next() {
				k := c.Key()
				after = &k
				n++
				j := m.jobs[k.qrn].job
				if !f.Matches(j) {
					continue
				}
				if total >= first && total < last {
					page = append(page, j)
				}
				total++
			}
			done = !c.Valid()
		}()
	}
	return page, total, nil
}

func (m *Memory) CountQueued(ctx context.Context, deviceQRN string) (int, error) {
	defer m.lock()()
	m.fault("CountQueued")
	if q := m.devices[deviceQRN]; q != nil {
		return q.Len(), nil
	}
	return 0, nil
}

func (m *Memory) CountJobs(ctx context.Context, owner string, statuses []qtype.JobStatus) (int, error) {
	defer m.lock()()
	m.fault("CountJobs")
	o := m.owners[owner]
	if o == nil {
		return 0, nil
	}
	n := 0
	for i, st := range statuses {
		if !slices.Contains(statuses[:i], st) { // each status once
			n += o.counts[st]
		}
	}
	return n, nil
}

func (m *Memory) QueuePosition(ctx context.Context, qrn string) (int, error) {
	defer m.lock()()
	m.fault("QueuePosition")
	e, ok := m.jobs[qrn]
	if !ok {
		return 0, storage.ErrJobNotFound
	}
	if e.job.Status != qtype.StatusQueued {
		return 0, nil
	}
	if q := m.devices[e.job.DeviceQRN]; q != nil {
		if r, found := q.Rank(e.queued); found {
			return r + 1, nil
		}
	}
	return 0, nil
}

func (m *Memory) Queues(ctx context.Context) ([]storage.Queue, error) {
	defer m.lock()()
	m.fault("Queues")
	out := slices.Collect(maps.Keys(m.queues))
	slices.SortFunc(out, inproc.CompareQueues)
	return out, nil
}

func (m *Memory) ClaimJob(ctx context.Context, c storage.Claim) (*storage.JobRecord, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	defer m.lock()()
	m.fault("ClaimJob")
	q := m.queues[c.Queue]
	if q == nil {
		return nil, storage.ErrNoJob
	}
	head := q.First()
	e := m.jobs[head.Key().qrn]
	if e.job.MemoryNeed > c.MaxMemory {
		return e.job, storage.ErrMemoryShort
	}
	old := e.job
	j := new(storage.JobRecord)
	*j = *old
	j.Status, j.UpdatedAt, j.LeaseUntil, j.Node = qtype.StatusRunning, laterOf(c.Now, old.UpdatedAt), c.LeaseUntil, c.Node
	j.Attempts++
	e.job = j
	m.index(e, old)
	return j, nil
}

func (m *Memory) Unfinished(ctx context.Context, statuses []qtype.JobStatus, before time.Time, limit int) ([]*storage.JobRecord, error) {
	defer m.lock()()
	m.fault("Unfinished")
	var out []*storage.JobRecord
	for i, st := range statuses {
		set := m.changed[st]
		if set == nil || slices.Contains(statuses[:i], st) {
			continue
		}
		n := 0
		for c := set.First(); c.Valid() && n < limit; c.Next() {
			k := c.Key()
			if !before.IsZero() && !k.At.Before(before) {
				break
			}
			out = append(out, m.jobs[k.QRN].job)
			n++
		}
	}
	inproc.SortByUpdate(out)
	return out[:min(len(out), max(limit, 0))], nil
}
