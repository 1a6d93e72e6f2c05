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

	// The store keeps the jobs: in memory here, on disk with badger or in
	// PostgreSQL. Its opener closes it, after the Service (defers run in
	// reverse order).
	st := store.NewMemory()
	defer st.Close()
	svc, err := quantum.New(st) // options such as quantum.WithLogger(zapLogger)
	if err != nil {
		panic(err)
	}
	defer svc.Close(ctx) // stops the workers; running jobs go back to the queue

	// Every call acts for a User: the owner of an API key. AddAPIKey makes
	// a key valid and returns its user; over HTTP, httpadapter finds the
	// user of each request's X-API-KEY the same way.
	user, err := svc.AddAPIKey("my-secret-key", "me")
	if err != nil {
		panic(err)
	}

	src := `OPENQASM 3.0;
include "stdgates.inc";
qubit[2] q;
bit[2] c;
h q[0];
cx q[0], q[1];
c = measure q;`
	job, err := svc.CreateJob(ctx, user, quantum.JobRequest{
		DeviceQRN:      "qbraid:qbraid:sim:qir-sv",
		Shots:          1000,
		Program:        &quantum.Program{Format: "qasm3", Data: src},
		RuntimeOptions: map[string]any{"seed": 42},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("created:", job.Status)

	// Wait returns once the job is COMPLETED, FAILED or CANCELLED, woken
	// by its changes (no polling), or when its context ends: give it a
	// deadline.
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if job, err = svc.Wait(waitCtx, user, job.JobQRN); err != nil {
		panic(err)
	}
	res, err := svc.GetJobResult(ctx, user, job.JobQRN)
	if err != nil {
		panic(err)
	}
	fmt.Println("status:", res.Status)
	fmt.Println("counts:", res.ResultData.MeasurementCounts)
	// Output:
	// created: INITIALIZING
	// status: COMPLETED
	// counts: map[00:518 11:482]
}
