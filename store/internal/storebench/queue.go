package storebench

import (
	"fmt"
	"testing"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// queueLen is how many QUEUED jobs the queue benchmarks hold, of one
// owner on one device.
const queueLen = 100_000

const device = "qbraid:qbraid:sim:qir-sv"

// fillQueue fills st with the queue of the benchmarks.
func fillQueue(b *testing.B, st storage.Store) {
	b.Helper()
	Fill(b, st, queueLen, func(i int) *storage.JobRecord {
		return Job("owner", device, "qbraid", qtype.StatusQueued, i, map[string]any{})
	})
}

// Claim100k claims the head of a queue of 100,000 QUEUED jobs in st, an
// empty store. Each claimed job is put back at the tail with the timer
// stopped, so the queue stays at 100,000.
func Claim100k(b *testing.B, st storage.Store) {
	fillQueue(b, st)
	claim := storage.Claim{Queue: storage.Queue{Device: device, Owner: "owner"}, MaxMemory: 1 << 40}
	next := queueLen
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		j, err := st.ClaimJob(ctx, claim)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(next) * time.Millisecond)
		next++
		if _, err := st.UpdateJob(ctx, j.JobQRN, qtype.StatusRunning, func(j *storage.JobRecord) {
			j.Status, j.UpdatedAt, j.QueuedAt = qtype.StatusQueued, at, at
		}, nil); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.StopTimer()
	if c, _ := st.CountQueued(ctx, device); c != queueLen {
		b.Fatalf("%d queued, want %d", c, queueLen)
	}
}

// QueuePosition100k asks the place of jobs spread over a queue of
// 100,000 QUEUED jobs in st, an empty store.
func QueuePosition100k(b *testing.B, st storage.Store) {
	fillQueue(b, st)
	b.ReportAllocs()
	b.ResetTimer()
	i := 0
	for range b.N {
		i = (i + 7919) % queueLen
		qrn := fmt.Sprintf("%s-abcd-qjob-%024x", device, i)
		if pos, err := st.QueuePosition(ctx, qrn); err != nil || pos != i+1 {
			b.Fatalf("QueuePosition = %d, %v; want %d", pos, err, i+1)
		}
	}
}
