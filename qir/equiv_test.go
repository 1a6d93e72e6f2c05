package qir_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/qjobs/quantum/qasm"
	"github.com/qjobs/quantum/qir"
	"github.com/qjobs/quantum/sim"
)

// gatesOnly is a circuit's gates without its measurements, whose final
// state is what the measurements sample.
func gatesOnly(c *sim.Circuit) *sim.Circuit {
	out := &sim.Circuit{NumQubits: c.NumQubits}
	for _, op := range c.Ops {
		if op.Kind == sim.OpGate || op.Kind == sim.OpBarrier {
			out.Ops = append(out.Ops, op)
		}
	}
	return out
}

// The QIR a producer writes for a circuit and the OpenQASM of the same
// circuit give the same final state, amplitude by amplitude.
func TestQIRMatchesQASM(t *testing.T) {
	ghzQIR := `
%Qubit = type opaque
%Result = type opaque
define void @main() #0 {
entry:
  call void @__quantum__rt__initialize(i8* null)
  call void @__quantum__qis__h__body(%Qubit* null)
  call void @__quantum__qis__cnot__body(%Qubit* null, %Qubit* inttoptr (i64 1 to %Qubit*))
  call void @__quantum__qis__cnot__body(%Qubit* inttoptr (i64 1 to %Qubit*), %Qubit* inttoptr (i64 2 to %Qubit*))
  call void @__quantum__qis__rx__body(double 0.3, %Qubit* inttoptr (i64 2 to %Qubit*))
  call void @__quantum__qis__ry__body(double -1.25, %Qubit* null)
  call void @__quantum__qis__rz__body(double 2.5, %Qubit* inttoptr (i64 1 to %Qubit*))
  call void @__quantum__qis__t__adj(%Qubit* null)
  call void @__quantum__qis__s__adj(%Qubit* inttoptr (i64 2 to %Qubit*))
  call void @__quantum__qis__ccx__body(%Qubit* null, %Qubit* inttoptr (i64 2 to %Qubit*), %Qubit* inttoptr (i64 1 to %Qubit*))
  call void @__quantum__qis__swap__body(%Qubit* null, %Qubit* inttoptr (i64 2 to %Qubit*))
  call void @__quantum__qis__cz__body(%Qubit* null, %Qubit* inttoptr (i64 1 to %Qubit*))
  call void @__quantum__qis__rzz__body(double 0.7, %Qubit* null, %Qubit* inttoptr (i64 2 to %Qubit*))
  call void @__quantum__qis__mz__body(%Qubit* null, %Result* null)
  call void @__quantum__qis__mz__body(%Qubit* inttoptr (i64 1 to %Qubit*), %Result* inttoptr (i64 1 to %Result*))
  call void @__quantum__qis__mz__body(%Qubit* inttoptr (i64 2 to %Qubit*), %Result* inttoptr (i64 2 to %Result*))
  call void @__quantum__rt__result_record_output(%Result* null, i8* null)
  call void @__quantum__rt__result_record_output(%Result* inttoptr (i64 1 to %Result*), i8* null)
  call void @__quantum__rt__result_record_output(%Result* inttoptr (i64 2 to %Result*), i8* null)
  ret void
}
declare void @__quantum__rt__initialize(i8*)
declare void @__quantum__qis__h__body(%Qubit*)
declare void @__quantum__qis__cnot__body(%Qubit*, %Qubit*)
declare void @__quantum__qis__rx__body(double, %Qubit*)
declare void @__quantum__qis__ry__body(double, %Qubit*)
declare void @__quantum__qis__rz__body(double, %Qubit*)
declare void @__quantum__qis__t__adj(%Qubit*)
declare void @__quantum__qis__s__adj(%Qubit*)
declare void @__quantum__qis__ccx__body(%Qubit*, %Qubit*, %Qubit*)
declare void @__quantum__qis__swap__body(%Qubit*, %Qubit*)
declare void @__quantum__qis__cz__body(%Qubit*, %Qubit*)
declare void @__quantum__qis__rzz__body(double, %Qubit*, %Qubit*)
declare void @__quantum__qis__mz__body(%Qubit*, %Result*)
declare void @__quantum__rt__result_record_output(%Result*, i8*)
attributes #0 = { "entry_point" "qir_profiles"="base_profile" "required_num_qubits"="3" "required_num_results"="3" }
`
	ghzQASM := `OPENQASM 3.0;
include "stdgates.inc";
qubit[3] q;
bit[3] c;
h q[0];
cx q[0], q[1];
cx q[1], q[2];
rx(0.3) q[2];
ry(-1.25) q[0];
rz(2.5) q[1];
tdg q[0];
sdg q[2];
ccx q[0], q[2], q[1];
swap q[0], q[2];
cz q[0], q[1];
rzz(0.7) q[0], q[2];
c = measure q;
`
	bellCorpus, err := os.ReadFile(filepath.Join(qir.CorpusDir, "qirspec_base_profile_typed.ll"))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, qir, qasm string
	}{
		{"rotations and three-qubit gates", ghzQIR, ghzQASM},
		{"the QIR specification's base profile example", string(bellCorpus),
			"OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			qp, err := qir.Compile(ctx, "qir.ll", tc.qir, qir.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if qp.Circuit == nil || qp.PerShot() {
				t.Fatal("a base-profile program that does not take the sampled path")
			}
			ap, err := qasm.CompileProgram(tc.qasm, qasm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			a, err := sim.Simulate(ctx, gatesOnly(qp.Circuit), sim.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			b, err := sim.Simulate(ctx, gatesOnly(ap.Circuit), sim.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			for i, x := range a.Amplitudes() {
				if y := b.Amplitude(i); math.Abs(real(x)-real(y)) > 1e-12 || math.Abs(imag(x)-imag(y)) > 1e-12 {
					t.Errorf("amplitude %0*b: QIR %v, QASM %v", qp.NumQubits, i, x, y)
				}
			}
			// And the recorded results are the measured qubits in order.
			for _, op := range qp.Circuit.Ops {
				if op.Kind == sim.OpMeasure && op.Bit() != op.Qubit() {
					t.Errorf("qubit %d measured into bit %d", op.Qubit(), op.Bit())
				}
			}
		})
	}
}
