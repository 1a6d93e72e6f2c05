package anneal_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/qjobs/quantum/anneal"
)

// Each Metropolis move keeps the Boltzmann distribution, so sweeps at one
// β visit each state of a small problem in proportion to exp(−β·E): this
// checks the acceptance (the exponential draws, their tail past 7.7 and
// their wedges) and the deltas kept through couplings, together.
func TestSweepsSampleBoltzmann(t *testing.T) {
	p, err := anneal.New(anneal.Ising, map[string]float64{"a": 0.5, "b": -0.25, "c": 1},
		map[[2]string]float64{{"a", "b"}: 1, {"b", "c"}: -0.75, {"a", "c"}: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	const sweeps = 400_000
	for _, beta := range []float64{0.05, 0.6, 2} { // colder mixes too slowly for a test
		counts := anneal.SweepStates(p, beta, sweeps, 11)
		weights := make([]float64, len(counts))
		z := 0.0
		for code := range counts {
			values := make([]int8, 3)
			for i := range values {
				values[i] = int8(2*(code>>i&1) - 1)
			}
			weights[code] = math.Exp(-beta * p.Energy(values))
			z += weights[code]
		}
		for code, n := range counts {
			want := weights[code] / z * sweeps
			// Sweeps are correlated; allow 6 standard deviations of
			// independent draws, times 3.
			if tol := 18*math.Sqrt(want) + 5; math.Abs(float64(n)-want) > tol {
				t.Errorf("β %v: state %03b visited %d times, Boltzmann says %.0f (±%.0f)", beta, code, n, want, tol)
			}
		}
	}
	// One spin whose flip up costs 9 at β 1: taken with probability
	// exp(−9), when an exponential draw lands in its tail, past 7.7.
	tail, _ := anneal.New(anneal.Ising, map[string]float64{"a": 4.5}, nil)
	counts := anneal.SweepStates(tail, 1, 2_000_000, 6)
	want := 2_000_000 * math.Exp(-9) / (1 + math.Exp(-9))
	if math.Abs(float64(counts[1])-want) > 6*math.Sqrt(want) {
		t.Errorf("spin up after %d of 2,000,000 sweeps, Boltzmann says %.0f", counts[1], want)
	}
}

// A run cancelled while it sweeps stops with the context's error.
func TestCancelWhileSweeping(t *testing.T) {
	p := randomProblem(t, anneal.Ising, 1000, 0.01, 0, 3)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := anneal.Solve(ctx, p, anneal.Options{Reads: 4, Sweeps: 1 << 40})
		done <- err
	}()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("Solve: %v", err)
	}
}
