package quantum_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

// gates200k is an OpenQASM 2 program of 200,000 gates on qubits, as
// exporters write them (one per line), that measures qubit 0 first when
// perShot, so that every shot runs all of them.
func gates200k(qubits int, perShot bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[%d];\ncreg c[%d];\n", qubits, qubits)
	if perShot {
		b.WriteString("measure q[0] -> c[0];\n")
	}
	for i := range 200_000 {
		switch q := i % qubits; i % 4 {
		case 0, 2:
			fmt.Fprintf(&b, "h q[%d];\n", q)
		case 1:
			fmt.Fprintf(&b, "rz(%.6f) q[%d];\n", 0.001*float64(i%997), q)
		case 3:
			fmt.Fprintf(&b, "cx q[%d],q[%d];\n", q, (q+1)%qubits)
		}
	}
	b.WriteString("measure q -> c;\n")
	return b.String()
}

// A program of 200,000 gates is accepted and runs; one that takes long
// stops when cancelled, and ends FAILED when it runs past the job timeout.
func TestTwoHundredThousandGates(t *testing.T) {
	svc, u := quantumtest.NewService(t, quantum.WithWorkers(1))

	// Every H on one qubit cancels the next: it ends where it began.
	var b strings.Builder
	b.WriteString("OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[1];\ncreg c[1];\n")
	for range 200_000 {
		b.WriteString("h q[0];\n")
	}
	b.WriteString("measure q -> c;\n")
	j := quantumtest.WaitForJob(t, svc, u, create(t, svc, u, request(flagship, "qasm2", b.String(), 100)).JobQRN)
	if j.Status != quantum.StatusCompleted {
		t.Fatalf("200,000 H: %s %s", j.Status, msg(j))
	}
	res, err := svc.GetJobResult(ctx, u, j.JobQRN)
	if err != nil || res.ResultData.MeasurementCounts["0"] != 100 {
		t.Fatalf("200,000 H: counts %v, %v", res.ResultData.MeasurementCounts, err)
	}

	// Shot by shot on 12 qubits, 1,000 shots take minutes: cancelled once
	// running, it stops.
	long := gates200k(12, true)
	running := create(t, svc, u, request(flagship, "qasm2", long, 1000))
	quantumtest.WaitForStatus(t, svc, u, running.JobQRN, time.Minute, quantum.StatusRunning)
	cancelled := time.Now()
	if _, err := svc.CancelJob(ctx, u, running.JobQRN); err != nil {
		t.Fatal(err)
	}
	if j := quantumtest.WaitForJob(t, svc, u, running.JobQRN); j.Status != quantum.StatusCancelled {
		t.Fatalf("cancelled: %s %s", j.Status, msg(j))
	}
	t.Logf("cancel → CANCELLED in %v", time.Since(cancelled).Round(time.Millisecond))

	// Left alone, it runs past the job timeout.
	svc, u = quantumtest.NewService(t, quantum.WithWorkers(1), quantum.WithJobTimeout(3*time.Second))
	j = quantumtest.WaitForJob(t, svc, u, create(t, svc, u, request(flagship, "qasm2", long, 1000)).JobQRN)
	if j.Status != quantum.StatusFailed || !strings.Contains(msg(j), "time limit of 3s") {
		t.Fatalf("past the timeout: %s %s", j.Status, msg(j))
	}
}

func msg(j *quantum.Job) string {
	if j.StatusMsg == nil {
		return "(no statusMsg)"
	}
	return *j.StatusMsg
}
