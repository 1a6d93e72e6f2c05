package sim_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// Every method's ShotState, driven one operation at a time, gives a Bell
// pair's correlations, resets and Pauli channels; the stabilizer's
// refuses what is not Clifford, and the density matrix has none.
func TestShotStates(t *testing.T) {
	ctx := context.Background()
	bitFlip := must(t)(sim.BitFlip(0.5))
	for _, m := range []sim.Method{sim.MethodStateVector, sim.MethodSparse, sim.MethodStabilizer} {
		t.Run(m.String(), func(t *testing.T) {
			st, err := sim.NewShotState(m, 3, sim.Options{Limits: sim.Limits{MaxQubits: 3}})
			if err != nil {
				t.Fatal(err)
			}
			if st.Method() != m || st.NumQubits() != 3 || st.Work(1) <= 0 {
				t.Fatalf("method %s, %d qubits, work %d", st.Method(), st.NumQubits(), st.Work(1))
			}
			rng := rand.New(rand.NewPCG(1, 2))
			ones := 0
			for range 400 {
				if err := st.ResetAll(ctx); err != nil {
					t.Fatal(err)
				}
				for _, op := range []sim.Op{sim.GateOp(stdGate("h", nil, 0)), sim.GateOp(stdGate("cx", nil, 0, 1))} {
					if err := st.ApplyOp(ctx, op); err != nil {
						t.Fatal(err)
					}
				}
				a, err := st.Measure(ctx, 0, rng)
				if err != nil {
					t.Fatal(err)
				}
				b, _ := st.Measure(ctx, 1, rng)
				if a != b {
					t.Fatal("a Bell pair measured unequal")
				}
				if a {
					ones++
				}
				if err := st.ResetQubit(ctx, 1, rng); err != nil {
					t.Fatal(err)
				}
				if b, _ := st.Measure(ctx, 1, rng); b {
					t.Fatal("a reset qubit read 1")
				}
				if err := st.ApplyChannel(ctx, bitFlip, rng, 2); err != nil {
					t.Fatal(err)
				}
			}
			if ones < 150 || ones > 250 {
				t.Fatalf("%d of 400 read 1", ones)
			}
		})
	}
	tab, _ := sim.NewShotState(sim.MethodStabilizer, 2, sim.Options{})
	if err := tab.ApplyOp(ctx, sim.GateOp(stdGate("t", nil, 0))); !errors.Is(err, sim.ErrMethod) {
		t.Fatalf("t on the stabilizer: %v", err)
	}
	if err := tab.ApplyChannel(ctx, must(t)(sim.AmplitudeDamping(0.1)), rand.New(rand.NewPCG(1, 1)), 0); !errors.Is(err, sim.ErrMethod) {
		t.Fatalf("amplitude damping on the stabilizer: %v", err)
	}
	if _, err := sim.NewShotState(sim.MethodDensityMatrix, 2, sim.Options{}); !errors.Is(err, sim.ErrMethod) {
		t.Fatalf("a density matrix shot state: %v", err)
	}
}
