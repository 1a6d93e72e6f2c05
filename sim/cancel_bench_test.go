package sim_test

import (
	"context"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum/sim"
)

// measureCancel runs run b.N times, cancels each run 20 ms after it enters
// phase (well inside the phase's work), and reports the mean time from the
// cancel to the run's return as cancel-µs. It is a measurement, not a test:
// run it with -bench CancelLatency -benchtime 3x.
func measureCancel(b *testing.B, phase string, run func(ctx context.Context) error) {
	b.Helper()
	var total time.Duration
	for b.Loop() {
		ctx, cancel := context.WithCancel(context.Background())
		entered := make(chan struct{})
		var once sync.Once
		remove := sim.SetTestHook(func(p string) {
			if p == phase {
				once.Do(func() { close(entered) })
			}
		})
		done := make(chan error, 1)
		go func() { done <- run(ctx) }()
		select {
		case <-entered:
		case err := <-done:
			b.Fatalf("run returned (%v) before phase %s", err, phase)
		}
		time.Sleep(20 * time.Millisecond)
		start := time.Now()
		cancel()
		err := <-done
		total += time.Since(start)
		remove()
		if err != context.Canceled {
			b.Fatalf("run returned %v, want context.Canceled", err)
		}
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "cancel-µs")
}

func BenchmarkCancelLatency(b *testing.B) {
	b.Run("fuse-1M-gates", func(b *testing.B) {
		gs := oneQubitRun(1_000_000)
		measureCancel(b, "fuse", func(ctx context.Context) error {
			_, err := sim.FuseGates(ctx, gs, sim.DefaultFusionWidth, sim.DefaultDiagonalFusionWidth)
			return err
		})
	})
	b.Run("one-gate-27-qubits", func(b *testing.B) {
		const n = 27
		s, err := sim.NewState(n, sim.Limits{})
		if err != nil {
			b.Fatal(err)
		}
		c := &sim.Circuit{NumQubits: n}
		c.Apply(stdGate("h", nil, 20))
		measureCancel(b, "apply", func(ctx context.Context) error {
			_, err := s.Execute(ctx, c, nil, 0)
			return err
		})
	})
	b.Run("per-shot-loop", func(b *testing.B) {
		c := coinFlips(10, 10)
		measureCancel(b, "shots", func(ctx context.Context) error {
			_, err := sim.Run(ctx, c, sim.Options{Shots: 10_000_000, Method: sim.MethodStateVector})
			return err
		})
	})
	b.Run("per-shot-loop-20-qubits", func(b *testing.B) {
		c := hadamards(20, 21, true)
		measureCancel(b, "shots", func(ctx context.Context) error {
			_, err := sim.Run(ctx, c, sim.Options{Shots: 1000, Method: sim.MethodStateVector})
			return err
		})
	})
	b.Run("sample-24-qubits-50M-shots", func(b *testing.B) {
		c := hadamards(24, 24, false)
		measureCancel(b, "sample", func(ctx context.Context) error {
			_, err := sim.Run(ctx, c, sim.Options{Shots: 50_000_000, Method: sim.MethodStateVector})
			return err
		})
	})
	b.Run("count-1M-outcomes", func(b *testing.B) {
		c := hadamards(22, 22, false)
		measureCancel(b, "count", func(ctx context.Context) error {
			_, err := sim.Run(ctx, c, sim.Options{Shots: 3_000_000, Seed: seed(rand.Uint64()), Method: sim.MethodStateVector})
			return err
		})
	})
}
