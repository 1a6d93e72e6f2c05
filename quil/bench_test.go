package quil_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/qjobs/quantum/quil"
)

// straightLine is a Quil program of n gates on 16 qubits, the program
// qasm's BenchmarkCompileGates compiles written in Quil (h, cx, rz, u3,
// cu1 as H, CNOT, RZ, U, CPHASE; parameters as decimals and fractions of
// pi, as pyquil writes them), one gate per line, measured at the end.
func straightLine(n int) string {
	var b strings.Builder
	b.Grow(n * 24)
	b.WriteString("DECLARE ro BIT[16]\n")
	for i := range n {
		a, t := i%16, (i*7+3)%16
		if a == t {
			t = (t + 1) % 16
		}
		switch i % 5 {
		case 0:
			fmt.Fprintf(&b, "H %d\n", a)
		case 1:
			fmt.Fprintf(&b, "CNOT %d %d\n", a, t)
		case 2:
			fmt.Fprintf(&b, "RZ(%.6f) %d\n", float64(i)*0.001, a)
		case 3:
			fmt.Fprintf(&b, "U(pi/2, %.4f, -pi/4) %d\n", float64(i)*0.01, a)
		default:
			fmt.Fprintf(&b, "CPHASE(pi/%d) %d %d\n", i%7+1, a, t)
		}
	}
	for q := range 16 {
		fmt.Fprintf(&b, "MEASURE %d ro[%d]\n", q, q)
	}
	return b.String()
}

// BenchmarkCompileGates is qasm's benchmark of the same name in Quil:
// straight-line gates, their throughput and what they charge.
func BenchmarkCompileGates(b *testing.B) {
	for _, n := range []int{10_000, 200_000, 1_000_000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			src := straightLine(n)
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			var charged int64
			for b.Loop() {
				p, c, err := quil.CompileCharged(context.Background(), src, quil.Options{})
				if err != nil {
					b.Fatal(err)
				}
				if len(p.Circuit.Ops) != n+16 {
					b.Fatalf("%d ops", len(p.Circuit.Ops))
				}
				charged = c
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "gates/s")
			b.ReportMetric(float64(charged)/float64(n), "charged-B/gate")
		})
	}
}
