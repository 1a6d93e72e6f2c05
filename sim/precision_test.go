package sim_test

import (
	"context"
	"errors"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// Single precision runs the same kernels on complex64. Its tolerances are
// those of float32 (epsilon 6e-8) grown over the gates applied.
func TestSinglePrecision(t *testing.T) {
	ctx := context.Background()
	single := sim.Options{Precision: sim.Single}

	t.Run("GHZ", func(t *testing.T) {
		c := ghzCircuit(12)
		s, err := sim.SimulateWith(ctx, c, single)
		if err != nil {
			t.Fatal(err)
		}
		if s.Precision() != sim.Single {
			t.Fatalf("precision %v", s.Precision())
		}
		want := make([]complex128, 1<<12)
		want[0], want[len(want)-1] = complex(1/math.Sqrt2, 0), complex(1/math.Sqrt2, 0)
		assertAmplitudes(t, s.Amplitudes(), want, 1e-6)
	})

	t.Run("QFT", func(t *testing.T) {
		const n = 8
		c := &sim.Circuit{NumQubits: n}
		c.Apply(gate(t, "x", nil, 0)).Apply(gate(t, "x", nil, 3))
		qft(t, c, n)
		s, err := sim.SimulateWith(ctx, c, single)
		if err != nil {
			t.Fatal(err)
		}
		x, N := 9, 1<<n
		for y := range N {
			want := cmplx.Exp(complex(0, 2*math.Pi*float64(x*y)/float64(N))) / complex(math.Sqrt(float64(N)), 0)
			if cmplx.Abs(s.Amplitude(y)-want) > 1e-6 {
				t.Fatalf("amplitude %d = %v, want %v", y, s.Amplitude(y), want)
			}
		}
	})

	t.Run("random circuits match double", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(41, 42))
		for _, n := range []int{5, 16} { // 16 crosses the cache-block size
			c := &sim.Circuit{NumQubits: n}
			for range 200 {
				c.Apply(randomGate(rng, n))
			}
			d, err := sim.SimulateWith(ctx, c, sim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			s, err := sim.SimulateWith(ctx, c, single)
			if err != nil {
				t.Fatal(err)
			}
			assertAmplitudes(t, s.Amplitudes(), d.Amplitudes(), 1e-5)
			if math.Abs(s.Norm()-1) > 1e-5 {
				t.Fatalf("norm %v", s.Norm())
			}
		}
	})

	t.Run("sampling", func(t *testing.T) {
		c, probs := skewed(t)
		r := run(t, c, sim.Options{Shots: 100_000, Seed: seed(4), Precision: sim.Single})
		chiSquared(t, r.Counts, probs, 100_000)
	})

	t.Run("per-shot teleport", func(t *testing.T) {
		rng := rand.New(rand.NewPCG(5, 5))
		c := &sim.Circuit{NumQubits: 3, NumClbits: 2}
		c.Apply(sim.Gate{Name: "u", Matrix: sim.U3(1.1, 0.3, 0.7), Targets: []int{0}})
		c.Apply(gate(t, "h", nil, 1)).Apply(gate(t, "cx", nil, 1, 2))
		c.Apply(gate(t, "cx", nil, 0, 1)).Apply(gate(t, "h", nil, 0))
		c.Measure(0, 0).Measure(1, 1)
		c.If(sim.BitIs(1, true), sim.GateOp(gate(t, "x", nil, 2)))
		c.If(sim.BitIs(0, true), sim.GateOp(gate(t, "z", nil, 2)))
		s, err := sim.NewStatePrecision(3, sim.Single, sim.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.Execute(ctx, c, rng, 0); err != nil {
			t.Fatal(err)
		}
		if got, want := s.QubitProbability(2), math.Pow(math.Sin(0.55), 2); math.Abs(got-want) > 1e-6 {
			t.Fatalf("P(q2=1) = %v, want %v", got, want)
		}
	})

	t.Run("budget counts 8 bytes an amplitude", func(t *testing.T) {
		lim := sim.Limits{MaxQubits: 40, MemoryBudget: 8 << 20} // 8 MiB: 20 qubits single, 19 double
		if _, err := sim.NewStatePrecision(20, sim.Single, lim); err != nil {
			t.Fatalf("20 qubits single in 8 MiB: %v", err)
		}
		if _, err := sim.NewStatePrecision(20, sim.Double, lim); !errors.Is(err, sim.ErrMemoryBudget) {
			t.Fatalf("20 qubits double in 8 MiB: %v", err)
		}
	})
}
