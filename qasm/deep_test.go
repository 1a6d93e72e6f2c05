package qasm_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/qjobs/quantum/qasm"
)

// A stack overflow kills the process, test binary included, so the deep
// inputs are each compiled in a child process: the test binary run again
// with deepInputEnv naming the input, under a stack limit of 64 MB (a
// sixteenth of Go's default), so that recursion proportional to the input
// shows up whatever the size of the compiler's frames.
const deepInputEnv = "QASM_DEEP_INPUT"

// million is how often each input repeats its construct: a few MB of
// program, within what the service accepts (4 MB).
const million = 1_000_000

func rep(s string, n int) string { return strings.Repeat(s, n) }

// deepInputs are programs that nest or chain one construct a million
// times (or as often as fits in a few MB). want is part of the error each
// must end in; an empty want means the program compiles, and its circuit
// passes sim's checks.
var deepInputs = []struct {
	name, want string
	src        func() string
}{
	{"operator chain", "expression nested more than 200 levels deep", func() string {
		return "qubit q; rx(" + rep("1+", million) + "1) q;"
	}},
	{"comparison and logic chain", "expression nested more than 200 levels deep", func() string {
		return "bool b = true" + rep(" && 1 < 2", million/4) + ";"
	}},
	{"right-associative power chain", "nested too deeply", func() string {
		return "float x = " + rep("2**", million) + "2;"
	}},
	{"negation chain", "nested too deeply", func() string { return "int x = " + rep("-", million) + "1;" }},
	{"bitwise not chain", "nested too deeply", func() string { return "int x = " + rep("~", million) + "1;" }},
	{"logical not chain", "nested too deeply", func() string { return "bool x = " + rep("!", million) + "true;" }},
	{"parentheses", "nested too deeply", func() string {
		return "float x = " + rep("(", million) + "1" + rep(")", million) + ";"
	}},
	{"blocks", "nested too deeply", func() string { return rep("{", million) + rep("}", million) }},
	{"if chain", "nested too deeply", func() string { return "qubit q; " + rep("if (true) ", million/2) + "h q;" }},
	{"else if chain", "nested too deeply", func() string {
		return "qubit q; bit c = measure q; " + rep("if (c) h q; else ", million/8) + "x q;"
	}},
	{"for loops", "nested too deeply", func() string { return "qubit q; " + rep("for int i in [0:0] ", million/4) + "h q;" }},
	{"nested indices", "nested too deeply", func() string {
		return "array[int[8], 1] a; int x = " + rep("a[", million) + "0" + rep("]", million) + ";"
	}},
	{"index chain", "expression nested more than 200 levels deep", func() string {
		return "qubit[2] q; h q" + rep("[0:1]", million) + ";"
	}},
	{"slices in slices", "nested too deeply", func() string {
		return "qubit[2] q; h q[" + rep("0:q[", million/2) + "0" + rep("]", million/2) + "];"
	}},
	{"gate definitions calling each other", "gate and subroutine calls nested more than 100 deep", func() string {
		var b strings.Builder
		b.WriteString("qubit q; gate g0 a { x a; }\n")
		for i := 1; i <= million/10; i++ {
			fmt.Fprintf(&b, "gate g%d a { g%d a; }\n", i, i-1)
		}
		fmt.Fprintf(&b, "g%d q;\n", million/10)
		return b.String()
	}},
	{"gate calls as arguments", "nested too deeply", func() string {
		return "def f(int a) -> int { return a; } int x = " + rep("f(", million) + "1" + rep(")", million) + ";"
	}},
	{"recursive subroutine", "gate and subroutine calls nested more than 100 deep", func() string {
		return "def f(int n) -> int { return f(n + 1); } int x = f(0);"
	}},
	{"recursive subroutine in deep blocks", "statements, expressions and calls more than 2000 levels deep together", func() string {
		return "def f(int n) { " + rep("{", 95) + " f(n + 1); " + rep("}", 95) + " } f(0);"
	}},
	{"recursive subroutine in deep expressions", "statements, expressions and calls more than 2000 levels deep together", func() string {
		return "def f(int n) -> int { return " + rep("-", 190) + "f(n + 1); } int x = f(0);"
	}},
	{"casts", "nested too deeply", func() string {
		return "int x = " + rep("int(", million) + "1" + rep(")", million) + ";"
	}},
	{"array types", "nested too deeply", func() string {
		return rep("array[", million) + "int[8]" + rep(", 1]", million) + " a;"
	}},
	{"complex types", "nested too deeply", func() string { return rep("complex[", million) + "float" + rep("]", million) + " z;" }},
	{"array dimensions", "an array has at most 16 dimensions", func() string {
		return "array[int[8], " + rep("1, ", million) + "1] a;"
	}},
	{"function arguments", "nested too deeply", func() string {
		return "float x = " + rep("sin(", million) + "1" + rep(")", million) + ";"
	}},
	{"measure chain", "nested too deeply", func() string { return "qubit q; bit b = " + rep("measure ", million) + "q;" }},
	{"ctrl modifiers", "more than 200 gate modifiers on one gate", func() string { return "qubit q; " + rep("ctrl @ ", million) + "x q;" }},
	{"inv modifiers", "more than 200 gate modifiers on one gate", func() string { return "qubit q; " + rep("inv @ ", million) + "x q;" }},
	{"many modifiers", "", func() string { return "qubit q; " + rep("inv @ ", 200) + "x q;" }},
	{"concatenation", "expression nested more than 200 levels deep", func() string {
		return "qubit[2] q; let a = q" + rep(" ++ q", million) + ";"
	}},
	{"array literals", "nested too deeply", func() string {
		return "array[int[8], 1] a = " + rep("{", million) + "1" + rep("}", million) + ";"
	}},
	{"switch of many cases on a measured value", "(MaxBytes)", func() string {
		var b strings.Builder
		b.WriteString("qubit q; int c = measure q; switch (c) {")
		for i := range million / 4 {
			fmt.Fprintf(&b, " case %d { }", i)
		}
		b.WriteString(" }")
		return b.String()
	}},
	{"switch of many cases on a constant", "", func() string {
		var b strings.Builder
		b.WriteString("qubit q; switch (-1) {")
		for i := range million / 4 {
			fmt.Fprintf(&b, " case %d { x q; }", i)
		}
		b.WriteString(" default { h q; } }")
		return b.String()
	}},
	{"case of many values", "", func() string {
		var b strings.Builder
		b.WriteString("qubit[16] q; bit[16] c = measure q; switch (c) { case 0")
		for i := range 20_000 {
			fmt.Fprintf(&b, ", %d", i+1)
		}
		b.WriteString(" { x q[0]; } }")
		return b.String()
	}},
	{"popcount of a wide register", "", func() string {
		return "qubit q; bit[65000] b; b[0] = measure q; int n = popcount(b); if (n == 1) x q;"
	}},
	{"equality chain on measured bits", "", func() string {
		return "qubit q; bit a = measure q; bool x = a" + rep(" == a", 150) + "; if (x) h q;"
	}},
	{"exclusive or chain on measured bits", "", func() string {
		return "qubit q; bit a = measure q; bool x = (a == a)" + rep(" ^ (a == a)", 150) + "; if (x) h q;"
	}},
}

// deepResult is what a child reports about its compile.
type deepResult struct {
	Compiled   bool
	Invalid    string // sim's complaint about the circuit, if any
	Line, Col  int
	Msg, Other string
}

const deepMarker = "deep-input-result: "

func TestDeepInputs(t *testing.T) {
	if name := os.Getenv(deepInputEnv); name != "" {
		deepChild(t, name)
		return
	}
	for _, in := range deepInputs {
		t.Run(in.name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^TestDeepInputs$", "-test.count=1")
			cmd.Env = append(os.Environ(), deepInputEnv+"="+in.name)
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("the child died (%v):\n%s", err, head(out))
			}
			_, report, ok := strings.Cut(string(out), deepMarker)
			if !ok {
				t.Fatalf("the child reported nothing:\n%s", head(out))
			}
			report, _, _ = strings.Cut(report, "\n")
			var r deepResult
			if err := json.Unmarshal([]byte(report), &r); err != nil {
				t.Fatalf("report %q: %v", report, err)
			}
			switch {
			case r.Other != "":
				t.Fatalf("error that is not an *Error: %s", r.Other)
			case in.want == "" && !r.Compiled:
				t.Fatalf("error %d:%d: %s, want the program to compile", r.Line, r.Col, r.Msg)
			case in.want == "" && r.Invalid != "":
				t.Fatalf("compiled to a circuit sim refuses: %s", r.Invalid)
			case in.want != "" && r.Compiled:
				t.Fatalf("compiled, want an error containing %q", in.want)
			case in.want != "" && (r.Line == 0 || r.Col == 0):
				t.Fatalf("error %q has no position", r.Msg)
			case !strings.Contains(r.Msg, in.want):
				t.Fatalf("error %d:%d: %s, want one containing %q", r.Line, r.Col, r.Msg, in.want)
			}
		})
	}
}

// deepChild compiles the input it is named and reports on stdout.
func deepChild(t *testing.T, name string) {
	t.Helper()
	debug.SetMaxStack(64 << 20)
	for _, in := range deepInputs {
		if in.name != name {
			continue
		}
		var r deepResult
		c, err := qasm.Compile(in.src(), qasm.Options{})
		var qe *qasm.Error
		switch {
		case err == nil:
			r.Compiled = true
			if err := c.Validate(); err != nil {
				r.Invalid = err.Error()
			}
		case errors.As(err, &qe):
			r.Line, r.Col, r.Msg = qe.Line, qe.Col, qe.Msg
		default:
			r.Other = err.Error()
		}
		b, _ := json.Marshal(r)
		fmt.Printf("%s%s\n", deepMarker, b)
		return
	}
	t.Fatalf("no deep input named %q", name)
}

// head is the start of a child's output: a stack overflow prints
// thousands of frames.
func head(out []byte) string {
	const n = 2000
	if len(out) > n {
		return string(out[:n]) + "..."
	}
	return string(out)
}
