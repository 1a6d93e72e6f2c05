package sim

// A swap after which its qubits see only measurements changes no
// probability: it exchanges which qubit holds which value. Circuits often
// end with a row of them (a QFT reverses its qubits: 11 swaps at 22
// qubits, a quarter of its time), and a run that samples its shots from
// the final state (a terminal, noiseless circuit) has no need to apply
// them: it measures each qubit's value where it is before the swaps. The
// state such a run leaves is then not the circuit's, so only Run's
// sampled path does this, never Simulate, whose state is its answer.

// isPlainSwap reports whether op is the standard swap with no control, no
// condition and two distinct targets.
func isPlainSwap(op *Op) bool {
	return op.Kind == OpGate && op.std != 0 && stdTable[op.std-1].Name == "swap" && !op.wide() && op.nc == 0 &&
		op.Cond() == nil && op.NumTargets() == 2 && op.TargetAt(0) != op.TargetAt(1)
}

// dropFinalSwaps removes from the head the swaps that come after its last
// other gate, and returns source (a key's bits' measured qubits, as
// sourcesOf gives them) with each qubit traced back through them to the
// one that holds its value before them: after swap(a, b) qubit a holds
// what b held, so the last swap is undone first. A measurement made
// before a swap is of a qubit the swap leaves alone (the circuit is
// terminal), which the tracing keeps as it is.
func (p *prepared) dropFinalSwaps(source []int) []int {
	end := len(p.head)
	var swaps []*Op
	for i := len(p.head) - 1; i >= 0; i-- {
		op := p.head[i]
		if op.Kind == OpBarrier {
			continue
		}
		if !isPlainSwap(op) {
			break
		}
		swaps = append(swaps, op) // last first
		end = i
	}
	if len(swaps) == 0 {
		return source
	}
	p.head = p.head[:end]
	traced := make([]int, len(source))
	for b, q := range source {
		for _, op := range swaps {
			switch a, c := op.TargetAt(0), op.TargetAt(1); q {
			case a:
				q = c
			case c:
				q = a
			}
		}
		traced[b] = q // −1 (a bit never measured) matches no qubit
	}
	return traced
}
