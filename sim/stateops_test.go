package sim_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/qjobs/quantum/sim"
)

func bell(t *testing.T) *sim.State {
	t.Helper()
	st, err := sim.NewState(2, sim.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range []struct {
		name string
		qs   []int
	}{{"h", []int{0}}, {"cx", []int{0, 1}}} {
		std, _ := sim.LookupGate(g.name)
		gate, err := std.Gate(nil, g.qs...)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.ApplyGateContext(context.Background(), gate); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

func TestCollapse(t *testing.T) {
	ctx := context.Background()
	st := bell(t)
	p, err := st.Collapse(ctx, 0, true)
	if err != nil || math.Abs(p-0.5) > 1e-15 {
		t.Fatalf("Collapse: %v, %v; want 0.5", p, err)
	}
	if a := st.Amplitude(3); math.Abs(real(a)-1) > 1e-15 || st.Probability(0) != 0 {
		t.Fatalf("after the collapse: amplitudes %v", st.Amplitudes())
	}
	// An impossible outcome is an error and changes nothing.
	if _, err := st.Collapse(ctx, 1, false); err == nil {
		t.Fatal("collapsed onto an outcome of probability 0")
	}
	if a := st.Amplitude(3); math.Abs(real(a)-1) > 1e-15 {
		t.Fatalf("a refused collapse changed the state: %v", st.Amplitudes())
	}
	if _, err := st.Collapse(ctx, 2, true); err == nil {
		t.Fatal("collapsed qubit 2 of 2")
	}
}

func TestMeasureResetAndResetAll(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20 {
		st := bell(t)
		a, err := st.Measure(ctx, 0, rng)
		if err != nil {
			t.Fatal(err)
		}
		b, err := st.Measure(ctx, 1, rng)
		if err != nil || a != b {
			t.Fatalf("Bell pair measured %v and %v (%v)", a, b, err)
		}
		if err := st.ResetQubit(ctx, 1, rng); err != nil {
			t.Fatal(err)
		}
		if p := st.QubitProbability(1); p != 0 {
			t.Fatalf("qubit 1 after reset: P(1) = %v", p)
		}
		if err := st.ResetAll(ctx); err != nil || st.Probability(0) != 1 {
			t.Fatalf("ResetAll: P(0) = %v, %v", st.Probability(0), err)
		}
	}
	st := bell(t)
	if _, err := st.Measure(ctx, -1, rng); err == nil {
		t.Fatal("measured qubit -1")
	}
	if err := st.ResetQubit(ctx, 5, rng); err == nil {
		t.Fatal("reset qubit 5 of 2")
	}
}
