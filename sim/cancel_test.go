package sim_test

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum/sim"
)

// hangGuard only keeps a broken run from hanging the tests: runs here
// return in milliseconds.
const hangGuard = time.Minute

// cancelAt starts run and cancels its context as soon as the run enters
// phase (the run waits in the test hook until the cancel is done). It
// returns the phases the run entered, in order, and run's error.
func cancelAt(t *testing.T, phase string, run func(ctx context.Context) error) ([]string, error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	entered, resume := make(chan struct{}), make(chan struct{})
	var phases []string
	var once sync.Once
	remove := sim.SetTestHook(func(p string) {
		phases = append(phases, p)
		if p == phase {
			once.Do(func() {
				close(entered)
				<-resume
			})
		}
	})
	defer remove()
	done := make(chan error, 1)
	go func() { done <- run(ctx) }()
	select {
	case <-entered:
	case err := <-done:
		t.Fatalf("run returned (%v) without entering phase %q; phases %v", err, phase, phases)
	case <-time.After(hangGuard):
		t.Fatalf("run did not enter phase %q", phase)
	}
	cancel()
	close(resume)
	select {
	case err := <-done:
		return phases, err
	case <-time.After(hangGuard):
		t.Fatalf("run did not return after its cancel in phase %q", phase)
	}
	return nil, nil
}

// Every phase of a run checks its context: cancelled as it enters a phase,
// a run returns context.Canceled before it enters the next one.
func TestCancelInEveryPhase(t *testing.T) {
	long := &sim.Circuit{NumQubits: 2, NumClbits: 2} // many gates: validation, preparation, fusion
	for i := range 100_000 {
		long.Apply(stdGate("rx", []float64{float64(i)}, i%2))
	}
	long.Measure(0, 0).Measure(1, 1)

	wide := &sim.Circuit{NumQubits: 18} // large state: gates, sampling
	for q := range 18 {
		wide.Apply(stdGate("h", nil, q))
	}
	for q := range 17 {
		wide.Apply(stdGate("cx", nil, q, q+1))
	}

	manyOutcomes := &sim.Circuit{NumQubits: 12} // counting
	for q := range 12 {
		manyOutcomes.Apply(stdGate("h", nil, q))
	}
	perShot := &sim.Circuit{NumQubits: 12, NumClbits: 13} // shots and counting
	perShot.Append(manyOutcomes.Ops...)
	perShot.Append(sim.SetBitsOp([]int{12}, 1), forcePerShot(len(perShot.Ops)))
	for q := range 12 {
		perShot.Measure(q, q)
	}

	runWith := func(c *sim.Circuit, opts sim.Options) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := sim.Run(ctx, c, opts)
			return err
		}
	}
	// With noise: the density matrix's doubled circuit, and trajectories.
	longNoisy := dampedLayers(t, 2)
	for range 14 {
		longNoisy.Append(longNoisy.Ops...) // 100,000 operations and more
	}
	dm, sv := sim.MethodDensityMatrix, sim.MethodStateVector
	tests := []struct {
		phase, next string // next: a phase the run must not reach
		run         func(context.Context) error
	}{
		{"validate", "prepare", runWith(long, sim.Options{Shots: 10})},
		{"prepare", "fuse", runWith(long, sim.Options{Shots: 10})},
		{"fuse", "apply", runWith(long, sim.Options{Shots: 10})},
		// Clifford circuits: auto would run them on the stabilizer
		// (stabilizer_test.go cancels that in its phases).
		{"apply", "sample", runWith(wide, sim.Options{Shots: 10, Method: sv})},
		{"sample", "count", runWith(wide, sim.Options{Shots: 1_000_000, Method: sv})},
		{"count", "", runWith(manyOutcomes, sim.Options{Shots: 100_000, Method: sv})},
		{"shots", "count", runWith(perShot, sim.Options{Shots: 100_000, Method: sv})},
		{"count", "", runWith(perShot, sim.Options{Shots: 2000, Method: sv})},
		{"fuse", "apply", func(ctx context.Context) error {
			_, err := sim.Simulate(ctx, wide, sim.Limits{})
			return err
		}},
		{"apply", "", func(ctx context.Context) error {
			s, _ := sim.NewState(18, sim.Limits{})
			_, err := s.Execute(ctx, wide, nil, 0)
			return err
		}},
		{"validate", "prepare", runWith(longNoisy, sim.Options{Shots: 10, Method: dm})},
		{"fuse", "apply", runWith(longNoisy, sim.Options{Shots: 10, Method: dm})},
		{"apply", "sample", runWith(dampedLayers(t, 10), sim.Options{Shots: 10, Method: dm})},
		{"sample", "count", runWith(dampedLayers(t, 9), sim.Options{Shots: 1_000_000, Method: dm})},
		{"shots", "count", runWith(dampedLayers(t, 12), sim.Options{Shots: 100_000, Method: sv})},
		{"fuse", "apply", func(ctx context.Context) error {
			_, err := sim.SimulateDensityMatrix(ctx, longNoisy, sim.Options{})
			return err
		}},
	}
	for _, tc := range tests {
		t.Run(tc.phase, func(t *testing.T) {
			phases, err := cancelAt(t, tc.phase, tc.run)
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled in phase %s: %v, want context.Canceled; phases %v", tc.phase, err, phases)
			}
			if tc.next != "" && slices.Contains(phases, tc.next) {
				t.Fatalf("cancelled in phase %s, the run went on to phase %s: %v", tc.phase, tc.next, phases)
			}
		})
	}
}

// A gate on a large state stops between chunks of amplitudes: cancelled
// before it starts, it changes its first chunk only on one worker (with
// more, shares not started are skipped, so at most one chunk per share
// that had started) and returns context.Canceled, and the state is left
// as far as it got.
func TestGateStopsMidway(t *testing.T) {
	const n = 18
	for _, workers := range []int{1, 2} {
		s, err := sim.NewState(n, sim.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		for q := range n {
			if err := s.ApplyGate(stdGate("h", nil, q)); err != nil {
				t.Fatal(err)
			}
		}
		s.SetWorkers(workers)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := s.ApplyContext(ctx, stdGate("z", nil, 0)); !errors.Is(err, context.Canceled) {
			t.Fatalf("%d workers: cancelled gate returned %v", workers, err)
		}
		if workers == 1 && real(s.Amplitude(1)) >= 0 {
			t.Fatalf("%d workers: the first chunk was not applied", workers)
		}
		if last := s.Amplitude(1<<n - 1); real(last) <= 0 {
			t.Fatalf("%d workers: the gate ran to the end after its cancel", workers)
		}
	}
}
