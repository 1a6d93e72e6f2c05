package sim_test

import (
	"slices"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// The variates the sampler's first pass keeps are those its second pass
// would draw again: a seed gives the counts it gave before they were kept.
func TestKeptVariatesAreTheReplayed(t *testing.T) {
	for _, shots := range []int{1, 2, 1000, sim.KeptVariates - 1} {
		for seed := range uint64(3) {
			kept := sim.UniformsForTest(seed, shots, true)
			drawn := sim.UniformsForTest(seed, shots, false)
			if len(kept) != shots || !slices.Equal(kept, drawn) {
				t.Fatalf("%d shots, seed %d: kept and drawn variates differ", shots, seed)
			}
			if !slices.IsSorted(kept) || kept[0] < 0 || kept[len(kept)-1] >= 1 {
				t.Fatalf("%d shots, seed %d: not sorted in [0, 1)", shots, seed)
			}
		}
	}
}
