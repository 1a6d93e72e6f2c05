package quantum_test

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/store"
)

// BenchmarkJobThroughput drives create → COMPLETED → result for 2-qubit,
// 1,000-shot Bell jobs on the memory store, with enough concurrent callers
// to keep every worker busy, and reports jobs per second.
func BenchmarkJobThroughput(b *testing.B) {
	ctx := context.Background()
	svc, err := quantum.New(store.NewMemory())
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close(ctx)
	u, _ := svc.AddAPIKey("bench", "bench")
	req := quantum.JobRequest{
		DeviceQRN: "qbraid:qbraid:sim:qir-sv",
		Shots:     1000,
		Program:   &quantum.Program{Format: "qasm2", Data: bell2},
	}
	callers := 16 * runtime.GOMAXPROCS(0)
	jobs := make(chan struct{})
	var wg sync.WaitGroup
	var failed sync.Once
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range jobs {
				if err := oneJob(ctx, svc, u, req); err != nil {
					failed.Do(func() { b.Error(err) })
				}
			}
		}()
	}
	b.ResetTimer()
	start := time.Now()
	for range b.N {
		jobs <- struct{}{}
	}
	close(jobs)
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "jobs/s")
}

func oneJob(ctx context.Context, svc *quantum.Service, u quantum.User, req quantum.JobRequest) error {
	j, err := svc.CreateJob(ctx, u, req)
	if err != nil {
		return err
	}
	for !j.Status.IsTerminal() {
		runtime.Gosched()
		if j, err = svc.GetJob(ctx, u, j.JobQRN); err != nil {
			return err
		}
	}
	_, err = svc.GetJobResult(ctx, u, j.JobQRN)
	return err
}
