package sim_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// No option value and no register size makes Run panic or overflow: it
// runs, or fails with an error, before allocating what it cannot hold.
func TestOptionsAtExtremes(t *testing.T) {
	bell := &sim.Circuit{NumQubits: 2, NumClbits: 2}
	bell.Apply(stdGate("h", nil, 0)).Apply(stdGate("cx", nil, 0, 1)).Measure(0, 0).Measure(1, 1)
	perShot := &sim.Circuit{NumQubits: 2, NumClbits: 2}
	perShot.Reset(0).Append(bell.Ops...)
	wide := func(clbits int) *sim.Circuit {
		c := &sim.Circuit{NumQubits: 2, NumClbits: clbits}
		c.Append(bell.Ops...)
		return c
	}
	wideShots := wide(65536)
	wideShots.Reset(0)

	tests := []struct {
		name string
		c    *sim.Circuit
		opts sim.Options
		want error // nil for success
	}{
		{"int shots, sampled", bell, sim.Options{Shots: math.MaxInt}, sim.ErrWorkLimit},
		{"int shots, per shot", perShot, sim.Options{Shots: math.MaxInt, MaxWork: 100_000}, sim.ErrWorkLimit},
		{"negative shots", bell, sim.Options{Shots: math.MinInt}, sim.ErrInvalidCircuit},
		{"largest step limits", perShot, sim.Options{Shots: 100, MaxSteps: math.MaxInt, MaxWork: math.MaxInt64}, nil},
		{"negative step limits", perShot, sim.Options{Shots: 100, MaxSteps: math.MinInt, MaxWork: math.MinInt64}, nil},
		{"widest fusion", bell, sim.Options{Shots: 10, FusionWidth: math.MaxInt}, nil},
		{"most workers", bell, sim.Options{Shots: 10, Workers: math.MaxInt}, nil},
		{"negative workers", bell, sim.Options{Shots: 10, Workers: math.MinInt}, nil},
		{"widest result bits", bell, sim.Options{Shots: 10, ResultBits: math.MaxInt}, nil},
		{"negative result bits", bell, sim.Options{Shots: 10, ResultBits: math.MinInt}, nil},
		{"largest result limit", bell, sim.Options{Shots: 10, MaxResultBytes: math.MaxInt64}, nil},
		{"negative result limit", bell, sim.Options{Shots: 10, MaxResultBytes: math.MinInt64}, nil},
		{"unknown precision", bell, sim.Options{Shots: 10, Precision: 200}, sim.ErrInvalidCircuit},
		{"largest limits", bell, sim.Options{Shots: 10, Limits: sim.Limits{MaxQubits: math.MaxInt, MemoryBudget: math.MaxInt64}}, nil},
		{"negative limits", bell, sim.Options{Shots: 10, Limits: sim.Limits{MaxQubits: math.MinInt, MemoryBudget: math.MinInt64}}, nil},
		{"65,536 bits, a million shots", wide(65536), sim.Options{Shots: 1_000_000}, nil},
		{"65,536 bits shot by shot", wideShots, sim.Options{Shots: 1_000_000, MaxWork: 1_000_000}, sim.ErrWorkLimit},
		{"too many bits", wide(sim.MaxClbits + 1), sim.Options{Shots: 1}, sim.ErrInvalidCircuit},
		{"absurd bits", wide(1 << 50), sim.Options{Shots: 1}, sim.ErrInvalidCircuit},
		{"absurd qubits", &sim.Circuit{NumQubits: math.MaxInt}, sim.Options{Shots: 1}, sim.ErrTooManyQubits},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.opts.Seed == nil {
				// Ten shots of a Bell pair all alike one run in 512, which
				// the check of two outcomes below would take for a fault.
				seed := uint64(7)
				tc.opts.Seed = &seed
			}
			r, err := sim.Run(context.Background(), tc.c, tc.opts)
			if tc.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				total := 0
				for _, n := range r.Counts {
					total += n
				}
				if total != tc.opts.Shots || len(r.Counts) != 2 {
					t.Fatalf("%d outcomes adding up to %d, want 2 adding up to %d", len(r.Counts), total, tc.opts.Shots)
				}
				return
			}
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}
