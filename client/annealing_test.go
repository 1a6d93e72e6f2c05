package client_test

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

// An annealing problem through the Go client: Shots left 0 (the wire's
// "shots": 0) is a job of 1 shot, and the result's solutions read over
// HTTP are, as JSON, what the Service holds.
func TestAnnealingThroughTheClient(t *testing.T) {
	tw := newTwins(t)
	problem := `{"problem_type": "qubo", "linear": {"x1": 1.0, "x2": -1.5}, "quadratic": {"[\"x1\", \"x2\"]": 0.5}}`
	j := create(t, tw.remote, quantum.JobRequest{DeviceQRN: "qbraid:nec:sim:vector-annealer",
		Program: &quantum.Program{Format: "problem", Data: problem}, RuntimeOptions: map[string]any{"num_reads": 8, "seed": 3}})
	if j.Shots != 1 || j.ExperimentType != "annealing" {
		t.Fatalf("shots %d, experimentType %q", j.Shots, j.ExperimentType)
	}
	alice, err := tw.svc.Authenticate(ctx, quantumtest.APIKey)
	if err != nil {
		t.Fatal(err)
	}
	quantumtest.WaitForJob(t, tw.svc, alice, j.JobQRN)
	remote, err := tw.remote.GetJobResult(ctx, j.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	local, err := tw.local.GetJobResult(ctx, j.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	r, _ := json.Marshal(remote.ResultData)
	l, _ := json.Marshal(local.ResultData)
	if !bytes.Equal(r, l) || !bytes.Contains(r, []byte(`"spin":{"x1":0,"x2":1}`)) || bytes.Contains(r, []byte("measurementCounts")) {
		t.Fatalf("over HTTP %s\nin process %s", r, l)
	}
	p, err := tw.remote.GetJobProgram(ctx, j.JobQRN)
	if err != nil || p.Format != "problem" {
		t.Fatalf("program %+v, %v", p, err)
	}
}
