package sim

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/qjobs/quantum/internal/testenv"
)

// The measurement passes give, on one worker and on several, exactly what
// a loop over the indices gives, for qubits whose halves share a chunk and
// for qubits whose halves lie in different chunks (q ≥ 16).
func TestPassesMatchTheirDefinition(t *testing.T) {
	const n = 18
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	src := randomVector[complex128](rng, n)
	for _, q := range []int{0, 3, 12, 15, 16, 17} {
		bit := 1 << q
		var wantP float64
		for i, a := range src.a {
			if i&bit != 0 {
				wantP += abs2(a)
			}
		}
		for _, workers := range []int{1, 2, 3} {
			v := newVec[complex128](n)
			if err := v.copyFrom(ctx, src, workers); err != nil || !slices.Equal(v.a, src.a) {
				t.Fatalf("q=%d, %d workers: copyFrom: %v, or a different state", q, workers, err)
			}
			p, err := v.qubitProbability(ctx, q, workers)
			if err != nil || math.Abs(p-wantP) > 1e-9*wantP {
				t.Fatalf("q=%d, %d workers: qubitProbability = %v, %v; want %v", q, workers, p, err, wantP)
			}
			for _, one := range []bool{false, true} {
				c, _ := v.clone(ctx, workers)
				got := c.(*vec[complex128])
				if err := got.collapse(ctx, q, one, 0.5, workers); err != nil {
					t.Fatal(err)
				}
				for i, a := range src.a {
					want := a * 0.5
					if (i&bit != 0) != one {
						want = 0
					}
					if got.a[i] != want {
						t.Fatalf("q=%d, %d workers, one=%v: collapse: amplitude %d = %v, want %v", q, workers, one, i, got.a[i], want)
					}
				}
			}
			z, _ := v.clone(ctx, workers)
			if err := z.reset(ctx, workers); err != nil {
				t.Fatal(err)
			}
			for i, a := range z.(*vec[complex128]).a {
				want := complex128(0)
				if i == 0 {
					want = 1
				}
				if a != want {
					t.Fatalf("%d workers: reset: amplitude %d = %v, want %v", workers, i, a, want)
				}
			}
			if err := v.moveToZero(ctx, q, workers); err != nil {
				t.Fatal(err)
			}
			for i := range v.a {
				want := complex128(0)
				if i&bit == 0 {
					want = src.a[i|bit]
				}
				if v.a[i] != want {
					t.Fatalf("q=%d, %d workers: moveToZero: amplitude %d = %v, want %v", q, workers, i, v.a[i], want)
				}
			}
		}
	}
}

// A state made for a run is |0…0⟩ after its pages are touched, in both
// precisions, on one worker and on several, on states of one chunk and of
// many; a cancelled context stops the touch and says so.
func TestNewRunStateIsZero(t *testing.T) {
	check := func(t *testing.T, s *State) {
		t.Helper()
		for i, a := range s.Amplitudes() {
			want := complex128(0)
			if i == 0 {
				want = 1
			}
			if a != want {
				t.Fatalf("amplitude %d = %v, want %v", i, a, want)
			}
		}
	}
	for _, n := range []int{1, 9, 16, 17, 19} {
		for _, p := range []Precision{Double, Single} {
			for _, workers := range []int{1, 2, 3} {
				s, err := newRunState(context.Background(), n, p, Limits{}, workers)
				if err != nil {
					t.Fatalf("%d qubits, %v, %d workers: %v", n, p, workers, err)
				}
				check(t, s)
			}
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := newRunState(ctx, 18, Double, Limits{}, 2); err != context.Canceled {
		t.Fatalf("a cancelled touch returned %v", err)
	}
}

// A pass cancelled before it starts changes nothing and says so.
func TestPassCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	rng := rand.New(rand.NewPCG(5, 6))
	for _, workers := range []int{1, 2} {
		v := randomVector[complex64](rng, 18)
		before := slices.Clone(v.a)
		if err := v.collapse(ctx, 17, true, 2, workers); err != context.Canceled {
			t.Fatalf("%d workers: collapse returned %v", workers, err)
		}
		if !slices.Equal(v.a, before) {
			t.Fatalf("%d workers: a cancelled collapse changed the state", workers)
		}
	}
}

// A per-shot run makes these passes every shot: on the pool too they
// allocate nothing once the vector has run one.
func TestPassesAllocateNothing(t *testing.T) {
	if raceEnabled {
		testenv.Optional(t, "the race detector's sync.Pool drops jobs")
	}
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	src := randomVector[complex128](rng, 18)
	v := newVec[complex128](18)
	shot := func() {
		_ = v.reset(ctx, 2)
		_ = v.copyFrom(ctx, src, 2)
		p, _ := v.qubitProbability(ctx, 16, 2)
		_ = v.collapse(ctx, 16, true, 1/math.Sqrt(p), 2)
		_ = v.moveToZero(ctx, 16, 2)
	}
	shot()
	if n := testing.AllocsPerRun(50, shot); n != 0 {
		t.Fatalf("a shot's passes allocated %v times", n)
	}
}
