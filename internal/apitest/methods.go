package apitest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

// testSparse64: a 64-qubit program whose state stays sparse (GHZ with a T
// on every qubit) completes on the flagship, in OpenQASM 3 and in QIR,
// on the sparse method auto chose; its counts are all zeros and all ones.
func testSparse64(t *testing.T, target Target) {
	e := open(t, target)
	var qasm, qir strings.Builder
	qasm.WriteString("OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[64] q;\nbit[64] c;\nh q[0];\n")
	qir.WriteString("define void @main() #0 {\n  call void @__quantum__qis__h__body(ptr null)\n")
	ptr := func(i int) string {
		if i == 0 {
			return "ptr null"
		}
		return fmt.Sprintf("ptr inttoptr (i64 %d to ptr)", i)
	}
	for i := range 63 {
		fmt.Fprintf(&qasm, "cx q[%d], q[%d];\n", i, i+1)
		fmt.Fprintf(&qir, "  call void @__quantum__qis__cnot__body(%s, %s)\n", ptr(i), ptr(i+1))
	}
	qasm.WriteString("t q;\nc = measure q;\n")
	for i := range 64 {
		fmt.Fprintf(&qir, "  call void @__quantum__qis__t__body(%s)\n  call void @__quantum__qis__mz__body(%s, %s)\n", ptr(i), ptr(i), ptr(i))
	}
	for i := range 64 {
		fmt.Fprintf(&qir, "  call void @__quantum__rt__result_record_output(%s, ptr null)\n", ptr(i))
	}
	qir.WriteString(`  ret void
}

declare void @__quantum__qis__h__body(ptr)
declare void @__quantum__qis__t__body(ptr)
declare void @__quantum__qis__cnot__body(ptr, ptr)
declare void @__quantum__qis__mz__body(ptr, ptr writeonly) #1
declare void @__quantum__rt__result_record_output(ptr, ptr)

attributes #0 = { "entry_point" "qir_profiles"="base_profile" "required_num_qubits"="64" "required_num_results"="64" }
attributes #1 = { "irreversible" }
`)
	zeros, ones := strings.Repeat("0", 64), strings.Repeat("1", 64)
	for _, p := range []quantum.Program{{Format: "qasm3", Data: qasm.String()}, {Format: "qir.ll", Data: qir.String()}} {
		t.Run(p.Format, func(t *testing.T) {
			e := e.with(t)
			done := e.wait(e.alice, e.create(e.alice, quantum.JobRequest{DeviceQRN: flagship, Shots: 1000, Program: &p,
				RuntimeOptions: map[string]any{"seed": 3}}).JobQRN)
			if done.Status != quantum.StatusCompleted {
				t.Fatalf("%s: %s", done.Status, quantumtest.StatusMsg(done))
			}
			reason, _ := done.Metadata["methodReason"].(string)
			if done.Metadata["method"] != "sparse" || !strings.Contains(reason, "64 qubits") {
				t.Fatalf("metadata %v", done.Metadata)
			}
			res, err := e.alice.GetJobResult(ctx, done.JobQRN)
			if err != nil {
				t.Fatal(err)
			}
			c := res.ResultData.MeasurementCounts
			if len(c) != 2 || c[zeros]+c[ones] != 1000 || c[zeros] < 400 || c[ones] < 400 {
				t.Fatalf("counts %v", c)
			}
		})
	}
}

const clifford = "qbraid:qbraid:sim:stabilizer"

// ghzQIR is a base-profile GHZ on n qubits, every qubit measured and
// recorded.
func ghzQIR(n int) string {
	var b strings.Builder
	ptr := func(i int) string {
		if i == 0 {
			return "ptr null"
		}
		return fmt.Sprintf("ptr inttoptr (i64 %d to ptr)", i)
	}
	b.WriteString("define void @main() #0 {\n  call void @__quantum__qis__h__body(ptr null)\n")
	for i := range n - 1 {
		fmt.Fprintf(&b, "  call void @__quantum__qis__cnot__body(%s, %s)\n", ptr(i), ptr(i+1))
	}
	for i := range n {
		fmt.Fprintf(&b, "  call void @__quantum__qis__mz__body(%s, %s)\n", ptr(i), ptr(i))
	}
	for i := range n {
		fmt.Fprintf(&b, "  call void @__quantum__rt__result_record_output(%s, ptr null)\n", ptr(i))
	}
	fmt.Fprintf(&b, `  ret void
}

declare void @__quantum__qis__h__body(ptr)
declare void @__quantum__qis__cnot__body(ptr, ptr)
declare void @__quantum__qis__mz__body(ptr, ptr writeonly) #1
declare void @__quantum__rt__result_record_output(ptr, ptr)

attributes #0 = { "entry_point" "qir_profiles"="base_profile" "required_num_qubits"="%d" "required_num_results"="%d" }
attributes #1 = { "irreversible" }
`, n, n)
	return b.String()
}

// testStabilizer: the Clifford Simulator runs a 1,000-qubit GHZ in
// OpenQASM (and a 300-qubit one in QIR) on the stabilizer method, only
// all zeros and all ones; a non-Clifford gate is refused at create naming
// its line, column and gate, as is another method; nothing is stored.
func testStabilizer(t *testing.T, target Target) {
	e := open(t, target)
	var qasm strings.Builder
	qasm.WriteString("OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[1000] q;\nbit[1000] c;\nh q[0];\n")
	for i := range 999 {
		fmt.Fprintf(&qasm, "cx q[%d], q[%d];\n", i, i+1)
	}
	qasm.WriteString("c = measure q;\n")
	for _, tc := range []struct {
		p quantum.Program
		n int
	}{{quantum.Program{Format: "qasm3", Data: qasm.String()}, 1000}, {quantum.Program{Format: "qir.ll", Data: ghzQIR(300)}, 300}} {
		t.Run(tc.p.Format, func(t *testing.T) {
			e := e.with(t)
			const shots = 100_000
			done := e.wait(e.alice, e.create(e.alice, quantum.JobRequest{DeviceQRN: clifford, Shots: shots, Program: &tc.p,
				RuntimeOptions: map[string]any{"seed": 5}}).JobQRN)
			if done.Status != quantum.StatusCompleted {
				t.Fatalf("%s: %s", done.Status, quantumtest.StatusMsg(done))
			}
			if done.Metadata["method"] != "stabilizer" {
				t.Fatalf("metadata %v", done.Metadata)
			}
			t.Logf("%d qubits, %d shots: simulationMs %v", tc.n, shots, done.Metadata["simulationMs"])
			res, err := e.alice.GetJobResult(ctx, done.JobQRN)
			if err != nil {
				t.Fatal(err)
			}
			c := res.ResultData.MeasurementCounts
			zeros, ones := strings.Repeat("0", tc.n), strings.Repeat("1", tc.n)
			if len(c) != 2 || c[zeros]+c[ones] != shots || c[zeros] < shots*45/100 || c[ones] < shots*45/100 {
				t.Fatalf("%d outcomes: all zeros %d, all ones %d", len(c), c[zeros], c[ones])
			}
		})
	}
	tGate := &quantum.Program{Format: "qasm2", Data: "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\nt q[1];\nmeasure q -> c;\n"}
	_, err := e.alice.CreateJob(ctx, quantum.JobRequest{DeviceQRN: clifford, Shots: 10, Program: tGate})
	wantErr(t, "a t gate", err, invalid(field("program.data",
		"stabilizer runs Clifford gates and Pauli channels only: gate t at 6:1 is not a Clifford gate; Clifford Simulator (qbraid:qbraid:sim:stabilizer) runs the stabilizer method only")))
	_, err = e.alice.CreateJob(ctx, quantum.JobRequest{DeviceQRN: clifford, Shots: 10, Program: &quantum.Program{Format: "qasm2", Data: bell2},
		RuntimeOptions: map[string]any{"method": "statevector"}})
	wantErr(t, "another method", err, invalid(field("runtimeOptions.method", "qbraid:qbraid:sim:stabilizer runs the stabilizer method only (got statevector)")))
	_, err = e.alice.CreateJob(ctx, quantum.JobRequest{DeviceQRN: clifford, Shots: 10, Program: &quantum.Program{Format: "qasm2", Data: bell2},
		RuntimeOptions: map[string]any{"noiseModel": "amplitude_damping"}})
	wantErr(t, "a model that is not Pauli", err, invalid(field("runtimeOptions.noiseModel", "must be one of ideal, depolarizing, phase_damping, bit_flip, phase_flip")))
	if p := e.list(e.alice, quantum.JobQuery{}); p.Pagination.Total != 2 {
		t.Fatalf("%d jobs stored, want the 2 that ran", p.Pagination.Total)
	}
}

// testWideDeviceFewQubits: a program declaring the 127 qubits of a device
// of one's own and using 6 (one gate not Clifford) runs on the state
// vector of 6.
func testWideDeviceFewQubits(t *testing.T, target Target) {
	e := open(t, target)
	d := quantum.Device{Name: "Eagle", QRN: "qbraid:qbraid:qpu:eagle", Vendor: "qbraid", Provider: "qbraid", DeviceType: quantum.DeviceQPU,
		RunInputTypes: []string{"qasm2"}, NumberQubits: 127}
	if err := e.svc.RegisterDevice(d, e.svc.Simulator()); err != nil {
		t.Fatal(err)
	}
	src := "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[127];\ncreg c[6];\nh q[0];\nt q[0];\ncx q[0],q[20];\ncx q[20],q[40];\ncx q[40],q[60];\ncx q[60],q[80];\ncx q[80],q[126];\n" +
		"measure q[0] -> c[0];\nmeasure q[20] -> c[1];\nmeasure q[40] -> c[2];\nmeasure q[60] -> c[3];\nmeasure q[80] -> c[4];\nmeasure q[126] -> c[5];\n"
	done := e.wait(e.alice, e.create(e.alice, quantum.JobRequest{DeviceQRN: d.QRN, Shots: 1000, Program: &quantum.Program{Format: "qasm2", Data: src}}).JobQRN)
	if done.Status != quantum.StatusCompleted {
		t.Fatalf("%s: %s", done.Status, quantumtest.StatusMsg(done))
	}
	reason, _ := done.Metadata["methodReason"].(string)
	if done.Metadata["method"] != "statevector" || fmt.Sprint(done.Metadata["numQubits"]) != "6" || fmt.Sprint(done.Metadata["declaredQubits"]) != "127" {
		t.Fatalf("metadata %v (%s)", done.Metadata, reason)
	}
}

// testAdaptiveSparse: a QIR program that reads its measurements and uses
// 40 qubits, with a T (not Clifford), runs shot by shot on the sparse
// method on the flagship: the qubit measured mid-program decides a flip.
func testAdaptiveSparse(t *testing.T, target Target) {
	e := open(t, target)
	qir := ghzQIR(40)
	qir = strings.Replace(qir, "  call void @__quantum__qis__h__body(ptr null)\n",
		"  call void @__quantum__qis__h__body(ptr null)\n  call void @__quantum__qis__t__body(ptr null)\n", 1)
	// After the measurements: read qubit 0's result and, when 1, flip
	// qubit 39 back to 0 and measure it again into its result.
	qir = strings.Replace(qir, "  call void @__quantum__rt__result_record_output(ptr null, ptr null)\n",
		"  %r = call i1 @__quantum__qis__read_result__body(ptr null)\n  br i1 %r, label %flip, label %out\nflip:\n"+
			"  call void @__quantum__qis__x__body(ptr inttoptr (i64 39 to ptr))\n"+
			"  call void @__quantum__qis__mz__body(ptr inttoptr (i64 39 to ptr), ptr inttoptr (i64 39 to ptr))\n  br label %out\nout:\n"+
			"  call void @__quantum__rt__result_record_output(ptr null, ptr null)\n", 1)
	qir = strings.Replace(qir, "declare void @__quantum__qis__h__body(ptr)",
		"declare void @__quantum__qis__h__body(ptr)\ndeclare void @__quantum__qis__t__body(ptr)\ndeclare void @__quantum__qis__x__body(ptr)\ndeclare i1 @__quantum__qis__read_result__body(ptr)", 1)
	qir = strings.Replace(qir, "base_profile", "adaptive_profile", 1)
	done := e.wait(e.alice, e.create(e.alice, quantum.JobRequest{DeviceQRN: flagship, Shots: 500, Program: &quantum.Program{Format: "qir.ll", Data: qir},
		RuntimeOptions: map[string]any{"seed": 2}}).JobQRN)
	if done.Status != quantum.StatusCompleted {
		t.Fatalf("%s: %s", done.Status, quantumtest.StatusMsg(done))
	}
	reason, _ := done.Metadata["methodReason"].(string)
	if done.Metadata["method"] != "sparse" || !strings.Contains(reason, "40 qubits") {
		t.Fatalf("metadata %v", done.Metadata)
	}
	res, err := e.alice.GetJobResult(ctx, done.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	zeros, flipped := strings.Repeat("0", 40), "0"+strings.Repeat("1", 39) // result 39, leftmost, flipped back
	c := res.ResultData.MeasurementCounts
	if len(c) != 2 || c[zeros]+c[flipped] != 500 || c[zeros] < 200 || c[flipped] < 200 {
		t.Fatalf("counts %v", c)
	}
}
