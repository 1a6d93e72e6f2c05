package anneal_test

import (
	"context"
	"testing"

	"github.com/qjobs/quantum/anneal"
)

// Attempted flips a second, one core: a sparse spin glass of 10,000 spins
// (±1 couplings, 3 a spin on average: 15,000), one read of the default
// 1,000 sweeps over the default β range. The figure counts every proposal,
// taken or not; setup (the adjacency, the schedule) is in the time.
func BenchmarkFlips10k(b *testing.B) {
	p := randomProblem(b, anneal.Ising, 10_000, 3.0/10_000, 1, 1)
	for i := range p.Linear {
		p.Linear[i] = 0
	}
	o := anneal.Options{Workers: 1}
	flips := 0
	for b.Loop() {
		o.Seed++
		res, err := anneal.Solve(context.Background(), p, o)
		if err != nil {
			b.Fatal(err)
		}
		flips += res.Reads * res.Sweeps * len(p.Names)
	}
	b.ReportMetric(float64(flips)/b.Elapsed().Seconds(), "flips/s")
}

// One read at the default settings on a planted 1,000-spin instance.
func BenchmarkPlanted1000(b *testing.B) {
	p, _ := planted(b, 1000, 300, 300)
	o := anneal.Options{Workers: 1}
	for b.Loop() {
		o.Seed++
		if _, err := anneal.Solve(context.Background(), p, o); err != nil {
			b.Fatal(err)
		}
	}
}
