package sim_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// reportBandwidth adds the state's bytes per nanosecond of one op: the
// figure to hold against the machine's memory bandwidth.
func reportBandwidth(b *testing.B, n int) {
	b.ReportMetric(float64(sim.StateBytes(n))/(float64(b.Elapsed().Nanoseconds())/float64(b.N)), "stateB/ns")
}

func benchGate(b *testing.B, n int, name string, qubits ...int) {
	s, err := sim.NewState(n, sim.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	g, _ := sim.LookupGate(name)
	gt, _ := g.Gate(nil, qubits...)
	b.ResetTimer()
	for b.Loop() {
		if err := s.ApplyGate(gt); err != nil {
			b.Fatal(err)
		}
	}
	reportBandwidth(b, n)
}

func BenchmarkH20(b *testing.B)  { benchGate(b, 20, "h", 10) }
func BenchmarkH24(b *testing.B)  { benchGate(b, 24, "h", 12) }
func BenchmarkCX20(b *testing.B) { benchGate(b, 20, "cx", 3, 15) }
func BenchmarkCX24(b *testing.B) { benchGate(b, 24, "cx", 3, 17) }

func BenchmarkQFT20(b *testing.B) {
	const n = 20
	c := &sim.Circuit{NumQubits: n}
	for j := n - 1; j >= 0; j-- {
		h, _ := sim.LookupGate("h")
		g, _ := h.Gate(nil, j)
		c.Apply(g)
		for k := j - 1; k >= 0; k-- {
			cp, _ := sim.LookupGate("cp")
			g, _ := cp.Gate([]float64{math.Pi / float64(int(1)<<(j-k))}, k, j)
			c.Apply(g)
		}
	}
	for q := range n / 2 {
		sw, _ := sim.LookupGate("swap")
		g, _ := sw.Gate(nil, q, n-1-q)
		c.Apply(g)
	}
	for b.Loop() {
		if _, err := sim.Simulate(context.Background(), c, sim.Limits{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(c.Ops)), "gates")
}

func BenchmarkSample1MShots20Qubits(b *testing.B) {
	const n = 20
	s, _ := sim.NewState(n, sim.Limits{})
	rng := rand.New(rand.NewPCG(1, 1))
	// A state with 2^20 distinct non-zero probabilities.
	for q := range n {
		ry, _ := sim.LookupGate("ry")
		g, _ := ry.Gate([]float64{0.3 + 0.1*float64(q)}, q)
		if err := s.ApplyGate(g); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	for b.Loop() {
		counts := s.Sample(rng, 1_000_000)
		if len(counts) == 0 {
			b.Fatal("no counts")
		}
	}
}
