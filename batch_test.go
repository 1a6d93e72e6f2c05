package quantum_test

import (
	"context"
	"fmt"
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

// A program that declares every qubit of the device and uses two is
// simulated on two (within a budget far below 2^28 amplitudes); its keys
// still carry every classical bit. One that uses them all is refused,
// saying what it needs.
func TestUnusedQubitsAreNotSimulated(t *testing.T) {
	svc, u := quantumtest.NewService(t, quantum.WithMemoryBudget(64<<20))
	ctx := context.Background()
	src := "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[28];\ncreg c[28];\nbarrier q;\nh q[3];\ncx q[3],q[20];\nmeasure q[3] -> c[0];\nmeasure q[20] -> c[27];\n"
	j, err := svc.CreateJob(ctx, u, quantum.JobRequest{DeviceQRN: "qbraid:qbraid:sim:qir-sv", Shots: 1000, Program: &quantum.Program{Format: "qasm2", Data: src}})
	if err != nil {
		t.Fatal(err)
	}
	done := quantumtest.WaitForJob(t, svc, u, j.JobQRN)
	if done.Status != quantum.StatusCompleted || done.Metadata["numQubits"] != 2 || done.Metadata["declaredQubits"] != 28 {
		t.Fatalf("%s (%s), metadata %v", done.Status, quantumtest.StatusMsg(done), done.Metadata)
	}
	res, err := svc.GetJobResult(ctx, u, j.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	zero, one := strings.Repeat("0", 28), "1"+strings.Repeat("0", 26)+"1"
	if c := res.ResultData.MeasurementCounts; len(c) != 2 || c[zero]+c[one] != 1000 {
		t.Fatalf("counts %v", c)
	}
	// rx is not Clifford: the state vector of 28 qubits (the stabilizer
	// would hold 28 in a few kilobytes).
	all := "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[28];\ncreg c[28];\nrx(0.5) q;\nmeasure q -> c;\n"
	_, err = svc.CreateJob(ctx, u, quantum.JobRequest{DeviceQRN: "qbraid:qbraid:sim:qir-sv", Shots: 10, Program: &quantum.Program{Format: "qasm2", Data: all},
		RuntimeOptions: map[string]any{"method": "statevector"}})
	if quantum.ErrorCode(err) != quantum.EVALIDATION || !strings.Contains(err.Error(), "on the statevector method running the program needs 4.001 GiB of memory, more than the memory budget of 64 MiB") {
		t.Fatalf("28 qubits used under 64 MiB, on the state vector: %v", err)
	}
	// auto takes the sparse method, whose state cannot stay sparse here
	// (rx on every qubit): refused at once, naming the bound.
	_, err = svc.CreateJob(ctx, u, quantum.JobRequest{DeviceQRN: "qbraid:qbraid:sim:qir-sv", Shots: 10, Program: &quantum.Program{Format: "qasm2", Data: all}})
	if quantum.ErrorCode(err) != quantum.EVALIDATION || !strings.Contains(err.Error(), "on the sparse method (auto chose it: 28 qubits") ||
		!strings.Contains(err.Error(), "up to 2^28 nonzero amplitudes, 32 GiB at 128 bytes each, more than the memory budget of 64 MiB") {
		t.Fatalf("28 qubits used under 64 MiB, sparse: %v", err)
	}
}

// A 64-qubit program whose state cannot stay sparse is refused at create
// on the flagship, naming its bound, rather than fill the memory budget
// and then fail; one whose state stays sparse (GHZ) runs.
func TestDenseSixtyFourQubits(t *testing.T) {
	svc, u := quantumtest.NewService(t, quantum.WithMemoryBudget(64<<20))
	ctx := context.Background()
	src := "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[64];\ncreg c[64];\nry(0.3) q;\nmeasure q -> c;\n"
	_, err := svc.CreateJob(ctx, u, quantum.JobRequest{DeviceQRN: "qbraid:qbraid:sim:qir-sv", Shots: 10, Program: &quantum.Program{Format: "qasm2", Data: src}})
	if quantum.ErrorCode(err) != quantum.EVALIDATION || !strings.Contains(err.Error(), "up to 2^64 nonzero amplitudes") {
		t.Fatalf("dense 64 qubits: %v", err)
	}
	ghz := "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[64];\ncreg c[64];\nh q[0];\n"
	for q := 1; q < 64; q++ {
		ghz += fmt.Sprintf("cx q[%d],q[%d];\n", q-1, q)
	}
	ghz += "t q[0];\nmeasure q -> c;\n"
	j, err := svc.CreateJob(ctx, u, quantum.JobRequest{DeviceQRN: "qbraid:qbraid:sim:qir-sv", Shots: 100, Program: &quantum.Program{Format: "qasm2", Data: ghz}})
	if err != nil {
		t.Fatal(err)
	}
	if done := quantumtest.WaitForJob(t, svc, u, j.JobQRN); done.Status != quantum.StatusCompleted || done.Metadata["method"] != "sparse" {
		t.Fatalf("GHZ on 64 qubits with a t: %s %q, metadata %v", done.Status, quantumtest.StatusMsg(done), done.Metadata)
	}
}
