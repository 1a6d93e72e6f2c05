package store

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store/internal/inproc"
)

var _ storage.BatchClaimer = (*Memory)(nil)

// ClaimJobs claims for every entry of c's plan under one hold of the
// mutex: each entry takes its queue's head as ClaimJob would, while the
// jobs' memory fits c.MaxMemory together.
func (m *Memory) ClaimJobs(ctx context.Context, c storage.BatchClaim) (*storage.ClaimedJobs, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	defer m.lock()()
	m.fault("ClaimJobs")
	out := &storage.ClaimedJobs{}
	if len(m.queues) == 0 {
		return out, nil // nothing queued: the common answer of an idle worker
	}
	queues := slices.Collect(maps.Keys(m.queues))
	slices.SortFunc(queues, inproc.CompareQueues)
	plan := c.Plan(queues)
	out.Jobs = make([]storage.ClaimedJob, 0, len(plan))
	left := c.MaxMemory
	for i, turn := range plan {
		q := m.queues[turn]
		if q == nil {
			continue
		}
		head := q.First()
		e := m.jobs[head.Key().qrn]
		need := max(e.job.MemoryNeed, 0)
		if need > left {
			out.Short = e.job // a snapshot, as every record it hands out
			break
		}
		left -= need
		old := e.job
		j := new(storage.JobRecord)
		*j = *old
		// c.Now was read before this claim found the job, which may have
		// been queued since: a job's changes never go back in time
		// (watchers order them by UpdatedAt).
		j.Status, j.UpdatedAt, j.LeaseUntil, j.Node = qtype.StatusRunning, laterOf(c.Now, old.UpdatedAt), c.LeaseUntil, c.Node
		j.Attempts++
		e.job = j
		m.index(e, old)
		p := e.program
		out.Jobs = append(out.Jobs, storage.ClaimedJob{Job: j, Program: &p, Turn: i})
	}
	return out, nil
}

func laterOf(a, b time.Time) time.Time {
	if a.Before(b) {
		return b
	}
	return a
}
