; GHZ on five qubits with QIR 2.1 arrays, as MQT Core writes dynamic QIR:
; the caller's alloca of [5 x ptr] is filled by qubit_array_allocate and
; result_array_allocate, elements are reached by getelementptr and load,
; and the results are recorded as one array before both arrays are released.
source_filename = "ghz5.ll"

@label = internal constant [2 x i8] c"c\00"

define i64 @main() #0 {
entry:
  %qs = alloca [5 x ptr], align 8
  %rs = alloca [5 x ptr], align 8
  call void @__quantum__rt__initialize(ptr null)
  call void @__quantum__rt__qubit_array_allocate(i64 5, ptr %qs, ptr null)
  call void @__quantum__rt__result_array_allocate(i64 5, ptr %rs, ptr null)
  %a0 = getelementptr inbounds [5 x ptr], ptr %qs, i64 0, i64 0
  %a1 = getelementptr inbounds [5 x ptr], ptr %qs, i64 0, i64 1
  %a2 = getelementptr inbounds [5 x ptr], ptr %qs, i64 0, i64 2
  %a3 = getelementptr inbounds [5 x ptr], ptr %qs, i64 0, i64 3
  %a4 = getelementptr inbounds [5 x ptr], ptr %qs, i64 0, i64 4
  %q0 = load ptr, ptr %a0, align 8
  %q1 = load ptr, ptr %a1, align 8
  %q2 = load ptr, ptr %a2, align 8
  %q3 = load ptr, ptr %a3, align 8
  %q4 = load ptr, ptr %a4, align 8
  call void @__quantum__qis__h__body(ptr %q0)
  call void @__quantum__qis__cx__body(ptr %q0, ptr %q1)
  call void @__quantum__qis__cx__body(ptr %q1, ptr %q2)
  call void @__quantum__qis__cx__body(ptr %q2, ptr %q3)
  call void @__quantum__qis__cx__body(ptr %q3, ptr %q4)
  %b0 = getelementptr inbounds [5 x ptr], ptr %rs, i64 0, i64 0
  %b1 = getelementptr inbounds [5 x ptr], ptr %rs, i64 0, i64 1
  %b2 = getelementptr inbounds [5 x ptr], ptr %rs, i64 0, i64 2
  %b3 = getelementptr inbounds [5 x ptr], ptr %rs, i64 0, i64 3
  %b4 = getelementptr inbounds [5 x ptr], ptr %rs, i64 0, i64 4
  %r0 = load ptr, ptr %b0, align 8
  %r1 = load ptr, ptr %b1, align 8
  %r2 = load ptr, ptr %b2, align 8
  %r3 = load ptr, ptr %b3, align 8
  %r4 = load ptr, ptr %b4, align 8
  call void @__quantum__qis__mz__body(ptr %q0, ptr %r0)
  call void @__quantum__qis__mz__body(ptr %q1, ptr %r1)
  call void @__quantum__qis__mz__body(ptr %q2, ptr %r2)
  call void @__quantum__qis__mz__body(ptr %q3, ptr %r3)
  call void @__quantum__qis__mz__body(ptr %q4, ptr %r4)
  call void @__quantum__rt__result_array_record_output(i64 5, ptr %rs, ptr @label)
  call void @__quantum__rt__result_array_release(i64 5, ptr %rs)
  call void @__quantum__rt__qubit_array_release(i64 5, ptr %qs)
  ret i64 0
}

declare void @__quantum__rt__initialize(ptr)
declare void @__quantum__rt__qubit_array_allocate(i64, ptr, ptr)
declare void @__quantum__rt__qubit_array_release(i64, ptr)
declare void @__quantum__rt__result_array_allocate(i64, ptr, ptr)
declare void @__quantum__rt__result_array_release(i64, ptr)
declare void @__quantum__rt__result_array_record_output(i64, ptr, ptr)
declare void @__quantum__qis__h__body(ptr)
declare void @__quantum__qis__cx__body(ptr, ptr)
declare void @__quantum__qis__mz__body(ptr, ptr writeonly) #1

attributes #0 = { "entry_point" "output_labeling_schema"="labeled" "qir_profiles"="adaptive_profile" }
attributes #1 = { "irreversible" }

!llvm.module.flags = !{!0, !1, !2, !3, !4}
!0 = !{i32 1, !"qir_major_version", i32 2}
!1 = !{i32 7, !"qir_minor_version", i32 1}
!2 = !{i32 1, !"dynamic_qubit_management", i1 true}
!3 = !{i32 1, !"dynamic_result_management", i1 true}
!4 = !{i32 1, !"arrays", i1 true}
