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
// to keep every worker busy, and reports jobs per second: on the free
// flagship, and on SV1 (paid by the minute) with credits off and on, where
// every job reserves its estimate at create and is charged at its end.
// The last two differ only by the ledger's work.
func BenchmarkJobThroughput(b *testing.B) {
	for _, bc := range []struct {
		name, device string
		credits      bool
	}{
		{"free", "qbraid:qbraid:sim:qir-sv", false},
		{"sv1/credits=off", "aws:aws:sim:sv1", false},
		{"sv1/credits=on", "aws:aws:sim:sv1", true},
	} {
		b.Run(bc.name, func(b *testing.B) { jobThroughput(b, bc.device, bc.credits) })
	}
}

func jobThroughput(b *testing.B, device string, credits bool) {
	ctx := context.Background()
	svc, err := quantum.New(store.NewMemory(), quantum.WithCredits(credits))
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close(ctx)
	u, _ := svc.AddAPIKey("bench", "bench")
	if _, err := svc.GrantCredits(ctx, u, quantum.MaxCredits, "bench"); err != nil {
		b.Fatal(err)
	}
	req := quantum.JobRequest{
		DeviceQRN: device,
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

// BenchmarkNewService is what a Service with the default catalogue costs
// to start and close: test suites start one per test.
func BenchmarkNewService(b *testing.B) {
	for b.Loop() {
		s, err := quantum.New(store.NewMemory())
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Close(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
}
