package store_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/store"
)

const benchBell = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n"

// BenchmarkBadgerJobThroughput is create → COMPLETED → result on the
// badger store, with synchronous writes on and off.
func BenchmarkBadgerJobThroughput(b *testing.B) {
	for _, syncWrites := range []bool{true, false} {
		b.Run(fmt.Sprintf("sync=%v", syncWrites), func(b *testing.B) {
			st, err := store.OpenBadger(b.TempDir(), store.WithSyncWrites(syncWrites))
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
			req := quantum.JobRequest{DeviceQRN: "qbraid:qbraid:sim:qir-sv", Shots: 1000, Program: &quantum.Program{Format: "qasm2", Data: benchBell}}
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

// BenchmarkBadgerList1M reads the first page of one user's jobs from a
// store that holds 1,000,000 of them: unfiltered, by status, by vendor,
// and by a tag (which scans). Filling the store takes a minute or two.
func BenchmarkBadgerList1M(b *testing.B) {
	const n = 1_000_000
	st, err := store.OpenBadger(b.TempDir(), store.WithSyncWrites(false))
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	start := time.Now()
	fill(b, st, n)
	b.Logf("filled %d jobs in %v", n, time.Since(start))
	for _, tc := range []struct {
		name string
		f    quantum.JobFilter
	}{
		{"unfiltered", quantum.JobFilter{}},
		{"status=FAILED", quantum.JobFilter{Statuses: []quantum.JobStatus{quantum.StatusFailed}}},
		{"vendor=aws", quantum.JobFilter{Vendor: "aws"}},
		{"page100", quantum.JobFilter{Offset: 99 * 50}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			f := tc.f
			f.Owner, f.Limit = "owner", 50
			for b.Loop() {
				page, total, err := st.ListJobs(ctx, f)
				if err != nil || len(page) != 50 || total == 0 {
					b.Fatalf("%d jobs of %d, %v", len(page), total, err)
				}
			}
		})
	}
}

func fill(b *testing.B, st quantum.Store, n int) {
	epoch := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	workers := runtime.GOMAXPROCS(0) * 4
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				status, vendor, device := quantum.StatusCompleted, "qbraid", "qbraid:qbraid:sim:qir-sv"
				if i%10 == 0 {
					status = quantum.StatusFailed
				}
				if i%4 == 0 {
					vendor, device = "aws", "aws:aws:sim:sv1"
				}
				at := epoch.Add(time.Duration(i) * time.Millisecond)
				j := &quantum.Job{JobQRN: fmt.Sprintf("%s-abcd-qjob-%024x", device, i), DeviceQRN: device, Owner: "owner",
					Status: status, Vendor: vendor, Provider: vendor, Shots: 100, TimeStamps: quantum.TimeStamps{CreatedAt: at}, UpdatedAt: at,
					Tags: map[string]any{"i": int64(i)}}
				if err := st.CreateJob(ctx, j, quantum.Program{Format: "qasm2", Data: benchBell}); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}
