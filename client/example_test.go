package client_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/client"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/store"
)

// Run a Bell circuit on a remote server and wait for it: the code is the
// same as against svc.For(user) in process, since both are quantum.API.
func ExampleNew() {
	ctx := context.Background()
	// A server to talk to; in real use, the URL of a running one.
	svc, _ := quantum.New(store.NewMemory())
	defer svc.Close(ctx)
	svc.AddAPIKey("my-secret-key", "me")
	srv := httptest.NewServer(httpadapter.New(svc))
	defer srv.Close()

	var api quantum.API
	api, err := client.New(srv.URL, "my-secret-key")
	if err != nil {
		panic(err)
	}
	job, err := api.CreateJob(ctx, quantum.JobRequest{
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
		IdempotencyKey: "bell-2026-11-24", // a retried create makes no second job
	})
	if err != nil {
		panic(err)
	}
	waitCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if job, err = api.Wait(waitCtx, job.JobQRN); err != nil { // follows the job's event stream
		panic(err)
	}
	res, err := api.GetJobResult(ctx, job.JobQRN)
	if err != nil {
		panic(err)
	}
	counts := res.ResultData.MeasurementCounts
	fmt.Println("status:", job.Status)
	fmt.Println("00:", counts["00"], "11:", counts["11"])
	// Output:
	// status: COMPLETED
	// 00: 518 11: 482
}
