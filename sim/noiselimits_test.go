package sim_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// MemoryNeed bounds what a noisy run allocates on both methods: ρ's 4^n
// amplitudes and the chunk of its doubled circuit, or a trajectory's state,
// the copy of its shared prefix, and a channel's branch kernel and sums.
func TestNoisyMemoryNeed(t *testing.T) {
	dm := dampedLayers(t, 8)
	prefixed := &sim.Circuit{NumQubits: 16} // a shared prefix, then trajectories
	prefixed.Append(hadamards(16, 16, false).Ops[:16]...)
	prefixed.Append(dampedLayers(t, 16).Ops...)
	tests := []struct {
		name    string
		c       *sim.Circuit
		opts    sim.Options
		method  sim.Method
		atLeast int64
	}{
		{"density matrix", dm, sim.Options{Shots: 1000, Method: sim.MethodDensityMatrix}, sim.MethodDensityMatrix, 16 << 16},
		{"density matrix, chosen", dm, sim.Options{Shots: 3 << 8}, sim.MethodDensityMatrix, 16 << 16},
		{"density matrix, single", dm, sim.Options{Shots: 1000, Precision: sim.Single, Method: sim.MethodDensityMatrix}, sim.MethodDensityMatrix, 8 << 16},
		{"density matrix, no fusion", dm, sim.Options{Shots: 10, FusionWidth: -1, Method: sim.MethodDensityMatrix}, sim.MethodDensityMatrix, 16 << 16},
		{"trajectories, chosen", dm, sim.Options{Shots: 30}, sim.MethodStateVector, 16 << 8},
		// The branches' kernels are kept: more shots allocate no more.
		{"trajectories", dampedLayers(t, 14), sim.Options{Shots: 30}, sim.MethodStateVector, 16 << 14},
		{"trajectories from a shared prefix", prefixed, sim.Options{Shots: 8, Method: sim.MethodStateVector}, sim.MethodStateVector, 2 * 16 << 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Seed = seed(6)
			need := sim.MemoryNeed(tc.c, tc.opts)
			if need < tc.atLeast {
				t.Fatalf("MemoryNeed %d, less than the state's %d", need, tc.atLeast)
			}
			var res *sim.Result
			used := allocated(t, func() {
				var err error
				if res, err = sim.Run(context.Background(), tc.c, tc.opts); err != nil {
					t.Fatal(err)
				}
			})
			if res.Method != tc.method {
				t.Fatalf("ran as %s, want %s", res.Method, tc.method)
			}
			slack := int64(2 << 10 * len(tc.c.Ops))
			t.Logf("MemoryNeed %d, allocated %d", need, used)
			if used > need+slack {
				t.Fatalf("Run allocated %d bytes, more than MemoryNeed %d + %d", used, need, slack)
			}
		})
	}
}

// A trajectory charges a channel what it does: a mixture (a Pauli
// channel) a pass when it draws a unitary other than the identity and
// nothing else, any other channel two passes, each a step; its terminal
// measurements a pass and a step each.
func TestNoisyWork(t *testing.T) {
	ch := must(t)
	const n = 10
	c := &sim.Circuit{NumQubits: n}
	c.Append(sim.NoiseOp(ch(sim.AmplitudeDamping(0.5)), 0)) // 1 + 2·1024
	c.Append(sim.NoiseOp(ch(sim.PauliChannel(1, 0, 0)), 1)) // 1 + 1024: an X every time
	c.Append(sim.NoiseOp(ch(sim.BitFlip(0)), 2))            // 1: the identity every time
	// A shot starts from |0…0⟩ again (1024), and Run measures every qubit
	// at its end, at once: a step each and a pass.
	shot := int64(1024 + (1 + 2*1024) + (1 + 1024) + 1 + n + 1024)
	for _, tc := range []struct {
		work int64
		ok   bool
	}{{5 * shot, true}, {5*shot - 1, false}} {
		r, err := sim.Run(context.Background(), c, sim.Options{Shots: 5, Seed: seed(1), MaxWork: tc.work, Method: sim.MethodStateVector})
		if tc.ok && (err != nil || r.Work != tc.work) {
			t.Fatalf("MaxWork %d: %v, work %v", tc.work, err, r)
		}
		if !tc.ok && !errors.Is(err, sim.ErrWorkLimit) {
			t.Fatalf("MaxWork %d: %v, want ErrWorkLimit", tc.work, err)
		}
	}

	// The density matrix charges its sampling up front and each chunk of
	// its doubled circuit (2n qubits) before applying it.
	dm := dampedLayers(t, 8)
	var phases []string
	remove := sim.SetTestHook(func(p string) { phases = append(phases, p) })
	_, err := sim.Run(context.Background(), dm, sim.Options{Shots: 10, MaxWork: 1 << 16, Method: sim.MethodDensityMatrix})
	remove()
	if !errors.Is(err, sim.ErrWorkLimit) || slices.Contains(phases, "apply") {
		t.Fatalf("%v after phases %v: want ErrWorkLimit before applying", err, phases)
	}
	r := run(t, dm, sim.Options{Shots: 10, Seed: seed(1), Method: sim.MethodDensityMatrix})
	// Each of the 7 two-qubit channels acts on 4 qubits of the doubled
	// state (q, q+1 and their copies), and no two of them fit one fused
	// block of 4: at least a pass over the 2^16 amplitudes each, however
	// the cost model fuses (4 wide where the CPU has the kernels).
	if r.Work < 7<<16 {
		t.Fatalf("the density matrix of 8 qubits did %d work for %d operations", r.Work, len(dm.Ops))
	}
	if _, err := sim.Run(context.Background(), dm, sim.Options{Shots: 10, Seed: seed(1), Method: sim.MethodDensityMatrix, MaxWork: r.Work - 1}); !errors.Is(err, sim.ErrWorkLimit) {
		t.Fatalf("one unit under its work: %v", err)
	}
	if _, err := sim.Run(context.Background(), dm, sim.Options{Shots: 10, Seed: seed(1), Method: sim.MethodDensityMatrix, MaxWork: r.Work}); err != nil {
		t.Fatalf("exactly its work: %v", err)
	}
}
