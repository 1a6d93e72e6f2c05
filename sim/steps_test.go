package sim_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// MaxTotalSteps bounds all the shots of a run together. A shot of
// coinFlips(3, 3) costs 9 steps: the 8 operations after the shared leading
// gate, and one for its start (3 classical bits add nothing).
func TestMaxTotalSteps(t *testing.T) {
	forever := &sim.Circuit{NumQubits: 1, NumClbits: 1}
	forever.Reset(0).Append(sim.JumpOp(0))
	const perShot = "a shot ran more than"
	tests := []struct {
		name    string
		c       *sim.Circuit
		opts    sim.Options
		wantErr string // "" for success
	}{
		{"exactly enough", coinFlips(3, 3), sim.Options{Shots: 100, MaxTotalSteps: 900}, ""},
		{"one step short", coinFlips(3, 3), sim.Options{Shots: 100, MaxTotalSteps: 899}, "the shots together ran more than 899 steps (MaxTotalSteps)"},
		{"a wide register costs its bits", coinFlips(3, 6400), sim.Options{Shots: 100, MaxTotalSteps: 100 * (8 + 1 + 100)}, ""},
		{"a wide register over", coinFlips(3, 6400), sim.Options{Shots: 100, MaxTotalSteps: 100*(8+1+100) - 1}, "(MaxTotalSteps)"},
		{"a million shots under the default", coinFlips(3, 3), sim.Options{Shots: 1_000_000, MaxTotalSteps: 10_000}, "more than 10000 steps (MaxTotalSteps)"},
		{"an endless loop meets the total first", forever, sim.Options{Shots: 1000, MaxSteps: 1_000_000, MaxTotalSteps: 5000}, "more than 5000 steps (MaxTotalSteps)"},
		{"an endless loop meets the shot's limit", forever, sim.Options{Shots: 1000, MaxSteps: 1000, MaxTotalSteps: 5000}, perShot},
		{"sampled shots", hadamards(2, 2, false), sim.Options{Shots: 1001, MaxTotalSteps: 1000}, "1001 shots to sample, more than the 1000 steps of MaxTotalSteps"},
		{"sampled shots within", hadamards(2, 2, false), sim.Options{Shots: 1000, MaxTotalSteps: 1000}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Seed = seed(3)
			_, err := sim.Run(context.Background(), tc.c, tc.opts)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if !errors.Is(err, sim.ErrStepLimit) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got %v, want ErrStepLimit saying %q", err, tc.wantErr)
			}
			if tc.wantErr != perShot && strings.Contains(err.Error(), perShot) {
				t.Fatalf("got the per-shot message for the total limit: %v", err)
			}
		})
	}
}
