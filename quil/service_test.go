package quil_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

const qvm = "azure:rigetti:sim:qvm"

// The public client's own request: a Bell pair on the QVM completes with
// only 00 and 11, a gate-model job whose program reads back as sent.
func TestPublicClientRequestOnTheQVM(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	ctx := context.Background()
	const bell = "DECLARE ro BIT[2]\nH 0\nCNOT 0 1\nMEASURE 0 ro[0]\nMEASURE 1 ro[1]\n"
	j, err := svc.CreateJob(ctx, u, quantum.JobRequest{Program: &quantum.Program{Format: "quil", Data: bell}, Shots: 1000, DeviceQRN: qvm})
	if err != nil {
		t.Fatal(err)
	}
	if j.ExperimentType != "gate_model" {
		t.Errorf("experimentType %q", j.ExperimentType)
	}
	res := quantumtest.WaitForResult(t, svc, u, j.JobQRN)
	counts := res.ResultData.MeasurementCounts
	if len(counts) != 2 || counts["00"]+counts["11"] != 1000 || counts["00"] < 400 || counts["11"] < 400 {
		t.Fatalf("counts %v, want about 500 each of 00 and 11 only", counts)
	}
	prog, err := svc.GetJobProgram(ctx, u, j.JobQRN)
	if err != nil || prog.Format != "quil" || prog.Data != bell {
		t.Fatalf("program %+v (%v)", prog, err)
	}
}

// Quil on the emulated Ankaa-3: its couplings apply, and its noise.
func TestQuilOnAnkaa(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	ctx := context.Background()
	const ankaa = "aws:rigetti:qpu:ankaa-3"
	_, err := svc.CreateJob(ctx, u, quantum.JobRequest{Program: &quantum.Program{Format: "quil",
		Data: "DECLARE ro BIT[2]\nH 0\nCNOT 0 40\nMEASURE 0 ro[0]\nMEASURE 40 ro[1]\n"}, Shots: 100, DeviceQRN: ankaa})
	var e *quantum.Error
	if !errors.As(err, &e) || e.Code != quantum.EVALIDATION || !strings.Contains(err.Error(), "coupl") {
		t.Fatalf("err %v, want the coupling refused", err)
	}
	j, err := svc.CreateJob(ctx, u, quantum.JobRequest{Program: &quantum.Program{Format: "quil",
		Data: "DECLARE ro BIT[2]\nX 0\nCNOT 0 1\nMEASURE 0 ro[0]\nMEASURE 1 ro[1]\n"}, Shots: 2000, DeviceQRN: ankaa,
		RuntimeOptions: map[string]any{"noiseModel": "Ankaa-3", "seed": 5}})
	if err != nil {
		t.Fatal(err)
	}
	counts := quantumtest.WaitForResult(t, svc, u, j.JobQRN).ResultData.MeasurementCounts
	if counts["11"] < 1600 || len(counts) < 2 {
		t.Fatalf("counts %v: want mostly 11, and noise", counts)
	}
}

// Bad Quil is a 422 naming the line and column; nothing is stored.
func TestBadQuilIsRefusedAtCreate(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	ctx := context.Background()
	cases := []struct{ src, want string }{
		{"DEFCAL X 0:\n    NOP\n", "1:1: DEFCAL is Quil-T"},
		{"H 0\nFOO 1\n", "2:1: unknown gate FOO"},
		{"H 30\n", "1:3: qubit 30 is past the device's 30 qubits"},
		{"DEFGATE B:\n    1, 1\n    0, 1\nB 0\n", "1:1: DEFGATE B is not unitary"},
		{"JUMP @x\n", "1:6: no LABEL @x"},
	}
	for _, tc := range cases {
		_, err := svc.CreateJob(ctx, u, quantum.JobRequest{Program: &quantum.Program{Format: "quil", Data: tc.src}, Shots: 10, DeviceQRN: qvm})
		var e *quantum.Error
		if !errors.As(err, &e) || e.Code != quantum.EVALIDATION || len(e.Details) != 1 || e.Details[0].Field != "program.data" || !strings.Contains(e.Details[0].Message, tc.want) {
			t.Errorf("%q: err %v, want program.data: …%s…", tc.src, err, tc.want)
		}
	}
	// A format the device does not take.
	_, err := svc.CreateJob(ctx, u, quantum.JobRequest{Program: &quantum.Program{Format: "qasm3", Data: "OPENQASM 3.0;\nqubit q;\n"}, Shots: 10, DeviceQRN: qvm})
	if err == nil || !strings.Contains(err.Error(), "program.format") || !strings.Contains(err.Error(), "pyquil") {
		t.Errorf("qasm3 on the QVM: %v", err)
	}
	page, err := svc.ListJobs(ctx, u, quantum.JobQuery{})
	if err != nil || page.Pagination.Total != 0 {
		t.Fatalf("jobs stored: %+v (%v)", page, err)
	}
}

// A batch of Quil programs: each its own counts.
func TestQuilBatch(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	ctx := context.Background()
	j, err := svc.CreateJob(ctx, u, quantum.JobRequest{Batch: []quantum.Program{
		{Format: "quil", Data: "DECLARE ro BIT\nX 0\nMEASURE 0 ro\n"},
		{Format: "quil", Data: "DECLARE ro BIT[2]\nX 1\nMEASURE 0 ro[0]\nMEASURE 1 ro[1]\n"},
	}, Shots: 50, DeviceQRN: qvm})
	if err != nil {
		t.Fatal(err)
	}
	res := quantumtest.WaitForResult(t, svc, u, j.JobQRN)
	if len(res.Results) != 2 || res.Results[0].ResultData.MeasurementCounts["1"] != 50 || res.Results[1].ResultData.MeasurementCounts["10"] != 50 {
		t.Fatalf("results %+v", res.Results)
	}
	_, err = svc.CreateJob(ctx, u, quantum.JobRequest{Batch: []quantum.Program{
		{Format: "quil", Data: "H 0\n"}, {Format: "quil", Data: "H 0\nBAD 1\n"},
	}, Shots: 50, DeviceQRN: qvm})
	if err == nil || !strings.Contains(err.Error(), "program[1]") || !strings.Contains(err.Error(), "2:1") {
		t.Fatalf("err %v, want program[1] and 2:1", err)
	}
}

// A loop that never ends ends FAILED on the work bound, saying so.
func TestEndlessQuilLoopFails(t *testing.T) {
	svc, u := quantumtest.NewService(t, quantum.WithMaxWork(1<<22))
	j, err := svc.CreateJob(context.Background(), u, quantum.JobRequest{DeviceQRN: qvm, Shots: 10,
		Program: &quantum.Program{Format: "quil", Data: "DECLARE ro BIT\nLABEL @again\nH 0\nMEASURE 0 ro\nJUMP @again\n"}})
	if err != nil {
		t.Fatal(err)
	}
	done := quantumtest.WaitForJob(t, svc, u, j.JobQRN)
	if done.StatusMsg != nil {
		t.Log(*done.StatusMsg)
	}
	if done.Status != quantum.StatusFailed || done.StatusMsg == nil || !strings.Contains(*done.StatusMsg, "work") {
		t.Fatalf("job %s (%v), want FAILED on the work bound", done.Status, done.StatusMsg)
	}
}
