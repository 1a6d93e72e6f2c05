package sim

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"
)

// BenchmarkKernels times one kernel on a whole state, in ns per amplitude:
// a global phase (the streaming pass no gate beats), then dense matrices
// of 1 to 4 qubits, complex and real (unitary), on 14 qubits (a cache block, one
// core) and 22 (memory, both cores), in both precisions. The cost model
// of fusecost.go is read from these.
func BenchmarkKernels(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{14, 22} {
		for _, p := range []Precision{Double, Single} {
			for _, real := range []bool{false, true} {
				for _, ts := range [][]int{{}, {5}, {10, 11}, {9, 10, 11}, {8, 9, 10, 11}} {
					if real && len(ts) == 0 {
						continue
					}
					g := Gate{Matrix: []complex128{1i}}
					if len(ts) > 0 {
						g = Gate{Matrix: orthonormalRows(randomMatrix(rng, 1<<len(ts)), 1<<len(ts)), Targets: ts}
						if real {
							g.Matrix = orthonormalRows(realMatrix(rng, 1<<len(ts)), 1<<len(ts))
						}
					}
					k := newKernel(&g)
					var v vector = newVec[complex128](n)
					if p == Single {
						v = newVec[complex64](n)
					}
					for i := range 1 << n {
						v.set(i, 1)
					}
					name := fmt.Sprintf("n=%d/%s/targets=%d", n, p, len(ts))
					if real {
						name += "/real"
					}
					b.Run(name, func(b *testing.B) {
						for b.Loop() {
							if err := v.apply(context.Background(), k, n, 2); err != nil {
								b.Fatal(err)
							}
						}
						b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(int(1)<<n), "ns/amp")
					})
					if n < 22 {
						continue
					}
					// The same kernel eight times in a row through the
					// cache blocks, on both cores: ns/amp is a kernel's
					// share, the one pass from memory included. The block
					// costs of fusecost.go are (8·this − the phase's
					// ns/amp) / 8 over the phase's.
					ks := []*kernel{k, k, k, k, k, k, k, k}
					b.Run(fmt.Sprintf("n=%d/blocked8/%s/targets=%d", n, p, len(ts))+strings.TrimPrefix(name, fmt.Sprintf("n=%d/%s/targets=%d", n, p, len(ts))), func(b *testing.B) {
						for b.Loop() {
							if err := v.applyBlocked(context.Background(), ks, n, 2); err != nil {
								b.Fatal(err)
							}
						}
						b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ks)<<n), "ns/amp")
					})
				}
			}
		}
	}
}

// orthonormalRows makes the d×d matrix m unitary by Gram–Schmidt on its
// rows (orthogonal when m is real), so that a kernel applied again and
// again keeps the amplitudes' size: a random matrix drives them to
// subnormal numbers or infinities, which some CPUs (Intel's) handle a
// hundred times slower and which would time the CPU's assists, not the
// kernel.
func orthonormalRows(m []complex128, d int) []complex128 {
	for i := range d {
		row := m[i*d : (i+1)*d]
		for j := range i {
			prev := m[j*d : (j+1)*d]
			var dot complex128
			for k := range d {
				dot += cmplx.Conj(prev[k]) * row[k]
			}
			for k := range d {
				row[k] -= dot * prev[k]
			}
		}
		norm := 0.0
		for _, x := range row {
			norm += real(x)*real(x) + imag(x)*imag(x)
		}
		for k := range row {
			row[k] /= complex(math.Sqrt(norm), 0)
		}
	}
	return m
}
