package rydberg_test

import (
	"context"
	"errors"
	"math"
	"math/cmplx"
	"testing"

	"github.com/qjobs/quantum/internal/rydbergref"
	"github.com/qjobs/quantum/rydberg"
)

// c6 is Braket's and Aquila's interaction coefficient, in rad·µm⁶/µs.
const c6 = 5.42e6

// The tests compare whole final states: the 2-norm of the difference from
// the reference, which bounds every amplitude's. The package promises
// 1e-8; the reference is good to about 1e-11.
const agree = 1.5e-8

func line(n int, spacing float64) []rydberg.Atom {
	atoms := make([]rydberg.Atom, n)
	for i := range atoms {
		atoms[i].X = spacing * float64(i)
	}
	return atoms
}

// drive is a real Rabi frequency (φ = 0) at the given points.
func drive(times []float64, omegas ...float64) rydberg.Drive {
	d := rydberg.Drive{Times: times}
	for _, o := range omegas {
		d.Values = append(d.Values, complex(o, 0))
	}
	return d
}

func detuning(times []float64, values ...float64) rydberg.Detuning {
	return rydberg.Detuning{Times: times, Values: values}
}

// The programs the reference checks. Each exercises one part of the
// model; between them every field kind, a jump, local weights, empty
// space and the blockade space.
func referencePrograms() []struct {
	name   string
	p      *rydberg.Program
	radius float64
} {
	omega := 2 * math.Pi // 1 MHz
	return []struct {
		name   string
		p      *rydberg.Program
		radius float64
	}{
		{"one atom, a trapezoid and a detuning ramp", &rydberg.Program{Atoms: line(1, 0), C6: c6, Duration: 1,
			Drives:    []rydberg.Drive{drive([]float64{0, 0.1, 0.9, 1}, 0, omega, omega, 0)},
			Detunings: []rydberg.Detuning{detuning([]float64{0, 1}, -3, 5)}}, 0},
		{"two atoms in blockade", &rydberg.Program{Atoms: line(2, 4), C6: c6, Duration: 1.3,
			Drives: []rydberg.Drive{drive([]float64{0, 1.3}, omega, omega)}}, 0},
		{"a chain of four under an adiabatic sweep", &rydberg.Program{Atoms: line(4, 6.1), C6: c6, Duration: 2,
			Drives:    []rydberg.Drive{drive([]float64{0, 0.2, 1.8, 2}, 0, 15.8, 15.8, 0)},
			Detunings: []rydberg.Detuning{detuning([]float64{0, 0.2, 1.8, 2}, -40, -40, 40, 40)}}, 0},
		{"local detuning", &rydberg.Program{Atoms: []rydberg.Atom{{}, {X: 7}, {X: 3, Y: 6}}, C6: c6, Duration: 1.5,
			Drives: []rydberg.Drive{drive([]float64{0, 0.3, 1.5}, 0, 12, 12)},
			Detunings: []rydberg.Detuning{detuning([]float64{0, 1.5}, -10, 10),
				{Weights: []float64{1, 0.5, 0}, Times: []float64{0, 0.5, 1.5}, Values: []float64{0, 20, 20}}}}, 0},
		{"a phase step", &rydberg.Program{Atoms: line(2, 8), C6: c6, Duration: 1,
			// φ jumps from 0 to π/2 at 0.4: the value given twice there.
			Drives:    []rydberg.Drive{{Times: []float64{0, 0.4, 0.4, 1}, Values: []complex128{complex(9, 0), complex(9, 0), complex(0, 9), complex(0, 9)}}},
			Detunings: []rydberg.Detuning{detuning([]float64{0, 1}, 2, 2)}}, 0},
		{"a local drive", &rydberg.Program{Atoms: line(3, 7), C6: c6, Duration: 1,
			Drives: []rydberg.Drive{drive([]float64{0, 1}, 6, 6),
				{Atoms: []int{1}, Times: []float64{0, 0.5, 1}, Values: []complex128{0, complex(0, 8), 0}}}}, 0},
		{"the blockade space", &rydberg.Program{Atoms: []rydberg.Atom{{}, {X: 4}, {X: 8}, {X: 4, Y: 4}}, C6: c6, Duration: 1,
			Drives:    []rydberg.Drive{drive([]float64{0, 0.2, 1}, 0, 10, 10)},
			Detunings: []rydberg.Detuning{detuning([]float64{0, 1}, -5, 15)}}, 4.5},
		{"no atoms", &rydberg.Program{C6: c6, Duration: 1}, 0},
	}
}

func TestAgainstReference(t *testing.T) {
	for _, tc := range referencePrograms() {
		t.Run(tc.name, func(t *testing.T) {
			space := rydbergref.Space(tc.p, tc.radius)
			want := rydbergref.Evolve(tc.p, space)
			st, err := rydberg.Evolve(context.Background(), tc.p, rydberg.Options{BlockadeRadius: tc.radius})
			if err != nil {
				t.Fatal(err)
			}
			d := distance(st, tc.p, space, want)
			if d > agree {
				t.Errorf("the state is %.3g from the reference's (2-norm), want at most %g", d, agree)
			}
			t.Logf("%.3g from the reference; %d steps, %d terms, error bound %.3g, roundoff %.3g", d, st.Steps, st.Terms, st.ErrorBound, st.Roundoff)
			if st.ErrorBound > rydberg.DefaultTolerance {
				t.Errorf("error bound %g, past the tolerance", st.ErrorBound)
			}
			if st.Len() != len(space) || st.Restricted != (len(space) < 1<<len(tc.p.Atoms)) {
				t.Errorf("%d configurations (restricted %v), want %d", st.Len(), st.Restricted, len(space))
			}
		})
	}
}

// distance is the 2-norm of the difference between the state and the
// reference's amplitudes on space.
func distance(st *rydberg.State, p *rydberg.Program, space []int, want []complex128) float64 {
	return rydbergref.Distance(st, len(p.Atoms), space, want)
}

// One atom at Δ = 0 turns by the area of its pulse, whatever the pulse's
// shape: ψ = cos(A/2)|g⟩ − i·e^{iφ}·sin(A/2)|r⟩, P_r = sin²(Ωt/2) for a
// constant Ω.
func TestRabi(t *testing.T) {
	for _, tc := range []struct {
		name  string
		d     rydberg.Drive
		T     float64
		area  float64
		phase float64
	}{
		{"constant, a third of a turn", drive([]float64{0, 0.37}, 2*math.Pi, 2*math.Pi), 0.37, 2 * math.Pi * 0.37, 0},
		{"a π pulse", drive([]float64{0, 0.5}, math.Pi/0.5, math.Pi/0.5), 0.5, math.Pi, 0},
		{"a trapezoid", drive([]float64{0, 0.05, 0.95, 1}, 0, 15, 15, 0), 1, 15 * 0.95, 0},
		{"a triangle at phase 1", rydberg.Drive{Times: []float64{0, 1, 2}, Values: []complex128{0, cmplx.Rect(4, 1), 0}}, 2, 4, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &rydberg.Program{Atoms: line(1, 0), C6: c6, Duration: tc.T, Drives: []rydberg.Drive{tc.d}}
			st, err := rydberg.Evolve(context.Background(), p, rydberg.Options{})
			if err != nil {
				t.Fatal(err)
			}
			wantG := complex(math.Cos(tc.area/2), 0)
			wantR := complex(0, -1) * cmplx.Rect(1, tc.phase) * complex(math.Sin(tc.area/2), 0)
			if d := math.Hypot(cmplx.Abs(st.Amplitude(0)-wantG), cmplx.Abs(st.Amplitude(1)-wantR)); d > agree {
				t.Errorf("amplitudes %v, %v; want %v, %v (off by %.3g)", st.Amplitude(0), st.Amplitude(1), wantG, wantR, d)
			}
			// The reference too: it is what the other tests trust.
			ref := rydbergref.Evolve(p, rydbergref.Space(p, 0))
			if d := math.Hypot(cmplx.Abs(ref[0]-wantG), cmplx.Abs(ref[1]-wantR)); d > 1e-10 {
				t.Errorf("the reference is off by %.3g", d)
			}
		})
	}
}

// Two atoms 4 µm apart interact at C6/4⁶ ≈ 1,323 rad/µs, far above Ω: one
// of them is excited at a time, and the pair oscillates between gg and
// the symmetric single excitation at √2·Ω.
func TestBlockadeOscillatesAtRootTwoOmega(t *testing.T) {
	omega := 2 * math.Pi
	for _, T := range []float64{0.2, 0.35, 0.5} {
		p := &rydberg.Program{Atoms: line(2, 4), C6: c6, Duration: T,
			Drives: []rydberg.Drive{drive([]float64{0, T}, omega, omega)}}
		st, err := rydberg.Evolve(context.Background(), p, rydberg.Options{})
		if err != nil {
			t.Fatal(err)
		}
		prob := func(i int) float64 { return math.Pow(cmplx.Abs(st.Amplitude(i)), 2) }
		one := prob(1) + prob(2)
		want := math.Pow(math.Sin(math.Sqrt2*omega*T/2), 2)
		// The blockade is not perfect: corrections of order (Ω/V)².
		if math.Abs(one-want) > 1e-3 || prob(3) > 1e-4 {
			t.Errorf("T=%v: P(one excited) %.6f, want %.6f (√2·Ω); P(rr) %.2g", T, one, want, prob(3))
		}
	}
}

// A stretch with no drive only turns phases: exactly, in one step.
func TestNoDriveTurnsPhasesOnly(t *testing.T) {
	p := &rydberg.Program{Atoms: line(2, 5), C6: c6, Duration: 2,
		Drives:    []rydberg.Drive{drive([]float64{0, 0.5, 0.5, 1.5, 1.5, 2}, 0, math.Pi, 0, 0, math.Pi, 0)},
		Detunings: []rydberg.Detuning{detuning([]float64{0, 2}, -7, 13)}}
	space := rydbergref.Space(p, 0)
	st, err := rydberg.Evolve(context.Background(), p, rydberg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if d := distance(st, p, space, rydbergref.Evolve(p, space)); d > agree {
		t.Errorf("%.3g from the reference", d)
	}
}

// The tests above would catch a wrong interaction or a breakpoint the
// walk steps over: each such mistake moves the state far more than the
// tolerance. Checked here on purpose, by running the mistaken programs.
func TestMistakesAreCaught(t *testing.T) {
	p := referencePrograms()[2].p // the chain under a sweep
	space := rydbergref.Space(p, 0)
	want := rydbergref.Evolve(p, space)
	doubled := *p
	doubled.C6 *= 2
	skipped := *p
	d := p.Drives[0]
	// The ramp up ends at 0.2: drop that point, as a walk that missed
	// the breakpoint would follow one straight line from 0 to 1.8.
	skipped.Drives = []rydberg.Drive{{Times: []float64{0, 1.8, 2}, Values: []complex128{d.Values[0], d.Values[2], d.Values[3]}}}
	for _, tc := range []struct {
		name string
		p    *rydberg.Program
	}{{"C6 doubled", &doubled}, {"a breakpoint skipped", &skipped}} {
		st, err := rydberg.Evolve(context.Background(), tc.p, rydberg.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if d := distance(st, p, space, want); d < 1e3*agree {
			t.Errorf("%s: only %.3g from the reference; the comparison would not catch it", tc.name, d)
		}
	}
}

func TestLimits(t *testing.T) {
	p := &rydberg.Program{Atoms: line(10, 6), C6: c6, Duration: 1,
		Drives: []rydberg.Drive{drive([]float64{0, 1}, 10, 10)}}
	need, err := rydberg.Estimate(p, rydberg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if need.Configurations != 1024 || need.Restricted || need.Bytes < 1024*100 {
		t.Errorf("need %+v", need)
	}
	t.Run("memory", func(t *testing.T) {
		_, err := rydberg.Evolve(context.Background(), p, rydberg.Options{MemoryBudget: int64(need.Bytes) - 1})
		var tl *rydberg.TooLargeError
		if !errors.As(err, &tl) || tl.Need.Configurations != 1024 {
			t.Errorf("err %v, want a TooLargeError for 1024 configurations", err)
		}
	})
	t.Run("work", func(t *testing.T) {
		_, err := rydberg.Evolve(context.Background(), p, rydberg.Options{MaxWork: 100_000})
		if !errors.Is(err, rydberg.ErrWorkLimit) {
			t.Errorf("err %v, want ErrWorkLimit", err)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if _, err := rydberg.Evolve(ctx, p, rydberg.Options{}); !errors.Is(err, context.Canceled) {
			t.Errorf("err %v, want context.Canceled", err)
		}
	})
	t.Run("blockade", func(t *testing.T) {
		// Atoms 6 µm apart within 6.5 µm of their neighbours: no two
		// neighbours both in r, the Fibonacci number F(12) = 144.
		need, err := rydberg.Estimate(p, rydberg.Options{BlockadeRadius: 6.5})
		if err != nil {
			t.Fatal(err)
		}
		if need.Configurations != 144 || !need.Restricted || need.AtLeast {
			t.Errorf("need %+v, want 144 configurations", need)
		}
		// A budget that holds fewer: a small group is still counted
		// whole; a large one, past the budget, only until it does not fit
		// (30 atoms have F(32) = 2,178,309 configurations).
		need, err = rydberg.Estimate(p, rydberg.Options{BlockadeRadius: 6.5, MemoryBudget: 50 * 200})
		if err != nil {
			t.Fatal(err)
		}
		if need.AtLeast || need.Configurations != 144 || need.Bytes <= 50*200 {
			t.Errorf("need %+v, want the 144 configurations counted and past the budget", need)
		}
		long := &rydberg.Program{Atoms: line(30, 6), C6: c6, Duration: 1}
		need, err = rydberg.Estimate(long, rydberg.Options{BlockadeRadius: 6.5, MemoryBudget: 50 * 200})
		if err != nil {
			t.Fatal(err)
		}
		if !need.AtLeast || need.Configurations >= 2178309 {
			t.Errorf("need %+v, want counting stopped", need)
		}
	})
}

// Shots are drawn from |ψ|²: the same seed draws the same shots, and the
// frequencies follow the probabilities.
func TestSample(t *testing.T) {
	p := &rydberg.Program{Atoms: line(1, 0), C6: c6, Duration: 0.25,
		Drives: []rydberg.Drive{drive([]float64{0, 0.25}, 2*math.Pi, 2*math.Pi)}} // P_r = 1/2
	st, err := rydberg.Evolve(context.Background(), p, rydberg.Options{})
	if err != nil {
		t.Fatal(err)
	}
	a, b := st.Sample(10_000, 7), st.Sample(10_000, 7)
	r := 0
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("shot %d: %d then %d with the same seed", i, a[i], b[i])
		}
		if st.Rydberg(a[i], 0) {
			r++
		}
	}
	if math.Abs(float64(r)/10_000-0.5) > 0.02 { // 4 standard deviations
		t.Errorf("%d of 10,000 shots in r, want about half", r)
	}
}
