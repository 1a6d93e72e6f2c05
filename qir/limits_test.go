package qir_test

import (
	"context"
	"errors"
	"maps"
	"strconv"
	"strings"
	"testing"

	"github.com/qjobs/quantum/qir"
	"github.com/qjobs/quantum/sim"
)

const decls = `
declare void @__quantum__qis__x__body(ptr)
declare void @__quantum__qis__h__body(ptr)
declare void @__quantum__qis__mz__body(ptr, ptr)
declare i1 @__quantum__rt__read_result(ptr)
declare void @__quantum__rt__result_record_output(ptr, ptr)
attributes #0 = { "entry_point" "qir_profiles"="adaptive_profile" }
`

// loopX applies x to qubit 0 n times in a loop, then measures and
// records it.
func loopX(n int) string {
	return `define void @main() #0 {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  call void @__quantum__qis__x__body(ptr null)
  %next = add i64 %i, 1
  %more = icmp slt i64 %next, ` + strconv.Itoa(n) + `
  br i1 %more, label %loop, label %done
done:
  call void @__quantum__qis__mz__body(ptr null, ptr null)
  call void @__quantum__rt__result_record_output(ptr null, ptr null)
  ret void
}` + decls
}

func run(t *testing.T, p *qir.Program, shots int, seed uint64) map[string]int {
	t.Helper()
	res, err := p.Run(context.Background(), sim.Options{Shots: shots, Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	return res.Counts
}

func TestLoopsUnrollIntoACircuit(t *testing.T) {
	p, err := qir.Compile(context.Background(), "qir.ll", loopX(1001), qir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Circuit == nil || p.PerShot() {
		t.Fatal("a loop with a fixed count did not become a sampled circuit")
	}
	if got := run(t, p, 100, 1); !maps.Equal(got, map[string]int{"1": 100}) {
		t.Fatalf("counts %v", got)
	}
}

// A circuit too long to hold runs shot by shot instead, with the same
// answer.
func TestLongTracesRunShotByShot(t *testing.T) {
	p, err := qir.Compile(context.Background(), "qir.ll", loopX(1001), qir.Options{MaxOps: 100})
	if err != nil {
		t.Fatal(err)
	}
	if p.Circuit != nil || !p.PerShot() {
		t.Fatal("a trace past MaxOps kept its circuit")
	}
	if got := run(t, p, 20, 1); !maps.Equal(got, map[string]int{"1": 20}) {
		t.Fatalf("counts %v", got)
	}
}

func TestLimits(t *testing.T) {
	tests := []struct {
		name, src string
		want      string
	}{
		{"recursion", "define void @f() {\n  call void @f()\n  ret void\n}\ndefine void @main() #0 {\n  call void @f()\n  ret void\n}" + decls,
			"calls nested more than 1024 deep"},
		{"allocas in a loop", "define void @main() #0 {\nentry:\n  br label %l\nl:\n  %p = alloca i64\n  br label %l\n}" + decls,
			"allocates more than 65536 objects"},
		{"stores everywhere", "define void @main() #0 {\nentry:\n  %a = alloca [1000000 x i64]\n  br label %l\nl:\n  %i = phi i64 [ 0, %entry ], [ %n, %l ]\n" +
			"  %p = getelementptr [1000000 x i64], ptr %a, i64 0, i64 %i\n  store i64 1, ptr %p\n  %n = add i64 %i, 1\n  br label %l\n}" + decls,
			"stores to more than 262144 places"},
		{"a load through a qubit", "define void @main() #0 {\n  %x = load i64, ptr inttoptr (i64 3 to ptr)\n  ret void\n}" + decls,
			"not to memory"},
		{"a huge index", "define void @main() #0 {\n  %a = alloca i64\n  %p = getelementptr i64, ptr %a, i64 9223372036854775807\n  ret void\n}" + decls,
			"out of range"},
		{"a struct of itself", "%T = type { i64, [2 x %T] }\ndefine void @main() #0 {\n  %a = alloca %T\n  ret void\n}" + decls,
			"contains itself"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := qir.Compile(context.Background(), "qir.ll", tc.src, qir.Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// A program whose loop depends on a measurement compiles, and each shot
// then stops at the step limit.
func TestDynamicStepLimit(t *testing.T) {
	src := `define void @main() #0 {
entry:
  call void @__quantum__qis__mz__body(ptr null, ptr null)
  %r = call i1 @__quantum__rt__read_result(ptr null)
  br label %spin
spin:
  br i1 %r, label %spin, label %spin
}` + decls
	p, err := qir.Compile(context.Background(), "qir.ll", src, qir.Options{MaxSteps: 1000})
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Run(context.Background(), sim.Options{Shots: 3})
	if !errors.Is(err, qir.ErrStepLimit) {
		t.Fatalf("Run: %v, want ErrStepLimit", err)
	}
}

// The loop that motivated the work bound, in QIR: an H and a measurement
// on 16 qubits, again while the measured qubit (held at |1⟩) reads 1. Its
// instructions are few; the amplitudes it touches stop it.
func TestDynamicWorkLimit(t *testing.T) {
	src := `define void @main() #0 {
entry:
  call void @__quantum__qis__x__body(ptr inttoptr (i64 15 to ptr))
  br label %loop
loop:
  call void @__quantum__qis__h__body(ptr null)
  call void @__quantum__qis__mz__body(ptr inttoptr (i64 15 to ptr), ptr null)
  %r = call i1 @__quantum__rt__read_result(ptr null)
  br i1 %r, label %loop, label %done
done:
  ret void
}` + decls
	p, err := qir.Compile(context.Background(), "qir.ll", src, qir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.NumQubits != 16 {
		t.Fatalf("%d qubits, want 16", p.NumQubits)
	}
	_, err = p.Run(context.Background(), sim.Options{Shots: 1, MaxWork: 300 * 3 << 16})
	if !errors.Is(err, sim.ErrWorkLimit) || !strings.Contains(err.Error(), "(MaxWork") {
		t.Fatalf("Run: %v, want ErrWorkLimit naming MaxWork", err)
	}
}

// Shot by shot, a seed gives the same counts.
func TestSeededShotsRepeat(t *testing.T) {
	src := `define void @main() #0 {
entry:
  call void @__quantum__qis__h__body(ptr null)
  call void @__quantum__qis__mz__body(ptr null, ptr null)
  %r = call i1 @__quantum__rt__read_result(ptr null)
  br i1 %r, label %one, label %done
one:
  call void @__quantum__qis__h__body(ptr inttoptr (i64 1 to ptr))
  br label %done
done:
  call void @__quantum__qis__mz__body(ptr inttoptr (i64 1 to ptr), ptr inttoptr (i64 1 to ptr))
  call void @__quantum__rt__result_record_output(ptr null, ptr null)
  call void @__quantum__rt__result_record_output(ptr inttoptr (i64 1 to ptr), ptr null)
  ret void
}` + decls
	p, err := qir.Compile(context.Background(), "qir.ll", src, qir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !p.PerShot() || p.Circuit != nil {
		t.Fatal("a program that branches on a result is not run shot by shot")
	}
	a, b := run(t, p, 2000, 7), run(t, p, 2000, 7)
	if !maps.Equal(a, b) {
		t.Fatalf("same seed, different counts: %v %v", a, b)
	}
	if a["10"] != 0 || a["00"] == 0 || a["01"] == 0 || a["11"] == 0 {
		t.Fatalf("counts %v: want 00 about half, 01 and 11 about a quarter each, never 10", a)
	}
}

// Qubit ids computed at run time count toward the program's width.
func TestComputedQubitIDs(t *testing.T) {
	src := `define void @main() #0 {
entry:
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %q = inttoptr i64 %i to ptr
  call void @__quantum__qis__x__body(ptr %q)
  call void @__quantum__qis__mz__body(ptr %q, ptr %q)
  call void @__quantum__rt__result_record_output(ptr %q, ptr null)
  %next = add i64 %i, 1
  %more = icmp slt i64 %next, 5
  br i1 %more, label %loop, label %done
done:
  ret void
}` + decls
	p, err := qir.Compile(context.Background(), "qir.ll", src, qir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.NumQubits != 5 || p.Circuit == nil {
		t.Fatalf("%d qubits, circuit %v; want 5 and a circuit", p.NumQubits, p.Circuit != nil)
	}
	if got := run(t, p, 10, 1); !maps.Equal(got, map[string]int{"11111": 10}) {
		t.Fatalf("counts %v", got)
	}
}

// Arrays of qubits: allocated, indexed, released; an alloca is not one.
func TestQubitArrays(t *testing.T) {
	body := `define void @main() #0 {
entry:
  %qs = call ptr @__quantum__rt__qubit_allocate_array(i64 3)
  %p = call ptr @__quantum__rt__array_get_element_ptr_1d(ptr %qs, i64 2)
  %q = load ptr, ptr %p
  call void @__quantum__qis__x__body(ptr %q)
  call void @__quantum__qis__mz__body(ptr %q, ptr null)
  call void @__quantum__rt__result_record_output(ptr null, ptr null)
  call void @__quantum__rt__qubit_release_array(ptr RELEASED)
  ret void
}
declare ptr @__quantum__rt__qubit_allocate_array(i64)
declare ptr @__quantum__rt__array_get_element_ptr_1d(ptr, i64)
declare void @__quantum__rt__qubit_release_array(ptr)` + decls
	p, err := qir.Compile(context.Background(), "qir.ll", strings.Replace(body, "RELEASED", "%qs", 1), qir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.NumQubits != 3 {
		t.Fatalf("%d qubits, want 3", p.NumQubits)
	}
	if got := run(t, p, 10, 1); !maps.Equal(got, map[string]int{"1": 10}) {
		t.Fatalf("counts %v", got)
	}
	bad := strings.Replace(body, "  call void @__quantum__rt__qubit_release_array(ptr RELEASED)",
		"  %a = alloca [1000000000 x ptr]\n  call void @__quantum__rt__qubit_release_array(ptr %a)", 1)
	if _, err := qir.Compile(context.Background(), "qir.ll", bad, qir.Options{}); err == nil || !strings.Contains(err.Error(), "did not make") {
		t.Fatalf("releasing an alloca as a qubit array: %v", err)
	}
}
