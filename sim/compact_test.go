package sim_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// A circuit on 2 of 12 declared qubits runs on 2, and gives the counts the
// full width gives, key for key, sampled and shot by shot.
func TestCompactKeepsCounts(t *testing.T) {
	damp, err := sim.AmplitudeDamping(0.2)
	if err != nil {
		t.Fatal(err)
	}
	depol, err := sim.TwoQubitDepolarizing(0.1)
	if err != nil {
		t.Fatal(err)
	}
	wide := func(perShot bool) *sim.Circuit {
		c := &sim.Circuit{NumQubits: 12, NumClbits: 3}
		c.ApplyStd("h", nil, 7)
		c.ApplyStd("cx", nil, 7, 2)
		if perShot {
			c.Append(sim.NoiseOp(damp, 7), sim.NoiseOp(depol, 2, 7))
		}
		c.ApplyStd("ry", []float64{0.7}, 2)
		c.Append(sim.BarrierOp(0, 1, 2, 3, 7, 11))
		c.ApplyStd("crz", []float64{0.3}, 2, 7)
		if perShot {
			c.Append(sim.MeasureOp(7, 2), sim.ResetOp(7))
			c.ApplyStd("h", nil, 7)
		}
		c.Append(sim.MeasureOp(2, 0), sim.MeasureOp(7, 1))
		return c
	}
	for _, perShot := range []bool{false, true} {
		full := wide(perShot)
		small, qubits := full.Compact()
		if small.NumQubits != 2 || !slices.Equal(qubits, []int{2, 7}) || small.NumClbits != 3 {
			t.Fatalf("compact: %d qubits %v, %d bits", small.NumQubits, qubits, small.NumClbits)
		}
		seed := uint64(11)
		a, err := sim.Run(context.Background(), full, sim.Options{Shots: 4000, Seed: &seed})
		if err != nil {
			t.Fatal(err)
		}
		b, err := sim.Run(context.Background(), small, sim.Options{Shots: 4000, Seed: &seed})
		if err != nil {
			t.Fatal(err)
		}
		if !maps.Equal(a.Counts, b.Counts) || a.Method != b.Method {
			t.Fatalf("per shot %v: counts %v on 12 qubits, %v on 2", perShot, a.Counts, b.Counts)
		}
	}
}

// What Compact leaves alone: a circuit that uses every qubit, and one
// without measurement (measured on every declared qubit, its keys that
// wide).
func TestCompactLeavesAlone(t *testing.T) {
	all := (&sim.Circuit{NumQubits: 2, NumClbits: 2}).ApplyStd("cx", nil, 0, 1).Append(sim.MeasureOp(0, 0))
	if c, q := all.Compact(); c != all || q != nil {
		t.Fatal("a circuit using every qubit was rebuilt")
	}
	none := (&sim.Circuit{NumQubits: 5}).ApplyStd("h", nil, 3)
	if c, q := none.Compact(); c != none || q != nil {
		t.Fatal("a circuit without measurement was compacted")
	}
}

// The compact circuit's state is the full one's on the used qubits: the
// probabilities match amplitude for amplitude.
func TestCompactState(t *testing.T) {
	full := &sim.Circuit{NumQubits: 12, NumClbits: 1}
	full.ApplyStd("u3", []float64{0.4, 0.2, 1.1}, 3)
	full.ApplyStd("ccx", nil, 3, 10, 6)
	full.ApplyStd("h", nil, 10)
	full.ApplyStd("swap", nil, 6, 10)
	full.Append(sim.MeasureOp(6, 0))
	small, qubits := full.Compact()
	if !slices.Equal(qubits, []int{3, 6, 10}) {
		t.Fatalf("qubits %v", qubits)
	}
	probs := func(c *sim.Circuit) []float64 {
		s, err := sim.NewState(c.NumQubits, sim.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		for _, op := range c.Ops {
			if op.Kind == sim.OpGate {
				if err := s.ApplyOp(context.Background(), op); err != nil {
					t.Fatal(err)
				}
			}
		}
		return s.Probabilities()
	}
	pf, ps := probs(full), probs(small)
	for i, p := range ps {
		j := 0
		for k, q := range qubits {
			j |= (i >> k & 1) << q
		}
		if d := p - pf[j]; d > 1e-12 || d < -1e-12 {
			t.Fatalf("basis state %03b: %v compact, %v full", i, p, pf[j])
		}
	}
}
