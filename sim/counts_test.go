package sim_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// hadamards is n qubits in uniform superposition: 2^n equally likely
// outcomes. With perShot a classical write after the gates forces the
// per-shot path; every qubit q is measured into bit q of clbits.
func hadamards(n, clbits int, perShot bool) *sim.Circuit {
	c := &sim.Circuit{NumQubits: n, NumClbits: clbits}
	for q := range n {
		c.Apply(stdGate("h", nil, q))
	}
	if perShot {
		c.Append(forcePerShot(len(c.Ops)))
	}
	for q := range n {
		c.Measure(q, q)
	}
	return c
}

// forcePerShot is an operation at index i that changes nothing but sends
// a circuit that measures into bit 0 shot by shot: a jump to the next
// operation when bit 0 holds 1, a condition on a measured bit. (A classical
// operation on bits no measurement writes would not: such control flow is
// the same on every shot, and runs once.)
func forcePerShot(i int) sim.Op { return sim.JumpOp(i + 1).WithIf(sim.BitIs(0, true)) }

// coinFlips flips one qubit k times, measuring it into bits 0..k−1 and
// resetting it in between: 2^k equally likely outcomes shot by shot, on a
// state of one qubit.
func coinFlips(k, clbits int) *sim.Circuit {
	c := &sim.Circuit{NumQubits: 1, NumClbits: clbits}
	for b := range k {
		c.Apply(stdGate("h", nil, 0)).Measure(0, b).Reset(0)
	}
	return c
}

// The counts are bounded while counting, on both paths: distinct outcomes ×
// key width may not exceed MaxResultBytes.
func TestResultTooLarge(t *testing.T) {
	tests := []struct {
		name     string
		c        *sim.Circuit
		shots    int
		maxBytes int64
		wantErr  string // "" for success
	}{
		{"sampled within", hadamards(2, 2, false), 1000, 8, ""},
		{"sampled over", hadamards(2, 2, false), 1000, 7, "more than 3 distinct outcomes of 2 bits (MaxResultBytes is 7 B)"},
		{"per shot within", hadamards(2, 3, true), 1000, 12, ""},
		{"per shot over", hadamards(2, 3, true), 1000, 11, "more than 3 distinct outcomes of 3 bits (MaxResultBytes is 11 B)"},
		{"no measurement over", &sim.Circuit{NumQubits: 1, Ops: hadamards(1, 1, false).Ops[:1]}, 1000, 1, "more than 1 distinct outcomes of 1 bits"},
		// The hostile job: a 4096-bit register and more distinct outcomes
		// than 64 MiB of keys.
		{"4096-bit register, sampled", hadamards(15, 4096, false), 100_000, 0,
			"result too large: more than 16384 distinct outcomes of 4096 bits (MaxResultBytes is 64 MiB)"},
		{"4096-bit register, per shot", coinFlips(15, 4096), 100_000, 0,
			"result too large: more than 16384 distinct outcomes of 4096 bits (MaxResultBytes is 64 MiB)"},
		{"one key too wide", hadamards(1, 4096, false), 1, 4095, "one outcome of 4096 bits exceeds MaxResultBytes (3.999 KiB)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := sim.Run(context.Background(), tc.c, sim.Options{Shots: tc.shots, Seed: seed(1), MaxResultBytes: tc.maxBytes})
			if tc.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				if len(r.Counts) != 4 {
					t.Fatalf("counts %v, want the 4 outcomes", r.Counts)
				}
				return
			}
			if !errors.Is(err, sim.ErrResultTooLarge) || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("got %v, want ErrResultTooLarge saying %q", err, tc.wantErr)
			}
		})
	}
}

// ResultBits narrows the key, and the limit is on the narrowed key.
func TestResultLimitUsesResultBits(t *testing.T) {
	c := hadamards(3, 8, false)
	r, err := sim.Run(context.Background(), c, sim.Options{Shots: 1000, Seed: seed(2), ResultBits: 2, MaxResultBytes: 8})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Counts) != 4 {
		t.Fatalf("counts %v, want 4 outcomes of 2 bits", r.Counts)
	}
}
