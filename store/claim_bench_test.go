package store_test

import (
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/store"
)

// benchJob is job i of owner on device, in status, created (and, if
// QUEUED, queued) i milliseconds after the epoch.
func benchJob(owner, device, vendor string, status quantum.JobStatus, i int, tags map[string]any) *quantum.JobRecord {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Millisecond)
	j := &quantum.JobRecord{Job: quantum.Job{JobQRN: fmt.Sprintf("%s-abcd-qjob-%024x", device, i), DeviceQRN: device, Name: fmt.Sprintf("job %d", i),
		Status: status, Vendor: vendor, Provider: vendor, Shots: 100, TimeStamps: quantum.TimeStamps{CreatedAt: at},
		Tags: tags, RuntimeOptions: map[string]any{}, Metadata: map[string]any{}}, Owner: owner, UpdatedAt: at}
	if status == quantum.StatusQueued {
		j.QueuedAt = at
	}
	return j
}

// parallelFill creates jobs 0..n-1 made by mk, from several goroutines.
func parallelFill(b *testing.B, st quantum.Store, n int, mk func(i int) *quantum.JobRecord) {
	workers := runtime.GOMAXPROCS(0) * 4
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				if err := st.CreateJob(ctx, mk(i), quantum.Program{Format: "qasm2", Data: benchBell}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// BenchmarkClaim100k claims the head of a queue of 100,000 QUEUED jobs
// of one owner on one device. Each claimed job is put back at the tail
// with the timer stopped, so the queue stays at 100,000.
func BenchmarkClaim100k(b *testing.B) {
	const n = 100_000
	device := "qbraid:qbraid:sim:qir-sv"
	for _, tc := range []struct {
		name string
		open func(b *testing.B) quantum.Store
	}{
		{"memory", func(b *testing.B) quantum.Store { return store.NewMemory() }},
		{"badger-inmemory", func(b *testing.B) quantum.Store {
			st, err := store.OpenBadger("", store.WithInMemory())
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { st.Close() })
			return st
		}},
		{"badger-disk-nosync", func(b *testing.B) quantum.Store {
			st, err := store.OpenBadger(b.TempDir(), store.WithSyncWrites(false))
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { st.Close() })
			return st
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			st := tc.open(b)
			parallelFill(b, st, n, func(i int) *quantum.JobRecord {
				return benchJob("owner", device, "qbraid", quantum.StatusQueued, i, map[string]any{})
			})
			claim := quantum.Claim{Queue: quantum.Queue{Device: device, Owner: "owner"}, MaxMemory: 1 << 40}
			next := n
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
				if _, err := st.UpdateJob(ctx, j.JobQRN, quantum.StatusRunning, func(j *quantum.JobRecord) {
					j.Status, j.UpdatedAt, j.QueuedAt = quantum.StatusQueued, at, at
				}, nil); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
			b.StopTimer()
			if c, _ := st.CountQueued(ctx, device); c != n {
				b.Fatalf("%d queued, want %d", c, n)
			}
		})
	}
}

// BenchmarkQueuePosition100k asks the place of jobs spread over a queue
// of 100,000 QUEUED jobs.
func BenchmarkQueuePosition100k(b *testing.B) {
	const n = 100_000
	device := "qbraid:qbraid:sim:qir-sv"
	for _, tc := range []struct {
		name string
		open func(b *testing.B) quantum.Store
	}{
		{"memory", func(b *testing.B) quantum.Store { return store.NewMemory() }},
		{"badger-inmemory", func(b *testing.B) quantum.Store {
			st, err := store.OpenBadger("", store.WithInMemory())
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { st.Close() })
			return st
		}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			st := tc.open(b)
			parallelFill(b, st, n, func(i int) *quantum.JobRecord {
				return benchJob("owner", device, "qbraid", quantum.StatusQueued, i, map[string]any{})
			})
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for range b.N {
				i = (i + 7919) % n
				qrn := fmt.Sprintf("%s-abcd-qjob-%024x", device, i)
				if pos, err := st.QueuePosition(ctx, qrn); err != nil || pos != i+1 {
					b.Fatalf("QueuePosition = %d, %v; want %d", pos, err, i+1)
				}
			}
		})
	}
}
