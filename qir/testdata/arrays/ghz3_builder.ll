; GHZ on three qubits in the form MQT's MLIR QIR builder translates to:
; an alloca of 3 pointers (a count, not an array type), elements reached by
; getelementptr ptr with one index, unnamed values.
source_filename = "ghz3_builder.ll"

@c0 = internal constant [3 x i8] c"c0\00"

define i64 @main() #0 {
  %1 = alloca ptr, i64 3, align 8
  %2 = alloca ptr, i64 3, align 8
  call void @__quantum__rt__initialize(ptr null)
  call void @__quantum__rt__qubit_array_allocate(i64 3, ptr %1, ptr null)
  call void @__quantum__rt__result_array_allocate(i64 3, ptr %2, ptr null)
  %3 = load ptr, ptr %1, align 8
  %4 = getelementptr ptr, ptr %1, i64 1
  %5 = load ptr, ptr %4, align 8
  %6 = getelementptr ptr, ptr %1, i64 2
  %7 = load ptr, ptr %6, align 8
  call void @__quantum__qis__h__body(ptr %3)
  call void @__quantum__qis__cx__body(ptr %3, ptr %5)
  call void @__quantum__qis__cx__body(ptr %5, ptr %7)
  %8 = load ptr, ptr %2, align 8
  %9 = getelementptr ptr, ptr %2, i64 1
  %10 = load ptr, ptr %9, align 8
  %11 = getelementptr ptr, ptr %2, i64 2
  %12 = load ptr, ptr %11, align 8
  call void @__quantum__qis__mz__body(ptr %3, ptr %8)
  call void @__quantum__qis__mz__body(ptr %5, ptr %10)
  call void @__quantum__qis__mz__body(ptr %7, ptr %12)
  call void @__quantum__rt__qubit_array_release(i64 3, ptr %1)
  call void @__quantum__rt__result_array_record_output(i64 3, ptr %2, ptr @c0)
  call void @__quantum__rt__result_array_release(i64 3, ptr %2)
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
