package devices

import (
	"fmt"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/sim"
)

// checkCoupling refuses a circuit with a gate that joins qubits the
// device does not couple, naming where, both qubits and the device. A
// QIR program that runs shot by shot (adaptive) is not checked: its gates
// are known only as it runs.
func checkCoupling(d *qtype.Device, c *sim.Circuit) error {
	cm := d.Couplings()
	if cm == nil {
		return nil
	}
	var qs []int
	for i := range c.Ops {
		op := &c.Ops[i]
		if op.Kind != sim.OpGate || op.NumTargets()+op.NumControls() < 2 {
			continue
		}
		qs = qs[:0]
		for k := range op.NumTargets() {
			qs = append(qs, op.TargetAt(k))
		}
		for k := range op.NumControls() {
			qs = append(qs, op.ControlAt(k).Qubit)
		}
		if a, b, bad := qtype.Uncoupled(cm, qs); bad {
			where := ""
			if line, col := op.Pos(); line > 0 {
				where = fmt.Sprintf("%d:%d: ", line, col)
			}
			return qtype.Invalid("program.data", "%squbits %d and %d are not coupled on %s: a gate may join only coupled qubits (its topology and calibration edges)", where, min(a, b), max(a, b), d.QRN)
		}
	}
	return nil
}
