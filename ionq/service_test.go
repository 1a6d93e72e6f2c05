package ionq_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

const ionqSim = "ionq:ionq:sim:simulator"

// An IonQ circuit on the IonQ simulator: keys of "qubits" bits, qubit 0
// rightmost, even where the circuit leaves qubits alone; the program
// reads back as the object.
func TestIonQOnTheSimulator(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	ctx := context.Background()
	const data = `{"qubits": 4, "circuit": [{"gate": "h", "target": 0}, {"gate": "cnot", "control": 0, "target": 1}]}`
	j, err := svc.CreateJob(ctx, u, quantum.JobRequest{Program: &quantum.Program{Format: "ionq.circuit.v0", Data: data}, Shots: 1000, DeviceQRN: ionqSim})
	if err != nil {
		t.Fatal(err)
	}
	counts := quantumtest.WaitForResult(t, svc, u, j.JobQRN).ResultData.MeasurementCounts
	if len(counts) != 2 || counts["0000"]+counts["0011"] != 1000 {
		t.Fatalf("counts %v, want 0000 and 0011 only", counts)
	}
	prog, err := svc.GetJobProgram(ctx, u, j.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(prog)
	if !strings.Contains(string(b), `"data":{"qubits":4`) {
		t.Fatalf("program as JSON: %s, want data as an object", b)
	}
}

// Native gates on the emulated Aria-1: MS fully entangling makes 00 and
// 11, and the device's noise a little of the rest.
func TestNativeOnAria(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	ctx := context.Background()
	const data = `{"qubits": 2, "gateset": "native", "circuit": [{"gate": "ms", "targets": [0, 1], "phases": [0, 0]}]}`
	j, err := svc.CreateJob(ctx, u, quantum.JobRequest{Program: &quantum.Program{Format: "ionq.circuit.v0", Data: data}, Shots: 1000, DeviceQRN: "aws:ionq:qpu:aria-1"})
	if err != nil {
		t.Fatal(err)
	}
	counts := quantumtest.WaitForResult(t, svc, u, j.JobQRN).ResultData.MeasurementCounts
	// the device's noise model applies: a few 01 and 10
	if counts["00"]+counts["11"] < 950 || counts["00"] < 400 || counts["11"] < 400 {
		t.Fatalf("counts %v, want about half 00 and half 11", counts)
	}
}

// Bad IonQ JSON is a 422 naming the JSON path under program.data (or
// program[i].data in a batch); nothing is stored.
func TestBadIonQIsRefusedAtCreate(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	ctx := context.Background()
	cases := []struct{ data, field, want string }{
		{`{"qubits": 2, "circuit": [{"gate": "x", "target": 0, "targets": [1]}]}`, "program.data.circuit[0]", "both"},
		{`{"qubits": 2, "circuit": [{"gate": "h", "target": 0}, {"gate": "gpi", "target": 0, "phase": 0}]}`, "program.data.circuit[1].gate", "do not mix"},
		{`{"qubits": 2, "circuit": [{"gate": "rx", "target": 0, "rotation": "half"}]}`, "program.data.circuit[0].rotation", "must be a number"},
		{`{"qubits": 29, "circuit": []}`, "program.data.qubits", "more than the device's 28 qubits"},
		{`{"qubits": 2, "circuits": [{"circuit": []}]}`, "program.data.circuits", "batch"},
		{`not json`, "program.data", "must be a JSON object"},
	}
	for _, tc := range cases {
		_, err := svc.CreateJob(ctx, u, quantum.JobRequest{Program: &quantum.Program{Format: "ionq.circuit.v0", Data: tc.data}, Shots: 10, DeviceQRN: ionqSim})
		var e *quantum.Error
		if !errors.As(err, &e) || e.Code != quantum.EVALIDATION || len(e.Details) != 1 || e.Details[0].Field != tc.field || !strings.Contains(e.Details[0].Message, tc.want) {
			t.Errorf("%s: err %v, want %s: …%s…", tc.data, err, tc.field, tc.want)
		}
	}
	_, err := svc.CreateJob(ctx, u, quantum.JobRequest{Batch: []quantum.Program{
		{Format: "ionq.circuit.v0", Data: `{"qubits": 1, "circuit": []}`},
		{Format: "ionq.circuit.v0", Data: `{"qubits": 1, "circuit": [{"gate": "x", "target": 3}]}`},
	}, Shots: 10, DeviceQRN: ionqSim})
	var e *quantum.Error
	if !errors.As(err, &e) || len(e.Details) != 1 || e.Details[0].Field != "program[1].data.circuit[0].target" {
		t.Fatalf("batch: err %v, want program[1].data.circuit[0].target", err)
	}
	page, err := svc.ListJobs(ctx, u, quantum.JobQuery{})
	if err != nil || page.Pagination.Total != 0 {
		t.Fatalf("jobs stored: %+v (%v)", page, err)
	}
}

// A batch of IonQ circuits.
func TestIonQBatch(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	j, err := svc.CreateJob(context.Background(), u, quantum.JobRequest{Batch: []quantum.Program{
		{Format: "ionq.circuit.v0", Data: `{"qubits": 2, "circuit": [{"gate": "x", "target": 1}]}`},
		{Format: "ionq.circuit.v0", Data: `{"qubits": 3, "circuit": [{"gate": "x", "target": 0}]}`},
	}, Shots: 20, DeviceQRN: ionqSim})
	if err != nil {
		t.Fatal(err)
	}
	res := quantumtest.WaitForResult(t, svc, u, j.JobQRN)
	if len(res.Results) != 2 || res.Results[0].ResultData.MeasurementCounts["10"] != 20 || res.Results[1].ResultData.MeasurementCounts["001"] != 20 {
		t.Fatalf("results %+v", res.Results)
	}
}
