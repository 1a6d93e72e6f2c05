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
type Memory struct {
	mu       sync.Mutex
	jobs     map[string]*entry
	byOwner  map[string]map[string]*entry
	byStatus map[quantum.JobStatus]map[string]*entry
	queues   map[string]*queue // device → its QUEUED jobs in order
	seq      uint64
}

type entry struct {
	job     *quantum.Job
	program quantum.Program
	result  map[string]int
	// queueSeq identifies the job's current place in its device's queue;
	// places left behind by a job that moved on are skipped lazily.
	queueSeq uint64
}

type queue struct {
	items []queued
	count int // live items: QUEUED jobs of the device
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
		byOwner:  map[string]map[string]*entry{},
		byStatus: map[quantum.JobStatus]map[string]*entry{},
		queues:   map[string]*queue{},
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
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.jobs[job.JobQRN]; ok {
		return quantum.ErrJobExists
	}
	e := &entry{job: job.Clone(), program: program}
	m.jobs[job.JobQRN] = e
	if m.byOwner[job.Owner] == nil {
		m.byOwner[job.Owner] = map[string]*entry{}
	}
	m.byOwner[job.Owner][job.JobQRN] = e
	m.index(e, "")
	return nil
}

// index moves e between the status sets and queues after its status
// changed from old ("" for a new job).
func (m *Memory) index(e *entry, old quantum.JobStatus) {
	j := e.job
	if old == j.Status && old != quantum.StatusQueued {
		return
	}
	if old != "" {
		delete(m.byStatus[old], j.JobQRN)
		if old == quantum.StatusQueued {
			m.queues[j.DeviceQRN].count--
		}
	}
	if m.byStatus[j.Status] == nil {
		m.byStatus[j.Status] = map[string]*entry{}
	}
	m.byStatus[j.Status][j.JobQRN] = e
	if j.Status == quantum.StatusQueued && old != quantum.StatusQueued {
		q := m.queues[j.DeviceQRN]
		if q == nil {
			q = &queue{}
			m.queues[j.DeviceQRN] = q
		}
		m.seq++
		e.queueSeq = m.seq
		q.items = append(q.items, queued{j.JobQRN, m.seq})
		q.count++
	}
}

func (m *Memory) live(q queued) bool {
	e, ok := m.jobs[q.qrn]
	return ok && e.job.Status == quantum.StatusQueued && e.queueSeq == q.seq
}

func (m *Memory) GetJob(ctx context.Context, qrn string) (*quantum.Job, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.jobs[qrn]
	if !ok {
		return nil, quantum.ErrJobNotFound
	}
	return e.job.Clone(), nil
}

func (m *Memory) GetProgram(ctx context.Context, qrn string) (*quantum.Program, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.jobs[qrn]
	if !ok {
		return nil, quantum.ErrJobNotFound
	}
	p := e.program
	return &p, nil
}

func (m *Memory) GetResult(ctx context.Context, qrn string) (map[string]int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
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
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.jobs[qrn]
	if !ok {
		return nil, quantum.ErrJobNotFound
	}
	if e.job.Status != expect || expect.IsTerminal() {
		return nil, quantum.ErrStatusChanged
	}
	j := e.job.Clone()
	change(j)
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
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.jobs[qrn]
	if !ok {
		return quantum.ErrJobNotFound
	}
	if e.job.Status != expect {
		return quantum.ErrStatusChanged
	}
	delete(m.jobs, qrn)
	delete(m.byOwner[e.job.Owner], qrn)
	delete(m.byStatus[e.job.Status], qrn)
	if e.job.Status == quantum.StatusQueued {
		m.queues[e.job.DeviceQRN].count--
	}
	return nil
}

func (m *Memory) ListJobs(ctx context.Context, f quantum.JobFilter) ([]*quantum.Job, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	m.mu.Lock()
	var match []*quantum.Job
	for _, e := range m.byOwner[f.Owner] {
		if f.Matches(e.job) {
			match = append(match, e.job)
		}
	}
	slices.SortFunc(match, newestFirst)
	total := len(match)
	var page []*quantum.Job
	if f.Offset < total {
		for _, j := range match[f.Offset:min(total, f.Offset+f.Limit)] {
			page = append(page, j.Clone())
		}
	}
	m.mu.Unlock()
	return page, total, nil
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
	m.mu.Lock()
	defer m.mu.Unlock()
	if q := m.queues[deviceQRN]; q != nil {
		return q.count, nil
	}
	return 0, nil
}

func (m *Memory) QueuePosition(ctx context.Context, qrn string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.jobs[qrn]
	if !ok {
		return 0, quantum.ErrJobNotFound
	}
	if e.job.Status != quantum.StatusQueued {
		return 0, nil
	}
	pos := 0
	for _, it := range m.queues[e.job.DeviceQRN].items {
		if m.live(it) {
			pos++
			if it.qrn == qrn {
				return pos, nil
			}
		}
	}
	return 0, nil
}

func (m *Memory) QueuedDevices(ctx context.Context) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []string
	for d, q := range m.queues {
		if q.count > 0 {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return out, nil
}

func (m *Memory) ClaimJob(ctx context.Context, deviceQRN string, now, leaseUntil time.Time) (*quantum.Job, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	q := m.queues[deviceQRN]
	if q == nil {
		return nil, quantum.ErrNoJob
	}
	for len(q.items) > 0 {
		it := q.items[0]
		q.items[0] = queued{}
		q.items = q.items[1:]
		if !m.live(it) {
			continue
		}
		e := m.jobs[it.qrn]
		j := e.job.Clone()
		j.Status, j.UpdatedAt, j.LeaseUntil = quantum.StatusRunning, now, leaseUntil
		e.job = j
		m.index(e, quantum.StatusQueued)
		return j.Clone(), nil
	}
	return nil, quantum.ErrNoJob
}

func (m *Memory) Unfinished(ctx context.Context, statuses []quantum.JobStatus, before time.Time, limit int) ([]*quantum.Job, error) {
	m.mu.Lock()
	var out []*quantum.Job
	for _, st := range statuses {
		for _, e := range m.byStatus[st] {
			if before.IsZero() || e.job.UpdatedAt.Before(before) {
				out = append(out, e.job)
			}
		}
	}
	sortByUpdate(out)
	if len(out) > limit {
		out = out[:limit]
	}
	for i, j := range out {
		out[i] = j.Clone()
	}
	m.mu.Unlock()
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
