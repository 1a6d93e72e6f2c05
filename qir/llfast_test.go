package qir

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Lines the fast path reads, and lines it must leave to parseInst (some
// of them errors, which parseInst reports).
var (
	fastTaken = []string{
		"call void @__quantum__qis__h__body(%Qubit* null)",
		"call void @__quantum__qis__cnot__body(%Qubit* null, %Qubit* inttoptr (i64 1 to %Qubit*))",
		"call void @__quantum__qis__rz__body(double 0.5, ptr inttoptr (i64 3 to ptr))",
		"call void @__quantum__qis__rz__body(double -1.5e-3, ptr null)",
		"call void @__quantum__qis__rx__body(double +2, ptr null)",
		"call void @__quantum__rt__result_record_output(ptr inttoptr (i64 2 to ptr), ptr null) #1",
		"call void @__quantum__rt__tuple_record_output(i64 2, i8* null)",
		"call void @__quantum__qis__barrier__body()",
		"call void @f(i64 5, i1 1, double 2, i32 007)",
		"call\tvoid\t@f( ptr null , ptr null )",
		"call void @f(ptr null) ; the rest of the line is the lexer's",
		"call void @f(ptr null), !dbg !4",
		"call void@f(ptr inttoptr(i64 1 to ptr))",
		"call void @f(%Struct null, ptr* null, double* null, %Result* inttoptr (i32 1 to %Result*))",
	}
	fastLeft = []string{
		"call void @f(ptr @label)",
		"call void @f(ptr noundef null)",
		"call void @f(%Qubit addrspace(1)* null)",
		"call void @f(ptr addrspace(1) null)",
		"call void @f(ptr null\n)",
		"call void @f(ptr ; comment\n null)",
		"call void @f(i64 -1)",
		"call void @f(double 0x3FF0000000000000)",
		"call void @f(i64 1.5)",
		"call void @f(i64 12abc)",
		"call void @f(double 1.5.5)",
		"call void @f(ptr inttoptr (i64 99999999999999999999 to ptr))",
		"call void @f(ptr inttoptr (ptr null to ptr))",
		"call void @\"quoted\"(ptr null)",
		"call void (ptr) @f(ptr null)",
		"call i1 @f(ptr null)",
		"call void @f(%Qubit** null)",
		"call void @f(%Qubit * null)",
		"call void @f(%\"Q\"* null)",
		"call void @f(%Qubit* * null)",
		"call void @f(ptr addrspace(1)* null)",
		"call void @f(i8 (i8)* null)",
		"call void @f(ptr null, )",
		"call void @f(metadata !0)",
		"call void @f(ptr %0)",
		"call void @f(double 1e400)",
		"call void @f(double 1e)",
		"call void @f(i65 1)",
		"call void @f(i0 1)",
		"call void @f(ptr nullx)",
		"call void @f(ptr null",
		"tail call void @f(ptr null)",
		"call fastcc void @f(ptr null)",
	}
)

// TestFastCallShapes: the fast path takes the lines it is for and leaves
// the rest, having read nothing of them.
func TestFastCallShapes(t *testing.T) {
	try := func(line string) (taken bool) {
		defer func() {
			if r := recover(); r != nil {
				t.Errorf("%q: the fast path failed: %v", line, r)
			}
		}()
		p := newLLParser(line)
		p.advance()
		tok := p.tok
		in := p.fastCall()
		if in == nil && (p.tok != tok || len(p.gfixups) > 0 || len(p.scratch) > 0) {
			t.Errorf("%q: left to parseInst after reading some of it", line)
		}
		return in != nil
	}
	for _, line := range fastTaken {
		if !try(line) {
			t.Errorf("%q: left to parseInst", line)
		}
	}
	for _, line := range fastLeft {
		if try(line) {
			t.Errorf("%q: taken by the fast path", line)
		}
	}
}

// fastModule puts a line into a module that defines what it calls.
func fastModule(line string) string {
	return "%Qubit = type opaque\ndefine void @main() #0 {\nentry:\n  " + line + "\n  ret void\n}\n" +
		"declare void @f(...)\ndeclare void @__quantum__qis__h__body(%Qubit*)\ndeclare void @__quantum__qis__cnot__body(%Qubit*, %Qubit*)\n" +
		"declare void @__quantum__qis__rz__body(double, ptr)\ndeclare void @__quantum__rt__result_record_output(ptr, ptr)\n" +
		"attributes #0 = { \"entry_point\" }\nattributes #1 = { nounwind }\n!4 = !{}\n"
}

// sameParse fails t unless src reads to the same module, or the same
// error, with the fast path as without it.
func sameParse(t *testing.T, src string) {
	t.Helper()
	fast, ferr := parseLL(src)
	g := newLLParser(src)
	g.general = true
	general, gerr := g.parse()
	if fmt.Sprint(ferr) != fmt.Sprint(gerr) {
		t.Fatalf("with the fast path: %v; without: %v", ferr, gerr)
	}
	if !reflect.DeepEqual(fast, general) {
		t.Fatalf("the fast path reads another module")
	}
}

// repeated is the lines each twice, the second time from memory, with
// the given line ending.
func repeated(lines []string, eol string) string {
	all := append(append([]string(nil), lines...), lines...)
	return strings.ReplaceAll(fastModule(strings.Join(all, "\n  ")), "\n", eol)
}

func TestFastCallSameModule(t *testing.T) {
	for _, line := range append(append([]string(nil), fastTaken...), fastLeft...) {
		sameParse(t, fastModule(line))
	}
	sameParse(t, repeated(fastTaken, "\n"))
	sameParse(t, repeated(fastTaken, "\r\n"))
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.ll"))
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		sameParse(t, string(b))
	}
}

// FuzzFastCall: whatever the text, the fast path reads what the general
// parser reads, errors included.
func FuzzFastCall(f *testing.F) {
	for _, line := range append(append([]string(nil), fastTaken...), fastLeft...) {
		f.Add(fastModule(line))
	}
	f.Add(repeated(fastTaken, "\n"))
	f.Add(repeated(fastTaken, "\r\n"))
	files, _ := filepath.Glob(filepath.Join(corpusDir, "*.ll"))
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(string(b))
		}
	}
	f.Fuzz(sameParse)
}
