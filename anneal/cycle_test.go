package anneal_test

import (
	"context"
	"testing"

	"github.com/qjobs/quantum/anneal"
)

// The max-cut of a square has a plateau of states one flip from the
// ground state whose flips keep the energy: a sweep in a fixed order
// cycled on it, and most reads ended off the ground. Every read ends on
// the ground now.
func TestPlateauDoesNotTrapReads(t *testing.T) {
	p, err := anneal.New(anneal.QUBO, map[string]float64{"a": -2, "b": -2, "c": -2, "d": -2},
		map[[2]string]float64{{"a", "b"}: 2, {"b", "c"}: 2, {"c", "d"}: 2, {"d", "a"}: 2})
	if err != nil {
		t.Fatal(err)
	}
	for seed := range uint64(5) {
		r, err := anneal.Solve(context.Background(), p, anneal.Options{Reads: 100, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range r.Solutions {
			if s.Energy != -4 {
				t.Fatalf("seed %d: %d of 100 reads ended at energy %v, off the ground (−4)", seed, s.Occurrences, s.Energy)
			}
		}
	}
}
