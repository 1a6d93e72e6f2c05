package badger_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store/badger"
	"github.com/qjobs/quantum/store/internal/storebench"
)

// BenchmarkBadgerJobThroughput is create → COMPLETED → result on the
// badger store, with synchronous writes on and off.
func BenchmarkBadgerJobThroughput(b *testing.B) {
	for _, syncWrites := range []bool{true, false} {
		b.Run(fmt.Sprintf("sync=%v", syncWrites), func(b *testing.B) {
			st, err := badger.Open(b.TempDir(), badger.WithSyncWrites(syncWrites))
			if err != nil {
				b.Fatal(err)
			}
			defer st.Close()
			svc, err := quantum.New(st)
			if err != nil {
				b.Fatal(err)
			}
			defer svc.Close(context.Background())
			u, _ := svc.AddAPIKey("bench", "bench")
			req := quantum.JobRequest{DeviceQRN: "qbraid:qbraid:sim:qir-sv", Shots: 1000, Program: &quantum.Program{Format: "qasm2", Data: storebench.Bell}}
			work := make(chan struct{})
			var wg sync.WaitGroup
			for range 32 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for range work {
						j, err := svc.CreateJob(ctx, u, req)
						if err != nil {
							b.Error(err)
							return
						}
						for !j.Status.IsTerminal() {
							time.Sleep(100 * time.Microsecond)
							if j, err = svc.GetJob(ctx, u, j.JobQRN); err != nil {
								b.Error(err)
								return
							}
						}
						if _, err := svc.GetJobResult(ctx, u, j.JobQRN); err != nil {
							b.Error(err)
						}
					}
				}()
			}
			start := time.Now()
			for range b.N {
				work <- struct{}{}
			}
			close(work)
			wg.Wait()
			b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "jobs/s")
		})
	}
}

// BenchmarkBadgerList1M reads the first page (50) of one user's jobs from
// a store on disk that holds 1,000,000 of them, with each kind of filter.
// Filling the store takes a few minutes. The jobs: every 10th FAILED,
// every 10th (+1) RUNNING, every 10th (+2) CANCELLED, the rest COMPLETED;
// every 4th on aws (vendor and provider), the rest on qbraid; tags i (the
// job's number) and mod (i mod 3).
func BenchmarkBadgerList1M(b *testing.B) {
	const n = 1_000_000
	st, err := badger.Open(b.TempDir(), badger.WithSyncWrites(false))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	start := time.Now()
	fill(b, st, n)
	b.Logf("filled %d jobs in %v", n, time.Since(start))
	groups := qtype.StatusGroups()
	for _, tc := range []struct {
		name  string
		f     storage.JobFilter
		total int // -1: ErrScanLimit
	}{
		{"unfiltered", storage.JobFilter{}, n},
		{"page100", storage.JobFilter{Offset: 99 * 50}, n},
		{"status=FAILED", storage.JobFilter{Statuses: []quantum.JobStatus{quantum.StatusFailed}}, n / 10},
		{"group=pending", storage.JobFilter{Statuses: groups["pending"]}, n / 10},
		{"group=returned", storage.JobFilter{Statuses: groups["returned"]}, n - n/10},
		{"group=returned,page100", storage.JobFilter{Statuses: groups["returned"], Offset: 99 * 50}, n - n/10},
		{"vendor=aws", storage.JobFilter{Vendor: "aws"}, n / 4},
		{"provider=aws", storage.JobFilter{Provider: "aws"}, n / 4},
		{"tag=i:123456", storage.JobFilter{Tags: map[string]any{"i": int64(123456)}}, 1},
		{"tag=mod:1", storage.JobFilter{Tags: map[string]any{"mod": int64(1)}}, n / 3},
		{"tags=mod:1,i:123457", storage.JobFilter{Tags: map[string]any{"mod": int64(1), "i": int64(123457)}}, 1},
		{"status=FAILED,vendor=aws", storage.JobFilter{Statuses: []quantum.JobStatus{quantum.StatusFailed}, Vendor: "aws"}, n / 20},
		{"status=FAILED,search", storage.JobFilter{Statuses: []quantum.JobStatus{quantum.StatusFailed}, Search: "sim:sv1"}, n / 20},
		{"search (scan limit)", storage.JobFilter{Search: "sim:sv1"}, -1},
		{"vendor=aws,search (scan limit)", storage.JobFilter{Vendor: "aws", Search: "x"}, -1},
	} {
		b.Run(tc.name, func(b *testing.B) {
			f := tc.f
			f.Owner, f.Limit = "owner", 50
			for b.Loop() {
				page, total, err := st.ListJobs(ctx, f)
				if tc.total < 0 {
					if !errors.Is(err, storage.ErrScanLimit) {
						b.Fatalf("%v, want ErrScanLimit", err)
					}
					continue
				}
				if err != nil || len(page) != min(50, tc.total) || total != tc.total {
					b.Fatalf("%d jobs of %d, %v; want a page of %d", len(page), total, err, tc.total)
				}
			}
		})
	}
}

func fill(b *testing.B, st storage.Store, n int) {
	storebench.Fill(b, st, n, func(i int) *storage.JobRecord {
		status, vendor, device := quantum.StatusCompleted, "qbraid", "qbraid:qbraid:sim:qir-sv"
		switch i % 10 {
		case 0:
			status = quantum.StatusFailed
		case 1:
			status = quantum.StatusRunning
		case 2:
			status = quantum.StatusCancelled
		}
		if i%4 == 0 {
			vendor, device = "aws", "aws:aws:sim:sv1"
		}
		return storebench.Job("owner", device, vendor, status, i, map[string]any{"i": int64(i), "mod": int64(i % 3)})
	})
}
