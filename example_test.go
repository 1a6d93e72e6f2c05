package quantum_test

import (
	"context"
	"fmt"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/store"
)

// Embed the service, run a Bell circuit on the built-in simulator and read
// its counts. The seed makes them the same on every run.
func Example() {
	ctx := context.Background()
	svc, err := quantum.New(store.NewMemory())
	if err != nil {
		panic(err)
	}
	defer svc.Close(ctx)
	user, _ := svc.AddAPIKey("my-secret-key", "me")

	job, err := svc.CreateJob(ctx, user, quantum.JobRequest{
		DeviceQRN: "qbraid:qbraid:sim:qir-sv",
		Shots:     1000,
		Program: &quantum.Program{Format: "qasm3", Data: `OPENQASM 3.0;
include "stdgates.inc";
qubit[2] q;
bit[2] c;
h q[0];
cx q[0], q[1];
c = measure q;`},
		RuntimeOptions: map[string]any{"seed": 42},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("created:", job.Status)

	// Wait follows the job's changes as they happen: no polling.
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if job, err = svc.Wait(waitCtx, user, job.JobQRN); err != nil {
		panic(err)
	}
	res, err := svc.GetJobResult(ctx, user, job.JobQRN)
	if err != nil {
		panic(err)
	}
	counts := res.ResultData.MeasurementCounts
	fmt.Println("status:", res.Status)
	fmt.Println("00:", counts["00"], "11:", counts["11"], "other:", 1000-counts["00"]-counts["11"])
	// Output:
	// created: INITIALIZING
	// status: COMPLETED
	// 00: 501 11: 499 other: 0
}
