//go:build !purego

package rydberg

import "golang.org/x/sys/cpu"

// haveGather reports that gatherQuads runs here: AVX2, whose registers
// the OS saves (x/sys/cpu says so only then).
var haveGather = cpu.X86.HasAVX2

// gatherQuads writes to t[s−lo], for each configuration s of [lo, hi) of
// a full space of n atoms (lo and hi multiples of 4, n at least 2), the
// sum of x over the n configurations one flip from s: fullReal's sums,
// four configurations in two 256-bit registers, each flip of the atoms
// past the first two one load of four adjacent amplitudes
// (gather_amd64.s).
//
//go:noescape
func gatherQuads(x, t *complex128, lo, hi, n int)

// fullRealGathered is fullReal with the sums gathered by AVX2
// (gatherQuads) into a share's buffer first: two and a half times the
// speed of the loop in Go, which the rest of the pass then runs through.
func (o *pass) fullRealGathered(lo, hi int, f float64, cur, prev, next, acc []complex128) float64 {
	dim, n := o.sp.dim, o.sp.n
	cur, next, acc = cur[:dim], next[:dim], acc[:dim]
	d0, d1 := o.d0[:dim], o.d1[:dim]
	a, b := real(o.a), real(o.b)
	withD1 := prev != nil && o.hasD1
	withBeta := prev != nil && o.hasBeta
	var t, u [chunk]complex128 // a share is at most a chunk
	gatherQuads(&cur[0], &t[0], lo, hi, n)
	if withBeta {
		gatherQuads(&prev[0], &u[0], lo, hi, n)
	}
	sum := 0.0
	for s := lo; s < hi; s++ {
		c, ts := cur[s], t[s-lo]
		v := complex(d0[s]*real(c)+a*real(ts), d0[s]*imag(c)+a*imag(ts))
		if withD1 {
			v += scale(d1[s], prev[s])
		}
		if withBeta {
			v += scale(b, u[s-lo])
		}
		z := complex(f*imag(v), -f*real(v))
		next[s] = z
		acc[s] += z
		sum += real(z)*real(z) + imag(z)*imag(z)
	}
	return sum
}
