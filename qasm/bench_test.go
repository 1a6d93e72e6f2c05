package qasm_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/qjobs/quantum/qasm"
)

// program10k is an OpenQASM 2 program of 10,000 gates on 16 qubits, in
// the style exporters write: one gate per line, parameters as decimals.
func program10k() string { return straightLine(10_000) }

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

// straightLine is an OpenQASM 2 program of n gates on 16 qubits in the mix
// transpilers write (h, cx, rz, u3, cu1; parameters as decimals), one
// gate per line, measured at the end.
func straightLine(n int) string {
	var b strings.Builder
	b.Grow(n * 24)
	b.WriteString("OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[16];\ncreg c[16];\n")
	for i := range n {
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

// BenchmarkCompileGates measures compile throughput (gates/s) and what the
// lowered form costs against Options.MaxBytes (charged B/gate), on
// straight-line programs of 10,000 to 1,000,000 gates.
func BenchmarkCompileGates(b *testing.B) {
	for _, n := range []int{10_000, 200_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			src := straightLine(n)
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			var charged int64
			for b.Loop() {
				var err error
				_, charged, err = qasm.CompileCharged(context.Background(), src, qasm.Options{})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "gates/s")
			b.ReportMetric(float64(charged)/float64(n), "charged-B/gate")
		})
	}
}
