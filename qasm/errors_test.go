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
		{"for cap", h3 + "qubit q;\nfor int i in [0:5000] { rx(i) q; }", "for loop of 5001 iterations is more than the limit of 1000", qasm.Options{MaxLoopIterations: 1000}},
		{"ops cap", h3 + "qubit q;\nfor int i in [0:5000] { rx(i) q; }", "more than 100 operations", qasm.Options{MaxOps: 100}},
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

// TestExtremeNumbers gives every number a program may hand the compiler
// its extreme values: math.MaxInt64, math.MinInt64, 1<<63 and 1<<64 - 1
// (literals past MaxInt64), 1e308 and infinity, zero and negatives. Each
// is refused with a message that names the rule, at its position, or
// compiles with the two's complement wrapping sim's arithmetic has too;
// none overflows into a size, a count or an index that passes a check.
func TestExtremeNumbers(t *testing.T) {
	const (
		maxInt  = "9223372036854775807"
		minInt  = "-9223372036854775808"
		maxUint = "18446744073709551615"
	)
	tests := []struct{ src, want string }{
		// register sizes
		{"qubit[" + maxInt + "] q;", "1:1: qubit register \"q\" takes the program to 9223372036854775807 qubits, more than the limit of 64"},
		{"qubit[" + minInt + "] q;", "1:7: qubit register \"q\" must have a positive size, got -9223372036854775808"},
		{"qubit[" + maxUint + "] q;", "1:7: the size of a qubit register: 18446744073709551615 is too large"},
		{"qubit[0xffffffffffffffff] q;", "1:7: the size of a qubit register: 18446744073709551615 is too large"},
		{"qubit[18446744073709551616] q;", "1:7: integer 18446744073709551616 is too large"},
		{"qubit[0b1" + strings.Repeat("0", 64) + "] q;", "is too large"},
		{"qubit[1e308] q;", "1:7: the size of a qubit register: 1e+308 does not fit an integer"},
		{"qubit[1e400] q;", "1:7: the size of a qubit register: +Inf does not fit an integer"},
		{"qubit[-1] q;", "must have a positive size, got -1"},
		{"qubit[1.5] q;", "the size of a qubit register must be an integer, got 1.5"},
		// widths
		{"bit[" + maxInt + "] b;", "1:5: size 9223372036854775807 of type bit is out of range: sizes go from 1 to 65536"},
		{"bit[" + maxUint + "] b;", "1:5: a type's size: 18446744073709551615 is too large"},
		{"int[0] x;", "size 0 of type int is out of range"},
		{"int[" + minInt + "] x;", "size -9223372036854775808 of type int is out of range"},
		{"uint[65537] x;", "size 65537 of type uint is out of range"},
		{"angle[65536] a = 1.0; bit[64] b = a; int[65536] n = -1;", ""},
		// array dimensions, whose product once wrapped to 0
		{"array[int[8], 65536, 281474976710656] a;", "1:22: array dimensions must be positive and hold at most 65536 elements"},
		{"array[int[8], 2, " + maxInt + "] a;", "1:18: array dimensions must be positive"},
		{"array[int[8], 3, 6148914691236517206] a;", "1:18: array dimensions must be positive"},
		{"array[int[8], -1] a;", "array dimensions must be positive"},
		{"array[int[8], " + maxUint + "] a;", "an array dimension: 18446744073709551615 is too large"},
		// arrays of arrays, each within the limit, once held their product
		{"array[array[int[8], 65536], 65536] a;", "1:7: the elements of an array cannot be arrays"},
		{"array[int[8], 16, 16, 16, 16] a; a[1][2][3][4] = 5; a[1, 2, 3, 4] = a[1][2][3][4] + 1; a[0] = a[1];", ""},
		{"int x; x[0, 1] = 1;", "1:13: too many indices: a value of type int has one dimension"},
		// loop bounds and steps, whose count once wrapped to 0
		{"for int i in [" + minInt + ":" + maxInt + "] { }", "1:1: for loop of more than 18446744073709551615 iterations is more than the limit of 100000 (MaxLoopIterations)"},
		{"for int i in [" + maxInt + ":-1:" + minInt + "] { }", "more than the limit of 100000 (MaxLoopIterations)"},
		{"for int i in [" + minInt + ":2:" + maxInt + "] { int k = i; }", "for loop of 9223372036854775808 iterations is more than the limit"},
		{"qubit[2] q; for int i in [0:" + maxInt + ":" + maxInt + "] { if (i == 0) x q[0]; }", ""},
		{"for int i in [0:" + minInt + ":" + minInt + "] { }", ""},
		{"for int i in [" + minInt + ":" + minInt + ":" + maxInt + "] { }", ""},
		{"for int i in [0:" + maxUint + "] { }", "1:17: the range end: 18446744073709551615 is too large"},
		{"for int i in [0:" + maxUint + ":1] { }", "1:17: the range step: 18446744073709551615 is too large"},
		{"for int i in [0:1e308] { }", "the range end: 1e+308 does not fit an integer"},
		{"for int i in [0:0:10] { }", "a range step cannot be 0"},
		// modifiers
		{"qubit q; pow(1e308) @ x q;", "1:14: the exponent of pow is 1e+308; it must be between -16777216 and 16777216"},
		{"qubit q; pow(" + minInt + ") @ x q;", "the exponent of pow is -9.223372036854776e+18"},
		{"qubit q; pow(1e400) @ x q;", "the exponent of pow must be finite"},
		{"qubit q; pow(16777216) @ x q; pow(-1e-308) @ x q;", ""},
		{"qubit q; ctrl(" + maxInt + ") @ x q;", "1:15: ctrl takes from 1 to 64 controls (MaxQubits), got 9223372036854775807"},
		{"qubit q; ctrl(" + maxUint + ") @ x q;", "the number of controls: 18446744073709551615 is too large"},
		{"qubit q; negctrl(" + minInt + ") @ x q;", "negctrl takes from 1 to 64 controls (MaxQubits), got -9223372036854775808"},
		{"qubit q; ctrl(0) @ x q;", "ctrl takes from 1 to 64 controls"},
		{"qubit q; ctrl(1e308) @ x q;", "the number of controls: 1e+308 does not fit an integer"},
		// integer literals and arithmetic
		{"int x = 99999999999999999999;", "1:9: integer 99999999999999999999 is too large"},
		{"int x = 0xfffffffffffffffff;", "integer 0xfffffffffffffffff is too large"},
		{"int x = 0o7777777777777777777777777;", "integer 0o7777777777777777777777777 is too large"},
		{"uint[64] x = " + maxUint + "; int y = x + 1; int z = " + maxInt + " + 1; int w = " + minInt + " / -1; int v = " + minInt + " % -1;", ""},
		{"int x = 2 ** " + maxInt + "; int y = 2 ** " + minInt + "; float z = 1e308 * 10;", ""},
		// shifts and bit functions
		{"int x = 1 << " + maxInt + "; int y = -1 >> 64; int z = 1 >> " + maxInt + ";", ""},
		{"int x = 1 << " + minInt + ";", "1:11: negative shift count -9223372036854775808"},
		{"int a = popcount(" + minInt + "); int b = rotl(1, " + minInt + "); int c = rotr(" + maxUint + ", " + maxInt + ");", ""},
		// physical qubits
		{"x $1048577;", "1:3: physical qubit $1048577 is out of range"},
		{"x $99999999999999999999;", "physical qubit $99999999999999999999 is out of range"},
		{"x $64;", "1:3: program uses physical qubit $64, more than the limit of 64 qubits"},
		{"x $63;", ""},
		// indices and slices
		{"qubit[2] q; h q[" + maxInt + "];", "1:17: index 9223372036854775807 out of range for size 2"},
		{"qubit[2] q; h q[" + minInt + "];", "index -9223372036854775808 out of range for size 2"},
		{"qubit[2] q; h q[" + maxUint + "];", "an index: 18446744073709551615 is too large"},
		{"qubit[2] q; h q[0:" + maxInt + "];", "index 9223372036854775807 out of range"},
		{"qubit[2] q; h q[0:" + minInt + ":1];", "the index selects nothing"},
		{"qubit[2] q; h q[{0, " + maxInt + "}];", "index 9223372036854775807 out of range"},
		{"bit[4] b; b[0:1:" + maxUint + "] = 0;", "an index: 18446744073709551615 is too large"},
		{"array[int[8], 4] a; int x = a[" + minInt + "];", "index -9223372036854775808 out of range for size 4"},
		// designators of subroutine arguments
		{"def f(qubit[" + maxInt + "] a) { } qubit q; f(q);", "qubit argument \"a\" of \"f\" has size 9223372036854775807; sizes go from 1 to 64 (MaxQubits)"},
		{"def f(qubit[" + maxUint + "] a) { } qubit q; f(q);", "a qubit argument's size: 18446744073709551615 is too large"},
		// angles
		{"qubit q; rx(1e308) q; U(-1e308, 1e308, 5e307) q;", ""},
		{"float x = 1e308 * 10; qubit q; rx(x) q;", "parameter 1 of \"rx\" is +Inf, not a finite number"},
	}
	for _, tt := range tests {
		_, err := qasm.Compile(tt.src, qasm.Options{})
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s: %v", tt.src, err)
		case tt.want == "":
		case err == nil:
			t.Errorf("%s: compiled, want an error containing %q", tt.src, tt.want)
		default:
			var qe *qasm.Error
			if !errors.As(err, &qe) || qe.Line == 0 || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("%s: error %v, want an *Error with a position containing %q", tt.src, err, tt.want)
			}
		}
	}
}
