// Package latency measures how long a waiter takes to learn that a job
// ended: from the store's commit of the job's final status to the
// waiter's return. The Wait benchmarks of the root package and of
// httpadapter share it.
package latency

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// CommitClock is a Store that notes when each job's final status was
// committed: when the store's UpdateJob returned it, before the Service
// tells anyone.
type CommitClock struct {
	storage.Store
	mu sync.Mutex
	at map[string]time.Time
}

// NewCommitClock wraps st.
func NewCommitClock(st storage.Store) *CommitClock {
	return &CommitClock{Store: st, at: map[string]time.Time{}}
}

func (c *CommitClock) UpdateJob(ctx context.Context, qrn string, expect quantum.JobStatus, change func(*storage.JobRecord), result *qtype.Result) (*storage.JobRecord, error) {
	rec, err := c.Store.UpdateJob(ctx, qrn, expect, change, result)
	if err == nil && rec.Status.IsTerminal() {
		now := time.Now()
		c.mu.Lock()
		defer c.mu.Unlock()
		c.at[qrn] = now
	}
	return rec, err
}

// Since returns how long ago the job's end was committed.
func (c *CommitClock) Since(qrn string, now time.Time) (time.Duration, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	at, ok := c.at[qrn]
	delete(c.at, qrn)
	return now.Sub(at), ok
}

// Run runs b.N jobs one after another: create starts one (which must run
// for a few milliseconds, so that the waiter is waiting when it ends),
// wait waits for it; it reports the p50 and p99 latency in microseconds.
func Run(b *testing.B, clock *CommitClock, create func() string, wait func(qrn string)) {
	b.Helper()
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		qrn := create()
		wait(qrn)
		d, ok := clock.Since(qrn, time.Now())
		if !ok {
			b.Fatalf("job %s: the waiter returned before its end was committed", qrn)
		}
		lat = append(lat, d)
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
}
