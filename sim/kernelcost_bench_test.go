//go:build unix

package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"syscall"
	"testing"
)

// cpuSeconds is the CPU time (user and system) the process has used.
func cpuSeconds() float64 {
	var r syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &r); err != nil {
		return 0
	}
	return float64(r.Utime.Nano()+r.Stime.Nano()) / 1e9
}

// BenchmarkKernelCosts prints the figures of the fusion cost model's
// tables (fusecost.go) for this machine, in CPU time rather than wall
// time, which a shared machine's other work inflates unevenly: for each
// kernel on 22 qubits on both cores, pass is its CPU time over the global
// phase's, block its CPU time eight times in a row through the cache
// blocks, less one phase, over eight and over the phase. Each is the least
// of five rounds, the kernels taken in turn within a round. Run with
// -benchtime 1x -v; the tables take the median of three runs.
func BenchmarkKernelCosts(b *testing.B) {
	const n = 22
	for _, p := range []Precision{Double, Single} {
		b.Run(p.String(), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			names := []string{"phase"}
			ks := []*kernel{newKernel(&Gate{Matrix: []complex128{1i}})}
			for _, real := range []bool{false, true} {
				for _, ts := range [][]int{{5}, {10, 11}, {9, 10, 11}, {8, 9, 10, 11}} {
					g := Gate{Matrix: orthonormalRows(randomMatrix(rng, 1<<len(ts)), 1<<len(ts)), Targets: ts}
					if real {
						g.Matrix = orthonormalRows(realMatrix(rng, 1<<len(ts)), 1<<len(ts))
					}
					names = append(names, fmt.Sprintf("%d targets, real %v", len(ts), real))
					ks = append(ks, newKernel(&g))
				}
			}
			var v vector = newVec[complex128](n)
			if p == Single {
				v = newVec[complex64](n)
			}
			for i := range 1 << n {
				v.set(i, 1)
			}
			pass, block := make([]float64, len(ks)), make([]float64, len(ks))
			for b.Loop() {
				for r := range 5 {
					for i, k := range ks {
						t := cpuSeconds()
						if err := v.apply(context.Background(), k, n, 2); err != nil {
							b.Fatal(err)
						}
						if d := cpuSeconds() - t; r == 0 || d < pass[i] {
							pass[i] = d
						}
						t = cpuSeconds()
						if err := v.applyBlocked(context.Background(), []*kernel{k, k, k, k, k, k, k, k}, n, 2); err != nil {
							b.Fatal(err)
						}
						if d := cpuSeconds() - t; r == 0 || d < block[i] {
							block[i] = d
						}
					}
				}
			}
			for i, name := range names {
				b.Logf("%-22s pass %.2f  block %.2f", name, pass[i]/pass[0], (block[i]-pass[0])/8/pass[0])
			}
		})
	}
}
