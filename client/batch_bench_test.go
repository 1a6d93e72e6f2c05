package client_test

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/client"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/store"
)

// BenchmarkBatchVersusJobs runs 1,000 two-qubit circuits of 1,000 shots,
// a sweep of one rotation angle (no two alike), end to end (create, wait,
// read the results) on the memory store, in process (svc.For) and over
// HTTP (this client against httpadapter): as one batch job, and as 1,000
// single jobs sent by enough concurrent callers to keep every worker
// busy. Each reports circuits per second.
func BenchmarkBatchVersusJobs(b *testing.B) {
	const circuits = 1000
	ctx := context.Background()
	sweep := make([]quantum.Program, circuits)
	for i := range sweep {
		sweep[i] = quantum.Program{Format: "qasm2", Data: fmt.Sprintf(
			"OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\nry(%g) q[1];\ncx q[0],q[1];\nmeasure q -> c;\n", float64(i)*0.001)}
	}
	open := func(b *testing.B, overHTTP bool) quantum.API {
		svc, err := quantum.New(store.NewMemory(), quantum.WithMaxActiveJobsPerUser(circuits))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { svc.Close(ctx) })
		u, _ := svc.AddAPIKey("bench", "bench")
		if !overHTTP {
			return svc.For(u)
		}
		c, err := client.New(quantumtest.NewServer(b, svc).URL, "bench")
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	run := func(api quantum.API, req quantum.JobRequest) error {
		j, err := api.CreateJob(ctx, req)
		if err != nil {
			return err
		}
		if j, err = api.Wait(ctx, j.JobQRN); err != nil {
			return err
		}
		if j.Status != quantum.StatusCompleted {
			return &quantum.Error{Code: quantum.EINTERNAL, Message: string(j.Status)}
		}
		_, err = api.GetJobResult(ctx, j.JobQRN)
		return err
	}
	for _, overHTTP := range []bool{false, true} {
		name := "in-process"
		if overHTTP {
			name = "http"
		}
		b.Run(name, func(b *testing.B) {
			b.Run("batch", func(b *testing.B) {
				api := open(b, overHTTP)
				req := quantum.JobRequest{DeviceQRN: "qbraid:qbraid:sim:qir-sv", Shots: 1000, Batch: sweep}
				for b.Loop() {
					if err := run(api, req); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.N*circuits)/b.Elapsed().Seconds(), "circuits/s")
			})
			b.Run("jobs", func(b *testing.B) {
				api := open(b, overHTTP)
				for b.Loop() {
					next := make(chan quantum.JobRequest)
					var wg sync.WaitGroup
					var failed sync.Once
					for range 16 * runtime.GOMAXPROCS(0) {
						wg.Add(1)
						go func() {
							defer wg.Done()
							for req := range next {
								if err := run(api, req); err != nil {
									failed.Do(func() { b.Error(err) })
								}
							}
						}()
					}
					for i := range circuits {
						next <- quantum.JobRequest{DeviceQRN: "qbraid:qbraid:sim:qir-sv", Shots: 1000, Program: &sweep[i]}
					}
					close(next)
					wg.Wait()
				}
				b.ReportMetric(float64(b.N*circuits)/b.Elapsed().Seconds(), "circuits/s")
			})
		})
	}
}
