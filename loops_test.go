package quantum_test

import (
	"strings"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

// Issue 37, "loops stay loops": a million gates in two nested loops run as
// a job, kept as loops at compile time and sampled from one run; a loop of
// 10^12 iterations is accepted and ends FAILED on the work bound.
func TestLoopJobs(t *testing.T) {
	svc, u := quantumtest.NewService(t, quantum.WithMaxWork(100_000_000))
	const h = "OPENQASM 3;\nqubit[1] q;\n"
	million := create(t, svc, u, request(flagship, "qasm3", h+"for int i in [0:999] { for int j in [0:999] { x q[0]; } }\n", 100))
	done := quantumtest.WaitForJob(t, svc, u, million.JobQRN)
	if done.Status != quantum.StatusCompleted || done.Metadata["executionPath"] != "sampled" || done.Metadata["method"] != "statevector" {
		t.Fatalf("a million X gates: %s, %v, metadata %v", done.Status, done.StatusMsg, done.Metadata)
	}
	res, err := svc.GetJobResult(ctx, u, million.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	if c := res.ResultData.MeasurementCounts; c["0"] != 100 || len(c) != 1 {
		t.Fatalf("a million X gates: counts %v, want 0: 100", c)
	}

	trillion := create(t, svc, u, request(flagship, "qasm3", h+"for int i in [1:1000000000000] { x q[0]; }\n", 100))
	done = quantumtest.WaitForJob(t, svc, u, trillion.JobQRN)
	if done.Status != quantum.StatusFailed || done.StatusMsg == nil || !strings.Contains(*done.StatusMsg, "work limit exceeded") {
		t.Fatalf("10^12 X gates: %s, %v", done.Status, done.StatusMsg)
	}
}
