package sim_test

import (
	"context"
	"fmt"
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
	benchGatePrecision(b, n, sim.Double, name, qubits...)
}

func benchGatePrecision(b *testing.B, n int, p sim.Precision, name string, qubits ...int) {
	s, err := sim.NewStatePrecision(n, p, sim.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	g, _ := sim.LookupGate(name)
	gt, _ := g.Gate(nil, qubits...)
	// Once before timing: the first pass over a new state takes the
	// operating system's page faults (0.25 s for 256 MiB on some hosts),
	// which would be a tenth of the figure at -benchtime 10x.
	if err := s.ApplyGate(gt); err != nil {
		b.Fatal(err)
	}
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

// Single precision: the same gates on a complex64 state, half the bytes.
func BenchmarkH24Single(b *testing.B)  { benchGatePrecision(b, 24, sim.Single, "h", 12) }
func BenchmarkCX24Single(b *testing.B) { benchGatePrecision(b, 24, sim.Single, "cx", 3, 17) }
func BenchmarkCX24(b *testing.B)       { benchGate(b, 24, "cx", 3, 17) }

func stdGate(name string, params []float64, qubits ...int) sim.Gate {
	g, _ := sim.LookupGate(name)
	out, err := g.Gate(params, qubits...)
	if err != nil {
		panic(err)
	}
	return out
}

func qftCircuit(n int) *sim.Circuit {
	c := &sim.Circuit{NumQubits: n}
	for j := n - 1; j >= 0; j-- {
		c.Apply(stdGate("h", nil, j))
		for k := j - 1; k >= 0; k-- {
			c.Apply(stdGate("cp", []float64{math.Pi / float64(int(1)<<(j-k))}, k, j))
		}
	}
	for q := range n / 2 {
		c.Apply(stdGate("swap", nil, q, n-1-q))
	}
	return c
}

// randomLayers is depth layers of a random single-qubit rotation on every
// qubit followed by CX on alternating neighbour pairs.
func randomLayers(n, depth int) *sim.Circuit {
	rng := rand.New(rand.NewPCG(uint64(n), uint64(depth)))
	c := &sim.Circuit{NumQubits: n}
	for l := range depth {
		for q := range n {
			c.Apply(stdGate("u3", []float64{rng.Float64() * 3, rng.Float64() * 3, rng.Float64() * 3}, q))
		}
		for q := l % 2; q+1 < n; q += 2 {
			c.Apply(stdGate("cx", nil, q, q+1))
		}
	}
	return c
}

func ghzCircuit(n int) *sim.Circuit {
	c := &sim.Circuit{NumQubits: n}
	c.Apply(stdGate("h", nil, 0))
	for q := 1; q < n; q++ {
		c.Apply(stdGate("cx", nil, q-1, q))
	}
	return c
}

func benchCircuit(b *testing.B, c *sim.Circuit, fusion int) {
	for b.Loop() {
		if _, err := sim.SimulateWith(context.Background(), c, sim.Options{FusionWidth: fusion}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(c.Ops))/(float64(b.Elapsed().Nanoseconds())/float64(b.N))*1e9, "gates/s")
}

func BenchmarkQFT20(b *testing.B) { benchCircuit(b, qftCircuit(20), 0) }

// BenchmarkFusion compares fusion widths on whole circuits; -1 is no fusion.
func BenchmarkFusion(b *testing.B) {
	circuits := []struct {
		name string
		c    *sim.Circuit
	}{
		{"qft20", qftCircuit(20)},
		{"random20x10", randomLayers(20, 10)},
		{"ghz20", ghzCircuit(20)},
	}
	for _, tc := range circuits {
		for _, w := range []int{-1, 1, 2, 3, 4, 5} {
			b.Run(fmt.Sprintf("%s/width=%d", tc.name, w), func(b *testing.B) { benchCircuit(b, tc.c, w) })
		}
	}
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

// BenchmarkPerShot18 runs a circuit that measures and resets mid-way, so
// once per shot: each shot copies the 18-qubit state after the shared
// prefix, measures qubit 0, resets it and applies H (the crash test's slow
// job). Figures are per 100 shots.
func BenchmarkPerShot18(b *testing.B) {
	const n = 18
	c := &sim.Circuit{NumQubits: n, NumClbits: 1}
	for q := range n {
		c.Apply(stdGate("h", nil, q))
	}
	c.Measure(0, 0).Reset(0).Apply(stdGate("h", nil, 0))
	for b.Loop() {
		if _, err := sim.Run(context.Background(), c, sim.Options{Shots: 100, Seed: seed(3), Method: sim.MethodStateVector}); err != nil {
			b.Fatal(err)
		}
	}
}
