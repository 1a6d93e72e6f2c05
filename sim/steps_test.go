package sim_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/qjobs/quantum/sim"
)

// measuredThenGates measures qubit 0 of n, then applies m gates: every
// shot runs all of it (nothing before the measurement is shared). A shot
// costs 2·2^n + 1 for the measurement, m·(2^n + 1) for the gates and 2^n
// for its start, each quantum operation at least 16 + 1 (steps.go).
func measuredThenGates(n, m int) *sim.Circuit {
	c := &sim.Circuit{NumQubits: n, NumClbits: 1}
	c.Measure(0, 0)
	for i := range m {
		c.Apply(stdGate("h", nil, i%n))
	}
	return c
}

// MaxWork counts amplitudes touched, so the same circuit costs with its
// state: coinFlips(3, 3) on one qubit costs every quantum operation the
// floor, 16, and 1 for its step: its shared H and the copy each shot starts
// from 32, then 8 operations (136) and the start (16) a shot.
func TestMaxWork(t *testing.T) {
	forever := &sim.Circuit{NumQubits: 1, NumClbits: 1}
	forever.Reset(0).Append(sim.JumpOp(0))
	const perShot = "a shot ran more than"
	shot10 := int64(2*1024+1) + 3*(1024+1) + 1024 // measuredThenGates(10, 3)
	shot2 := int64(16+1) + 3*(16+1) + 16          // measuredThenGates(2, 3): floors
	tests := []struct {
		name    string
		c       *sim.Circuit
		opts    sim.Options
		wantErr string // "" for success
	}{
		{"exactly enough", coinFlips(3, 3), sim.Options{Shots: 100, MaxWork: 32 + 100*152}, ""},
		{"one unit short", coinFlips(3, 3), sim.Options{Shots: 100, MaxWork: 32 + 100*152 - 1}, "more than 15231 units of work (MaxWork"},
		{"a wide register costs its bits", coinFlips(3, 6400), sim.Options{Shots: 100, MaxWork: 32 + 100*(152+100)}, ""},
		{"a wide register over", coinFlips(3, 6400), sim.Options{Shots: 100, MaxWork: 32 + 100*(152+100) - 1}, "(MaxWork"},
		{"ten qubits cost their amplitudes", measuredThenGates(10, 3), sim.Options{Shots: 10, MaxWork: 10 * shot10}, ""},
		{"ten qubits over", measuredThenGates(10, 3), sim.Options{Shots: 10, MaxWork: 10*shot10 - 1}, "(MaxWork"},
		{"two qubits cost the floor", measuredThenGates(2, 3), sim.Options{Shots: 10, MaxWork: 10 * shot2}, ""},
		{"two qubits over", measuredThenGates(2, 3), sim.Options{Shots: 10, MaxWork: 10*shot2 - 1}, "(MaxWork"},
		{"a million shots", coinFlips(3, 3), sim.Options{Shots: 1_000_000, MaxWork: 10_000}, "more than 10000 units of work"},
		{"an endless loop meets the work bound first", forever, sim.Options{Shots: 1000, MaxSteps: 1_000_000, MaxWork: 5000}, "(MaxWork"},
		{"an endless loop meets the shot's limit", forever, sim.Options{Shots: 1000, MaxSteps: 1000, MaxWork: 1 << 40}, perShot},
		// sampled: the two H on different qubits stay two kernels (16
		// each), the probabilities and their sums two passes (16), a unit a
		// shot
		{"sampled shots", hadamards(2, 2, false), sim.Options{Shots: 1000, MaxWork: 1048}, ""},
		{"sampled shots over", hadamards(2, 2, false), sim.Options{Shots: 1000, MaxWork: 1047}, "more than 1047 units of work"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Seed = seed(3)
			tc.opts.Method = sim.MethodStateVector // Clifford circuits: auto would take the stabilizer
			_, err := sim.Run(context.Background(), tc.c, tc.opts)
			switch {
			case tc.wantErr == "":
				if err != nil {
					t.Fatal(err)
				}
			case tc.wantErr == perShot:
				if !errors.Is(err, sim.ErrStepLimit) || !strings.Contains(err.Error(), perShot) {
					t.Fatalf("got %v, want ErrStepLimit saying %q", err, perShot)
				}
			default:
				if !errors.Is(err, sim.ErrWorkLimit) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("got %v, want ErrWorkLimit saying %q", err, tc.wantErr)
				}
			}
		})
	}
}

// TestWorkBoundsLoopsOnLargeStates runs the loop that motivated MaxWork: an
// H and a measurement on 16 qubits until the measured qubit (held at |1⟩)
// reads 0, which never happens. Operations are few (MaxSteps would let it
// run for hours on 20 qubits); its work ends it.
func TestWorkBoundsLoopsOnLargeStates(t *testing.T) {
	const n = 16
	c := &sim.Circuit{NumQubits: n, NumClbits: 1}
	c.Apply(stdGate("x", nil, n-1))
	c.Apply(stdGate("h", nil, 0))                      // 1: loop
	c.Measure(n-1, 0)                                  // 2
	c.Append(sim.JumpOp(1).WithIf(sim.BitIs(0, true))) // 3
	start := time.Now()
	_, err := sim.Run(context.Background(), c, sim.Options{Shots: 1, Seed: seed(1), MaxWork: 200 * 3 << n, Method: sim.MethodStateVector})
	if !errors.Is(err, sim.ErrWorkLimit) {
		t.Fatalf("got %v, want ErrWorkLimit", err)
	}
	t.Logf("stopped after %v: %v", time.Since(start).Round(time.Millisecond), err)
}

// Work is charged before it is done: a sampled run whose first chunk of
// fused gates would pass the bound stops before it applies any of them.
func TestSampledWorkIsRefusedUpFront(t *testing.T) {
	var phases []string
	remove := sim.SetTestHook(func(phase string) { phases = append(phases, phase) })
	_, err := sim.Run(context.Background(), hadamards(12, 12, false), sim.Options{Shots: 10, MaxWork: 1 << 12, Method: sim.MethodStateVector})
	remove()
	if !errors.Is(err, sim.ErrWorkLimit) {
		t.Fatalf("got %v, want ErrWorkLimit", err)
	}
	for _, p := range phases {
		if p == "apply" || p == "sample" {
			t.Fatalf("phases %v: the run started before it was refused", phases)
		}
	}
}
