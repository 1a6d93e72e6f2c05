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
