package qasm_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/qjobs/quantum/qasm"
)

func TestErrors(t *testing.T) {
	const h3 = "OPENQASM 3;\ninclude \"stdgates.inc\";\n"
	const h2 = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\n"
	tests := []struct {
		name, src, want string
		opts            qasm.Options
	}{
		{"undefined register", h3 + "qubit q;\nh r;", `4:3: undefined qubit register "r"`, qasm.Options{}},
		{"arity", h2 + "qreg q[2];\ncx q[0];", `4:1: gate "cx" expects 2 qubit(s), got 1`, qasm.Options{}},
		{"arity with modifiers", h3 + "qubit[2] q;\nctrl @ x q[0];", `gate "ctrl @ x" expects 2 qubit(s), got 1`, qasm.Options{}},
		{"parameter count", h3 + "qubit q;\nrx q;", `4:1: gate "rx" expects 1 parameter(s), got 0`, qasm.Options{}},
		{"unknown gate", h3 + "qubit q;\nfoo q;", `4:1: unknown gate "foo"`, qasm.Options{}},
		{"missing include", "OPENQASM 2.0;\nqreg q[1];\nh q[0];", `unknown gate "h" (did you forget include "qelib1.inc"?)`, qasm.Options{}},
		{"index out of range", h3 + "qubit[2] q;\nh q[2];", "4:5: index 2 out of range for size 2", qasm.Options{}},
		{"redeclaration", h3 + "qubit q;\nbit q;", `4:1: "q" is already declared (at 3:1)`, qasm.Options{}},
		{"gate redefinition", h3 + "gate h a { x a; }", `"h" is already defined by the included standard library`, qasm.Options{}},
		{"bad version", "OPENQASM 4.0;\nqubit q;", "1:10: unsupported OpenQASM version 4.0", qasm.Options{}},
		{"version not first", "qubit q;\nOPENQASM 3;", "2:1: the OPENQASM version line must be the first statement", qasm.Options{}},
		{"include of a file", h3 + `include "mylib.inc";`, `3:1: cannot include "mylib.inc"`, qasm.Options{}},
		{"too many qubits", h3 + "qubit[30] q;", `qubit register "q" takes the program to 30 qubits, more than the limit of 20`, qasm.Options{MaxQubits: 20}},
		{"huge register", h3 + "qubit[99999999999] q;", "more than the limit of 64", qasm.Options{}},
		{"opaque applied", h2 + "opaque mygate a;\nqreg q[1];\nmygate q[0];", `opaque gate "mygate" has no definition`, qasm.Options{}},
		{"type error", h3 + "qubit q;\nrx(q) q;", `parameter 1 of "rx" must be a number, got qubit`, qasm.Options{}},
		{"syntax error", h3 + "qubit q\nh q;", `4:1: expected ";" after the qubit declaration, got "h"`, qasm.Options{}},
		{"unclosed block", h3 + "gate g a {\nh a;", "3:10: block opened here is never closed", qasm.Options{}},
		{"unbound input", h3 + "input float theta;\ninput int n;", `no value given for input "n", "theta"`, qasm.Options{}},
		{"extern call", h3 + "extern f(int) -> bit;\nbit b = f(1);", `extern function "f" cannot be called`, qasm.Options{}},
		{"runtime float", h3 + "qubit q;\nbit b = measure q;\nfloat x = b;", `the value of "x" depends on measurement results at run time`, qasm.Options{}},
		{"runtime angle as a gate parameter", h3 + "qubit q;\nbit b = measure q;\nint x = b;\nrx(x) q;", `parameter 1 of "rx" depends on measurement results at run time`, qasm.Options{}},
		{"measured angle too wide for a gate that is no rotation", h3 + "qubit[2] q;\nangle[7] c;\nmeasure q[0] -> c[0];\nu2(c, 0) q[1];", `gate "u2" takes the measured angle of 7 bits as a parameter; only rotations and phases, or registers of at most 6 bits, can`, qasm.Options{}},
		{"compile-time float in runtime branch", h3 + "qubit q;\nbit b = measure q;\nfloat x;\nif (b) { x = 1; }", `cannot assign to "x" here`, qasm.Options{}},
		{"loop cap", h3 + "int i = 0;\nwhile (i >= 0) { i += 1; }", "while loop did not end within 1000 iterations", qasm.Options{MaxLoopIterations: 1000}},
		{"for cap", h3 + "qubit q;\nfor int i in [0:5000] { h q; }", "for loop of 5001 iterations is more than the limit of 1000", qasm.Options{MaxLoopIterations: 1000}},
		{"ops cap", h3 + "qubit q;\nfor int i in [0:5000] { h q; }", "more than 100 operations", qasm.Options{MaxOps: 100}},
		{"recursion", h3 + "def f(int n) { f(n); }\nf(1);", "nested more than 100 deep", qasm.Options{}},
		{"deep nesting", h3 + "float x = " + strings.Repeat("(", 100000) + "1" + strings.Repeat(")", 100000) + ";", "nested too deeply", qasm.Options{}},
		{"deep blocks", h3 + strings.Repeat("{", 100000), "nested too deeply", qasm.Options{}},
		{"unterminated comment", h3 + "/* oops", "3:1: comment opened here is never closed", qasm.Options{}},
		{"division by zero", h3 + "int x = 1 / 0;", "division by zero", qasm.Options{}},
		{"measure size mismatch", h3 + "qubit[2] q;\nbit[3] c;\nc = measure q;", "measure of 2 qubit(s) into 3 bit(s)", qasm.Options{}},
		{"same qubit twice", h3 + "qubit q;\ncx q, q;", `gate "cx" uses the same qubit twice`, qasm.Options{}},
		{"broadcast size mismatch", h3 + "qubit[2] a;\nqubit[3] b;\ncx a, b;", "registers of different sizes in one gate call: 2 and 3", qasm.Options{}},
		{"range without brackets", h3 + "qubit[4] q;\nfor int i in 0:3 { x q[i]; }", "4:15: a loop range is written in brackets", qasm.Options{}},
		{"break outside loop", h3 + "break;", "break outside a loop", qasm.Options{}},
		{"qubit in def", h3 + "def f() { qubit q; }\nf();", "qubits can only be declared at the top level", qasm.Options{}},
		{"measure in gate", h3 + "gate g a { measure a; }\nqubit q;\ng q;", "measure is not allowed inside a gate definition", qasm.Options{}},
		{"complex literal", h3 + "float x = 1.0im;", "complex numbers are not supported", qasm.Options{}},
		{"assign to const", h3 + "const int n = 1;\nn = 2;", `cannot assign to constant "n"`, qasm.Options{}},
		{"undefined name", h3 + "qubit q;\nrx(theta) q;", `4:4: undefined name "theta"`, qasm.Options{}},
		{"physical qubit limit", "x $40;", "1:3: program uses physical qubit $40, more than the limit of 20 qubits", qasm.Options{MaxQubits: 20}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := qasm.Compile(tt.src, tt.opts)
			if err == nil {
				t.Fatalf("compiled, want error %q", tt.want)
			}
			var qe *qasm.Error
			if !errors.As(err, &qe) {
				t.Fatalf("error %T, want *qasm.Error", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q, want it to contain %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "internal error") {
				t.Fatalf("internal error: %v", err)
			}
		})
	}
}
