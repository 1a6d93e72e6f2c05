package sim_test

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// The bound on a sparse run's nonzero amplitudes, on the programs that
// motivate it and on the cases where a looser rule would be wrong.
func TestSparseBound(t *testing.T) {
	ghz := func(n int) *sim.Circuit {
		c := (&sim.Circuit{NumQubits: n}).ApplyStd("h", nil, 0)
		for q := 1; q < n; q++ {
			c.ApplyStd("cx", nil, q-1, q)
		}
		return c
	}
	hT := func(n int) *sim.Circuit {
		c := &sim.Circuit{NumQubits: n}
		for q := range n {
			c.ApplyStd("h", nil, q).ApplyStd("t", nil, q)
		}
		return c
	}
	// h then measure, qubit after qubit: one qubit in superposition at a
	// time when measurements collapse, all of them when sampled.
	oneAtATime := func(n int) *sim.Circuit {
		c := &sim.Circuit{NumQubits: n, NumClbits: n}
		for q := range n {
			c.ApplyStd("h", nil, q).Measure(q, q)
		}
		return c
	}
	// A permutation controlled by a qubit in superposition moves that
	// superposition onto its target: measuring the qubit the H touched
	// then leaves the other in superposition (a rule that forgot every
	// qubit measured would say 1 here, and 2 after the last H).
	moved := (&sim.Circuit{NumQubits: 3, NumClbits: 1}).ApplyStd("h", nil, 0).ApplyStd("cx", nil, 0, 1).
		ApplyStd("cx", nil, 1, 0).Measure(0, 0).ApplyStd("h", nil, 2)
	// A measurement that only some shots make (a jump over it) does not
	// shrink the bound of the others.
	skipped := (&sim.Circuit{NumQubits: 2, NumClbits: 2}).ApplyStd("h", nil, 0).Measure(1, 1).
		Append(sim.JumpOp(4).WithIf(sim.BitIs(1, true))).Measure(0, 0).ApplyStd("h", nil, 1)
	conditional := (&sim.Circuit{NumQubits: 2, NumClbits: 2}).ApplyStd("h", nil, 0).Measure(1, 1).
		If(sim.BitIs(1, true), sim.MeasureOp(0, 0)).ApplyStd("h", nil, 1)
	// A loop: every qubit its body may put in superposition.
	loop := (&sim.Circuit{NumQubits: 4, NumClbits: 1}).ApplyStd("h", nil, 0).Measure(0, 0).ApplyStd("h", nil, 1).
		Append(sim.JumpOp(0).WithIf(sim.BitIs(0, true)))
	for _, tc := range []struct {
		name     string
		c        *sim.Circuit
		collapse bool
		want     int
	}{
		{"GHZ on 64 qubits", ghz(64), false, 1},
		{"h then t on 40 qubits", hT(40), false, 40},
		{"diagonal and permutation gates only", (&sim.Circuit{NumQubits: 30}).ApplyStd("x", nil, 3).ApplyStd("t", nil, 3).ApplyStd("ccx", nil, 3, 4, 5).ApplyStd("swap", nil, 5, 29), false, 0},
		{"h then measure, shot by shot", oneAtATime(40), true, 1},
		{"h then measure, sampled", oneAtATime(40), false, 40},
		{"superposition moved by cx", moved, true, 2},
		{"a measurement jumped over", skipped, true, 2},
		{"a conditional measurement", conditional, true, 2},
		{"a loop", loop, true, 2},
		{"a two-qubit branching gate", (&sim.Circuit{NumQubits: 5}).ApplyStd("rxx", []float64{0.3}, 1, 2), false, 2},
		{"a controlled h", (&sim.Circuit{NumQubits: 5}).ApplyStd("ch", nil, 4, 2), false, 1},
		{"more branching than qubits", (&sim.Circuit{NumQubits: 2}).ApplyStd("h", nil, 0).ApplyStd("h", nil, 0).ApplyStd("h", nil, 1).ApplyStd("h", nil, 1), false, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := sim.SparseBound(context.Background(), tc.c, tc.collapse)
			if err != nil {
				t.Fatal(err)
			}
			if got != tc.want {
				t.Errorf("bound 2^%d, want 2^%d", got, tc.want)
			}
		})
	}
}

// The bound holds: on random circuits of every kind of gate, with
// measurements and resets, the exact state never has more nonzero
// amplitudes than it says after any prefix of the circuit, whatever the
// measurements draw.
func TestSparseBoundHolds(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	ctx := context.Background()
	for trial := range 300 {
		n := 3 + rng.IntN(4)
		c := &sim.Circuit{NumQubits: n, NumClbits: n}
		for range 24 {
			switch rng.IntN(6) {
			case 0:
				q := rng.IntN(n)
				c.Measure(q, q)
			case 1:
				c.Reset(rng.IntN(n))
			default:
				c.Apply(randomGate(rng, n))
			}
		}
		for draw := range 4 {
			s, err := sim.NewShotState(sim.MethodStateVector, n, sim.Options{})
			if err != nil {
				t.Fatal(err)
			}
			state := s.(*sim.State)
			shot := rand.New(rand.NewPCG(uint64(trial), uint64(draw)))
			for k := range c.Ops {
				op := c.Ops[k]
				switch op.Kind {
				case sim.OpMeasure:
					_, err = state.Measure(ctx, op.Qubit(), shot)
				case sim.OpReset:
					err = state.ResetQubit(ctx, op.Qubit(), shot)
				default:
					err = state.ApplyOp(ctx, op)
				}
				if err != nil {
					t.Fatal(err)
				}
				prefix := &sim.Circuit{NumQubits: n, NumClbits: n, Ops: c.Ops[:k+1]}
				b, err := sim.SparseBound(ctx, prefix, true)
				if err != nil {
					t.Fatal(err)
				}
				if got := support(state); got > 1<<b {
					t.Fatalf("trial %d, draw %d, after op %d of %d: %d nonzero amplitudes, bound 2^%d", trial, draw, k, len(c.Ops), got, b)
				}
			}
		}
	}
}

// support counts the amplitudes that are not rounding's residue.
func support(s *sim.State) int {
	n := 0
	for _, a := range s.Amplitudes() {
		if real(a)*real(a)+imag(a)*imag(a) > 1e-20 {
			n++
		}
	}
	return n
}

// A run that grows asks for its memory as its state grows, doubling what
// it holds, and never more in all than MemoryNeeds' most; a refusal stops
// it with the refusal's error.
func TestSparseRunGrows(t *testing.T) {
	const n = 20
	c := &sim.Circuit{NumQubits: n}
	for q := range n {
		c.ApplyStd("h", nil, q)
	}
	opts := sim.Options{Shots: 10, Method: sim.MethodSparse, Limits: sim.Limits{MaxQubits: 64, MemoryBudget: 1 << 30}}
	start, most := sim.MemoryNeeds(c, opts)
	if most != sim.MemoryNeed(c, opts) || start >= most || most > 1<<30 {
		t.Fatalf("start %d, most %d, MemoryNeed %d", start, most, sim.MemoryNeed(c, opts))
	}
	var asks []int64
	var total int64
	opts.Grow = func(delta int64) error {
		asks = append(asks, delta)
		total += delta
		return nil
	}
	if _, err := sim.Run(context.Background(), c, opts); err != nil {
		t.Fatal(err)
	}
	// From 2^16 entries to 2^20: four doublings.
	if len(asks) != 4 || start+total > most {
		t.Errorf("asked %v (%d in all) from a start of %d; most %d", asks, total, start, most)
	}
	for i := 1; i < len(asks); i++ {
		if asks[i] != 2*asks[i-1] {
			t.Errorf("asks %v do not double", asks)
		}
	}

	// A run started holding what it needs asks for nothing.
	asks, total = nil, 0
	opts.Held = most
	if _, err := sim.Run(context.Background(), c, opts); err != nil || len(asks) != 0 {
		t.Errorf("a run that holds its need asked %v (%v)", asks, err)
	}
	opts.Held = 0

	refusal := errorString("no more for you")
	opts.Grow = func(int64) error { return refusal }
	if _, err := sim.Run(context.Background(), c, opts); err != refusal {
		t.Errorf("a refused growth ended the run with %v", err)
	}
}

type errorString string

func (e errorString) Error() string { return string(e) }

// What a bound says in bytes: 2^40 amplitudes are far past any budget,
// saturating rather than overflowing at 64 qubits.
func TestSparseNeedPastTheBudget(t *testing.T) {
	for _, n := range []int{40, 64} {
		c := &sim.Circuit{NumQubits: n}
		for q := range n {
			c.ApplyStd("h", nil, q).ApplyStd("t", nil, q)
		}
		opts := sim.Options{Shots: 1, Method: sim.MethodSparse, Limits: sim.Limits{MaxQubits: 64, MemoryBudget: 1 << 30}}
		start, most := sim.MemoryNeeds(c, opts)
		if most < 1<<40 || start > 64<<20 {
			t.Errorf("%d qubits: start %d, most %d", n, start, most)
		}
		if n == 64 && most != math.MaxInt64 {
			t.Errorf("64 qubits: most %d, want the saturated %d", most, int64(math.MaxInt64))
		}
	}
}
