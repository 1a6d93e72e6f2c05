package qir_test

import (
	"context"
	"fmt"

	"github.com/qjobs/quantum/qir"
	"github.com/qjobs/quantum/sim"
)

// A base-profile Bell pair, as pyqir writes it with opaque pointers: it
// becomes a circuit, and its shots are sampled.
func ExampleCompile() {
	src := `
define void @main() #0 {
  call void @__quantum__qis__h__body(ptr null)
  call void @__quantum__qis__cx__body(ptr null, ptr inttoptr (i64 1 to ptr))
  call void @__quantum__qis__mz__body(ptr null, ptr null)
  call void @__quantum__qis__mz__body(ptr inttoptr (i64 1 to ptr), ptr inttoptr (i64 1 to ptr))
  call void @__quantum__rt__result_record_output(ptr null, ptr null)
  call void @__quantum__rt__result_record_output(ptr inttoptr (i64 1 to ptr), ptr null)
  ret void
}
declare void @__quantum__qis__h__body(ptr)
declare void @__quantum__qis__cx__body(ptr, ptr)
declare void @__quantum__qis__mz__body(ptr, ptr)
declare void @__quantum__rt__result_record_output(ptr, ptr)
attributes #0 = { "entry_point" "qir_profiles"="base_profile" }
`
	p, err := qir.Compile(context.Background(), "qir.ll", src, qir.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	seed := uint64(1)
	res, err := p.Run(context.Background(), sim.Options{Shots: 1000, Seed: &seed})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(p.EntryPoint, p.Profile, p.NumQubits, "qubits, sampled:", !p.PerShot())
	fmt.Println("only 00 and 11:", res.Counts["00"]+res.Counts["11"] == 1000)
	// Output:
	// main base_profile 2 qubits, sampled: true
	// only 00 and 11: true
}
