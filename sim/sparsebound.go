package sim

import (
	"context"
	"math/bits"
)

// How many nonzero amplitudes a sparse run can reach, known before it
// runs, so that a program that cannot fit is refused at once instead of
// filling the memory budget first.
//
// A state's support (its nonzero amplitudes) changes only so:
//   - a diagonal gate keeps it;
//   - a monomial gate (one nonzero a column: X, CX, SWAP, Toffoli, their
//     phases) maps it one to one, keeping its size;
//   - any other gate on t targets may multiply its size by 2^t;
//   - a measurement or a reset of a qubit never grows it.
//
// So the size is at most 2^b, b the targets of the branching gates so
// far, and at most 2^d, d the qubits that may be in superposition: those a
// branching gate touched, or that a monomial gate changed depending on
// such a qubit, since their last measurement or reset (a qubit measured or
// reset holds one value in each shot's state). After a measurement, b
// shrinks to d when d is the smaller: the bound restarts from what the
// state can be at that point. This is what makes GHZ on 64 qubits 2, and
// H then T on 40 qubits 2^40.
//
// Measurements only collapse the state in runs made shot by shot; a run
// whose measurements are terminal samples the final state, where they
// change nothing, and so count for nothing here.

// spread is how a gate or channel changes a support.
type spread uint8

const (
	spreadNone    spread = iota // diagonal: the support is unchanged
	spreadPermute               // monomial: the support is moved, one to one
	spreadBranch                // other: the support may grow 2^targets-fold
)

// spreadOf classifies a matrix (d×d, row-major).
func spreadOf(m []complex128, d int) spread {
	out := spreadNone
	for j := range d {
		nz := 0
		for r := range d {
			if m[r*d+j] != 0 {
				nz++
				if r != j {
					out = max(out, spreadPermute)
				}
			}
		}
		if nz > 1 {
			return spreadBranch
		}
	}
	return out
}

// opSpread classifies a gate or a channel (the widest of its Kraus
// matrices: one shot's state gets one of them).
func opSpread(op *Op) spread {
	switch op.Kind {
	case OpGate:
		if op.isDiagonal() {
			return spreadNone
		}
		return spreadOf(op.matrix(), 1<<op.NumTargets())
	case OpNoise:
		out := spreadNone
		for _, k := range op.Channel().kraus {
			out = max(out, spreadOf(k, 1<<op.NumTargets()))
		}
		return out
	}
	return spreadNone
}

// supportBound is the analysis's state at one point of the circuit: b
// bounds log2 of the support's size, d the qubits that may be in
// superposition (a mask: the sparse method runs at most 64 qubits).
// reached is false where no shot arrives (after an unconditional jump).
type supportBound struct {
	b       int
	d       uint64
	reached bool
}

func (s supportBound) join(o supportBound) supportBound {
	switch {
	case !s.reached:
		return o
	case !o.reached:
		return s
	}
	return supportBound{b: max(s.b, o.b), d: s.d | o.d, reached: true}
}

// step is the bound after op; collapse says whether measurements collapse
// the state (a run shot by shot).
func (s supportBound) step(op *Op, collapse bool) supportBound {
	if !s.reached {
		return s
	}
	switch op.Kind {
	case OpGate, OpNoise:
		sp := opSpread(op)
		if sp == spreadNone {
			return s
		}
		var targets, all uint64
		for j := range op.NumTargets() {
			targets |= 1 << uint(op.TargetAt(j)&63)
		}
		all = targets
		if op.Kind == OpGate {
			for j := range op.NumControls() {
				all |= 1 << uint(op.ControlAt(j).Qubit&63)
			}
		}
		switch {
		case sp == spreadBranch:
			s.d |= targets
			s.b = min(s.b+op.NumTargets(), bits.OnesCount64(s.d))
		case all&s.d != 0:
			// A permutation driven by a qubit in superposition puts its
			// targets in superposition too (CX from a |+⟩).
			s.d |= targets
		}
	case OpMeasure, OpReset:
		if !collapse {
			return s
		}
		s.d &^= 1 << uint(op.Qubit()&63)
		s.b = min(s.b, bits.OnesCount64(s.d))
	}
	return s
}

// SparseBound returns log2 of the most nonzero amplitudes a run of c on
// the sparse method can hold, at most c.NumQubits: collapse says whether
// its measurements and resets run shot by shot (else the final state is
// sampled, and they change nothing). Circuits of more than 64 qubits, or
// whose jumps lead back (loops), get the cruder bound of every qubit that
// may ever be in superposition. It checks ctx every few thousand
// operations.
func SparseBound(ctx context.Context, c *Circuit, collapse bool) (int, error) {
	if c.NumQubits > MaxSparseQubits {
		return c.NumQubits, nil
	}
	loops := false
	for i := range c.Ops {
		if op := &c.Ops[i]; op.Kind == OpJump && op.JumpTarget() <= i {
			loops = true
			break
		}
	}
	if loops {
		return superposable(ctx, c)
	}
	// One pass in order: a forward jump carries its state to its target,
	// where it joins the state that falls through.
	pending := map[int]supportBound{}
	s := supportBound{reached: true}
	peak := 0
	tick := ticker{ctx: ctx}
	for i := range c.Ops {
		if err := tick.tick(); err != nil {
			return 0, err
		}
		if p, ok := pending[i]; ok {
			s = s.join(p)
			delete(pending, i)
		}
		op := &c.Ops[i]
		if op.Kind == OpJump {
			pending[op.JumpTarget()] = pending[op.JumpTarget()].join(s)
			if op.Cond() == nil {
				s = supportBound{}
			}
			continue
		}
		next := s.step(op, collapse)
		if op.Cond() != nil {
			next = next.join(s) // shots that skip it keep their state
		}
		s = next
		peak = max(peak, s.b)
	}
	return min(peak, c.NumQubits), nil
}

// superposable is the bound of a circuit with loops: the qubits that may
// ever be in superposition, found by repeating the rules of step without
// measurements until nothing is added (each pass adds a qubit or ends).
func superposable(ctx context.Context, c *Circuit) (int, error) {
	var d uint64
	tick := ticker{ctx: ctx}
	for {
		before := d
		for i := range c.Ops {
			if err := tick.tick(); err != nil {
				return 0, err
			}
			s := supportBound{d: d, reached: true}.step(&c.Ops[i], false)
			d = s.d
		}
		if d == before {
			return min(bits.OnesCount64(d), c.NumQubits), nil
		}
	}
}

// SparseLog2 returns log2 of the most nonzero amplitudes a run of c
// with opts holds on the sparse method (what MemoryNeeds counts for it),
// with opts.Noise written into c first, as Run does.
func (c *Circuit) SparseLog2(opts Options) int {
	noisy, noisyEnd, err := withNoise(context.Background(), c, opts) // never cancelled
	if err != nil {
		return c.NumQubits
	}
	sh, _ := analyse(context.Background(), noisy) // never cancelled
	sh.noise = sh.noise || noisyEnd
	b, _ := SparseBound(context.Background(), noisy, sh.perShot()) // never cancelled
	return b
}
