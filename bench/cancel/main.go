// Command cancel measures how long a running job takes to stop once it is
// cancelled, for jobs built to spend their time in one phase each: the
// compile a worker repeats before running, gate fusion, gate application
// on a large state, the per-shot loop and sampling. It runs the service
// in-process on a memory store:
//
//	cd bench && go run ./cancel
//	cd bench && go run ./cancel -after 300ms -phase fusion
//
// For every job it waits until the job is RUNNING, lets it run -after
// longer, cancels it, and reports the time from the cancel to CANCELLED
// (or how the job ended, if it ended first).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/store"
)

type job struct {
	phase, what, format, program string
	shots                        int
	// early cancels as soon as the job is RUNNING: its phase comes first
	// and is short.
	early bool
}

var jobs = []job{
	{"compile", "a loop unrolled to 90,000 gates", "qasm3",
		"OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[2] q;\nbit[2] c;\nfor int i in [0:29999] { rx(0.001) q[0]; cx q[0], q[1]; rz(0.002) q[1]; }\nc = measure q;\n", 1, true},
	{"fusion", "2 × 50,000 rotations on one qubit", "qasm3",
		"OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit q;\nbit c;\nfor int i in [0:49999] { rx(0.001) q; }\nfor int i in [0:49999] { rz(0.001) q; }\nc = measure q;\n", 1, true},
	{"simulation", "400 layers of H and CX on 24 qubits", "qasm3",
		"OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[24] q;\nfor int i in [0:399] { h q; for int j in [0:22] { cx q[j], q[j+1]; } }\n", 1000, false},
	{"per-shot", "a mid-circuit measurement on 18 qubits, 1,000,000 shots", "qasm3",
		"OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[18] q;\nbit[18] c;\nh q;\nc[0] = measure q[0];\nif (c[0]) { x q[1]; }\nc = measure q;\n", 1_000_000, false},
	{"sampling", "1,000,000 shots of a 27-qubit state", "qasm3",
		"OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[27] q;\nh q;\n", 1_000_000, false},
}

func main() {
	after := flag.Duration("after", 200*time.Millisecond, "how long a job runs before it is cancelled")
	only := flag.String("phase", "", "measure only this phase")
	flag.Parse()
	svc, err := quantum.New(store.NewMemory(), quantum.WithWorkers(1))
	if err != nil {
		fail(err)
	}
	defer svc.Close(context.Background())
	u, _ := svc.AddAPIKey("cancel", "cancel")
	ctx := context.Background()
	fmt.Printf("%-11s %-60s %s\n", "phase", "job", "cancel → CANCELLED")
	for _, j := range jobs {
		if *only != "" && j.phase != *only {
			continue
		}
		// On the state vector: the Clifford ones would run on the
		// stabilizer, in other phases than those measured here.
		created, err := svc.CreateJob(ctx, u, quantum.JobRequest{DeviceQRN: "qbraid:qbraid:sim:qir-sv", Shots: j.shots,
			Program: &quantum.Program{Format: j.format, Data: j.program}, RuntimeOptions: map[string]any{"method": "statevector"}})
		if err != nil {
			fmt.Printf("%-11s %-60s refused: %v\n", j.phase, j.what, err)
			continue
		}
		qrn := created.JobQRN
		if st := waitFor(svc, u, qrn, time.Minute, func(s quantum.JobStatus) bool {
			return s != quantum.StatusInitializing && s != quantum.StatusValidating && s != quantum.StatusQueued
		}); st != quantum.StatusRunning {
			fmt.Printf("%-11s %-60s ended %s before it could be cancelled\n", j.phase, j.what, st)
			continue
		}
		if !j.early {
			time.Sleep(*after)
		}
		start := time.Now()
		if _, err := svc.CancelJob(ctx, u, qrn); err != nil {
			fmt.Printf("%-11s %-60s cancel: %v\n", j.phase, j.what, err)
			continue
		}
		st := waitFor(svc, u, qrn, 5*time.Minute, quantum.JobStatus.IsTerminal)
		took := time.Since(start)
		if st == quantum.StatusCancelled {
			fmt.Printf("%-11s %-60s %v\n", j.phase, j.what, took.Round(100*time.Microsecond))
		} else {
			fmt.Printf("%-11s %-60s ended %s instead, %v after the cancel\n", j.phase, j.what, st, took.Round(time.Millisecond))
		}
	}
}

// waitFor polls the job every 100 µs until done says yes of its status, or
// timeout passes, and returns the status.
func waitFor(svc *quantum.Service, u quantum.User, qrn string, timeout time.Duration, done func(quantum.JobStatus) bool) quantum.JobStatus {
	deadline := time.Now().Add(timeout)
	for {
		j, err := svc.GetJob(context.Background(), u, qrn)
		if err != nil {
			fail(err)
		}
		if done(j.Status) || time.Now().After(deadline) {
			return j.Status
		}
		time.Sleep(100 * time.Microsecond)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "cancel:", err)
	os.Exit(1)
}
