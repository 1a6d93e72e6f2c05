package anneal_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"testing"

	"github.com/qjobs/quantum/anneal"
)

func solve(t *testing.T, p *anneal.Problem, o anneal.Options) *anneal.Result {
	t.Helper()
	res, err := anneal.Solve(context.Background(), p, o)
	if err != nil {
		t.Fatalf("Solve: %v", err)
	}
	return res
}

// checkResult checks what every result promises: distinct solutions,
// lowest energy first, each energy that of its values, occurrences adding
// up to the reads.
func checkResult(t *testing.T, p *anneal.Problem, res *anneal.Result, reads int) {
	t.Helper()
	total := 0
	for i, s := range res.Solutions {
		if e := p.Energy(s.Values); e != s.Energy {
			t.Fatalf("solution %d: energy %v, its values' %v", i, s.Energy, e)
		}
		if i > 0 && s.Energy < res.Solutions[i-1].Energy {
			t.Fatalf("solution %d (%v) after a higher one (%v)", i, s.Energy, res.Solutions[i-1].Energy)
		}
		for j := range i {
			if slices.Equal(s.Values, res.Solutions[j].Values) {
				t.Fatalf("solutions %d and %d are one assignment", j, i)
			}
		}
		for _, v := range s.Values {
			if p.Kind == anneal.QUBO && v != 0 && v != 1 || p.Kind == anneal.Ising && v != -1 && v != 1 {
				t.Fatalf("solution %d holds %d in a %v problem", i, v, p.Kind)
			}
		}
		total += s.Occurrences
	}
	if total != reads {
		t.Fatalf("occurrences add up to %d, not the %d reads", total, reads)
	}
}

// At the default sweeps and schedule, 20 reads find the ground energy of
// random problems up to 20 variables, dense and sparse, with integer
// coefficients (ties, degenerate ground states) and real ones (gaps of a
// hundredth, where a single read can settle in the next-lowest state).
func TestAnnealFindsGroundEnergies(t *testing.T) {
	for n := 1; n <= 20; n++ {
		for _, c := range []struct {
			kind    anneal.Kind
			density float64
			scale   int
		}{{anneal.QUBO, 0.5, 3}, {anneal.Ising, 0.3, 0}, {anneal.QUBO, 1, 0}, {anneal.Ising, 0.2, 2}} {
			p := randomProblem(t, c.kind, n, c.density, c.scale, uint64(n)*7+uint64(c.scale))
			want, _ := bruteForce(t, p)
			res := solve(t, p, anneal.Options{Reads: 20, Seed: uint64(n)})
			checkResult(t, p, res, 20)
			if got := res.Solutions[0].Energy; got > want+1e-9 {
				t.Errorf("%v, %d variables, density %v: lowest energy %v, brute force %v", c.kind, n, c.density, got, want)
			}
			if res.Sweeps != anneal.DefaultSweeps || res.BetaRange != anneal.DefaultBetaRange(p) {
				t.Fatalf("ran %d sweeps over %v, not the defaults", res.Sweeps, res.BetaRange)
			}
		}
	}
}

// Exact returns every ground state, and only those, as brute force finds
// them, whatever the ties.
func TestExactReturnsEveryGroundState(t *testing.T) {
	for _, c := range []struct {
		kind    anneal.Kind
		n       int
		density float64
		scale   int
	}{
		{anneal.QUBO, 1, 1, 1}, {anneal.QUBO, 6, 0.5, 1}, {anneal.Ising, 8, 0.6, 1}, {anneal.Ising, 12, 0.3, 0},
		{anneal.QUBO, 16, 0.4, 2}, {anneal.Ising, 18, 0.2, 1}, {anneal.QUBO, 20, 0.15, 3},
	} {
		p := randomProblem(t, c.kind, c.n, c.density, c.scale, uint64(c.n))
		want, all := bruteForce(t, p)
		res := solve(t, p, anneal.Options{Method: anneal.Exact})
		checkResult(t, p, res, len(res.Solutions))
		if len(res.Solutions) != len(all) || res.Truncated {
			t.Fatalf("%v of %d: %d ground states (truncated %v), brute force %d", c.kind, c.n, len(res.Solutions), res.Truncated, len(all))
		}
		slices.SortFunc(all, slices.Compare)
		for i, s := range res.Solutions {
			if !slices.Equal(s.Values, all[i]) || math.Abs(s.Energy-want) > 1e-9 {
				t.Fatalf("%v of %d: ground state %d is %v (%v), brute force %v (%v)", c.kind, c.n, i, s.Values, s.Energy, all[i], want)
			}
		}
	}
}

// A problem whose every assignment is a ground state: Exact returns the
// first MaxSolutions and says there are more.
func TestExactSaysWhenItCutsGroundStates(t *testing.T) {
	p, err := anneal.New(anneal.QUBO, map[string]float64{"a": 0, "b": 0, "c": 0, "d": 0}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res := solve(t, p, anneal.Options{Method: anneal.Exact, MaxSolutions: 5})
	if len(res.Solutions) != 5 || !res.Truncated {
		t.Fatalf("%d solutions, truncated %v; want 5 of 16, truncated", len(res.Solutions), res.Truncated)
	}
	res = solve(t, p, anneal.Options{Method: anneal.Exact})
	if len(res.Solutions) != 16 || res.Truncated {
		t.Fatalf("%d solutions, truncated %v; want all 16", len(res.Solutions), res.Truncated)
	}
}

// One problem as an Ising problem and as the QUBO that s = 2x − 1 makes of
// it: the same ground states, energies apart by the change's constant.
func TestQUBOAndIsingFormsAgree(t *testing.T) {
	ising := randomProblem(t, anneal.Ising, 14, 0.4, 2, 5)
	linear := map[string]float64{}
	quadratic := map[[2]string]float64{}
	constant := 0.0
	for i, h := range ising.Linear {
		linear[ising.Names[i]] += 2 * h
		constant -= h
	}
	for _, c := range ising.Couplings {
		u, v := ising.Names[c.U], ising.Names[c.V]
		quadratic[[2]string{u, v}] = 4 * c.C
		linear[u] -= 2 * c.C
		linear[v] -= 2 * c.C
		constant += c.C
	}
	qubo, err := anneal.New(anneal.QUBO, linear, quadratic)
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []anneal.Method{anneal.Exact, anneal.SimulatedAnnealing} {
		a := solve(t, ising, anneal.Options{Method: method, Reads: 20, Seed: 3})
		b := solve(t, qubo, anneal.Options{Method: method, Reads: 20, Seed: 3})
		if math.Abs(a.Solutions[0].Energy-(b.Solutions[0].Energy+constant)) > 1e-9 {
			t.Fatalf("method %d: Ising ground %v, QUBO ground %v + %v", method, a.Solutions[0].Energy, b.Solutions[0].Energy, constant)
		}
		spins := slices.Clone(b.Solutions[0].Values)
		for i := range spins {
			spins[i] = 2*spins[i] - 1
		}
		if ising.Energy(spins) != a.Solutions[0].Energy && method == anneal.Exact {
			t.Fatalf("the QUBO's ground state as spins has energy %v, not %v", ising.Energy(spins), a.Solutions[0].Energy)
		}
	}
	// The default β range is the one of the problem in spins, so the two
	// forms anneal over the same temperatures.
	if ra, rb := anneal.DefaultBetaRange(ising), anneal.DefaultBetaRange(qubo); math.Abs(ra[0]-rb[0]) > 1e-12 || math.Abs(ra[1]-rb[1]) > 1e-9 {
		t.Fatalf("β ranges %v and %v", ra, rb)
	}
}

// Planted frustrated-loop instances of 1,000 spins: at the default settings
// (one read, 1,000 sweeps, the default schedule), at least 9 seeds of 10
// reach the planted ground energy.
func TestAnnealReachesPlantedGroundEnergy(t *testing.T) {
	for _, loops := range []int{200, 300} {
		p, ground := planted(t, 1000, loops, uint64(loops))
		reached := 0
		for seed := range uint64(10) {
			res := solve(t, p, anneal.Options{Seed: seed})
			checkResult(t, p, res, 1)
			if e := res.Solutions[0].Energy; e < ground-1e-9 {
				t.Fatalf("energy %v below the planted ground %v", e, ground)
			} else if e <= ground+1e-9 {
				reached++
			}
		}
		if reached < 9 {
			t.Errorf("%d loops: %d seeds of 10 reached the ground energy %v", loops, reached, ground)
		}
	}
}

// A seed gives the same solutions whatever the workers; another seed other
// reads.
func TestSeedRepeats(t *testing.T) {
	p := randomProblem(t, anneal.Ising, 200, 0.05, 0, 9)
	base := solve(t, p, anneal.Options{Reads: 16, Sweeps: 50, Seed: 42, Workers: 1})
	checkResult(t, p, base, 16)
	for _, workers := range []int{1, 2, 5} {
		again := solve(t, p, anneal.Options{Reads: 16, Sweeps: 50, Seed: 42, Workers: workers})
		if !reflect.DeepEqual(again.Solutions, base.Solutions) {
			t.Fatalf("seed 42 on %d workers gave other solutions", workers)
		}
	}
	other := solve(t, p, anneal.Options{Reads: 16, Sweeps: 50, Seed: 43})
	if reflect.DeepEqual(other.Solutions, base.Solutions) {
		t.Fatal("seeds 42 and 43 gave the same 16 reads of 50 sweeps on 200 spins")
	}
}

// The default β range is dwave-samplers': worked by hand for an Ising
// problem with h = {a: 1}, J = {ab: −2, bc: 0.5}: the largest field is a's
// 1 + 2 = 3 (hot β ln 2 / 6); the least bias 0.5 is b's and c's (cold
// β ln(2/0.01) / (2·0.5)).
func TestDefaultBetaRange(t *testing.T) {
	p, err := anneal.New(anneal.Ising, map[string]float64{"a": 1}, map[[2]string]float64{{"a", "b"}: -2, {"b", "c"}: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	got := anneal.DefaultBetaRange(p)
	if want := [2]float64{math.Ln2 / 6, math.Log(200)}; math.Abs(got[0]-want[0]) > 1e-15 || math.Abs(got[1]-want[1]) > 1e-12 {
		t.Fatalf("range %v, want %v", got, want)
	}
	zero, _ := anneal.New(anneal.QUBO, map[string]float64{"a": 0}, nil)
	if got := anneal.DefaultBetaRange(zero); got != [2]float64{0.1, 1} {
		t.Fatalf("all biases zero: %v, want [0.1 1]", got)
	}
	// A QUBO's range is its spins': x_a·x_b with coefficient 4 is
	// J_ab = 1, h_a = h_b = 1: fields 2, least bias 1 on both.
	q, _ := anneal.New(anneal.QUBO, nil, map[[2]string]float64{{"a", "b"}: 4})
	if got, want := anneal.DefaultBetaRange(q), [2]float64{math.Ln2 / 4, math.Log(200) / 2}; math.Abs(got[0]-want[0]) > 1e-15 || math.Abs(got[1]-want[1]) > 1e-12 {
		t.Fatalf("QUBO range %v, want %v", got, want)
	}
}

// A schedule's first and last β are the range's, whatever its type; a
// range of one sweep runs it at the cold end.
func TestSchedulesAndOptions(t *testing.T) {
	p := randomProblem(t, anneal.QUBO, 10, 0.5, 2, 1)
	for _, o := range []anneal.Options{
		{Schedule: anneal.Linear, BetaRange: &[2]float64{0, 5}},
		{Schedule: anneal.Geometric, BetaRange: &[2]float64{0.01, 10}, Sweeps: 1},
		{Sweeps: 7, Reads: 3},
	} {
		res := solve(t, p, o)
		checkResult(t, p, res, max(o.Reads, 1))
		if o.BetaRange != nil && res.BetaRange != *o.BetaRange {
			t.Fatalf("ran over %v, asked %v", res.BetaRange, *o.BetaRange)
		}
	}
	// Biases so small that the default range is not finite: a range of
	// one's own is needed.
	tiny, _ := anneal.New(anneal.Ising, map[string]float64{"a": 1e-320}, nil)
	if _, err := anneal.Solve(context.Background(), tiny, anneal.Options{}); !errors.Is(err, anneal.ErrOptions) {
		t.Errorf("a bias of 1e-320: %v, want %v", err, anneal.ErrOptions)
	}
	solve(t, tiny, anneal.Options{BetaRange: &[2]float64{0.1, 10}})
	for _, c := range []struct {
		o    anneal.Options
		want error
	}{
		{anneal.Options{BetaRange: &[2]float64{0, 1}}, anneal.ErrOptions}, // geometric from 0
		{anneal.Options{BetaRange: &[2]float64{-1, 1}, Schedule: anneal.Linear}, anneal.ErrOptions},
		{anneal.Options{BetaRange: &[2]float64{1, math.Inf(1)}}, anneal.ErrOptions},
		{anneal.Options{Reads: -1}, anneal.ErrOptions},
		{anneal.Options{Schedule: 9}, anneal.ErrOptions},
	} {
		if _, err := anneal.Solve(context.Background(), p, c.o); !errors.Is(err, c.want) {
			t.Errorf("%+v: %v, want %v", c.o, err, c.want)
		}
	}
}

// Work and memory are known before the run, and a run past its bounds is
// refused before it allocates anything.
func TestBounds(t *testing.T) {
	p := randomProblem(t, anneal.Ising, 100, 0.1, 0, 2)
	mem, work := anneal.Need(p, anneal.Options{Reads: 3, Sweeps: 10, Workers: 1})
	if want := int64(3 * 10 * (100 + len(p.Couplings))); work != want {
		t.Fatalf("work %d, want reads × sweeps × (variables + couplings) = %d", work, want)
	}
	res := solve(t, p, anneal.Options{Reads: 3, Sweeps: 10, Workers: 1, MaxWork: work, MemoryBudget: mem})
	if res.Work != work || res.Memory != mem {
		t.Fatalf("did %d work holding %d, said %d and %d", res.Work, res.Memory, work, mem)
	}
	for _, c := range []struct {
		o    anneal.Options
		want error
	}{
		{anneal.Options{Reads: 3, Sweeps: 10, Workers: 1, MaxWork: work - 1}, anneal.ErrWorkLimit},
		{anneal.Options{Reads: 3, Sweeps: 10, Workers: 1, MemoryBudget: mem - 1}, anneal.ErrMemoryBudget},
		{anneal.Options{Method: anneal.Exact}, anneal.ErrTooManyVariables},
	} {
		if _, err := anneal.Solve(context.Background(), p, c.o); !errors.Is(err, c.want) {
			t.Errorf("%+v: %v, want %v", c.o, err, c.want)
		}
	}
	// Exact's work is its Gray code's: 2^n − 1 flips and their rows.
	small := randomProblem(t, anneal.QUBO, 12, 0.3, 1, 4)
	_, exactWork := anneal.Need(small, anneal.Options{Method: anneal.Exact})
	if exactWork < 1<<12 || exactWork > (1<<12)*int64(1+2*len(small.Couplings)) {
		t.Fatalf("exact work %d for 12 variables and %d couplings", exactWork, len(small.Couplings))
	}
	if _, err := anneal.Solve(context.Background(), small, anneal.Options{Method: anneal.Exact, MaxWork: exactWork - 1}); !errors.Is(err, anneal.ErrWorkLimit) {
		t.Fatalf("exact past its bound: %v", err)
	}
	// The largest problem a job may send, 100,000 variables and 1,000,000
	// couplings, is sized without being built.
	big := &anneal.Problem{Kind: anneal.Ising, Names: make([]string, anneal.MaxVariables), Linear: make([]float64, anneal.MaxVariables),
		Couplings: make([]anneal.Coupling, anneal.MaxCouplings)}
	bigMem, bigWork := anneal.Need(big, anneal.Options{Workers: 2})
	if bigMem < 24<<20 || bigMem > 64<<20 || bigWork != 1000*(anneal.MaxVariables+anneal.MaxCouplings) {
		t.Fatalf("the largest problem needs %d bytes and %d work", bigMem, bigWork)
	}
}

// A run stops with its context's error.
func TestCancel(t *testing.T) {
	p := randomProblem(t, anneal.Ising, 18, 0.5, 0, 3)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, o := range []anneal.Options{{Reads: 1000, Sweeps: 100000}, {Method: anneal.Exact}} {
		if _, err := anneal.Solve(ctx, p, o); !errors.Is(err, context.Canceled) {
			t.Fatalf("method %d, cancelled: %v", o.Method, err)
		}
	}
}
