package sim_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/qjobs/quantum/sim"
)

func seed(v uint64) *uint64 { return &v }

func run(t *testing.T, c *sim.Circuit, opts sim.Options) *sim.Result {
	t.Helper()
	r, err := sim.Run(context.Background(), c, opts)
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range r.Counts {
		total += n
	}
	if total != opts.Shots {
		t.Fatalf("counts add up to %d, want %d shots", total, opts.Shots)
	}
	return r
}

// chiSquared checks counts against exact probabilities. With a fixed seed
// the outcome is deterministic; the 0.999 quantile only says the seed was
// not chosen to pass.
func chiSquared(t *testing.T, counts map[string]int, probs map[string]float64, shots int) {
	t.Helper()
	var x2 float64
	df := -1
	for k, p := range probs {
		if p == 0 {
			if counts[k] != 0 {
				t.Fatalf("outcome %s of probability 0 seen %d times", k, counts[k])
			}
			continue
		}
		df++
		e := p * float64(shots)
		d := float64(counts[k]) - e
		x2 += d * d / e
	}
	for k, n := range counts {
		if _, ok := probs[k]; !ok {
			t.Fatalf("unexpected outcome %q (%d times)", k, n)
		}
	}
	if df < 1 {
		return
	}
	limit := distuv.ChiSquared{K: float64(df)}.Quantile(0.999)
	if x2 > limit {
		t.Fatalf("chi-squared %.2f over %d degrees of freedom exceeds %.2f\ncounts %v\nprobs  %v", x2, df, limit, counts, probs)
	}
}

// skewed is a 3-qubit circuit with 8 distinct outcome probabilities,
// measured into bits in reverse order (qubit q into bit 2−q).
func skewed(t *testing.T) (*sim.Circuit, map[string]float64) {
	c := &sim.Circuit{NumQubits: 3, NumClbits: 3}
	c.Apply(gate(t, "ry", []float64{0.7}, 0))
	c.Apply(gate(t, "ry", []float64{1.9}, 1))
	c.Apply(gate(t, "cry", []float64{2.5}, 1, 2))
	c.Apply(gate(t, "crx", []float64{1.1}, 0, 2))
	s := simulate(t, c)
	probs := map[string]float64{}
	for i, p := range s.Probabilities() {
		// bit b holds qubit 2−b; key is bit 2 … bit 0.
		key := fmt.Sprintf("%d%d%d", i&1, i>>1&1, i>>2&1)
		probs[key] = p
	}
	for q := range 3 {
		c.Measure(q, 2-q)
	}
	return c, probs
}

func TestSampledCountsMatchProbabilities(t *testing.T) {
	c, probs := skewed(t)
	r := run(t, c, sim.Options{Shots: 200_000, Seed: seed(42)})
	if r.PerShot {
		t.Fatal("terminal measurements ran per shot")
	}
	chiSquared(t, r.Counts, probs, 200_000)
}

func TestPerShotAndSampledPathsAgree(t *testing.T) {
	c, probs := skewed(t)
	// A condition on a measured bit that changes nothing forces the
	// per-shot path.
	forced := &sim.Circuit{NumQubits: 3, NumClbits: 3}
	forced.Append(forcePerShot(0))
	forced.Append(c.Ops...)
	const shots = 20_000
	a := run(t, c, sim.Options{Shots: shots, Seed: seed(1)})
	b := run(t, forced, sim.Options{Shots: shots, Seed: seed(2)})
	if a.PerShot || !b.PerShot {
		t.Fatalf("paths: %v and %v, want sampled then per-shot", a.PerShot, b.PerShot)
	}
	chiSquared(t, a.Counts, probs, shots)
	chiSquared(t, b.Counts, probs, shots)
}

func TestCountsKeys(t *testing.T) {
	// x on qubit 0 measured into bit 2 of 4: key "0100" (bit 0 rightmost).
	c := &sim.Circuit{NumQubits: 2, NumClbits: 4}
	c.Apply(gate(t, "x", nil, 0)).Measure(0, 2).Measure(1, 0)
	r := run(t, c, sim.Options{Shots: 10})
	if r.Counts["0100"] != 10 || len(r.Counts) != 1 {
		t.Fatalf("counts %v, want 0100: 10", r.Counts)
	}
}

func TestNoMeasurementMeasuresEveryQubit(t *testing.T) {
	c := &sim.Circuit{NumQubits: 3, NumClbits: 5}
	c.Apply(gate(t, "x", nil, 0)).Apply(gate(t, "h", nil, 2))
	r := run(t, c, sim.Options{Shots: 4000, Seed: seed(3)})
	chiSquared(t, r.Counts, map[string]float64{"001": 0.5, "101": 0.5}, 4000)
}

func TestSeeds(t *testing.T) {
	c, _ := skewed(t)
	a := run(t, c, sim.Options{Shots: 1000, Seed: seed(7)})
	b := run(t, c, sim.Options{Shots: 1000, Seed: seed(7)})
	if fmt.Sprint(a.Counts) != fmt.Sprint(b.Counts) || a.Seed != 7 {
		t.Fatalf("same seed, different counts: %v and %v", a.Counts, b.Counts)
	}
	fresh := run(t, c, sim.Options{Shots: 1000})
	again := run(t, c, sim.Options{Shots: 1000, Seed: seed(fresh.Seed)})
	if fmt.Sprint(fresh.Counts) != fmt.Sprint(again.Counts) {
		t.Fatalf("reported seed %d does not reproduce the counts", fresh.Seed)
	}
}

func TestTeleportation(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 25 {
		th, ph, la := rng.Float64()*math.Pi, rng.Float64()*2*math.Pi, rng.Float64()*2*math.Pi
		c := &sim.Circuit{NumQubits: 3, NumClbits: 2}
		c.Apply(sim.Gate{Name: "u", Matrix: sim.U3(th, ph, la), Targets: []int{0}})
		c.Apply(gate(t, "h", nil, 1)).Apply(gate(t, "cx", nil, 1, 2))
		c.Apply(gate(t, "cx", nil, 0, 1)).Apply(gate(t, "h", nil, 0))
		c.Measure(0, 0).Measure(1, 1)
		c.If(sim.BitIs(1, true), sim.GateOp(gate(t, "x", nil, 2)))
		c.If(sim.BitIs(0, true), sim.GateOp(gate(t, "z", nil, 2)))

		s, _ := sim.NewState(3, sim.Limits{})
		if _, err := s.Execute(context.Background(), c, rng, 0); err != nil {
			t.Fatal(err)
		}
		want := math.Pow(math.Sin(th/2), 2)
		if got := s.QubitProbability(2); math.Abs(got-want) > 1e-12 {
			t.Fatalf("trial %d: P(q2=1) = %v, want %v", trial, got, want)
		}
		// Undoing the preparation on qubit 2 must give |0⟩ exactly: the
		// phases arrived too.
		if err := s.ApplyGate(sim.Gate{Name: "u†", Matrix: sim.Dagger(sim.U3(th, ph, la)), Targets: []int{2}}); err != nil {
			t.Fatal(err)
		}
		if p := s.QubitProbability(2); p > 1e-12 {
			t.Fatalf("trial %d: teleported state is off: P(1) after inverse = %g", trial, p)
		}
	}
}

func TestReset(t *testing.T) {
	c := &sim.Circuit{NumQubits: 2, NumClbits: 2}
	c.Apply(gate(t, "h", nil, 0)).Apply(gate(t, "cx", nil, 0, 1)).Reset(0).Measure(0, 0).Measure(1, 1)
	r := run(t, c, sim.Options{Shots: 4000, Seed: seed(5), Method: sim.MethodStateVector}) // auto: the stabilizer
	if !r.PerShot {
		t.Fatal("reset did not run per shot")
	}
	// Qubit 0 is always 0 after reset; qubit 1 keeps its 50/50.
	chiSquared(t, r.Counts, map[string]float64{"00": 0.5, "10": 0.5}, 4000)
}

func TestConditions(t *testing.T) {
	tests := []struct {
		name string
		cond *sim.Condition
		want string // the key of bits 3..0; bits 0,1 = 1,0 are measured first
	}{
		{"bit true", sim.BitIs(0, true), "0101"},
		{"bit false", sim.BitIs(1, true), "0001"},
		{"register ==", sim.RegisterCmp([]int{0, 1}, sim.Eq, 1), "0101"},
		{"register !=", sim.RegisterCmp([]int{0, 1}, sim.Ne, 1), "0001"},
		{"register <", sim.RegisterCmp([]int{0, 1}, sim.Lt, 2), "0101"},
		{"register >=", sim.RegisterCmp([]int{0, 1}, sim.Ge, 2), "0001"},
		{"not", sim.Not(sim.BitIs(1, true)), "0101"},
		{"and", sim.And(sim.BitIs(0, true), sim.BitIs(1, true)), "0001"},
		{"or", sim.Or(sim.BitIs(0, true), sim.BitIs(1, true)), "0101"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &sim.Circuit{NumQubits: 3, NumClbits: 4}
			c.Apply(gate(t, "x", nil, 0)).Measure(0, 0).Measure(1, 1)
			c.If(tc.cond, sim.GateOp(gate(t, "x", nil, 2)))
			c.Measure(2, 2)
			r := run(t, c, sim.Options{Shots: 20})
			if r.Counts[tc.want] != 20 {
				t.Fatalf("counts %v, want %s: 20", r.Counts, tc.want)
			}
		})
	}
}

// Repeat until success: h; measure; loop while the outcome is 0. Every shot
// ends with 1, and the number of rounds is geometric.
func TestWhileLoopWithJumps(t *testing.T) {
	c := &sim.Circuit{NumQubits: 2, NumClbits: 2}
	c.Reset(0)                                                  // 0
	c.Apply(gate(t, "h", nil, 0))                               // 1
	c.Measure(0, 0)                                             // 2
	c.If(sim.BitIs(0, false), sim.JumpOp(0))                    // 3
	c.If(sim.BitIs(1, false), sim.GateOp(gate(t, "x", nil, 1))) // 4
	c.Measure(1, 1)                                             // 5
	r := run(t, c, sim.Options{Shots: 500, Seed: seed(8)})
	if r.Counts["11"] != 500 {
		t.Fatalf("counts %v, want 11: 500", r.Counts)
	}

	// An endless loop on a measured bit (which reads 0 forever) meets
	// the shot's step limit; one that no measurement steers runs once, and
	// meets the work bound.
	forever := &sim.Circuit{NumQubits: 1, NumClbits: 1}
	forever.Measure(0, 0).Append(sim.JumpOp(0).WithIf(sim.BitIs(0, false)))
	_, err := sim.Run(context.Background(), forever, sim.Options{Shots: 1, MaxSteps: 1000})
	if !errors.Is(err, sim.ErrStepLimit) {
		t.Fatalf("endless loop: %v, want ErrStepLimit", err)
	}
	static := &sim.Circuit{NumQubits: 1}
	static.Append(sim.JumpOp(0))
	_, err = sim.Run(context.Background(), static, sim.Options{Shots: 1, MaxSteps: 1000, MaxWork: 100_000, Method: sim.MethodStateVector})
	if !errors.Is(err, sim.ErrWorkLimit) {
		t.Fatalf("endless static loop: %v, want ErrWorkLimit", err)
	}
}

func TestSetBits(t *testing.T) {
	c := &sim.Circuit{NumQubits: 1, NumClbits: 3}
	c.Append(sim.SetBitsOp([]int{0, 2}, 0b11))
	c.Measure(0, 1)
	r := run(t, c, sim.Options{Shots: 3})
	if r.Counts["101"] != 3 {
		t.Fatalf("counts %v, want 101: 3", r.Counts)
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	c := &sim.Circuit{NumQubits: 4, NumClbits: 1}
	c.Apply(gate(t, "h", nil, 0)).Measure(0, 0)
	if _, err := sim.Run(ctx, c, sim.Options{Shots: 10}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled run: %v", err)
	}

	// A long per-shot run stops soon after the cancel.
	long := &sim.Circuit{NumQubits: 12, NumClbits: 1}
	for q := range 12 {
		long.Apply(gate(t, "h", nil, q))
	}
	long.Measure(0, 0).Reset(0)
	for q := range 12 {
		long.Apply(gate(t, "h", nil, q))
	}
	ctx, cancel = context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := sim.Run(ctx, long, sim.Options{Shots: 100_000_000})
		done <- err
	}()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("cancelled per-shot run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not stop within 10s of its cancel")
	}
}

func TestShotsMustBePositive(t *testing.T) {
	c := &sim.Circuit{NumQubits: 1}
	if _, err := sim.Run(context.Background(), c, sim.Options{}); !errors.Is(err, sim.ErrInvalidCircuit) {
		t.Fatalf("0 shots: %v", err)
	}
}

// Conditions on declared bits still work when nothing is measured, and the
// counts are keyed by the qubits alone.
func TestNoMeasurementWithConditions(t *testing.T) {
	c := &sim.Circuit{NumQubits: 2, NumClbits: 6}
	c.Append(sim.SetBitsOp([]int{5}, 1))
	c.If(sim.BitIs(5, true), sim.GateOp(gate(t, "x", nil, 1)))
	r := run(t, c, sim.Options{Shots: 10})
	if r.Counts["10"] != 10 || len(r.Counts) != 1 {
		t.Fatalf("counts %v, want 10: 10", r.Counts)
	}
}

// A loop whose body starts with a plain gate: the jump leads back to an
// operation the shots would otherwise share.
func TestLoopBackToLeadingGate(t *testing.T) {
	c := &sim.Circuit{NumQubits: 1, NumClbits: 1}
	c.Apply(gate(t, "h", nil, 0))            // 0
	c.Measure(0, 0)                          // 1
	c.If(sim.BitIs(0, true), sim.ResetOp(0)) // 2
	c.If(sim.BitIs(0, true), sim.JumpOp(0))  // 3: until a 0 is measured
	r := run(t, c, sim.Options{Shots: 300, Seed: seed(12)})
	if r.Counts["0"] != 300 {
		t.Fatalf("counts %v, want 0: 300", r.Counts)
	}
	s, _ := sim.NewState(1, sim.Limits{})
	if _, err := s.Execute(context.Background(), c, rand.New(rand.NewPCG(1, 2)), 0); err != nil {
		t.Fatal(err)
	}
}

func TestResultBits(t *testing.T) {
	c := &sim.Circuit{NumQubits: 2, NumClbits: 4}
	c.Apply(gate(t, "x", nil, 1)).Measure(0, 0).Measure(1, 1).Measure(1, 3)
	for _, perShot := range []bool{false, true} {
		cc := *c
		if perShot {
			cc.Ops = append([]sim.Op{forcePerShot(0)}, c.Ops...)
		}
		r := run(t, &cc, sim.Options{Shots: 5, ResultBits: 2})
		if r.PerShot != perShot || r.Counts["10"] != 5 || len(r.Counts) != 1 {
			t.Fatalf("per shot %v: counts %v, want 10: 5", r.PerShot, r.Counts)
		}
	}
}
