package sim_test

import (
	"fmt"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// A run that samples its shots leaves out the swaps that end a circuit
// and reads each qubit where its value was before them: the counts are
// those of the circuit with the swaps applied, checked against Simulate's
// exact probabilities (Simulate applies every gate).
func TestFinalSwaps(t *testing.T) {
	ctrlSwap := gate(t, "swap", nil, 0, 2)
	ctrlSwap.Controls = []sim.Control{{Qubit: 1}}
	for _, tc := range []struct {
		name    string
		tail    []sim.Op
		dropped int // of the tail's swaps, those a run leaves out
	}{
		{"none", nil, 0},
		{"one", []sim.Op{std("swap", 0, 2)}, 1},
		{"a row, a barrier among them", []sim.Op{std("swap", 0, 1), std("swap", 1, 2), sim.BarrierOp(), std("swap", 0, 2)}, 3},
		{"a gate after a swap", []sim.Op{std("swap", 0, 1), std("swap", 1, 2), std("h", 0)}, 0},
		{"swaps after a gate", []sim.Op{std("swap", 0, 1), std("h", 0), std("swap", 1, 2), std("swap", 0, 1)}, 2},
		{"a controlled swap", []sim.Op{std("swap", 0, 1), sim.GateOp(ctrlSwap)}, 0},
		{"a swap given by its matrix", []sim.Op{sim.GateOp(gate(t, "swap", nil, 0, 1)), std("swap", 1, 2)}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &sim.Circuit{NumQubits: 3, NumClbits: 3}
			c.Apply(gate(t, "ry", []float64{0.7}, 0))
			c.Apply(gate(t, "ry", []float64{1.9}, 1))
			c.Apply(gate(t, "cry", []float64{2.5}, 1, 2))
			c.Apply(gate(t, "crx", []float64{1.1}, 0, 2))
			c.Append(tc.tail...)
			probs := map[string]float64{}
			for i, p := range simulate(t, c).Probabilities() {
				probs[fmt.Sprintf("%d%d%d", i&1, i>>1&1, i>>2&1)] = p // bit b holds qubit 2−b
			}
			for q := range 3 {
				c.Measure(q, 2-q)
			}
			if got := sim.FinalSwapsDropped(c); got != tc.dropped {
				t.Fatalf("%d swaps left out, want %d", got, tc.dropped)
			}
			const shots = 100_000
			r := run(t, c, sim.Options{Shots: shots, Seed: seed(7)})
			if r.PerShot {
				t.Fatal("a terminal circuit ran per shot")
			}
			chiSquared(t, r.Counts, probs, shots)
		})
	}
}

// A basis state moved by a row of swaps is read where the swaps put it,
// every shot; a bit measured before the swaps, of a qubit they leave
// alone, keeps its qubit, and a bit never measured reads 0.
func TestFinalSwapsMoveBasisStates(t *testing.T) {
	c := &sim.Circuit{NumQubits: 4, NumClbits: 5}
	c.Append(std("x", 0), std("x", 3))
	c.Measure(3, 4) // before the swaps, which leave qubit 3 alone
	c.Append(std("swap", 0, 2), std("swap", 2, 1))
	for q := range 3 {
		c.Measure(q, q)
	}
	if got := sim.FinalSwapsDropped(c); got != 2 {
		t.Fatalf("%d swaps left out, want 2", got)
	}
	// Qubit 0's 1 goes to 2, then to 1: bits 4…0 read 1 0 0 1 0, bit 3
	// never measured.
	r := run(t, c, sim.Options{Shots: 50, Seed: seed(3)})
	if len(r.Counts) != 1 || r.Counts["10010"] != 50 {
		t.Fatalf("counts %v, want 10010 every shot", r.Counts)
	}
}

func std(name string, qubits ...int) sim.Op {
	g, _ := sim.LookupGate(name)
	op, err := g.Op(nil, qubits...)
	if err != nil {
		panic(err)
	}
	return op
}
