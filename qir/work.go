package qir

import (
	"fmt"

	"github.com/qjobs/quantum/sim"
)

// work is what the shots of an interpreted run may still do, in sim's
// units (sim.Options.MaxWork): a gate on the state of n qubits costs
// sim.PassWork(n, 1), a measurement 2 passes, a reset 3, a shot's start 1,
// an instruction 1. A gate is charged before it runs, so a loop of gates
// on a large state stops at the bound, not at the end of its shot.
type work struct{ total, left int64 }

func newWork(max int64) *work {
	if max <= 0 {
		max = sim.DefaultMaxWork
	}
	return &work{max, max}
}

// charge takes n units, or fails once they are spent. A nil work (the
// trace, the exact enumeration in tests) charges nothing.
func (w *work) charge(n int64) error {
	if w == nil {
		return nil
	}
	if n > w.left {
		return fmt.Errorf("%w: the shots would do more than %d units of work (MaxWork: amplitudes touched, 2^n a gate on n qubits; a loop that does not end?)", sim.ErrWorkLimit, w.total)
	}
	w.left -= n
	return nil
}
