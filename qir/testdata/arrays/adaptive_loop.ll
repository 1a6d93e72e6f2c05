; Arrays in an adaptive program: a GHZ state on four qubits built by a
; loop that walks the qubit array with a phi index, all four measured at
; once by mz_array, and a fifth qubit, allocated on its own, flipped when
; the first result reads one. The allocation's error flag is checked.
source_filename = "adaptive_loop.ll"

@rs_label = internal constant [3 x i8] c"rs\00"
@rx_label = internal constant [3 x i8] c"rx\00"

define i64 @main() #0 {
entry:
  %qs = alloca [4 x ptr], align 8
  %rs = alloca [4 x ptr], align 8
  %err = alloca i1, align 1
  store i1 true, ptr %err, align 1
  call void @__quantum__rt__initialize(ptr null)
  call void @__quantum__rt__qubit_array_allocate(i64 4, ptr %qs, ptr %err)
  %failed = load i1, ptr %err, align 1
  br i1 %failed, label %fail, label %start

start:
  call void @__quantum__rt__result_array_allocate(i64 4, ptr %rs, ptr null)
  %q0 = load ptr, ptr %qs, align 8
  call void @__quantum__qis__h__body(ptr %q0)
  br label %loop

loop:
  %i = phi i64 [ 0, %start ], [ %j, %loop ]
  %j = add i64 %i, 1
  %pi = getelementptr inbounds [4 x ptr], ptr %qs, i64 0, i64 %i
  %pj = getelementptr inbounds [4 x ptr], ptr %qs, i64 0, i64 %j
  %c = load ptr, ptr %pi, align 8
  %t = load ptr, ptr %pj, align 8
  call void @__quantum__qis__cx__body(ptr %c, ptr %t)
  %more = icmp slt i64 %j, 3
  br i1 %more, label %loop, label %measure

measure:
  call void @__quantum__qis__mz_array__body(i64 4, ptr %qs, ptr %rs)
  %extra = call ptr @__quantum__rt__qubit_allocate(ptr null)
  %rx = call ptr @__quantum__rt__result_allocate(ptr null)
  %r0 = load ptr, ptr %rs, align 8
  %one = call i1 @__quantum__rt__read_result(ptr %r0)
  br i1 %one, label %flip, label %done

flip:
  call void @__quantum__qis__x__body(ptr %extra)
  br label %done

done:
  call void @__quantum__qis__mz__body(ptr %extra, ptr %rx)
  call void @__quantum__rt__qubit_release(ptr %extra)
  call void @__quantum__rt__qubit_array_release(i64 4, ptr %qs)
  call void @__quantum__rt__result_array_record_output(i64 4, ptr %rs, ptr @rs_label)
  call void @__quantum__rt__result_record_output(ptr %rx, ptr @rx_label)
  call void @__quantum__rt__result_array_release(i64 4, ptr %rs)
  call void @__quantum__rt__result_release(ptr %rx)
  ret i64 0

fail:
  ret i64 1
}

declare void @__quantum__rt__initialize(ptr)
declare void @__quantum__rt__qubit_array_allocate(i64, ptr, ptr)
declare void @__quantum__rt__qubit_array_release(i64, ptr)
declare void @__quantum__rt__result_array_allocate(i64, ptr, ptr)
declare void @__quantum__rt__result_array_release(i64, ptr)
declare void @__quantum__rt__result_array_record_output(i64, ptr, ptr)
declare ptr @__quantum__rt__qubit_allocate(ptr)
declare void @__quantum__rt__qubit_release(ptr)
declare ptr @__quantum__rt__result_allocate(ptr)
declare void @__quantum__rt__result_release(ptr)
declare void @__quantum__rt__result_record_output(ptr, ptr)
declare i1 @__quantum__rt__read_result(ptr)
declare void @__quantum__qis__h__body(ptr)
declare void @__quantum__qis__x__body(ptr)
declare void @__quantum__qis__cx__body(ptr, ptr)
declare void @__quantum__qis__mz__body(ptr, ptr writeonly) #1
declare void @__quantum__qis__mz_array__body(i64, ptr, ptr) #1

attributes #0 = { "entry_point" "output_labeling_schema"="labeled" "qir_profiles"="adaptive_profile" }
attributes #1 = { "irreversible" }

!llvm.module.flags = !{!0, !1, !2, !3, !4, !5, !6}
!0 = !{i32 1, !"qir_major_version", i32 2}
!1 = !{i32 7, !"qir_minor_version", i32 1}
!2 = !{i32 1, !"dynamic_qubit_management", i1 true}
!3 = !{i32 1, !"dynamic_result_management", i1 true}
!4 = !{i32 1, !"arrays", i1 true}
!5 = !{i32 1, !"int_computations", !{!"i64"}}
!6 = !{i32 1, !"backwards_branching", i2 1}
