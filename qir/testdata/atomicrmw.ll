define void @main() #0 {
entry:
  %a = alloca i64
  %old = atomicrmw add i64* %a, i64 1 seq_cst
  ret void
}
attributes #0 = { "entry_point" "qir_profiles"="adaptive_profile" }
