package sim_test

import (
	"maps"
	"math/rand/v2"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// Every way of counting a batch of frames' outcomes (popcounts, an array,
// a map) gives what counting shot by shot gives, for every key width
// around the bounds between them and shot counts that end mid-word.
func TestTallyPaths(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for _, width := range []int{1, 2, 3, sim.PopcountTallyBits, sim.PopcountTallyBits + 1, sim.DenseTallyBits, sim.DenseTallyBits + 1, 70} {
		for _, shots := range []int{1, 63, 64, 65, 1000} {
			w := (shots + 63) / 64
			rec := make([][]uint64, width)
			for b := range rec {
				rec[b] = make([]uint64, w)
				for i := range rec[b] {
					rec[b][i] = rng.Uint64() // past the last shot too: it must not count
				}
			}
			want := map[string]int{}
			for s := range shots {
				key := make([]byte, width)
				for b := range width {
					key[width-1-b] = '0' + byte(rec[b][s/64]>>(s%64)&1)
				}
				want[string(key)]++
			}
			got, err := sim.TallyForTest(rec, shots)
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(got, want) {
				t.Errorf("width %d, %d shots: counted %v, want %v", width, shots, got, want)
			}
		}
	}
}
