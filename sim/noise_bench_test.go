package sim_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// withNoise is c with a channel after every gate, as the built-in devices'
// noise models put it (decisions.md): one1 on each qubit of a one-qubit
// gate, two on the pair of a two-qubit gate (nil: one1 on each of its
// qubits).
func withNoise(c *sim.Circuit, one1, two *sim.Channel) *sim.Circuit {
	out := &sim.Circuit{NumQubits: c.NumQubits, NumClbits: c.NumClbits}
	for _, op := range c.Ops {
		out.Append(op)
		if op.Kind != sim.OpGate {
			continue
		}
		qs := make([]int, 0, 2)
		for i := range op.NumTargets() {
			qs = append(qs, op.TargetAt(i))
		}
		for i := range op.NumControls() {
			qs = append(qs, op.ControlAt(i).Qubit)
		}
		if len(qs) == 2 && two != nil {
			out.Append(sim.NoiseOp(two, qs...))
			continue
		}
		for _, q := range qs {
			out.Append(sim.NoiseOp(one1, q))
		}
	}
	return out
}

// perShotFromStart is c run shot by shot from its first operation: a
// condition on a measured bit comes first, so no prefix is shared. It is
// the ideal per-shot path a noisy circuit's trajectories are held against.
func perShotFromStart(c *sim.Circuit) *sim.Circuit {
	out := &sim.Circuit{NumQubits: c.NumQubits, NumClbits: c.NumQubits + 1}
	out.Append(forcePerShot(0))
	out.Append(c.Ops...)
	for q := range c.NumQubits {
		out.Measure(q, q)
	}
	return out
}

func measured(c *sim.Circuit) *sim.Circuit {
	out := &sim.Circuit{NumQubits: c.NumQubits, NumClbits: c.NumQubits}
	out.Append(c.Ops...)
	for q := range c.NumQubits {
		out.Measure(q, q)
	}
	return out
}

func mustChannel(ch *sim.Channel, err error) *sim.Channel {
	if err != nil {
		panic(err)
	}
	return ch
}

// noiseBenchCircuits are 4 layers of H and CX down the chain on n qubits,
// 39 gates a layer on 20: ideal and run shot by shot from the start, with
// the depolarizing model of the built-in devices (depolarizing(0.01) after
// a one-qubit gate on its qubit, two_qubit_depolarizing(0.02) after a
// two-qubit gate), and with amplitude damping (0.01) on every qubit a gate
// touches, which trajectories draw by the state.
func noiseBenchCircuits(n int) (ideal, depol, damp *sim.Circuit) {
	c := hcxLayers(n, 4)
	ideal = perShotFromStart(c)
	depol = measured(withNoise(c, mustChannel(sim.Depolarizing(0.01)), mustChannel(sim.TwoQubitDepolarizing(0.02))))
	damp = measured(withNoise(c, mustChannel(sim.AmplitudeDamping(0.01)), nil))
	return ideal, depol, damp
}

// BenchmarkTrajectories20 is the cost of a shot at 20 qubits: the ideal
// circuit shot by shot, and its noisy forms by trajectories (target: a
// Pauli noise model at most 1.5× the ideal shot). Each iteration runs
// 4 shots; shot/ns is per shot.
func BenchmarkTrajectories20(b *testing.B) {
	ideal, depol, damp := noiseBenchCircuits(20)
	const shots = 4
	for _, tc := range []struct {
		name string
		c    *sim.Circuit
	}{{"ideal", ideal}, {"depolarizing", depol}, {"amplitude_damping", damp}} {
		b.Run(tc.name, func(b *testing.B) {
			opts := sim.Options{Shots: shots, Seed: seed(1), Method: sim.MethodStateVector}
			for b.Loop() {
				r, err := sim.Run(context.Background(), tc.c, opts)
				if err != nil || !r.PerShot {
					b.Fatal(err, r)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*shots), "ns/shot")
		})
	}
}

// BenchmarkNoiseMethods runs a noisy circuit at 10 and 12 qubits on the
// density matrix and by trajectories (1,000 shots), and the ideal circuit
// on the state vector (simulated once, shots sampled), for the choice
// auto makes.
func BenchmarkNoiseMethods(b *testing.B) {
	for _, n := range []int{8, 10, 12} {
		c := hcxLayers(n, 4)
		noisy := measured(withNoise(c, mustChannel(sim.Depolarizing(0.01)), mustChannel(sim.TwoQubitDepolarizing(0.02))))
		for _, tc := range []struct {
			name   string
			c      *sim.Circuit
			method sim.Method
		}{
			{"densitymatrix", noisy, sim.MethodDensityMatrix},
			{"trajectories", noisy, sim.MethodStateVector},
			{"ideal", measured(c), sim.MethodStateVector},
		} {
			b.Run(fmt.Sprintf("n=%d/%s", n, tc.name), func(b *testing.B) {
				opts := sim.Options{Shots: 1000, Seed: seed(1), Method: tc.method}
				for b.Loop() {
					if _, err := sim.Run(context.Background(), tc.c, opts); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
