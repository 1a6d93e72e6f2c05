package quil_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/qjobs/quantum/quil"
)

// Every bad program is an *Error naming the line and column and what is
// wrong there.
func TestErrors(t *testing.T) {
	cases := []struct {
		src  string
		pos  string // line:col
		want string // in the message
	}{
		{"H 0\nDEFCAL X 0:\n    NOP\n", "2:1", "DEFCAL is Quil-T"},
		{"PULSE 0 \"xy\" flat(duration: 1e-6)\n", "1:1", "Quil-T"},
		{"INCLUDE \"stdgates.quil\"\n", "1:1", "INCLUDE is not supported"},
		{"EXTERN rng\n", "1:1", "EXTERN is not supported"},
		{"DEFCIRCUIT BELL a b:\n    H a\n", "1:1", "DEFCIRCUIT is not supported"},
		{"H 0\nFOO 1\n", "2:1", "unknown gate FOO"},
		{"CNOT 0\n", "1:6", "CNOT acts on 2 qubits, got 1"},
		{"H 0 1\n", "1:3", "H acts on 1 qubits, got 2"},
		{"RX 0\n", "1:1", "RX takes 1 parameters, got 0"},
		{"RX(0.1, 0.2) 0\n", "1:4", "RX takes 1 parameters, got 2"},
		{"CNOT 1 1\n", "1:8", "uses qubit 1 twice"},
		{"DECLARE ro BIT\nJUMP @nowhere\n", "2:6", "no LABEL @nowhere"},
		{"LABEL @a\nLABEL @a\n", "2:7", "defined twice"},
		{"DEFGATE BAD:\n    1, 1\n    0, 1\nBAD 0\n", "1:1", "DEFGATE BAD is not unitary"},
		{"DEFGATE B(%x):\n    1, %x\n    0, 1\nB(0) 0\nB(1) 1\n", "5:1", "B is not unitary with these parameters, as DEFGATEd on line 1"},
		{"DEFGATE BAD3:\n    1, 0, 0\n    0, 1, 0\n    0, 0, 1\n", "1:1", "a matrix of 3 rows"},
		{"DEFGATE R:\n    1, 0\n    0\n", "3:6", "a row of 1 entries"},
		{"DEFGATE P AS PERMUTATION:\n    0, 0\n", "1:1", "not a permutation"},
		{"DEFGATE Z2 q AS PAULI-SUM:\n    Z(1+2i) q\n", "2:5", "must be real"},
		{"DEFGATE Z2 q AS PAULI-SUM:\n    ZZ(1) q\n", "2:12", "takes 2 qubits"},
		{"DEFGATE L p AS SEQUENCE:\n    L p\nL 0\n", "2:5", "applies itself"},
		{"DEFGATE CNOT:\n    1, 0\n    0, 1\n", "1:9", "a standard gate of that name exists"},
		{"H 64\n", "1:3", "qubit 64 is past the device's 64 qubits"},
		{"DECLARE ro BIT[2]\nMEASURE 0 ro[2]\n", "2:11", "ro[2] is past ro's 2 cells"},
		{"MEASURE 0 ro[0]\n", "1:11", "ro is not declared"},
		{"DECLARE ro BIT\nDECLARE ro BIT\n", "2:9", "ro is declared twice"},
		{"DECLARE x FLOAT\n", "1:11", "expected a type"},
		{"DECLARE x INTEGER SHARING y\n", "1:19", "SHARING is not supported"},
		{"DECLARE t REAL\nDECLARE b BIT\nLABEL @l\nMOVE t 1.0\nRX(t) 0\nMEASURE 0 b\nADD t 1.0\nJUMP-WHEN @l b\nLABEL @m\nRX(t) 0\n", "10:4", "changes under its jumps"},
		{"DECLARE n INTEGER\nRX(n) 0\n", "2:4", "parameters read REAL memory"},
		{"RX(theta) 0\n", "1:4", "theta is not declared"},
		{"RX(1/0) 0\n", "1:5", "division by zero"},
		{"H 0 $\n", "1:5", "unexpected character"},
		{"DECLARE ro BIT\nMEASURE 0 ro junk\n", "2:14", "expected the end of the instruction"},
		{"   H 0\n", "1:1", "an indented line outside a DEFGATE's body"},
		{"FORKED RX(0.1) 0 1\n", "1:1", "FORKED RX takes twice the gate's parameters"},
		{"CONTROLLED H 0\n", "1:1", "needs a control"},
		{"DECLARE b BIT\nDECLARE r REAL\nMOVE b r\n", "3:1", "MOVE of REAL r into BIT memory"},
		{"RX(" + strings.Repeat("(", 200) + "1" + strings.Repeat(")", 200) + ") 0\n", "1:", "nested more than"},
	}
	for _, tc := range cases {
		_, err := quil.Compile(context.Background(), tc.src, quil.Options{})
		var qe *quil.Error
		if !errors.As(err, &qe) {
			t.Errorf("%q: err %v, want a *quil.Error", tc.src, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), tc.pos) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s: …%s…", tc.src, err, tc.pos, tc.want)
		}
	}
}

// A compile stops when its context is done, with the context's error.
func TestCompileStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	src := strings.Repeat("H 0\n", 10_000)
	if _, err := quil.Compile(ctx, src, quil.Options{}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

// MaxOps and MaxBytes bound what a program expands to, before it is
// allocated.
func TestCompileBudgets(t *testing.T) {
	// A sequence that doubles at each level: 2^40 gates if expanded.
	var b strings.Builder
	b.WriteString("DEFGATE G0 q AS SEQUENCE:\n    X q\n")
	for i := 1; i <= 40; i++ {
		b.WriteString("DEFGATE G" + itoa(i) + " q AS SEQUENCE:\n    G" + itoa(i-1) + " q\n    G" + itoa(i-1) + " q\n")
	}
	b.WriteString("G40 0\n")
	_, err := quil.Compile(context.Background(), b.String(), quil.Options{MaxOps: 1000})
	if err == nil || !strings.Contains(err.Error(), "MaxBytes") && !strings.Contains(err.Error(), "MaxOps") {
		t.Fatalf("err %v, want a bound", err)
	}
	_, err = quil.Compile(context.Background(), strings.Repeat("H 0\n", 2000), quil.Options{MaxOps: 1000})
	if err == nil || !strings.Contains(err.Error(), "more than 1000 operations") {
		t.Fatalf("err %v, want MaxOps", err)
	}
	_, err = quil.Compile(context.Background(), "DECLARE big INTEGER[1000000]\n", quil.Options{})
	if err == nil || !strings.Contains(err.Error(), "classical bits") {
		t.Fatalf("err %v, want the memory bound", err)
	}
}

func itoa(i int) string {
	const digits = "0123456789"
	if i < 10 {
		return digits[i : i+1]
	}
	return itoa(i/10) + digits[i%10:i%10+1]
}
