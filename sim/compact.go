package sim

import "slices"

// A program may declare many qubits and touch few: OpenQASM registers are
// declared whole, and a program for a QPU addresses physical qubits by
// number. A state vector of the declared width would cost 2^declared
// amplitudes for nothing; Compact simulates the qubits used, keeping their
// order, so a program that declares 127 qubits and touches 5 costs 5.

// UsedQubits lists, in increasing order, the qubits some operation of c
// acts on: gate targets and controls, noise channels, measurements,
// resets. A barrier
// alone does not use a qubit (programs often fence a whole register).
func (c *Circuit) UsedQubits() []int {
	used := make([]bool, c.NumQubits)
	mark := func(q int) {
		if q >= 0 && q < len(used) {
			used[q] = true
		}
	}
	for i := range c.Ops {
		op := &c.Ops[i]
		switch op.Kind {
		case OpGate, OpNoise:
			for t := range op.NumTargets() {
				mark(op.TargetAt(t))
			}
			for k := range op.NumControls() {
				mark(op.ControlAt(k).Qubit)
			}
		case OpMeasure, OpReset:
			mark(op.Qubit())
		}
	}
	var out []int
	for q, u := range used {
		if u {
			out = append(out, q)
		}
	}
	return out
}

// Compact returns c on the qubits it uses, renumbered 0, 1, … in their
// order, and those qubits (qubit i of the result is qubits[i] of c). It
// returns c itself when every qubit is used, when c has no measurement (a
// circuit without one is measured on every declared qubit, which its
// counts' keys then show), or when c holds an operation it does not know.
// The classical bits, and so the counts' keys, are unchanged.
func (c *Circuit) Compact() (*Circuit, []int) {
	qubits := c.UsedQubits()
	if len(qubits) == c.NumQubits || !slices.ContainsFunc(c.Ops, func(op Op) bool { return op.Kind == OpMeasure }) {
		return c, nil
	}
	to := make([]int, c.NumQubits)
	for q := range to {
		to[q] = -1 // not used: a barrier drops it
	}
	for i, q := range qubits {
		to[q] = i
	}
	out := &Circuit{NumQubits: len(qubits), NumClbits: c.NumClbits, Ops: make([]Op, len(c.Ops))}
	for i, op := range c.Ops {
		switch op.Kind {
		case OpGate, OpNoise:
			if op.wide() {
				x := op.own()
				x.targets = remapped(x.targets, to)
				x.controls = slices.Clone(x.controls)
				for k := range x.controls {
					x.controls[k].Qubit = to[x.controls[k].Qubit]
				}
			} else {
				for k := range int(op.nt) + int(op.nc) {
					op.q[k] = int32(to[op.q[k]])
				}
			}
		case OpMeasure, OpReset:
			op.setInt(0, to[op.Qubit()])
		case OpBarrier:
			if old := op.Qubits(); old != nil {
				x := op.own()
				x.qubits = nil
				for _, q := range old {
					if to[q] >= 0 {
						x.qubits = append(x.qubits, to[q])
					}
				}
			}
		case OpSetBits, OpJump, OpCompute:
		default:
			return c, nil
		}
		out.Ops[i] = op
	}
	return out, qubits
}

func remapped(qs, to []int) []int {
	out := make([]int, len(qs))
	for i, q := range qs {
		out[i] = to[q]
	}
	return out
}
