package quantum_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

// The result size bound holds for a batch's circuits together: each
// circuit's 16 outcomes of 4 bits are 64 bytes, under a bound of 100 that
// two of them pass.
func TestBatchResultBound(t *testing.T) {
	defer quantum.SetMaxBatchResultBytesForTest(100)()
	svc, u := quantumtest.NewService(t)
	h4 := quantum.Program{Format: "qasm3", Data: "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[4] q;\nbit[4] c;\nh q;\nc = measure q;\n"}
	one, err := svc.CreateJob(context.Background(), u, quantum.JobRequest{DeviceQRN: "qbraid:qbraid:sim:qir-sv", Shots: 1000, Batch: []quantum.Program{h4}})
	if err != nil {
		t.Fatal(err)
	}
	if done := quantumtest.WaitForJob(t, svc, u, one.JobQRN); done.Status != quantum.StatusCompleted {
		t.Fatalf("one circuit of 64 bytes: %s: %s", done.Status, quantumtest.StatusMsg(done))
	}
	three, err := svc.CreateJob(context.Background(), u, quantum.JobRequest{DeviceQRN: "qbraid:qbraid:sim:qir-sv", Shots: 1000, Batch: []quantum.Program{h4, h4, h4}})
	if err != nil {
		t.Fatal(err)
	}
	done := quantumtest.WaitForStatus(t, svc, u, three.JobQRN, 30*time.Second, quantum.StatusCompleted, quantum.StatusFailed)
	if msg := quantumtest.StatusMsg(done); done.Status != quantum.StatusFailed || !strings.Contains(msg, "result too large") || !strings.Contains(msg, "of 3 (program[") {
		t.Fatalf("three circuits of 64 bytes under 100: %s: %q", done.Status, msg)
	}
}
