package quantum_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/storage"
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
		wait         func(context.Context, *quantum.Service, quantum.User, *quantum.Job) error
	}{
		{"free", "qbraid:qbraid:sim:qir-sv", false, poll},
		{"sv1/credits=off", "aws:aws:sim:sv1", false, poll},
		{"sv1/credits=on", "aws:aws:sim:sv1", true, poll},
		// The callers above spin on GetJob (about 20 reads a job with 32
		// callers on 2 cores); this one waits as a client that does not
		// spin would, so that it counts what a job costs the service.
		{"free/wait", "qbraid:qbraid:sim:qir-sv", false, wait},
	} {
		b.Run(bc.name, func(b *testing.B) { jobThroughput(b, bc.device, bc.credits, bc.wait) })
	}
}

func jobThroughput(b *testing.B, device string, credits bool, wait func(context.Context, *quantum.Service, quantum.User, *quantum.Job) error) {
	ctx := context.Background()
	svc, err := quantum.New(store.NewMemory(), quantum.WithCredits(credits))
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close(ctx)
	u, _ := svc.AddAPIKey("bench", "bench")
	if _, err := svc.GrantCredits(ctx, u, storage.MaxCredits, "bench"); err != nil {
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
				if err := oneJob(ctx, svc, u, req, wait); err != nil {
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

func oneJob(ctx context.Context, svc *quantum.Service, u quantum.User, req quantum.JobRequest,
	wait func(context.Context, *quantum.Service, quantum.User, *quantum.Job) error) error {
	j, err := svc.CreateJob(ctx, u, req)
	if err != nil {
		return err
	}
	if err := wait(ctx, svc, u, j); err != nil {
		return err
	}
	_, err = svc.GetJobResult(ctx, u, j.JobQRN)
	return err
}

// poll reads the job until it ends, yielding between reads.
func poll(ctx context.Context, svc *quantum.Service, u quantum.User, j *quantum.Job) error {
	for !j.Status.IsTerminal() {
		runtime.Gosched()
		var err error
		if j, err = svc.GetJob(ctx, u, j.JobQRN); err != nil {
			return err
		}
	}
	return nil
}

func wait(ctx context.Context, svc *quantum.Service, u quantum.User, j *quantum.Job) error {
	j, err := svc.Wait(ctx, u, j.JobQRN)
	if err == nil && !j.Status.IsTerminal() {
		err = fmt.Errorf("Wait returned job %s %s", j.JobQRN, j.Status)
	}
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
