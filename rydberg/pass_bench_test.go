package rydberg

import "testing"

// One pass of the series over the full space of 12 and 16 atoms with a
// real drive, the kernel of a sweep: ns/neighbor is the time per
// neighbour gathered (every configuration has n).
func benchPass(b *testing.B, n int) {
	sp := fullSpace(n)
	o := &pass{sp: sp, d0: make([]float64, sp.dim), d1: make([]float64, sp.dim), alpha: make([]complex128, n), beta: make([]complex128, n), uniform: true}
	for k := range o.alpha {
		o.alpha[k] = 0.3
	}
	o.prepare()
	cur, prev, next, acc := make([]complex128, sp.dim), make([]complex128, sp.dim), make([]complex128, sp.dim), make([]complex128, sp.dim)
	for i := range cur {
		cur[i] = complex(float64(i), 1)
	}
	for b.Loop() {
		o.term(3, cur, prev, next, acc)
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(sp.dim*n), "ns/neighbor")
}

func BenchmarkPass12(b *testing.B) { benchPass(b, 12) }
func BenchmarkPass16(b *testing.B) { benchPass(b, 16) }
