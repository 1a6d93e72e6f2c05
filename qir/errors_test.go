package qir_test

import (
	"context"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/qjobs/quantum/qir"
)

const header = "%Qubit = type opaque\n%Result = type opaque\n"

func module(body string, decls ...string) string {
	return header + "define void @main() #0 {\nentry:\n" + body + "  ret void\n}\n" + strings.Join(decls, "\n") +
		"\nattributes #0 = { \"entry_point\" \"qir_profiles\"=\"adaptive_profile\" }\n"
}

// Every refusal says what and where: line and column for text.
func TestCompileErrors(t *testing.T) {
	h := "declare void @__quantum__qis__h__body(ptr)"
	two := header + "define void @a() #0 {\n  ret void\n}\ndefine void @b() #0 {\n  ret void\n}\nattributes #0 = { \"entry_point\" }\n"
	tests := []struct {
		name, format, data, entry string
		want                      string // a part of the message
		entryErr                  bool
	}{
		{"unsupported instruction", "qir.ll", module("  %x = atomicrmw add ptr null, i64 1 seq_cst\n"), "", `line 5:8: unsupported instruction "atomicrmw"`, false},
		{"unknown intrinsic", "qir.ll", module("  call void @__quantum__qis__foo__body(ptr null)\n", "declare void @__quantum__qis__foo__body(ptr)"),
			"", "line 5:3: unsupported function @__quantum__qis__foo__body", false},
		{"syntax", "qir.ll", module("  call void @__quantum__qis__h__body(ptr null\n", h), "", "line 6:3: expected \",\"", false},
		{"undefined local", "qir.ll", module("  call void @__quantum__qis__h__body(ptr %q)\n", h), "", "line 5:42: %q is not defined", false},
		{"undefined function", "qir.ll", module("  call void @nowhere()\n"), "", "@nowhere is not defined", false},
		{"qubit past the limit", "qir.ll", module("  call void @__quantum__qis__h__body(ptr inttoptr (i64 40 to ptr))\n", h), "", "qubit 40 is past the 30 qubits", false},
		{"wrong arity", "qir.ll", module("  call void @__quantum__qis__h__body(ptr null, ptr null)\n", "declare void @__quantum__qis__h__body(ptr, ptr)"), "", "takes 1 arguments, the call passes 2", false},
		{"fails on every shot", "qir.ll", module("  %x = sdiv i64 1, 0\n"), "", "line 5:8: the program fails when run: division by zero", false},
		{"undefined blocks: the first named", "qir.ll", header + "define void @main() #0 {\nentry:\n  br i1 true, label %zz, label %aa\n}\nattributes #0 = { \"entry_point\" }\n", "", "branches to %zz, which it does not define", false},
		{"endless loop", "qir.ll", header + "define void @main() #0 {\nentry:\n  br label %entry\n}\nattributes #0 = { \"entry_point\" }\n", "", "step limit exceeded", false},
		{"not base64 of text", "qir.ll", base64.StdEncoding.EncodeToString([]byte("hello")), "", "base64, but not of LLVM IR text", false},
		{"bitcode as text", "qir.ll", base64.StdEncoding.EncodeToString([]byte("BC\xc0\xde\x35\x14")), "", "send it as qir.bc", false},
		{"text as bitcode", "qir.bc", module(""), "", "send it as qir.ll", false},
		{"not base64", "qir.bc", "!!!", "", "not base64", false},
		{"base64 of text as bitcode", "qir.bc", base64.StdEncoding.EncodeToString([]byte(module(""))), "", "send it as qir.ll", false},
		{"several entry points", "qir.ll", two, "", "2 entry points (@a, @b): name one in runtimeOptions.entryPoint", true},
		{"unknown entry point", "qir.ll", two, "c", "@c is not an entry point", true},
		{"entry point with parameters", "qir.ll", header + "define void @main(i64 %n) #0 {\n  ret void\n}\nattributes #0 = { \"entry_point\" }\n", "", "takes parameters", false},
		{"deep type", "qir.ll", header + "@g = global " + strings.Repeat("[1 x ", 100) + "i8" + strings.Repeat("]", 100) + " zeroinitializer\n", "", "nested more than 32 deep", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := qir.Compile(context.Background(), tc.format, tc.data, qir.Options{EntryPoint: tc.entry})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			var ep *qir.EntryPointError
			if errors.As(err, &ep) != tc.entryErr {
				t.Fatalf("%T: entry-point error %v, want %v", err, !tc.entryErr, tc.entryErr)
			}
		})
	}
}

// What newer producers write and older ones do not: debug records,
// flags on instructions, quoted names, numbered blocks.
func TestTextVariants(t *testing.T) {
	src := header + `@"label one" = private constant [2 x i8] c"a\00"
define void @"main entry"() #0 !dbg !4 {
  %1 = add nuw nsw i64 1, 2, !dbg !7
    #dbg_value(i64 %1, !8, !DIExpression(), !7)
  %2 = icmp samesign ult i64 %1, 4
  br i1 %2, label %3, label %4
3:
  call void @__quantum__qis__x__body(ptr null)
  br label %4
4:
  call void @__quantum__qis__mz__body(ptr null, ptr null) #1
  call void @__quantum__rt__result_record_output(ptr null, ptr getelementptr inbounds nuw ([2 x i8], ptr @"label one", i64 0, i64 0))
  ret void
}
declare void @__quantum__qis__x__body(ptr)
declare void @__quantum__qis__mz__body(ptr, ptr writeonly) #1
declare void @__quantum__rt__result_record_output(ptr, ptr)
attributes #0 = { "entry_point" "qir_profiles"="base" }
attributes #1 = { "irreversible" }
!llvm.module.flags = !{!0}
!0 = !{i32 1, !"qir_major_version", i32 2}
!4 = distinct !DISubprogram(name: "main", scope: null)
!7 = !DILocation(line: 1, column: 1, scope: !4)
!8 = !DILocalVariable(name: "x", scope: !4)
`
	p, err := qir.Compile(context.Background(), "qir.ll", src, qir.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p.EntryPoint != "main entry" || p.Profile != "base" || p.Circuit == nil {
		t.Fatalf("entry %q profile %q circuit %v", p.EntryPoint, p.Profile, p.Circuit != nil)
	}
}
