package httpadapter_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/qjobs/quantum"
)

// A batch over the wire, as the public SDK sends it: program is an array,
// the result has results and no resultData (written by the streaming
// writer exactly as encoding/json writes quantum.JobResult), and the
// program route answers the array. Every answer is checked against the
// OpenAPI document by the env's transport.
func TestBatchOverHTTP(t *testing.T) {
	e := newEnv(t)
	x := "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[3];\ncreg c[3];\nx q[1];\nmeasure q -> c;\n"
	programs := []any{
		map[string]any{"format": "qasm2", "data": bell},
		map[string]any{"format": "qasm2", "data": x},
	}
	qrn := e.create(aliceKey, map[string]any{"program": programs, "shots": 100, "deviceQrn": device})
	job := e.waitFor(aliceKey, qrn)
	if job["status"] != "COMPLETED" || job["numCircuits"] != 2.0 {
		t.Fatalf("batch %v, numCircuits %v: %v", job["status"], job["numCircuits"], job["statusMsg"])
	}

	r := e.do("GET", "/api/v1/jobs/"+qrn+"/result", aliceKey, nil)
	res := data(t, r, http.StatusOK)
	if _, ok := res["resultData"]; ok {
		t.Errorf("a batch's result has resultData: %s", r.raw)
	}
	var envelope struct {
		Data quantum.JobResult `json:"data"`
	}
	if err := json.Unmarshal([]byte(r.raw), &envelope); err != nil {
		t.Fatal(err)
	}
	got := envelope.Data
	if len(got.Results) != 2 || got.Results[1].ResultData.MeasurementCounts["010"] != 100 {
		t.Fatalf("results %+v", got.Results)
	}
	if n := got.Results[0].ResultData.MeasurementCounts["00"] + got.Results[0].ResultData.MeasurementCounts["11"]; n != 100 {
		t.Fatalf("circuit 0's counts %v", got.Results[0].ResultData.MeasurementCounts)
	}
	want, err := json.Marshal(struct {
		Success bool               `json:"success"`
		Data    *quantum.JobResult `json:"data"`
	}{true, &got})
	if err != nil {
		t.Fatal(err)
	}
	if r.raw != string(want)+"\n" {
		t.Fatalf("the streamed result differs from encoding/json's:\n got %s\nwant %s", r.raw, want)
	}

	pr := e.do("GET", "/api/v1/jobs/"+qrn+"/program", aliceKey, nil)
	var prog struct {
		Data []quantum.Program `json:"data"`
	}
	if err := json.Unmarshal([]byte(pr.raw), &prog); err != nil || len(prog.Data) != 2 || prog.Data[1].Data != x {
		t.Fatalf("program route: %v, %s", err, pr.raw)
	}
}

// Bad batches over the wire name the element.
func TestBatchErrorsOverHTTP(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name    string
		program any
		field   string
	}{
		{"empty", []any{}, "program"},
		{"a null element", []any{map[string]any{"format": "qasm2", "data": bell}, nil}, "program[1]"},
		{"an element without data", []any{map[string]any{"format": "qasm2"}}, "program[0].data"},
		{"a number", []any{7}, "program[0]"},
		{"a bad program", []any{map[string]any{"format": "qasm2", "data": bell}, map[string]any{"format": "qasm2", "data": "OPENQASM 2.0;\nqreg q[1];\nh q[0];\n"}}, "program[1].data"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.do("POST", "/api/v1/jobs", aliceKey, map[string]any{"program": tc.program, "shots": 10, "deviceQrn": device})
			wantError(t, r, http.StatusUnprocessableEntity, quantum.EVALIDATION, tc.field)
		})
	}
}
