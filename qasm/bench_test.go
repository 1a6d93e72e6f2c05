package qasm_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/qjobs/quantum/qasm"
)

// program10k is an OpenQASM 2 program of 10,000 gates on 16 qubits, in
// the style exporters write: one gate per line, parameters as decimals.
func program10k() string {
	var b strings.Builder
	b.WriteString("OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[16];\ncreg c[16];\n")
	for i := range 10_000 {
		a, t := i%16, (i*7+3)%16
		if a == t {
			t = (t + 1) % 16
		}
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "h q[%d];\n", a)
		case 1:
			fmt.Fprintf(&b, "cx q[%d],q[%d];\n", a, t)
		case 2:
			fmt.Fprintf(&b, "rz(%.6f) q[%d];\n", float64(i)*0.001, a)
		case 3:
			fmt.Fprintf(&b, "u3(pi/2,%.4f,-pi/4) q[%d];\n", float64(i)*0.01, a)
		case 4:
			fmt.Fprintf(&b, "cu1(pi/%d) q[%d],q[%d];\n", i%7+1, a, t)
		}
	}
	b.WriteString("measure q -> c;\n")
	return b.String()
}

func BenchmarkCompile10kGates(b *testing.B) {
	src := program10k()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		c, err := qasm.Compile(src, qasm.Options{})
		if err != nil {
			b.Fatal(err)
		}
		if len(c.Ops) != 10_016 {
			b.Fatalf("%d ops", len(c.Ops))
		}
	}
}
