//go:build !purego

package rydberg

import (
	"math/rand/v2"
	"testing"
)

// gatherQuads (AVX2) against the sums written plainly, for every size of
// space it may see a share of, at every offset of a share.
func TestGatherQuads(t *testing.T) {
	if !haveGather {
		t.Log("no AVX2 here: gatherQuads never runs")
		return
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for n := 2; n <= 14; n++ {
		dim := 1 << n
		x := make([]complex128, dim)
		for i := range x {
			x[i] = complex(rng.NormFloat64(), rng.NormFloat64())
		}
		for lo := 0; lo < dim; lo += chunk {
			hi := min(lo+chunk, dim)
			got := make([]complex128, hi-lo)
			gatherQuads(&x[0], &got[0], lo, hi, n)
			for s := lo; s < hi; s++ {
				var want complex128
				for k := range n {
					want += x[s^(1<<k)]
				}
				if d := got[s-lo] - want; real(d)*real(d)+imag(d)*imag(d) > 1e-24 {
					t.Fatalf("n=%d, configuration %d: %v, want %v", n, s, got[s-lo], want)
				}
			}
		}
	}
}
