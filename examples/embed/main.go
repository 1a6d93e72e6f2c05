// Command embed is the smallest program that embeds the quantum job
// service: it keeps jobs in memory, runs a Bell circuit written in
// OpenQASM 3 on the built-in simulator, waits for it and prints the
// measurement counts.
//
//	go run ./examples/embed
//
// It links no database: the stores that keep jobs elsewhere are packages
// of their own (store/badger on disk, store/postgres shared by several
// servers), linked only by the programs that import them.
package main

import (
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/store"
)

const bell = `OPENQASM 3.0;
include "stdgates.inc";
qubit[2] q;
bit[2] c;
h q[0];
cx q[0], q[1];
c = measure q;`

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "embed:", err)
		os.Exit(1)
	}
}

// run runs one Bell job on a service in memory and writes its counts to
// w, one "bits count" line per outcome.
func run(ctx context.Context, w io.Writer) error {
	svc, err := quantum.New(store.NewMemory())
	if err != nil {
		return err
	}
	defer svc.Close(ctx)
	// Every call acts for a user, known by an API key.
	user, err := svc.AddAPIKey("embed-key", "me")
	if err != nil {
		return err
	}
	job, err := svc.CreateJob(ctx, user, quantum.JobRequest{
		DeviceQRN: "qbraid:qbraid:sim:qir-sv",
		Shots:     1000,
		Program:   &quantum.Program{Format: "qasm3", Data: bell},
		// A seed makes the counts the same on every run.
		RuntimeOptions: map[string]any{"seed": 42},
	})
	if err != nil {
		return err
	}
	// Wait follows the job's changes as they happen, without polling; the
	// timeout is for a machine too busy to run it.
	waitCtx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	if job, err = svc.Wait(waitCtx, user, job.JobQRN); err != nil {
		return err
	}
	res, err := svc.GetJobResult(ctx, user, job.JobQRN) // an error unless the job COMPLETED
	if err != nil {
		return err
	}
	counts := res.ResultData.MeasurementCounts
	for _, bits := range slices.Sorted(maps.Keys(counts)) {
		fmt.Fprintf(w, "%s %d\n", bits, counts[bits])
	}
	return nil
}
