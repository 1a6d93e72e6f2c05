package qir_test

import (
	"context"
	"encoding/base64"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qir"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/sim"
)

// QIR 2.1's arrays of qubits and results, in programs written the way MQT
// Core writes them: opaque pointers, the caller's alloca filled by the
// runtime, getelementptr and load to reach an element.

// arrayDecls declares what the programs below call, with MQT's
// attributes and QIR 2.1's module flags.
const arrayDecls = `
declare void @__quantum__rt__initialize(ptr)
declare void @__quantum__rt__qubit_array_allocate(i64, ptr, ptr)
declare void @__quantum__rt__qubit_array_release(i64, ptr)
declare void @__quantum__rt__result_array_allocate(i64, ptr, ptr)
declare void @__quantum__rt__result_array_release(i64, ptr)
declare void @__quantum__rt__result_array_record_output(i64, ptr, ptr)
declare ptr @__quantum__rt__qubit_allocate(ptr)
declare ptr @__quantum__rt__result_allocate(ptr)
declare void @__quantum__rt__qubit_release(ptr)
declare void @__quantum__rt__result_record_output(ptr, ptr)
declare void @__quantum__rt__float_record_output(double, ptr)
declare i1 @__quantum__rt__read_result(ptr)
declare void @__quantum__qis__h__body(ptr)
declare void @__quantum__qis__x__body(ptr)
declare void @__quantum__qis__cx__body(ptr, ptr)
declare void @__quantum__qis__mz__body(ptr, ptr writeonly) #1
declare void @__quantum__qis__mz_array__body(i64, ptr, ptr) #1
attributes #0 = { "entry_point" "output_labeling_schema"="labeled" "qir_profiles"="adaptive_profile" }
attributes #1 = { "irreversible" }
!llvm.module.flags = !{!0, !1, !2, !3, !4}
!0 = !{i32 1, !"qir_major_version", i32 2}
!1 = !{i32 7, !"qir_minor_version", i32 1}
!2 = !{i32 1, !"dynamic_qubit_management", i1 true}
!3 = !{i32 1, !"dynamic_result_management", i1 true}
!4 = !{i32 1, !"arrays", i1 true}
`

// arrayMain is an entry point of body (its first line after the entry
// label is line 3) with arrayDecls.
func arrayMain(body string) string {
	return "@lbl = internal constant [2 x i8] c\"c\\00\"\ndefine i64 @main() #0 {\nentry:\n" + body + "  ret i64 0\n}\n" + arrayDecls
}

// checkExact compares a program's exact distribution with want.
func checkExact(t *testing.T, got, want map[string]float64) {
	t.Helper()
	for k, p := range want {
		if math.Abs(got[k]-p) > 1e-9 {
			t.Errorf("P(%s) = %v, want %v", k, got[k], p)
		}
	}
	for k, p := range got {
		if _, ok := want[k]; !ok && p > 1e-12 {
			t.Errorf("P(%s) = %v, want 0", k, p)
		}
	}
}

// checkPath checks how p runs: as a circuit (traced) or interpreted, and
// a circuit sampled or shot by shot. A sampled circuit's final state must
// give the exact distribution too.
func checkPath(t *testing.T, p *qir.Program, traced, sampled bool) {
	t.Helper()
	if (p.Circuit != nil) != traced {
		t.Fatalf("circuit %v, want %v", p.Circuit != nil, traced)
	}
	if !p.PerShot() != sampled {
		t.Fatalf("sampled %v, want %v", !p.PerShot(), sampled)
	}
}

// checkSampled runs p and checks its frequencies against want.
func checkSampled(t *testing.T, p *qir.Program, want map[string]float64) {
	t.Helper()
	const shots = 2000
	seed := uint64(7)
	res, err := p.Run(context.Background(), sim.Options{Shots: shots, Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	eps := tolerance(shots, len(want)+1)
	for k, n := range res.Counts {
		if want[k] == 0 {
			t.Errorf("outcome %s (%d times) has probability 0", k, n)
		}
	}
	for k, pr := range want {
		if got := float64(res.Counts[k]) / shots; math.Abs(got-pr) > eps {
			t.Errorf("frequency of %s %.4f, probability %.4f (tolerance %.4f)", k, got, pr, eps)
		}
	}
}

func TestArrayPrograms(t *testing.T) {
	tests := []struct {
		name, src string
		// traced: the program becomes a circuit; sampled: one whose
		// measurements end it, so its shots are sampled.
		traced, sampled bool
		qubits          int // the program's width, when not 0
		want            map[string]float64
	}{
		{"records in memory order", arrayMain(`  %qs = alloca [3 x ptr], align 8
  %rs = alloca [3 x ptr], align 8
  call void @__quantum__rt__qubit_array_allocate(i64 3, ptr %qs, ptr null)
  call void @__quantum__rt__result_array_allocate(i64 3, ptr %rs, ptr null)
  %p1 = getelementptr inbounds [3 x ptr], ptr %qs, i64 0, i64 1
  %q1 = load ptr, ptr %p1, align 8
  %p2 = getelementptr inbounds [3 x ptr], ptr %qs, i64 0, i64 2
  %q2 = load ptr, ptr %p2, align 8
  call void @__quantum__qis__x__body(ptr %q1)
  call void @__quantum__qis__x__body(ptr %q2)
  call void @__quantum__qis__mz_array__body(i64 3, ptr %qs, ptr %rs)
  %x = call ptr @__quantum__rt__qubit_allocate(ptr null)
  %rx = call ptr @__quantum__rt__result_allocate(ptr null)
  call void @__quantum__qis__mz__body(ptr %x, ptr %rx)
  call void @__quantum__rt__result_record_output(ptr %rx, ptr @lbl)
  call void @__quantum__rt__result_array_record_output(i64 3, ptr %rs, ptr @lbl)
`), true, true, 4, map[string]float64{"1100": 1}},

		{"released qubits come back in |0>", arrayMain(`  %qs = alloca [2 x ptr], align 8
  %again = alloca [2 x ptr], align 8
  %rs = alloca [4 x ptr], align 8
  call void @__quantum__rt__qubit_array_allocate(i64 2, ptr %qs, ptr null)
  call void @__quantum__rt__result_array_allocate(i64 4, ptr %rs, ptr null)
  %q0 = load ptr, ptr %qs, align 8
  %p1 = getelementptr inbounds [2 x ptr], ptr %qs, i64 0, i64 1
  %q1 = load ptr, ptr %p1, align 8
  call void @__quantum__qis__x__body(ptr %q0)
  call void @__quantum__qis__x__body(ptr %q1)
  call void @__quantum__qis__mz_array__body(i64 2, ptr %qs, ptr %rs)
  call void @__quantum__rt__qubit_array_release(i64 2, ptr %qs)
  call void @__quantum__rt__qubit_array_allocate(i64 2, ptr %again, ptr null)
  %r2 = getelementptr inbounds [4 x ptr], ptr %rs, i64 0, i64 2
  call void @__quantum__qis__mz_array__body(i64 2, ptr %again, ptr %r2)
  call void @__quantum__rt__result_array_record_output(i64 4, ptr %rs, ptr @lbl)
  call void @__quantum__rt__qubit_array_release(i64 2, ptr %again)
  call void @__quantum__rt__result_array_release(i64 4, ptr %rs)
`), true, false, 2, map[string]float64{"0011": 1}},

		{"a release before the partner's measurement is left out", arrayMain(`  %qs = alloca [2 x ptr], align 8
  %rs = alloca [2 x ptr], align 8
  call void @__quantum__rt__qubit_array_allocate(i64 2, ptr %qs, ptr null)
  call void @__quantum__rt__result_array_allocate(i64 2, ptr %rs, ptr null)
  %q0 = load ptr, ptr %qs, align 8
  %p1 = getelementptr inbounds [2 x ptr], ptr %qs, i64 0, i64 1
  %q1 = load ptr, ptr %p1, align 8
  %r0 = load ptr, ptr %rs, align 8
  %s1 = getelementptr inbounds [2 x ptr], ptr %rs, i64 0, i64 1
  %r1 = load ptr, ptr %s1, align 8
  call void @__quantum__qis__h__body(ptr %q0)
  call void @__quantum__qis__cx__body(ptr %q0, ptr %q1)
  call void @__quantum__qis__mz__body(ptr %q0, ptr %r0)
  call void @__quantum__rt__qubit_release(ptr %q0)
  call void @__quantum__qis__h__body(ptr %q1)
  call void @__quantum__qis__mz__body(ptr %q1, ptr %r1)
  call void @__quantum__rt__result_array_record_output(i64 2, ptr %rs, ptr @lbl)
`), true, true, 2, map[string]float64{"00": 0.25, "01": 0.25, "10": 0.25, "11": 0.25}},

		{"a release of a qubit never allocated does not pool it", arrayMain(`  %none = alloca [1 x ptr], align 8
  %qs = alloca [2 x ptr], align 8
  %rs = alloca [2 x ptr], align 8
  call void @__quantum__rt__qubit_array_release(i64 1, ptr %none)
  call void @__quantum__rt__qubit_array_allocate(i64 2, ptr %qs, ptr null)
  call void @__quantum__rt__result_array_allocate(i64 2, ptr %rs, ptr null)
  %q0 = load ptr, ptr %qs, align 8
  call void @__quantum__qis__x__body(ptr %q0)
  call void @__quantum__qis__mz_array__body(i64 2, ptr %qs, ptr %rs)
  call void @__quantum__rt__result_array_record_output(i64 2, ptr %rs, ptr @lbl)
`), true, false, 2, map[string]float64{"01": 1}},

		{"an array allocated and released in a loop reuses its qubits", arrayMain(`  %qs = alloca [3 x ptr], align 8
  br label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %j, %loop ]
  call void @__quantum__rt__qubit_array_allocate(i64 3, ptr %qs, ptr null)
  %q0 = load ptr, ptr %qs, align 8
  %p2 = getelementptr inbounds [3 x ptr], ptr %qs, i64 0, i64 2
  %q2 = load ptr, ptr %p2, align 8
  call void @__quantum__qis__x__body(ptr %q0)
  call void @__quantum__qis__cx__body(ptr %q0, ptr %q2)
  call void @__quantum__qis__mz__body(ptr %q2, ptr null)
  call void @__quantum__rt__qubit_array_release(i64 3, ptr %qs)
  %j = add i64 %i, 1
  %more = icmp slt i64 %j, 50
  br i1 %more, label %loop, label %done
done:
  call void @__quantum__rt__result_record_output(ptr null, ptr @lbl)
`), true, false, 3, map[string]float64{"1": 1}},

		{"static ids stored in arrays", arrayMain(`  %qs = alloca [2 x ptr], align 8
  %rs = alloca [2 x ptr], align 8
  store ptr null, ptr %qs, align 8
  %p1 = getelementptr inbounds [2 x ptr], ptr %qs, i64 0, i64 1
  store ptr inttoptr (i64 1 to ptr), ptr %p1, align 8
  store ptr inttoptr (i64 1 to ptr), ptr %rs, align 8
  %s1 = getelementptr inbounds [2 x ptr], ptr %rs, i64 0, i64 1
  store ptr null, ptr %s1, align 8
  %q0 = load ptr, ptr %qs, align 8
  %q1 = load ptr, ptr %p1, align 8
  call void @__quantum__qis__x__body(ptr %q0)
  call void @__quantum__qis__h__body(ptr %q1)
  call void @__quantum__qis__mz_array__body(i64 2, ptr %qs, ptr %rs)
  call void @__quantum__rt__result_array_record_output(i64 2, ptr %rs, ptr @lbl)
`), true, true, 2, map[string]float64{"01": 0.5, "11": 0.5}},

		{"allocation error flags read false", arrayMain(`  %e1 = alloca i1, align 1
  %e2 = alloca i1, align 1
  %e3 = alloca i1, align 1
  store i1 true, ptr %e1, align 1
  store i1 true, ptr %e2, align 1
  store i1 true, ptr %e3, align 1
  %rs = alloca [1 x ptr], align 8
  %q = call ptr @__quantum__rt__qubit_allocate(ptr %e1)
  %r = call ptr @__quantum__rt__result_allocate(ptr %e2)
  call void @__quantum__rt__result_array_allocate(i64 1, ptr %rs, ptr %e3)
  %f1 = load i1, ptr %e1, align 1
  %f2 = load i1, ptr %e2, align 1
  %f3 = load i1, ptr %e3, align 1
  %f12 = or i1 %f1, %f2
  %f = or i1 %f12, %f3
  br i1 %f, label %failed, label %ok
failed:
  call void @__quantum__qis__x__body(ptr %q)
  br label %ok
ok:
  %r0 = load ptr, ptr %rs, align 8
  call void @__quantum__qis__mz__body(ptr %q, ptr %r0)
  call void @__quantum__rt__result_array_record_output(i64 1, ptr %rs, ptr @lbl)
`), true, true, 1, map[string]float64{"0": 1}},

		{"a branch on a result read from an array", arrayMain(`  %qs = alloca [2 x ptr], align 8
  %rs = alloca [2 x ptr], align 8
  call void @__quantum__rt__qubit_array_allocate(i64 2, ptr %qs, ptr null)
  call void @__quantum__rt__result_array_allocate(i64 2, ptr %rs, ptr null)
  %q0 = load ptr, ptr %qs, align 8
  %p1 = getelementptr inbounds [2 x ptr], ptr %qs, i64 0, i64 1
  %q1 = load ptr, ptr %p1, align 8
  %r0 = load ptr, ptr %rs, align 8
  %s1 = getelementptr inbounds [2 x ptr], ptr %rs, i64 0, i64 1
  %r1 = load ptr, ptr %s1, align 8
  call void @__quantum__qis__h__body(ptr %q0)
  call void @__quantum__qis__mz__body(ptr %q0, ptr %r0)
  %one = call i1 @__quantum__rt__read_result(ptr %r0)
  br i1 %one, label %flip, label %done
flip:
  call void @__quantum__qis__x__body(ptr %q1)
  br label %done
done:
  call void @__quantum__qis__mz__body(ptr %q1, ptr %r1)
  call void @__quantum__rt__result_array_record_output(i64 2, ptr %rs, ptr @lbl)
  call void @__quantum__rt__qubit_array_release(i64 2, ptr %qs)
`), false, false, 2, map[string]float64{"00": 0.5, "11": 0.5}},

		{"empty arrays and a float record", arrayMain(`  call void @__quantum__rt__qubit_array_allocate(i64 0, ptr null, ptr null)
  call void @__quantum__rt__result_array_allocate(i64 0, ptr null, ptr null)
  call void @__quantum__rt__result_array_record_output(i64 0, ptr null, ptr @lbl)
  call void @__quantum__rt__qubit_array_release(i64 0, ptr null)
  call void @__quantum__rt__result_array_release(i64 0, ptr null)
  call void @__quantum__qis__x__body(ptr null)
  call void @__quantum__qis__mz__body(ptr null, ptr null)
  call void @__quantum__rt__result_record_output(ptr null, ptr @lbl)
  call void @__quantum__rt__float_record_output(double 0.5, ptr @lbl)
`), true, true, 1, map[string]float64{"1": 1}},

		{"typed pointers", `%Qubit = type opaque
%Result = type opaque
define i64 @main() #0 {
entry:
  %qs = alloca [2 x %Qubit*], align 8
  %rs = alloca [2 x %Result*], align 8
  %qp = bitcast [2 x %Qubit*]* %qs to %Qubit**
  %rp = bitcast [2 x %Result*]* %rs to %Result**
  call void @__quantum__rt__qubit_array_allocate(i64 2, %Qubit** %qp, i1* null)
  call void @__quantum__rt__result_array_allocate(i64 2, %Result** %rp, i1* null)
  %q0 = load %Qubit*, %Qubit** %qp, align 8
  %p1 = getelementptr inbounds [2 x %Qubit*], [2 x %Qubit*]* %qs, i64 0, i64 1
  %q1 = load %Qubit*, %Qubit** %p1, align 8
  call void @__quantum__qis__h__body(%Qubit* %q0)
  call void @__quantum__qis__cnot__body(%Qubit* %q0, %Qubit* %q1)
  call void @__quantum__qis__mz_array__body(i64 2, %Qubit** %qp, %Result** %rp)
  call void @__quantum__rt__result_array_record_output(i64 2, %Result** %rp, i8* null)
  call void @__quantum__rt__qubit_array_release(i64 2, %Qubit** %qp)
  call void @__quantum__rt__result_array_release(i64 2, %Result** %rp)
  ret i64 0
}
declare void @__quantum__rt__qubit_array_allocate(i64, %Qubit**, i1*)
declare void @__quantum__rt__qubit_array_release(i64, %Qubit**)
declare void @__quantum__rt__result_array_allocate(i64, %Result**, i1*)
declare void @__quantum__rt__result_array_release(i64, %Result**)
declare void @__quantum__rt__result_array_record_output(i64, %Result**, i8*)
declare void @__quantum__qis__h__body(%Qubit*)
declare void @__quantum__qis__cnot__body(%Qubit*, %Qubit*)
declare void @__quantum__qis__mz_array__body(i64, %Qubit**, %Result**)
attributes #0 = { "entry_point" "qir_profiles"="adaptive_profile" }
`, true, true, 2, map[string]float64{"00": 0.5, "11": 0.5}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := qir.Compile(context.Background(), "qir.ll", tc.src, qir.Options{})
			if err != nil {
				t.Fatal(err)
			}
			checkPath(t, p, tc.traced, tc.sampled)
			if tc.qubits != 0 && p.NumQubits != tc.qubits {
				t.Errorf("%d qubits, want %d", p.NumQubits, tc.qubits)
			}
			checkExact(t, qir.Exact(t, p), tc.want)
			if tc.sampled {
				checkExact(t, qir.FromFinalState(t, p), tc.want)
			}
			checkSampled(t, p, tc.want)
		})
	}
}

// arrayFiles are the programs of testdata/arrays with their exact
// distributions, or the error they are refused with.
var arrayFiles = []struct {
	file            string
	traced, sampled bool
	want            map[string]float64
	err             string
}{
	{"ghz5.ll", true, true, map[string]float64{"00000": 0.5, "11111": 0.5}, ""},
	{"ghz3_builder.ll", true, true, map[string]float64{"000": 0.5, "111": 0.5}, ""},
	{"adaptive_loop.ll", false, false, map[string]float64{"00000": 0.5, "11111": 0.5}, ""},
	{"use_after_release.ll", false, false, nil, "the program fails when run: qubit 0 is used after its release"},
}

// The programs as text and as the bitcode LLVM 14 and 19 make of them
// (see testdata/arrays/README.md): the same distribution, exactly, or
// the same refusal, at a line and column in text and in a function in
// bitcode.
func TestArrayTextAndBitcode(t *testing.T) {
	dir := filepath.Join("testdata", "arrays")
	for _, f := range arrayFiles {
		base := strings.TrimSuffix(f.file, ".ll")
		for _, enc := range []struct{ name, format, path string }{
			{"text", "qir.ll", f.file},
			{"llvm14", "qir.bc", filepath.Join("bc-llvm14", base+".bc")},
			{"llvm19", "qir.bc", filepath.Join("bc-llvm19", base+".bc")},
		} {
			t.Run(base+"/"+enc.name, func(t *testing.T) {
				raw, err := os.ReadFile(filepath.Join(dir, enc.path))
				if err != nil {
					t.Fatal(err)
				}
				data := string(raw)
				if enc.format == "qir.bc" {
					data = base64.StdEncoding.EncodeToString(raw)
				}
				p, err := qir.Compile(context.Background(), enc.format, data, qir.Options{})
				if f.err != "" {
					where := regexp.MustCompile(`^line \d+:\d+: `)
					if enc.format == "qir.bc" {
						where = regexp.MustCompile(`^in function @main: `)
					}
					if err == nil || !strings.Contains(err.Error(), f.err) || !where.MatchString(err.Error()) {
						t.Fatalf("error %v, want %q at %s", err, f.err, where)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				checkPath(t, p, f.traced, f.sampled)
				checkExact(t, qir.Exact(t, p), f.want)
				if f.sampled {
					checkExact(t, qir.FromFinalState(t, p), f.want)
				}
			})
		}
	}
}

// Each bad count, array and handle is refused with the function and the
// rule, at the call's line and column.
func TestArrayErrors(t *testing.T) {
	tests := []struct {
		name, body string
		want       string
	}{
		{"negative qubit count", `  %qs = alloca [2 x ptr]
  call void @__quantum__rt__qubit_array_allocate(i64 -1, ptr %qs, ptr null)
`, "line 5:3: the program fails when run: @__quantum__rt__qubit_array_allocate: a negative count of qubits (-1)"},
		{"negative result count", `  %rs = alloca [2 x ptr]
  call void @__quantum__rt__result_array_allocate(i64 -2, ptr %rs, ptr null)
`, "line 5:3: the program fails when run: @__quantum__rt__result_array_allocate: a negative count of results (-2)"},
		{"negative release count", `  %qs = alloca [2 x ptr]
  call void @__quantum__rt__qubit_array_release(i64 -1, ptr %qs)
`, "@__quantum__rt__qubit_array_release: a negative count of qubits (-1)"},
		{"negative record count", `  %rs = alloca [2 x ptr]
  call void @__quantum__rt__result_array_record_output(i64 -1, ptr %rs, ptr @lbl)
`, "@__quantum__rt__result_array_record_output: a negative count of results (-1)"},
		{"more qubits than the array holds", `  %qs = alloca [2 x ptr]
  call void @__quantum__rt__qubit_array_allocate(i64 3, ptr %qs, ptr null)
`, "line 5:3: the program fails when run: @__quantum__rt__qubit_array_allocate: 3 pointers do not fit in the 16 bytes their array has from offset 0"},
		{"more results than the array holds past an offset", `  %rs = alloca [4 x ptr]
  %p = getelementptr inbounds [4 x ptr], ptr %rs, i64 0, i64 3
  call void @__quantum__rt__result_array_allocate(i64 2, ptr %p, ptr null)
`, "@__quantum__rt__result_array_allocate: 2 pointers do not fit in the 8 bytes their array has from offset 24"},
		{"more qubits than the device has", `  %qs = alloca [40 x ptr]
  call void @__quantum__rt__qubit_array_allocate(i64 40, ptr %qs, ptr null)
`, "line 5:3: the program fails when run: @__quantum__rt__qubit_array_allocate: 40 qubits, more than the 30 the device has"},
		{"a huge count", `  %qs = alloca [2 x ptr]
  call void @__quantum__rt__qubit_array_allocate(i64 9223372036854775807, ptr %qs, ptr null)
`, "@__quantum__rt__qubit_array_allocate: 9223372036854775807 qubits, more than the 30 the device has"},
		{"a huge result count", `  %rs = alloca [2 x ptr]
  call void @__quantum__rt__result_array_allocate(i64 4611686018427387904, ptr %rs, ptr null)
`, "@__quantum__rt__result_array_allocate: 4611686018427387904 results, more than the 1048576 a shot may still allocate"},
		{"more qubits than are left", `  %a = alloca [20 x ptr]
  %b = alloca [20 x ptr]
  call void @__quantum__rt__qubit_array_allocate(i64 20, ptr %a, ptr null)
  call void @__quantum__rt__qubit_array_allocate(i64 20, ptr %b, ptr null)
`, "the program uses more than the 30 qubits the device has"},
		{"a null array", `  call void @__quantum__rt__qubit_array_allocate(i64 2, ptr null, ptr null)
`, "line 4:3: the program fails when run: @__quantum__rt__qubit_array_allocate through a null pointer"},
		{"an array that is a qubit", `  call void @__quantum__rt__result_array_record_output(i64 1, ptr inttoptr (i64 3 to ptr), ptr @lbl)
`, "@__quantum__rt__result_array_record_output through a pointer that is not to memory (address 3)"},
		{"a count that is not an integer", `  %qs = alloca [2 x ptr]
  call void @__quantum__rt__qubit_array_allocate(double 2.0, ptr %qs, ptr null)
`, "line 5:3: @__quantum__rt__qubit_array_allocate: its count (the first argument) must be an integer"},
		{"a missing array", `  call void @__quantum__rt__qubit_array_release(i64 2)
`, "line 4:3: @__quantum__rt__qubit_array_release takes 2 arguments, the call passes 1"},
		{"use after release", `  %qs = alloca [2 x ptr]
  call void @__quantum__rt__qubit_array_allocate(i64 2, ptr %qs, ptr null)
  %p = getelementptr inbounds [2 x ptr], ptr %qs, i64 0, i64 1
  %q1 = load ptr, ptr %p
  call void @__quantum__rt__qubit_array_release(i64 2, ptr %qs)
  call void @__quantum__qis__x__body(ptr %q1)
`, "line 9:3: the program fails when run: qubit 1 is used after its release"},
		{"released twice", `  %qs = alloca [2 x ptr]
  call void @__quantum__rt__qubit_array_allocate(i64 2, ptr %qs, ptr null)
  call void @__quantum__rt__qubit_array_release(i64 2, ptr %qs)
  call void @__quantum__rt__qubit_array_release(i64 2, ptr %qs)
`, "line 7:3: the program fails when run: @__quantum__rt__qubit_array_release: element 0: qubit 0 is used after its release"},
		{"a released qubit measured in bulk", `  %qs = alloca [1 x ptr]
  %rs = alloca [1 x ptr]
  call void @__quantum__rt__qubit_array_allocate(i64 1, ptr %qs, ptr null)
  call void @__quantum__rt__result_array_allocate(i64 1, ptr %rs, ptr null)
  call void @__quantum__rt__qubit_array_release(i64 1, ptr %qs)
  call void @__quantum__qis__mz_array__body(i64 1, ptr %qs, ptr %rs)
`, "@__quantum__qis__mz_array__body: element 0: qubit 0 is used after its release"},
		{"a record of a pointer to memory", `  %rs = alloca [2 x ptr]
  %other = alloca i64
  store ptr %other, ptr %rs
  call void @__quantum__rt__result_array_record_output(i64 1, ptr %rs, ptr @lbl)
`, "@__quantum__rt__result_array_record_output: element 0: a result operand that is not a result"},
		{"a measurement into a constant result", `  %q = alloca [1 x ptr]
  %r = alloca [1 x ptr]
  %one = call ptr @__quantum__rt__result_get_one()
  store ptr %one, ptr %r
  call void @__quantum__qis__mz_array__body(i64 1, ptr %q, ptr %r)
`, "@__quantum__qis__mz_array__body: element 0: a measurement into a constant result"},
		{"an error flag that is not memory", `  %qs = alloca [1 x ptr]
  call void @__quantum__rt__qubit_array_allocate(i64 1, ptr %qs, ptr inttoptr (i64 8 to ptr))
`, "line 5:3: the program fails when run: @__quantum__rt__qubit_array_allocate: its error flag: a store through a pointer that is not to memory (address 8)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := arrayMain(tc.body) + "declare ptr @__quantum__rt__result_get_one()\n"
			_, err := qir.Compile(context.Background(), "qir.ll", src, qir.Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// A shot that goes wrong only on some paths fails its job at run time,
// naming the function and the call.
func TestArrayErrorsAtRunTime(t *testing.T) {
	src := arrayMain(`  %qs = alloca [2 x ptr]
  call void @__quantum__qis__h__body(ptr null)
  call void @__quantum__qis__mz__body(ptr null, ptr null)
  %one = call i1 @__quantum__rt__read_result(ptr null)
  %n = select i1 %one, i64 -1, i64 1
  call void @__quantum__rt__qubit_array_allocate(i64 %n, ptr %qs, ptr null)
`)
	p, err := qir.Compile(context.Background(), "qir.ll", src, qir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// Of 64 shots, one measures 1 but with probability 1 − 2⁻⁶⁴.
	seed := uint64(1)
	_, runErr := p.Run(context.Background(), sim.Options{Shots: 64, Seed: &seed})
	want := "line 9:3: @__quantum__rt__qubit_array_allocate: a negative count of qubits (-1)"
	if runErr == nil || !strings.Contains(runErr.Error(), want) {
		t.Fatalf("error %v, want one containing %q", runErr, want)
	}
}

// The GHZ program reaches the service as MQT sends it, in every form, and
// its job completes with counts near its exact distribution.
func TestArraysThroughTheService(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	const shots = 4000
	want := map[string]float64{"00000": 0.5, "11111": 0.5}
	dir := filepath.Join("testdata", "arrays")
	text, err := os.ReadFile(filepath.Join(dir, "ghz5.ll"))
	if err != nil {
		t.Fatal(err)
	}
	fs := []form{{"text", "qir.ll", string(text)}, {"text-base64", "qir.ll", base64.StdEncoding.EncodeToString(text)}}
	for _, llvm := range []string{"bc-llvm14", "bc-llvm19"} {
		b, err := os.ReadFile(filepath.Join(dir, llvm, "ghz5.bc"))
		if err != nil {
			t.Fatal(err)
		}
		fs = append(fs, form{llvm, "qir.bc", base64.StdEncoding.EncodeToString(b)})
	}
	for _, f := range fs {
		t.Run(f.name, func(t *testing.T) {
			runJob(t, svc, u, quantum.JobRequest{Program: &quantum.Program{Format: f.format, Data: f.data},
				Shots: shots, DeviceQRN: device}, want)
		})
	}
}
