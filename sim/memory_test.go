package sim_test

import (
	"context"
	"math"
	"runtime"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// allocated returns the bytes f allocates (freed or not).
func allocated(t *testing.T, f func()) int64 {
	t.Helper()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc - before.TotalAlloc)
}

// MemoryNeed is an upper bound of what Run allocates, on both paths, with
// and without a copy of the shared state, with many outcomes and wide keys.
// The slack is for what MemoryNeed leaves out: what grows with the
// circuit's length (these circuits are short).
func TestMemoryNeedBoundsRun(t *testing.T) {
	// Per shot, no shared gate: each shot starts from |0…0⟩, no copy.
	noPrefix := &sim.Circuit{NumQubits: 18, NumClbits: 2}
	noPrefix.Reset(0).Apply(stdGate("h", nil, 17)).Measure(17, 0).Apply(stdGate("h", nil, 3)).Measure(3, 1)
	noMeasure := &sim.Circuit{NumQubits: 16}
	noMeasure.Append(hadamards(16, 16, false).Ops[:16]...)

	// A loop run once: 2,500 gates executed in chunks of 1,024, from a
	// circuit of 7 operations.
	looped := loop(&sim.Circuit{NumQubits: 16, NumClbits: 26}, bitsFrom(16, 10), 500,
		gateOp("h", nil, 0), gateOp("rx", []float64{0.1}, 5), gateOp("cx", nil, 5, 15), gateOp("rz", []float64{0.2}, 15), gateOp("t", nil, 3))
	for q := range 16 {
		looped.Measure(q, q)
	}

	const state18 = 16 << 18
	tests := []struct {
		name    string
		c       *sim.Circuit
		opts    sim.Options
		perShot bool
		atMost  int64 // when above 0, MemoryNeed must not exceed it
	}{
		{"sampled, 20 qubits", hadamards(20, 20, false), sim.Options{Shots: 1000}, false, 0},
		{"sampled, single precision", hadamards(20, 20, false), sim.Options{Shots: 1000, Precision: sim.Single}, false, 0},
		{"sampled, every outcome", hadamards(14, 14, false), sim.Options{Shots: 1_000_000}, false, 0},
		{"sampled, no measurement", noMeasure, sim.Options{Shots: 200_000}, false, 0},
		{"per shot, shared prefix", hadamards(16, 17, true), sim.Options{Shots: 30}, true, 0},
		{"per shot, no prefix", noPrefix, sim.Options{Shots: 20}, true, state18 + state18/4},
		{"per shot, many outcomes", coinFlips(14, 14), sim.Options{Shots: 30_000}, true, 0},
		{"per shot, 4096-bit keys", coinFlips(12, 4096), sim.Options{Shots: 5000}, true, 0},
		{"a loop run once", looped, sim.Options{Shots: 1000}, false, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.c.PerShot(); got != tc.perShot {
				t.Fatalf("PerShot() = %v, want %v", got, tc.perShot)
			}
			tc.opts.Seed = seed(4)
			tc.opts.Method = sim.MethodStateVector // these Clifford circuits would run on the stabilizer
			need := sim.MemoryNeed(tc.c, tc.opts)
			var res *sim.Result
			used := allocated(t, func() {
				var err error
				if res, err = sim.Run(context.Background(), tc.c, tc.opts); err != nil {
					t.Fatal(err)
				}
			})
			if res.PerShot != tc.perShot {
				t.Fatalf("Result.PerShot = %v, want %v", res.PerShot, tc.perShot)
			}
			slack := int64(2 << 10 * len(tc.c.Ops))
			t.Logf("MemoryNeed %d, allocated %d, %d outcomes", need, used, len(res.Counts))
			if used > need+slack {
				t.Fatalf("Run allocated %d bytes, more than MemoryNeed %d + %d", used, need, slack)
			}
			if tc.atMost > 0 && need > tc.atMost {
				t.Fatalf("MemoryNeed %d, want at most %d", need, tc.atMost)
			}
		})
	}
}

// MemoryNeed never overflows or panics, whatever the circuit and options.
func TestMemoryNeedExtremes(t *testing.T) {
	perShot := func(n, clbits int) *sim.Circuit {
		c := &sim.Circuit{NumQubits: n, NumClbits: clbits}
		c.Apply(stdGate("h", nil, 0)).Reset(0)
		if clbits > 0 {
			c.Measure(0, clbits-1)
		}
		return c
	}
	tests := []struct {
		name string
		c    *sim.Circuit
		opts sim.Options
		want int64 // 0: any value in (0, MaxInt64]
	}{
		{"too many qubits", &sim.Circuit{NumQubits: 1000}, sim.Options{Shots: 1, Method: sim.MethodStateVector}, math.MaxInt64},
		{"a stabilizer of 1000 qubits", &sim.Circuit{NumQubits: 1000}, sim.Options{Shots: 1}, 0},
		{"too many for the stabilizer", &sim.Circuit{NumQubits: sim.MaxStabilizerQubits + 1}, sim.Options{Shots: 1}, math.MaxInt64},
		{"negative qubits", &sim.Circuit{NumQubits: -1}, sim.Options{Shots: 1}, math.MaxInt64},
		{"too many bits", &sim.Circuit{NumQubits: 1, NumClbits: sim.MaxClbits + 1}, sim.Options{Shots: 1}, math.MaxInt64},
		{"58 qubits per shot", perShot(58, 1), sim.Options{Shots: 1, Method: sim.MethodStateVector}, math.MaxInt64},
		{"shots at the limit of int", perShot(2, 65536), sim.Options{Shots: math.MaxInt}, 0},
		{"negative shots", perShot(2, 2), sim.Options{Shots: -5}, 0},
		{"every option at its extreme", perShot(20, sim.MaxClbits), sim.Options{Shots: math.MaxInt, MaxResultBytes: math.MaxInt64,
			MaxWork: math.MaxInt64, MaxSteps: math.MaxInt, FusionWidth: math.MaxInt, Workers: math.MaxInt, ResultBits: math.MaxInt}, 0},
		{"an invalid circuit", &sim.Circuit{NumQubits: 2, Ops: []sim.Op{sim.MeasureOp(7, 0), sim.JumpOp(-3)}}, sim.Options{Shots: 1}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := sim.MemoryNeed(tc.c, tc.opts)
			if got <= 0 || tc.want != 0 && got != tc.want {
				t.Fatalf("MemoryNeed = %d, want %d (0: any positive)", got, tc.want)
			}
		})
	}
}

// PerShot and MemoryNeed read a circuit's size without allocating it.
func TestHugeRegistersAllocateNothing(t *testing.T) {
	c := &sim.Circuit{NumQubits: math.MaxInt, NumClbits: math.MaxInt}
	c.Measure(1<<40, 1<<40).Apply(stdGate("h", nil, 1<<40))
	used := allocated(t, func() {
		if !c.PerShot() {
			t.Error("a gate after a measurement of its qubit: PerShot() = false")
		}
		if need := sim.MemoryNeed(c, sim.Options{Shots: 1}); need != math.MaxInt64 {
			t.Errorf("MemoryNeed = %d, want MaxInt64", need)
		}
	})
	if used > 64<<10 {
		t.Fatalf("allocated %d bytes", used)
	}
}
