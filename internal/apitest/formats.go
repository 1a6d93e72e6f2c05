package apitest

import (
	"errors"
	"testing"

	"github.com/qjobs/quantum"
)

// testFormats: a Quil program on the QVM and an IonQ JSON circuit on the
// IonQ Simulator, as the public client sends them, complete with keys of
// their classical bits; the IonQ circuit reads back as sent (over HTTP as
// the object), and one with an error is refused naming its JSON path.
func testFormats(t *testing.T, target Target) {
	e := open(t, target)
	quil := e.create(e.alice, quantum.JobRequest{DeviceQRN: qvm, Shots: 200,
		Program: &quantum.Program{Format: "quil", Data: "DECLARE ro BIT[2]\nH 0\nCNOT 0 1\nMEASURE 0 ro[0]\nMEASURE 1 ro[1]\n"}})
	const circuit = `{"qubits":3,"circuit":[{"gate":"h","target":0},{"gate":"cnot","control":0,"target":1}]}`
	ionq := e.create(e.alice, quantum.JobRequest{DeviceQRN: ionqSim, Shots: 200,
		Program: &quantum.Program{Format: "ionq.circuit.v0", Data: circuit}})
	for qrn, keys := range map[string][]string{quil.JobQRN: {"00", "11"}, ionq.JobQRN: {"000", "011"}} {
		if j := e.wait(e.alice, qrn); j.Status != quantum.StatusCompleted || j.ExperimentType != "gate_model" {
			t.Fatalf("%s: %s, %s", qrn, j.Status, j.ExperimentType)
		}
		res, err := e.alice.GetJobResult(ctx, qrn)
		if err != nil {
			t.Fatal(err)
		}
		counts := res.ResultData.MeasurementCounts
		if counts[keys[0]]+counts[keys[1]] != 200 {
			t.Errorf("%s: counts %v, want only %v", qrn, counts, keys)
		}
	}
	prog, err := e.alice.GetJobProgram(ctx, ionq.JobQRN)
	if err != nil || prog.Format != "ionq.circuit.v0" || prog.Data != circuit {
		t.Errorf("the IonQ program read back: %+v (%v)", prog, err)
	}
	_, err = e.alice.CreateJob(ctx, quantum.JobRequest{DeviceQRN: ionqSim, Shots: 10,
		Program: &quantum.Program{Format: "ionq.circuit.v0", Data: `{"qubits":2,"circuit":[{"gate":"rx","target":0,"rotation":"1"}]}`}})
	var qe *quantum.Error
	if !errors.As(err, &qe) || len(qe.Details) != 1 || qe.Details[0].Field != "program.data.circuit[0].rotation" {
		t.Errorf("a rotation that is not a number: %v", err)
	}
}
