package quantum_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

const annealer = "qbraid:nec:sim:vector-annealer"

// The public client's encodings: json.dumps of the problem, each quadratic
// key json.dumps of a pair (a space after the comma), the whole sent as a
// string.
const (
	clientQUBO = `{"problem_type": "qubo", "linear": {"x1": 1.0, "x2": -1.5}, "quadratic": {"[\"x1\", \"x2\"]": 0.5}}`
	// pyqubo's (4·s1 + 2·s2 + 7·s3 + s4)² over spins, as QuboProgram
	// sends it: every term in quadratic, the diagonal too. Its ground
	// states (0 at 4·s1 + 2·s2 + 7·s3 + s4 = 0, impossible with ±1·odd…)
	// are found by brute force in the test.
	clientPyQUBO = `{"problem_type": "qubo", "quadratic": {"[\"s1\", \"s1\"]": -160.0, "[\"s4\", \"s2\"]": 16.0, "[\"s1\", \"s2\"]": 64.0, "[\"s2\", \"s2\"]": -96.0, "[\"s3\", \"s2\"]": 112.0, "[\"s3\", \"s3\"]": -196.0, "[\"s1\", \"s3\"]": 224.0, "[\"s1\", \"s4\"]": 32.0, "[\"s4\", \"s3\"]": 56.0, "[\"s4\", \"s4\"]": -52.0}}`
)

func problemRequest(data string, opts map[string]any) quantum.JobRequest {
	return quantum.JobRequest{DeviceQRN: annealer, Program: &quantum.Program{Format: "problem", Data: data}, RuntimeOptions: opts}
}

// solution is one of a result's solutions as the public client reads it.
type solution struct {
	Spin           map[string]int `json:"spin"`
	Energy         float64        `json:"energy"`
	Time           float64        `json:"time"`
	Constraint     bool           `json:"constraint"`
	MemoryUsage    float64        `json:"memory_usage"`
	NumOccurrences int            `json:"num_occurrences"`
}

// annealResult is a result's resultData as the public client reads it
// (its AnnealingResultData: solutions and numSolutions) with what NEC's
// service adds (solutionCount).
type annealResult struct {
	Solutions     []solution     `json:"solutions"`
	NumSolutions  int            `json:"numSolutions"`
	SolutionCount int            `json:"solutionCount"`
	Counts        map[string]int `json:"measurementCounts"`
}

// resultOf reads a job's result through its JSON, as a client would.
func resultOf(t *testing.T, svc *quantum.Service, u quantum.User, qrn string) annealResult {
	t.Helper()
	res, err := svc.GetJobResult(ctx, u, qrn)
	if err != nil {
		t.Fatalf("GetJobResult: %v", err)
	}
	b, err := json.Marshal(res.ResultData)
	if err != nil {
		t.Fatal(err)
	}
	var r annealResult
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("resultData %s: %v", b, err)
	}
	return r
}

// qubo is a problem's energy at an assignment, from its own terms: the
// test's reading of the format, apart from the service's.
func energy(t *testing.T, data string, spin map[string]int) float64 {
	t.Helper()
	var p struct {
		Type      string             `json:"problem_type"`
		Linear    map[string]float64 `json:"linear"`
		Quadratic map[string]float64 `json:"quadratic"`
	}
	if err := json.Unmarshal([]byte(data), &p); err != nil {
		t.Fatal(err)
	}
	e := 0.0
	for v, c := range p.Linear {
		e += c * float64(spin[v])
	}
	for k, c := range p.Quadratic {
		var pair [2]string
		if err := json.Unmarshal([]byte(k), &pair); err != nil {
			t.Fatal(err)
		}
		e += c * float64(spin[pair[0]]*spin[pair[1]])
	}
	return e
}

// checkSolutions checks what every annealing result promises: distinct
// solutions, lowest energy first, each energy its assignment's, values of
// the problem's kind, occurrences adding up to the reads, both counts.
func checkSolutions(t *testing.T, data string, r annealResult, reads int, values ...int) {
	t.Helper()
	if r.Counts != nil || r.NumSolutions != len(r.Solutions) || r.SolutionCount != len(r.Solutions) || len(r.Solutions) == 0 {
		t.Fatalf("counts %v, numSolutions %d, solutionCount %d, %d solutions", r.Counts, r.NumSolutions, r.SolutionCount, len(r.Solutions))
	}
	total := 0
	seen := map[string]bool{}
	for i, s := range r.Solutions {
		key := fmt.Sprint(s.Spin)
		if seen[key] {
			t.Fatalf("solution %d repeats %v", i, s.Spin)
		}
		seen[key] = true
		if e := energy(t, data, s.Spin); math.Abs(e-s.Energy) > 1e-9 {
			t.Fatalf("solution %d: energy %v, its assignment's %v", i, s.Energy, e)
		}
		if i > 0 && s.Energy < r.Solutions[i-1].Energy {
			t.Fatalf("solution %d is lower than the one before it", i)
		}
		for v, x := range s.Spin {
			if x != values[0] && x != values[1] {
				t.Fatalf("solution %d: %s = %d", i, v, x)
			}
		}
		if !s.Constraint || s.Time < 0 || s.MemoryUsage <= 0 {
			t.Fatalf("solution %d: %+v", i, s)
		}
		total += s.NumOccurrences
	}
	if total != reads {
		t.Fatalf("occurrences add up to %d, want %d reads", total, reads)
	}
}

// A QUBO as the public client sends it: no shots (the job shows 1),
// experimentType annealing, the program answered as the object, the
// ground state found, solutions and no counts.
func TestAnnealingJob(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	j := create(t, svc, u, problemRequest(clientQUBO, map[string]any{"seed": 7}))
	if j.Shots != 1 || j.ExperimentType != "annealing" {
		t.Fatalf("shots %d, experimentType %q", j.Shots, j.ExperimentType)
	}
	j = quantumtest.WaitForJob(t, svc, u, j.JobQRN)
	if j.Status != quantum.StatusCompleted {
		t.Fatalf("%s: %s", j.Status, quantumtest.StatusMsg(j))
	}
	r := resultOf(t, svc, u, j.JobQRN)
	checkSolutions(t, clientQUBO, r, 1, 0, 1)
	if s := r.Solutions[0]; s.Energy != -1.5 || s.Spin["x1"] != 0 || s.Spin["x2"] != 1 {
		t.Fatalf("solution %+v, want x1=0 x2=1 at −1.5", s)
	}
	if j.Metadata["method"] != "simulated_annealing" || j.Metadata["numSweeps"] != 1000 || j.Metadata["seed"] != uint64(7) {
		t.Fatalf("metadata %v", j.Metadata)
	}
	p, err := svc.GetJobProgram(ctx, u, j.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := json.Marshal(p); !bytes.Contains(b, []byte(`"data":{"problem_type"`)) {
		t.Fatalf("program %s, want its data as an object", b)
	}
}

// num_reads counts the reads whatever the shots; the exact method returns
// every ground state of pyqubo's problem; the same seed, the same
// solutions.
func TestAnnealingOptions(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	run := func(req quantum.JobRequest) (*quantum.Job, annealResult) {
		t.Helper()
		j := quantumtest.WaitForJob(t, svc, u, create(t, svc, u, req).JobQRN)
		if j.Status != quantum.StatusCompleted {
			t.Fatalf("%s: %s", j.Status, quantumtest.StatusMsg(j))
		}
		return j, resultOf(t, svc, u, j.JobQRN)
	}
	req := problemRequest(clientPyQUBO, map[string]any{"num_reads": 50, "seed": 1})
	req.Shots = 3
	j, r := run(req)
	checkSolutions(t, clientPyQUBO, r, 50, 0, 1)
	if j.Shots != 3 || j.Metadata["numReads"] != 50 {
		t.Fatalf("shots %d, metadata %v", j.Shots, j.Metadata)
	}
	// Brute force over the 16 assignments.
	best, ground := math.Inf(1), 0
	for code := range 16 {
		spin := map[string]int{"s1": code & 1, "s2": code >> 1 & 1, "s3": code >> 2 & 1, "s4": code >> 3 & 1}
		switch e := energy(t, clientPyQUBO, spin); {
		case e < best:
			best, ground = e, 1
		case e == best:
			ground++
		}
	}
	if r.Solutions[0].Energy != best {
		t.Fatalf("50 reads found %v, the ground energy is %v", r.Solutions[0].Energy, best)
	}
	_, exact := run(problemRequest(clientPyQUBO, map[string]any{"method": "exact"}))
	if len(exact.Solutions) != ground || exact.Solutions[0].Energy != best {
		t.Fatalf("exact: %d solutions at %v, want %d at %v", len(exact.Solutions), exact.Solutions[0].Energy, ground, best)
	}
	checkSolutions(t, clientPyQUBO, exact, ground, 0, 1)

	ising := `{"problem_type": "ising", "linear": {"a": 0.5, "b": -1}, "quadratic": {"[\"a\", \"b\"]": 1, "[\"b\", \"c\"]": -0.5, "[\"c\", \"a\"]": 0.25}}`
	opts := func() map[string]any {
		return map[string]any{"num_reads": 20, "num_sweeps": 200, "seed": 99, "beta_schedule_type": "linear", "beta_range": []any{0.1, 5}}
	}
	j1, r1 := run(problemRequest(ising, opts()))
	_, r2 := run(problemRequest(ising, opts()))
	checkSolutions(t, ising, r1, 20, -1, 1)
	for i := range r1.Solutions {
		r1.Solutions[i].Time, r2.Solutions[i].Time = 0, 0
	}
	if fmt.Sprint(r1) != fmt.Sprint(r2) {
		t.Fatalf("seed 99 twice: %v and %v", r1, r2)
	}
	if fmt.Sprint(j1.Metadata["betaRange"]) != "[0.1 5]" || j1.Metadata["betaScheduleType"] != "linear" {
		t.Fatalf("metadata %v", j1.Metadata)
	}
}

// Every bad input is a 422 naming the path and the rule, and nothing is
// stored.
func TestAnnealingRefusals(t *testing.T) {
	svc, u := quantumtest.NewService(t, quantum.WithMemoryBudget(1<<20), quantum.WithMaxWork(1e8))
	qubo := func(body string) string { return `{"problem_type": "qubo", ` + body + `}` }
	big := func(n int) string {
		var b strings.Builder
		b.WriteString(`{"problem_type": "ising", "linear": {`)
		for i := range n {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, `"v%d": 1`, i)
		}
		b.WriteString("}}")
		return b.String()
	}
	for _, c := range []struct {
		name, data string
		opts       map[string]any
		field      string
		rule       string
	}{
		{"unknown problem_type", `{"problem_type": "hubo", "linear": {"a": 1}}`, nil, "program.data.problem_type", `must be "qubo" or "ising"`},
		{"no problem_type", `{"linear": {"a": 1}}`, nil, "program.data.problem_type", "is required"},
		{"a key split as text", qubo(`"quadratic": {"x1, x2": 1}`), nil, `program.data.quadratic["x1, x2"]`, "must be a JSON array of two variable names"},
		{"a key of three names", qubo(`"quadratic": {"[\"a\", \"b\", \"c\"]": 1}`), nil, `program.data.quadratic["[\"a\", \"b\", \"c\"]"]`, "two variable names"},
		{"a coefficient past float64", qubo(`"linear": {"a": 1e400}`), nil, `program.data.linear["a"]`, "must be a finite number"},
		{"a coefficient as text", qubo(`"quadratic": {"[\"a\", \"b\"]": "NaN"}`), nil, `program.data.quadratic["[\"a\", \"b\"]"]`, "must be a finite number"},
		{"NaN as Python writes it", qubo(`"linear": {"a": NaN}`), nil, "program.data", "NaN is not one"},
		{"an empty problem", `{"problem_type": "qubo", "linear": {}}`, nil, "program.data", "has no variables"},
		{"an Ising diagonal", `{"problem_type": "ising", "quadratic": {"[\"a\", \"a\"]": 1}}`, nil, `program.data.quadratic["[\"a\", \"a\"]"]`, "an Ising problem cannot hold"},
		{"not JSON", `problem`, nil, "program.data", "is not JSON"},
		{"coefficients past float64's arithmetic", qubo(`"linear": {"a": 1e308, "b": 1e308}`), nil, "program.data", "stays finite within"},
		{"biases too small for a β range", qubo(`"linear": {"a": 1e-320}`), nil, "program.data", "give runtimeOptions.beta_range"},
		{"past the memory budget", big(20000), nil, "program.data", "more than the service's budget"},
		{"num_reads 0", clientQUBO, map[string]any{"num_reads": 0}, "runtimeOptions.num_reads", "must be an integer from 1"},
		{"num_reads -3", clientQUBO, map[string]any{"num_reads": -3}, "runtimeOptions.num_reads", "must be an integer from 1"},
		{"num_reads 1.5", clientQUBO, map[string]any{"num_reads": 1.5}, "runtimeOptions.num_reads", "must be an integer from 1"},
		{"num_reads as text", clientQUBO, map[string]any{"num_reads": "10"}, "runtimeOptions.num_reads", "must be an integer from 1"},
		{"num_sweeps 0", clientQUBO, map[string]any{"num_sweeps": 0}, "runtimeOptions.num_sweeps", "must be an integer of at least 1"},
		{"an unknown schedule", clientQUBO, map[string]any{"beta_schedule_type": "custom"}, "runtimeOptions.beta_schedule_type", `must be "geometric"`},
		{"a beta range of one", clientQUBO, map[string]any{"beta_range": []any{1}}, "runtimeOptions.beta_range", "must be [hot, cold]"},
		{"a geometric range from 0", clientQUBO, map[string]any{"beta_range": []any{0, 1}}, "runtimeOptions.beta_range", "above 0 for a geometric schedule"},
		{"an unknown method", clientQUBO, map[string]any{"method": "statevector"}, "runtimeOptions.method", `must be "simulated_annealing"`},
		{"exact past 30 variables", big(31), map[string]any{"method": "exact"}, "runtimeOptions.method", "at most 30 variables"},
		{"past the work bound", clientQUBO, map[string]any{"num_sweeps": 50_000_000}, "runtimeOptions.num_sweeps", "more than the service's bound"},
		{"exact past the work bound", big(30), map[string]any{"method": "exact"}, "runtimeOptions.method", "simulated_annealing takes it"},
		{"a noise model", clientQUBO, map[string]any{"noiseModel": "depolarizing"}, "runtimeOptions.noiseModel", "has no noise models"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := svc.CreateJob(ctx, u, problemRequest(c.data, c.opts))
			wantFields(t, err, c.field)
			if msg := err.(*quantum.Error).Details[0].Message; !strings.Contains(msg, c.rule) {
				t.Fatalf("%s: %q, want a rule with %q", c.field, msg, c.rule)
			}
		})
	}
	// Every bad option is said at once.
	_, err := svc.CreateJob(ctx, u, problemRequest(clientQUBO, map[string]any{"num_reads": 0, "beta_schedule_type": "custom", "method": "qaoa"}))
	wantFields(t, err, "runtimeOptions.num_reads", "runtimeOptions.beta_schedule_type", "runtimeOptions.method")
	// A problem where the device takes none, and a circuit on the annealer.
	_, err = svc.CreateJob(ctx, u, quantum.JobRequest{DeviceQRN: flagship, Shots: 1, Program: &quantum.Program{Format: "problem", Data: clientQUBO}})
	wantFields(t, err, "program.format")
	_, err = svc.CreateJob(ctx, u, quantum.JobRequest{DeviceQRN: annealer, Shots: 1, Program: &quantum.Program{Format: "qasm2", Data: bell2}})
	wantFields(t, err, "program.format")
	// A circuit's shots are still required.
	_, err = svc.CreateJob(ctx, u, quantum.JobRequest{DeviceQRN: flagship, Program: &quantum.Program{Format: "qasm2", Data: bell2}})
	wantFields(t, err, "shots")
	page, err := svc.ListJobs(ctx, u, quantum.JobQuery{})
	if err != nil || page.Pagination.Total != 0 {
		t.Fatalf("%d jobs stored (%v), want none", page.Pagination.Total, err)
	}
}

// A job that anneals for long stops when cancelled.
func TestAnnealingCancel(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	j := create(t, svc, u, problemRequest(clientQUBO, map[string]any{"num_sweeps": 2_000_000_000}))
	quantumtest.WaitForStatus(t, svc, u, j.JobQRN, 30*time.Second, quantum.StatusRunning)
	if _, err := svc.CancelJob(ctx, u, j.JobQRN); err != nil {
		t.Fatal(err)
	}
	if j = quantumtest.WaitForJob(t, svc, u, j.JobQRN); j.Status != quantum.StatusCancelled {
		t.Fatalf("%s: %s", j.Status, quantumtest.StatusMsg(j))
	}
}

// Over HTTP, as the public client sends it: data a JSON string, shots
// absent or null; the device's numberQubits null; the result's JSON with
// solutions and no measurementCounts. A bad problem is a 422 naming its
// path.
func TestAnnealingOverHTTP(t *testing.T) {
	svc, u := quantumtest.NewService(t)
	srv := quantumtest.NewServer(t, svc)
	call := func(method, path string, body any) (int, map[string]any) {
		t.Helper()
		var r io.Reader
		if body != nil {
			b, _ := json.Marshal(body)
			r = bytes.NewReader(b)
		}
		req, _ := http.NewRequest(method, srv.URL+"/api/v1"+path, r)
		req.Header.Set("X-API-KEY", quantumtest.APIKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
			t.Fatal(err)
		}
		return resp.StatusCode, out
	}
	status, dev := call("GET", "/devices/"+annealer, nil)
	if d, _ := dev["data"].(map[string]any); status != 200 || d["numberQubits"] != nil || d["paradigm"] != "annealing" || fmt.Sprint(d["runInputTypes"]) != "[qubo]" {
		t.Fatalf("%d %v", status, dev)
	}
	var object any
	json.Unmarshal([]byte(clientQUBO), &object)
	for _, c := range []struct {
		name string
		body map[string]any
	}{
		{"a string, no shots", map[string]any{"deviceQrn": annealer, "program": map[string]any{"format": "problem", "data": clientQUBO}}},
		{"shots null", map[string]any{"deviceQrn": annealer, "shots": nil, "program": map[string]any{"format": "problem", "data": clientQUBO}}},
		{"an object", map[string]any{"deviceQrn": annealer, "shots": 4, "program": map[string]any{"format": "problem", "data": object}, "runtimeOptions": map[string]any{"num_reads": 6}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			status, created := call("POST", "/jobs", c.body)
			job, _ := created["data"].(map[string]any)
			if status != 201 || job["experimentType"] != "annealing" || job["shots"] == nil {
				t.Fatalf("%d %v", status, created)
			}
			qrn := job["jobQrn"].(string)
			quantumtest.WaitForJob(t, svc, u, qrn)
			status, res := call("GET", "/jobs/"+qrn+"/result", nil)
			b, _ := json.Marshal(res["data"].(map[string]any)["resultData"])
			var r annealResult
			if err := json.Unmarshal(b, &r); status != 200 || err != nil || bytes.Contains(b, []byte("measurementCounts")) {
				t.Fatalf("%d %s", status, b)
			}
			reads := 1
			if c.name == "an object" {
				reads = 6
			}
			checkSolutions(t, clientQUBO, r, reads, 0, 1)
		})
	}
	status, refused := call("POST", "/jobs", map[string]any{"deviceQrn": annealer,
		"program": map[string]any{"format": "problem", "data": `{"problem_type": "qubo", "quadratic": {"[\"x1\", \"x2\"]": 1e999}}`}})
	details := fmt.Sprint(refused["error"])
	if status != 422 || !strings.Contains(details, `program.data.quadratic["[\"x1\", \"x2\"]"]`) || !strings.Contains(details, "finite number") {
		t.Fatalf("%d %v", status, refused)
	}
	status, refused = call("POST", "/jobs", map[string]any{"deviceQrn": flagship, "program": map[string]any{"format": "qasm2", "data": bell2}})
	if status != 422 || !strings.Contains(fmt.Sprint(refused["error"]), "shots") {
		t.Fatalf("a circuit without shots: %d %v", status, refused)
	}
}
