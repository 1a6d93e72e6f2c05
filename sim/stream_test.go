package sim_test

import (
	"context"
	"errors"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// loop appends body to c run times times in all, counted in the classical
// bits ctr, as qasm keeps a loop: the body once, then ctr += 1, a jump back
// while ctr != times, ctr = 0.
func loop(c *sim.Circuit, ctr []int, times uint64, body ...sim.Op) *sim.Circuit {
	top := len(c.Ops)
	c.Append(body...)
	c.Append(sim.ComputeOp(ctr, sim.Binary(sim.Add, sim.BitsOf(ctr, false), sim.Const(1))))
	c.Append(sim.JumpOp(top).WithIf(sim.RegisterCmp(ctr, sim.Ne, times)))
	c.Append(sim.SetBitsOp(ctr, 0))
	return c
}

func gateOp(name string, params []float64, qubits ...int) sim.Op {
	return sim.GateOp(stdGate(name, params, qubits...))
}

// bitsFrom are the n bits from b on.
func bitsFrom(b, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = b + i
	}
	return out
}

// Which circuits with classical control run once: those whose control
// flow no measured bit steers and whose measurements are terminal, loops
// taken into account.
func TestStaticControlFlow(t *testing.T) {
	ctr := bitsFrom(2, 8)
	tests := []struct {
		name    string
		c       *sim.Circuit
		perShot bool
	}{
		{"a loop, measured after", loop(&sim.Circuit{NumQubits: 2, NumClbits: 10}, ctr, 100, gateOp("h", nil, 0), gateOp("cx", nil, 0, 1)).Measure(0, 0).Measure(1, 1), false},
		{"nothing measured", loop(&sim.Circuit{NumQubits: 2, NumClbits: 10}, ctr, 100, gateOp("h", nil, 0)), false},
		{"a measurement in the loop, the qubit untouched after", loop(&sim.Circuit{NumQubits: 2, NumClbits: 10}, ctr, 100, gateOp("h", nil, 1), sim.MeasureOp(0, 0)), false},
		{"a measurement in the loop, the qubit acted on before it", loop(&sim.Circuit{NumQubits: 2, NumClbits: 10}, ctr, 100, gateOp("h", nil, 0), sim.MeasureOp(0, 0)), true},
		{"a measurement in the loop, the qubit acted on after it", loop(&sim.Circuit{NumQubits: 2, NumClbits: 10}, ctr, 100, sim.MeasureOp(0, 0), gateOp("h", nil, 0)), true},
		{"a condition on a measured bit", loop((&sim.Circuit{NumQubits: 2, NumClbits: 10}).Measure(0, 0), ctr, 100, gateOp("h", nil, 1).WithIf(sim.BitIs(0, true))), true},
		{"a condition on a set bit", loop((&sim.Circuit{NumQubits: 2, NumClbits: 10}).Append(sim.SetBitsOp([]int{0}, 1)), ctr, 100, gateOp("h", nil, 1).WithIf(sim.BitIs(0, true))), false},
		{"a reset", loop(&sim.Circuit{NumQubits: 2, NumClbits: 10}, ctr, 100, gateOp("h", nil, 1), sim.ResetOp(0)), true},
		{"a measured bit computed on", loop(&sim.Circuit{NumQubits: 2, NumClbits: 10}, ctr, 100, gateOp("h", nil, 1)).Measure(0, 0).
			Append(sim.ComputeOp([]int{1}, sim.BitsOf([]int{0}, false))), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.c.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := tt.c.PerShot(); got != tt.perShot {
				t.Fatalf("PerShot() = %v, want %v", got, tt.perShot)
			}
			r := run(t, tt.c, sim.Options{Shots: 50, Seed: seed(3), Method: sim.MethodStateVector})
			if r.PerShot != tt.perShot {
				t.Fatalf("Result.PerShot = %v, want %v", r.PerShot, tt.perShot)
			}
		})
	}
}

// Run once, a loop gives what it gives shot by shot: the state, and counts
// whose bits come from the last measurement or classical write of each.
func TestStreamMatchesPerShot(t *testing.T) {
	ctr := bitsFrom(4, 12)
	c := &sim.Circuit{NumQubits: 2, NumClbits: 16}
	c.Append(sim.SetBitsOp([]int{2}, 1), sim.SetBitsOp([]int{3}, 1))
	loop(c, ctr, 2500, gateOp("ry", []float64{0.001}, 0), gateOp("crx", []float64{0.002}, 0, 1))
	c.Measure(0, 0).Measure(1, 1).Measure(0, 3) // bit 3 measured last: sampled
	c.Append(sim.SetBitsOp([]int{1}, 0))        // bit 1 written last: 0
	if c.PerShot() {
		t.Fatal("the loop runs shot by shot")
	}
	// the same circuit shot by shot: a condition on a measured bit at the
	// end changes nothing
	forced := &sim.Circuit{NumQubits: 2, NumClbits: 16, Ops: append([]sim.Op(nil), c.Ops...)}
	forced.Append(sim.JumpOp(len(forced.Ops) + 1).WithIf(sim.BitIs(0, true)))
	if !forced.PerShot() {
		t.Fatal("the forced circuit runs once")
	}
	opts := sim.Options{Shots: 4000, Seed: seed(5), Method: sim.MethodStateVector, ResultBits: 4}
	a, b := run(t, c, opts), run(t, forced, opts)
	// The state of the loop unrolled; the key's bit 3 and bit 0 are q0,
	// bit 2 is 1, bit 1 is 0 (q1 measured into it, then cleared).
	unrolled := &sim.Circuit{NumQubits: 2}
	for range 2500 {
		unrolled.Append(gateOp("ry", []float64{0.001}, 0), gateOp("crx", []float64{0.002}, 0, 1))
	}
	probs := map[string]float64{}
	for i, p := range simulate(t, unrolled).Probabilities() {
		q0 := byte(i & 1)
		probs[string([]byte{'0' + q0, '1', '0', '0' + q0})] += p
	}
	chiSquared(t, a.Counts, probs, opts.Shots)
	chiSquared(t, b.Counts, probs, opts.Shots)
	if a.PerShot || !b.PerShot {
		t.Fatalf("paths %v and %v, want once then shot by shot", a.PerShot, b.PerShot)
	}
}

// A stream's work is its operations at 64 a step, its fused chunks'
// passes, its sampling; MaxSteps, a shot's bound, does not apply to it.
func TestStreamWork(t *testing.T) {
	ctr := bitsFrom(0, 11)
	c := loop(&sim.Circuit{NumQubits: 1, NumClbits: 11}, ctr, 2000, gateOp("x", nil, 0))
	// 2000 X and 2000 increments and jumps, a reset of the counter, the
	// measurement Run appends: 6002 operations at 64; two chunks of 1,024
	// and 976 X fused into a kernel each, 16 each; sampling 10 shots: a
	// pass of probabilities (16) and a unit a shot
	want := int64(6002*64 + 2*16 + 16 + 10)
	r := run(t, c, sim.Options{Shots: 10, Seed: seed(1), MaxSteps: 100, Method: sim.MethodStateVector})
	if r.PerShot || r.Work != want || r.Counts["0"] != 10 {
		t.Fatalf("per shot %v, work %d, counts %v: want sampled, work %d, 0: 10", r.PerShot, r.Work, r.Counts, want)
	}
	_, err := sim.Run(context.Background(), c, sim.Options{Shots: 10, Seed: seed(1), MaxWork: want - 1, Method: sim.MethodStateVector})
	if !errors.Is(err, sim.ErrWorkLimit) {
		t.Fatalf("a unit short: %v, want ErrWorkLimit", err)
	}
	// Simulate bounds a stream's work as Run does.
	forever := (&sim.Circuit{NumQubits: 1}).Append(gateOp("h", nil, 0), sim.JumpOp(0))
	if _, err := sim.SimulateWith(context.Background(), forever, sim.Options{MaxWork: 10_000}); !errors.Is(err, sim.ErrWorkLimit) {
		t.Fatalf("Simulate of an endless loop: %v, want ErrWorkLimit", err)
	}
}

// Auto runs a Clifford circuit of static loops once on the state vector
// when a pass over its state costs no more than the stabilizer's shots
// would, else on the stabilizer, shot by shot.
func TestStreamMethod(t *testing.T) {
	for _, tt := range []struct {
		qubits, shots int
		want          sim.Method
	}{
		{1, 100, sim.MethodStateVector},
		{10, 100, sim.MethodStateVector},
		{12, 100, sim.MethodStabilizer},
		{12, 1000, sim.MethodStateVector},
		{40, 1_000_000, sim.MethodStabilizer}, // the state vector does not fit
	} {
		c := loop(&sim.Circuit{NumQubits: tt.qubits, NumClbits: 10}, bitsFrom(0, 10), 1000, gateOp("h", nil, 0), gateOp("cx", nil, 0, tt.qubits-1))
		if tt.qubits == 1 {
			c = loop(&sim.Circuit{NumQubits: 1, NumClbits: 10}, bitsFrom(0, 10), 1000, gateOp("h", nil, 0))
		}
		m, reason, err := c.Method(sim.Options{Shots: tt.shots, Limits: sim.Limits{MemoryBudget: 1 << 30}})
		if err != nil || m != tt.want {
			t.Fatalf("%d qubits, %d shots: %s (%s), %v; want %s", tt.qubits, tt.shots, m, reason, err, tt.want)
		}
	}
}
