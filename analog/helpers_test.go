package analog_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os"
	"strconv"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

// request is a job request as the public client's tests record it.
type request struct {
	Name    string `json:"name"`
	Program struct {
		Format string          `json:"format"`
		Data   json.RawMessage `json:"data"`
	} `json:"program"`
	Shots     int    `json:"shots"`
	DeviceQRN string `json:"deviceQrn"`
}

// recorded reads a request of testdata.
func recorded(t *testing.T, file string) request {
	t.Helper()
	b, err := os.ReadFile("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	var r request
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// object is a program's data as a generic JSON value, to change before
// sending it again.
func object(t *testing.T, data json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func text(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// run creates a job and waits for its end.
func run(t *testing.T, svc *quantum.Service, u quantum.User, req quantum.JobRequest) *quantum.Job {
	t.Helper()
	job, err := svc.CreateJob(context.Background(), u, req)
	if err != nil {
		t.Fatal(err)
	}
	return quantumtest.WaitForJob(t, svc, u, job.JobQRN)
}

// series is a time series of the public client's analog programs: times
// in seconds and values, as decimal strings.
func series(times []string, values ...string) map[string]any {
	return map[string]any{"time_series": map[string]any{"times": times, "values": values}, "pattern": "uniform"}
}

// ahsProgram is an analog program of the public client's form.
func ahsProgram(sites [][2]string, filling []int, amplitude, phase, detuning map[string]any, local ...map[string]any) map[string]any {
	var s []any
	for _, xy := range sites {
		s = append(s, []any{xy[0], xy[1]})
	}
	locals := []any{}
	for _, l := range local {
		locals = append(locals, l)
	}
	return map[string]any{
		"register": map[string]any{"sites": s, "filling": filling},
		"hamiltonian": map[string]any{
			"drivingFields": []any{map[string]any{"amplitude": amplitude, "phase": phase, "detuning": detuning}},
			"localDetuning": locals,
		},
	}
}

// dec writes a number as the public client does, a decimal string.
func dec(x float64) string { return strconv.FormatFloat(x, 'E', -1, 64) }

// apiError is the error of an answer's envelope.
type apiError struct {
	Code    string `json:"code"`
	Message string `json:"message"`
	Details []struct {
		Field   string `json:"field"`
		Message string `json:"message"`
	} `json:"details"`
}

// post creates a job over HTTP, as the public client does, and returns
// the status and the error of the answer (zero when it succeeded).
func post(t *testing.T, base string, body any) (int, apiError) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, base+"/api/v1/jobs", bytes.NewReader([]byte(text(t, body))))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-API-KEY", quantumtest.APIKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var env struct {
		Error apiError `json:"error"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, env.Error
}
