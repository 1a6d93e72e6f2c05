// Package store holds the Stores the Service runs on: NewMemory keeps jobs
// for the life of the process. Package storetest is the conformance suite
// every Store passes.
package store

import (
	"context"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/qjobs/quantum"
)

// Memory is a Store that keeps everything in memory, safe for concurrent
// use. Jobs are lost when the process ends.
//
// One mutex guards everything, and every method releases it with defer:
// a panic inside a critical section (a caller's change function, say)
// leaves the store usable.
type Memory struct {
	mu       sync.Mutex
	jobs     map[string]*entry
	owners   map[string]*owned
	byStatus map[quantum.JobStatus]map[string]*entry
	devices  map[string]*queue        // device → its QUEUED jobs in order: positions and depth
	queues   map[quantum.Queue]*queue // owner and device → their QUEUED jobs in order: claims
	seq      uint64

	// hook, when set (by tests), is called inside every critical section
	// with the method's name.
	hook func(method string)
}

// owned is one owner's jobs and how many are in each status.
type owned struct {
	jobs   map[string]*entry
	counts map[quantum.JobStatus]int
}

type entry struct {
	job     *quantum.Job
	program quantum.Program
	result  map[string]int
	// queueSeq identifies the job's current place in its queues; places
	// left behind by a job that moved on are skipped lazily.
	queueSeq uint64
}

// queue is a FIFO of QUEUED jobs with lazy deletion: a job that leaves
// the queue stays in items until a claim or a compaction passes it.
type queue struct {
	items []queued
	count int // live items
}

type queued struct {
	qrn string
	seq uint64
}

var _ quantum.Store = (*Memory)(nil)

// NewMemory returns an empty memory Store.
func NewMemory() *Memory {
	return &Memory{
		jobs:     map[string]*entry{},
		owners:   map[string]*owned{},
		byStatus: map[quantum.JobStatus]map[string]*entry{},
		devices:  map[string]*queue{},
		queues:   map[quantum.Queue]*queue{},
	}
}

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

// Exclusive reports true: a memory Store belongs to one process.
func (m *Memory) Exclusive() bool { return true }

// Close does nothing: a memory Store has nothing to release. It is here so
// that callers can close any Store alike.
func (m *Memory) Close() error { return nil }

func (m *Memory) CreateJob(ctx context.Context, job *quantum.Job, program quantum.Program) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	defer m.lock()()
	m.fault("CreateJob")
	if _, ok := m.jobs[job.JobQRN]; ok {
		return quantum.ErrJobExists
	}
	e := &entry{job: job.Clone(), program: program}
	m.jobs[job.JobQRN] = e
	o := m.owners[job.Owner]
	if o == nil {
		o = &owned{jobs: map[string]*entry{}, counts: map[quantum.JobStatus]int{}}
		m.owners[job.Owner] = o
	}
	o.jobs[job.JobQRN] = e
	m.index(e, "")
	return nil
}

// index moves e between the status sets, counts and queues after its
// status changed from old ("" for a new job; the job's own status when it
// did not change, which keeps its place in the queues).
func (m *Memory) index(e *entry, old quantum.JobStatus) {
	j := e.job
	if old == j.Status {
		return
	}
	o := m.owners[j.Owner]
	if old != "" {
		m.unindex(e, old)
	}
	o.counts[j.Status]++
	if m.byStatus[j.Status] == nil {
		m.byStatus[j.Status] = map[string]*entry{}
	}
	m.byStatus[j.Status][j.JobQRN] = e
	if j.Status == quantum.StatusQueued {
		m.seq++
		e.queueSeq = m.seq
		it := queued{j.JobQRN, m.seq}
		for _, q := range []*queue{m.deviceQueue(j.DeviceQRN), m.ownerQueue(j)} {
			q.items = append(q.items, it)
			q.count++
		}
	}
}

// unindex takes e, whose status was old, out of the status sets, counts
// and queues.
func (m *Memory) unindex(e *entry, old quantum.JobStatus) {
	j := e.job
	o := m.owners[j.Owner]
	o.counts[old]--
	if o.counts[old] == 0 {
		delete(o.counts, old)
	}
	delete(m.byStatus[old], j.JobQRN)
	if old == quantum.StatusQueued {
		e.queueSeq = 0
		left(m, m.devices, j.DeviceQRN)
		left(m, m.queues, quantum.Queue{Device: j.DeviceQRN, Owner: j.Owner})
	}
}

// left notes that a job left the queue under key; once most of its items
// are dead the queue is compacted, so that it never holds more than about
// twice its live jobs.
func left[K comparable](m *Memory, queues map[K]*queue, key K) {
	q := queues[key]
	q.count--
	switch {
	case q.count == 0:
		delete(queues, key)
	case len(q.items) > 2*q.count+64:
		q.items = slices.DeleteFunc(q.items, func(it queued) bool { return !m.live(it) })
	}
}

// trim drops the dead items at the head of q.
func (q *queue) trim(m *Memory) {
	for len(q.items) > 0 && !m.live(q.items[0]) {
		q.items[0] = queued{}
		q.items = q.items[1:]
	}
}

func (m *Memory) deviceQueue(device string) *queue {
	q := m.devices[device]
	if q == nil {
		q = &queue{}
		m.devices[device] = q
	}
	return q
}

func (m *Memory) ownerQueue(j *quantum.Job) *queue {
	k := quantum.Queue{Device: j.DeviceQRN, Owner: j.Owner}
	q := m.queues[k]
	if q == nil {
		q = &queue{}
		m.queues[k] = q
	}
	return q
}

func (m *Memory) live(q queued) bool {
	e, ok := m.jobs[q.qrn]
	return ok && e.job.Status == quantum.StatusQueued && e.queueSeq == q.seq
}

func (m *Memory) GetJob(ctx context.Context, qrn string) (*quantum.Job, error) {
	defer m.lock()()
	m.fault("GetJob")
	e, ok := m.jobs[qrn]
	if !ok {
		return nil, quantum.ErrJobNotFound
	}
	return e.job.Clone(), nil
}

func (m *Memory) GetProgram(ctx context.Context, qrn string) (*quantum.Program, error) {
	defer m.lock()()
	m.fault("GetProgram")
	e, ok := m.jobs[qrn]
	if !ok {
		return nil, quantum.ErrJobNotFound
	}
	p := e.program
	return &p, nil
}

func (m *Memory) GetResult(ctx context.Context, qrn string) (map[string]int, error) {
	defer m.lock()()
	m.fault("GetResult")
	e, ok := m.jobs[qrn]
	if !ok || e.result == nil {
		return nil, quantum.ErrJobNotFound
	}
	return maps.Clone(e.result), nil
}

func (m *Memory) UpdateJob(ctx context.Context, qrn string, expect quantum.JobStatus, change func(*quantum.Job), result map[string]int) (*quantum.Job, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	defer m.lock()()
	m.fault("UpdateJob")
	e, ok := m.jobs[qrn]
	if !ok {
		return nil, quantum.ErrJobNotFound
	}
	if e.job.Status != expect || expect.IsTerminal() {
		return nil, quantum.ErrStatusChanged
	}
	j := e.job.Clone()
	change(j)                                                                   // may panic: nothing has changed yet
	j.JobQRN, j.Owner, j.DeviceQRN = e.job.JobQRN, e.job.Owner, e.job.DeviceQRN // identity never changes
	old := e.job.Status
	e.job = j
	if result != nil {
		e.result = maps.Clone(result)
	}
	m.index(e, old)
	return j.Clone(), nil
}

func (m *Memory) DeleteJob(ctx context.Context, qrn string, expect quantum.JobStatus) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	defer m.lock()()
	m.fault("DeleteJob")
	e, ok := m.jobs[qrn]
	if !ok {
		return quantum.ErrJobNotFound
	}
	if e.job.Status != expect {
		return quantum.ErrStatusChanged
	}
	m.unindex(e, e.job.Status)
	delete(m.jobs, qrn)
	o := m.owners[e.job.Owner]
	delete(o.jobs, qrn)
	if len(o.jobs) == 0 {
		delete(m.owners, e.job.Owner)
	}
	return nil
}

func (m *Memory) ListJobs(ctx context.Context, f quantum.JobFilter) ([]*quantum.Job, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	defer m.lock()()
	m.fault("ListJobs")
	var match []*quantum.Job
	if o := m.owners[f.Owner]; o != nil {
		for _, e := range o.jobs {
			if f.Matches(e.job) {
				match = append(match, e.job)
			}
		}
	}
	slices.SortFunc(match, newestFirst)
	start, end := f.PageBounds(len(match))
	var page []*quantum.Job
	for _, j := range match[start:end] {
		page = append(page, j.Clone())
	}
	return page, len(match), nil
}

// newestFirst orders jobs by creation time, newest first, then by QRN
// descending: a total order, so pages are stable.
func newestFirst(a, b *quantum.Job) int {
	if c := b.TimeStamps.CreatedAt.Compare(a.TimeStamps.CreatedAt); c != 0 {
		return c
	}
	return strings.Compare(b.JobQRN, a.JobQRN)
}

func (m *Memory) CountQueued(ctx context.Context, deviceQRN string) (int, error) {
	defer m.lock()()
	m.fault("CountQueued")
	if q := m.devices[deviceQRN]; q != nil {
		return q.count, nil
	}
	return 0, nil
}

func (m *Memory) CountJobs(ctx context.Context, owner string, statuses []quantum.JobStatus) (int, error) {
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
		return 0, quantum.ErrJobNotFound
	}
	if e.job.Status != quantum.StatusQueued {
		return 0, nil
	}
	q := m.devices[e.job.DeviceQRN]
	q.trim(m)
	pos := 0
	for _, it := range q.items {
		if m.live(it) {
			pos++
			if it.qrn == qrn {
				return pos, nil
			}
		}
	}
	return 0, nil
}

func (m *Memory) Queues(ctx context.Context) ([]quantum.Queue, error) {
	defer m.lock()()
	m.fault("Queues")
	out := slices.Collect(maps.Keys(m.queues))
	slices.SortFunc(out, compareQueues)
	return out, nil
}

func compareQueues(a, b quantum.Queue) int {
	if c := strings.Compare(a.Device, b.Device); c != 0 {
		return c
	}
	return strings.Compare(a.Owner, b.Owner)
}

func (m *Memory) ClaimJob(ctx context.Context, c quantum.Claim) (*quantum.Job, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	defer m.lock()()
	m.fault("ClaimJob")
	q := m.queues[c.Queue]
	if q == nil {
		return nil, quantum.ErrNoJob
	}
	if q.trim(m); len(q.items) == 0 {
		return nil, quantum.ErrNoJob
	}
	e := m.jobs[q.items[0].qrn]
	if e.job.MemoryNeed > c.MaxMemory {
		return e.job.Clone(), quantum.ErrMemoryShort
	}
	j := e.job.Clone()
	j.Status, j.UpdatedAt, j.LeaseUntil = quantum.StatusRunning, c.Now, c.LeaseUntil
	e.job = j
	m.index(e, quantum.StatusQueued)
	if dq := m.devices[j.DeviceQRN]; dq != nil {
		dq.trim(m) // claims come mostly from the head: keep it live
	}
	return j.Clone(), nil
}

func (m *Memory) Unfinished(ctx context.Context, statuses []quantum.JobStatus, before time.Time, limit int) ([]*quantum.Job, error) {
	defer m.lock()()
	m.fault("Unfinished")
	var out []*quantum.Job
	for _, st := range statuses {
		for _, e := range m.byStatus[st] {
			if before.IsZero() || e.job.UpdatedAt.Before(before) {
				out = append(out, e.job)
			}
		}
	}
	sortByUpdate(out)
	out = out[:min(len(out), max(limit, 0))]
	for i, j := range out {
		out[i] = j.Clone()
	}
	return out, nil
}

// sortByUpdate orders jobs by their last change, oldest first, then QRN.
func sortByUpdate(jobs []*quantum.Job) {
	slices.SortFunc(jobs, func(a, b *quantum.Job) int {
		if c := a.UpdatedAt.Compare(b.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.JobQRN, b.JobQRN)
	})
}
