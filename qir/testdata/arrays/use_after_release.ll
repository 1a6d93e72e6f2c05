; Refused: a qubit loaded from an array is used after the array's release.
source_filename = "use_after_release.ll"

define i64 @main() #0 {
entry:
  %qs = alloca [2 x ptr], align 8
  call void @__quantum__rt__qubit_array_allocate(i64 2, ptr %qs, ptr null)
  %q0 = load ptr, ptr %qs, align 8
  call void @__quantum__rt__qubit_array_release(i64 2, ptr %qs)
  call void @__quantum__qis__h__body(ptr %q0)
  ret i64 0
}

declare void @__quantum__rt__qubit_array_allocate(i64, ptr, ptr)
declare void @__quantum__rt__qubit_array_release(i64, ptr)
declare void @__quantum__qis__h__body(ptr)

attributes #0 = { "entry_point" "qir_profiles"="adaptive_profile" }

!llvm.module.flags = !{!0, !1, !2, !3}
!0 = !{i32 1, !"qir_major_version", i32 2}
!1 = !{i32 7, !"qir_minor_version", i32 1}
!2 = !{i32 1, !"dynamic_qubit_management", i1 true}
!3 = !{i32 1, !"arrays", i1 true}
