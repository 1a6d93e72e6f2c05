; A Bell pair in QIR's base profile, as LLVM IR text (opaque pointers):
; the same circuit as bell.qasm. Qubits and results are numbered by the
; integer in inttoptr (null is 0). bell.bc is this file assembled by
; LLVM 19.1.7's llvm-as: llvm-as-19 bell.ll -o bell.bc

@r0 = internal constant [3 x i8] c"r0\00"
@r1 = internal constant [3 x i8] c"r1\00"

define void @bell() #0 {
entry:
  call void @__quantum__qis__h__body(ptr null)
  call void @__quantum__qis__cnot__body(ptr null, ptr inttoptr (i64 1 to ptr))
  call void @__quantum__qis__mz__body(ptr null, ptr null)
  call void @__quantum__qis__mz__body(ptr inttoptr (i64 1 to ptr), ptr inttoptr (i64 1 to ptr))
  ; The recorded results are the classical bits 0 and 1 of the counts.
  call void @__quantum__rt__array_record_output(i64 2, ptr null)
  call void @__quantum__rt__result_record_output(ptr null, ptr @r0)
  call void @__quantum__rt__result_record_output(ptr inttoptr (i64 1 to ptr), ptr @r1)
  ret void
}

declare void @__quantum__qis__h__body(ptr)
declare void @__quantum__qis__cnot__body(ptr, ptr)
declare void @__quantum__qis__mz__body(ptr, ptr writeonly) #1
declare void @__quantum__rt__array_record_output(i64, ptr)
declare void @__quantum__rt__result_record_output(ptr, ptr)

attributes #0 = { "entry_point" "output_labeling_schema"="labeled" "qir_profiles"="base_profile" "required_num_qubits"="2" "required_num_results"="2" }
attributes #1 = { "irreversible" }

!llvm.module.flags = !{!0, !1, !2, !3}
!0 = !{i32 1, !"qir_major_version", i32 1}
!1 = !{i32 7, !"qir_minor_version", i32 0}
!2 = !{i32 1, !"dynamic_qubit_management", i1 false}
!3 = !{i32 1, !"dynamic_result_management", i1 false}
