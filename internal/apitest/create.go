package apitest

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/quantumtest"
)

// testCreateCompletes follows a job from CreateJob to COMPLETED and reads
// it every way there is: every field of the job at each step, tags and
// runtimeOptions of many Go types back as JSON gives them, its result and
// its program.
func testCreateCompletes(t *testing.T, target Target) {
	e := open(t, target)
	req := request(flagship, bell, 1000)
	req.Name = "bell pair ✓ ünïcode"
	req.Tags = map[string]any{"team": "a", "n": 3, "big": int64(1) << 53, "ok": true, "four": 4.0, "small": uint8(9), "neg": int16(-2)}
	req.RuntimeOptions = map[string]any{
		"seed": 42,
		"i":    int32(-7), "f": 2.5, "tiny": 1e-7, "huge": 1e300, "big": int64(1) << 62, "whole": 3.0, "f32": float32(0.5),
		"s": "text", "b": false, "null": nil,
		"list":   []int{1, 2},
		"nested": map[string]any{"a": []any{1, 2.5, "x", nil, true, map[string]any{"deep": []any{}}}, "b": map[string]any{}},
		"struct": struct {
			A int    `json:"a"`
			B string `json:"b,omitempty"`
		}{A: 1},
	}
	before := time.Now()
	created := e.create(e.alice, req)
	after := time.Now()
	want := wantNewJob(t, created, e.aliceUser, before, after, quantum.Job{
		Name:      "bell pair ✓ ünïcode",
		Shots:     1000,
		DeviceQRN: flagship,
		Tags:      map[string]any{"team": "a", "n": int64(3), "big": int64(1) << 53, "ok": true, "four": int64(4), "small": int64(9), "neg": int64(-2)},
		RuntimeOptions: map[string]any{
			"seed": int64(42),
			"i":    int64(-7), "f": 2.5, "tiny": 1e-7, "huge": 1e300, "big": int64(1) << 62, "whole": int64(3), "f32": 0.5,
			"s": "text", "b": false, "null": nil,
			"list":   []any{int64(1), int64(2)},
			"nested": map[string]any{"a": []any{int64(1), 2.5, "x", nil, true, map[string]any{"deep": []any{}}}, "b": map[string]any{}},
			"struct": map[string]any{"a": int64(1)},
		},
		Vendor:         "qbraid",
		Provider:       "qbraid",
		Status:         quantum.StatusInitializing,
		ExperimentType: "gate_model",
		Metadata:       map[string]any{},
	})
	wantEqual(t, "created job", created, want)

	// Read at once, the job may have moved on, but only in its status,
	// queue position, times and metadata.
	now := e.get(e.alice, created.JobQRN)
	if !slices.Contains(qtype.JobStatuses(), now.Status) || now.Status == quantum.StatusFailed || now.Status == quantum.StatusCancelled {
		t.Fatalf("job read after create is %s", now.Status)
	}
	so := *now
	so.Status, so.QueuePosition, so.TimeStamps, so.Metadata = want.Status, nil, want.TimeStamps, want.Metadata
	wantEqual(t, "job read after create", &so, want)

	done := e.wait(e.alice, created.JobQRN)
	ms, ok := done.Metadata["simulationMs"].(int64)
	if !ok || ms < 0 {
		t.Fatalf("metadata.simulationMs %#v: want a non-negative int64", done.Metadata["simulationMs"])
	}
	want = ended(t, want, done, quantum.StatusCompleted, map[string]any{
		"node": node, "seed": int64(42), "executionPath": "sampled", "numQubits": int64(2), "simulationMs": ms, "precision": "double",
		"method": "stabilizer", "methodReason": "all gates Clifford", // a Bell pair is Clifford
	})
	wantEqual(t, "job from Wait", done, want)
	wantEqual(t, "job from GetJob after Wait", e.get(e.alice, created.JobQRN), want)

	res, err := e.alice.GetJobResult(ctx, created.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	counts := res.ResultData.MeasurementCounts
	if len(counts) != 2 || counts["00"]+counts["11"] != 1000 || counts["00"] < 400 || counts["11"] < 400 {
		t.Fatalf("Bell counts %v: want 00 and 11 about 500 each, 1000 in all", counts)
	}
	wantEqual(t, "result", res, &quantum.JobResult{
		Status: quantum.StatusCompleted, Cost: 0, TimeStamps: want.TimeStamps,
		ResultData: quantum.ResultData{MeasurementCounts: counts},
	})

	prog, err := e.alice.GetJobProgram(ctx, created.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "program", prog, &quantum.JobProgram{Program: quantum.Program{Format: "qasm3", Data: bell}})

	page := e.list(e.alice, quantum.JobQuery{})
	wantEqual(t, "job list", page, &quantum.JobPage{Jobs: []*quantum.Job{want},
		Pagination: quantum.Pagination{Page: 1, Limit: 50, Total: 1, TotalPages: 1}})
}

// testSameSeed: a seed makes the counts reproducible, and a job without
// one reports the seed it ran with, which reproduces them too.
func testSameSeed(t *testing.T, target Target) {
	e := open(t, target)
	run := func(seed any) (*quantum.Job, map[string]int) {
		t.Helper()
		req := quantum.JobRequest{DeviceQRN: flagship, Shots: 500, Program: &quantum.Program{Format: "qasm2", Data: bell2}}
		if seed != nil {
			req.RuntimeOptions = map[string]any{"seed": seed}
		}
		j := e.wait(e.alice, e.create(e.alice, req).JobQRN)
		if j.Status != quantum.StatusCompleted {
			t.Fatalf("job ended %s: %s", j.Status, quantumtest.StatusMsg(j))
		}
		res, err := e.alice.GetJobResult(ctx, j.JobQRN)
		if err != nil {
			t.Fatal(err)
		}
		prog, err := e.alice.GetJobProgram(ctx, j.JobQRN)
		if err != nil {
			t.Fatal(err)
		}
		wantEqual(t, "program", prog, &quantum.JobProgram{Program: quantum.Program{Format: "qasm2", Data: bell2}})
		return j, res.ResultData.MeasurementCounts
	}
	_, first := run(7)
	_, second := run(7)
	wantEqual(t, "counts of the second run with seed 7", second, first)
	_, third := run(7.0) // 7.0 is the integer 7
	wantEqual(t, "counts of the run with seed 7.0", third, first)

	unseeded, counts := run(nil)
	seed, ok := unseeded.Metadata["seed"].(int64)
	if !ok || seed < 0 || seed >= 1<<53 {
		t.Fatalf("metadata.seed %#v: want an int64 of at most 53 bits", unseeded.Metadata["seed"])
	}
	_, again := run(seed)
	wantEqual(t, "counts of a run with the reported seed", again, counts)
}

// testCost: a job's estimatedCost at create and its cost once it has run,
// on a device priced per task and shot (exact) and on one priced by the
// minute (within the rounding of its execution time).
func testCost(t *testing.T, target Target) {
	e := open(t, target)
	priced := e.device("priced", &quantumtest.FakeBackend{Counts: map[string]int{"00": 1, "11": 3}}, func(d *quantum.Device) {
		d.Pricing = quantum.Pricing{PerTask: 1, PerShot: 0.01}
	})
	before := time.Now()
	created := e.create(e.alice, quantum.JobRequest{DeviceQRN: priced, Shots: 100, Program: &quantum.Program{Format: "qasm2", Data: bell2}})
	want := wantNewJob(t, created, e.aliceUser, before, time.Now(), quantum.Job{
		Shots: 100, DeviceQRN: priced, Tags: map[string]any{}, RuntimeOptions: map[string]any{},
		Vendor: "qbraid", Provider: "qbraid", Status: quantum.StatusInitializing, ExperimentType: "gate_model",
		EstimatedCost: 2, Metadata: map[string]any{},
	})
	wantEqual(t, "created job", created, want)
	done := e.wait(e.alice, created.JobQRN)
	want = ended(t, want, done, quantum.StatusCompleted, map[string]any{"node": node, "backend": "quantumtest.FakeBackend"})
	want.Cost = 2
	wantEqual(t, "finished job", done, want)
	res, err := e.alice.GetJobResult(ctx, created.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "result", res, &quantum.JobResult{Status: quantum.StatusCompleted, Cost: 2, TimeStamps: want.TimeStamps,
		ResultData: quantum.ResultData{MeasurementCounts: map[string]int{"00": 25, "11": 75}}})

	// SV1 charges 7.5 credits a minute.
	j := e.create(e.alice, request(sv1, bell, 100))
	if j.EstimatedCost != 7.5 || j.Cost != 0 || j.Vendor != "aws" || j.Provider != "aws" {
		t.Fatalf("SV1 job: estimatedCost %v, cost %v, vendor %s, provider %s; want 7.5, 0, aws, aws", j.EstimatedCost, j.Cost, j.Vendor, j.Provider)
	}
	done = e.wait(e.alice, j.JobQRN)
	if done.Status != quantum.StatusCompleted {
		t.Fatalf("SV1 job ended %s: %s", done.Status, quantumtest.StatusMsg(done))
	}
	ms := float64(done.TimeStamps.ExecutionDuration)
	if low, high := 7.5*ms/60000, 7.5*(ms+1)/60000; done.Cost < low-1e-6 || done.Cost > high+1e-6 || done.EstimatedCost != 7.5 {
		t.Fatalf("SV1 cost %v for %v ms: want 7.5 a minute, between %v and %v; estimatedCost %v", done.Cost, ms, low, high, done.EstimatedCost)
	}
	res, err = e.alice.GetJobResult(ctx, j.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "SV1 result", res, &quantum.JobResult{Status: quantum.StatusCompleted, Cost: done.Cost, TimeStamps: done.TimeStamps,
		ResultData: quantum.ResultData{MeasurementCounts: res.ResultData.MeasurementCounts}})
	if c := res.ResultData.MeasurementCounts; c["00"]+c["11"] != 100 {
		t.Fatalf("SV1 Bell counts %v", c)
	}
}

// testCreateValidation: every rule of a create, alone and several at
// once, answered with every field at fault, and nothing stored.
func testCreateValidation(t *testing.T, target Target) {
	e := open(t, target)
	offline := e.device("offline", &quantumtest.FakeBackend{}, func(d *quantum.Device) { d.Status = quantum.DeviceOffline })
	q3 := e.device("q3", &quantumtest.FakeBackend{}, func(d *quantum.Device) { d.RunInputTypes = []string{"qasm3"}; d.MaxShots = 10 })
	with := func(edit func(*quantum.JobRequest)) quantum.JobRequest {
		r := request(flagship, bell, 10)
		edit(&r)
		return r
	}
	long := strings.Repeat("n", 256)
	const (
		required = "is required"
		atLeast1 = "must be at least 1"
		tagRule  = "must be a string, an integer or a boolean"
		seedRule = "must be a non-negative integer"
		textRule = "must be valid UTF-8 without NUL characters"
	)
	tests := []struct {
		name string
		req  quantum.JobRequest
		want *quantum.Error
	}{
		{"nothing", quantum.JobRequest{}, invalid(field("program", required), field("shots", atLeast1), field("deviceQrn", required))},
		{"missing program", quantum.JobRequest{DeviceQRN: flagship, Shots: 10}, invalid(field("program", required))},
		{"empty program", quantum.JobRequest{DeviceQRN: flagship, Shots: 10, Program: &quantum.Program{}},
			invalid(field("program.format", required), field("program.data", required))},
		{"shots 0", request(flagship, bell, 0), invalid(field("shots", atLeast1))},
		{"negative shots", request(flagship, bell, -5), invalid(field("shots", atLeast1))},
		{"too many shots", request(flagship, bell, 1_000_001), invalid(field("shots", "must be at most 1000000 on "+flagship))},
		{"shots past 32 bits", request(flagship, bell, 1<<31), invalid(field("shots", "must be at most 1000000 on "+flagship))},
		{"the device's own shot limit", request(q3, bell, 11), invalid(field("shots", "must be at most 10 on "+q3))},
		{"unknown device", request("qbraid:qbraid:sim:nope", bell, 10), invalid(field("deviceQrn", `no device "qbraid:qbraid:sim:nope"`))},
		{"malformed device", request("not a device", bell, 10), invalid(field("deviceQrn", `no device "not a device"`))},
		{"offline device", request(offline, bell, 10), invalid(field("deviceQrn", "device "+offline+" is OFFLINE, not ONLINE"))},
		{"unknown format", quantum.JobRequest{DeviceQRN: flagship, Shots: 10, Program: &quantum.Program{Format: "qir.json", Data: "x"}},
			invalid(field("program.format", "must be one of qasm2, qasm3, qir.ll, qir.bc, pyqir on "+flagship))},
		{"QIR that does not parse", quantum.JobRequest{DeviceQRN: flagship, Shots: 10, Program: &quantum.Program{Format: "qir.ll", Data: "x"}},
			invalid(field("program.data", `line 1:1: unexpected "x" at the top level`))},
		{"QIR with two entry points", quantum.JobRequest{DeviceQRN: flagship, Shots: 10, Program: &quantum.Program{Format: "qir.ll",
			Data: "define void @a() #0 {\n  ret void\n}\ndefine void @b() #0 {\n  ret void\n}\nattributes #0 = { \"entry_point\" }\n"}},
			invalid(field("runtimeOptions.entryPoint", "the module has 2 entry points (@a, @b): name one in runtimeOptions.entryPoint"))},
		{"a format the device lacks", quantum.JobRequest{DeviceQRN: q3, Shots: 1, Program: &quantum.Program{Format: "qasm2", Data: bell2}},
			invalid(field("program.format", "must be one of qasm3 on "+q3))},
		{"version mismatch", quantum.JobRequest{DeviceQRN: flagship, Shots: 10, Program: &quantum.Program{Format: "qasm2", Data: bell}},
			invalid(field("program.format", "is qasm2 but the program is OpenQASM 3"))},
		{"parse error", request(flagship, "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[2] q;\nh q[0]\ncx q[0], q[1];\n", 10),
			invalid(field("program.data", parseError))},
		{"more qubits than the device has", request(flagship, "OPENQASM 3.0;\nqubit[65] q;\n", 10),
			invalid(field("program.data", tooWide))},
		{"bad tags", with(func(r *quantum.JobRequest) { r.Tags = map[string]any{"f": 1.5, "n": nil, "ok": "x", "l": []any{1}} }),
			invalid(field("tags.f", tagRule), field("tags.l", tagRule), field("tags.n", tagRule))},
		{"negative seed", with(func(r *quantum.JobRequest) { r.RuntimeOptions = map[string]any{"seed": -1} }), invalid(field("runtimeOptions.seed", seedRule))},
		{"fractional seed", with(func(r *quantum.JobRequest) { r.RuntimeOptions = map[string]any{"seed": 1.5} }), invalid(field("runtimeOptions.seed", seedRule))},
		{"seed as a string", with(func(r *quantum.JobRequest) { r.RuntimeOptions = map[string]any{"seed": "7"} }), invalid(field("runtimeOptions.seed", seedRule))},
		{"noise model", with(func(r *quantum.JobRequest) { r.RuntimeOptions = map[string]any{"noiseModel": "thermal"} }),
			invalid(field("runtimeOptions.noiseModel", "must be one of ideal, depolarizing, amplitude_damping, phase_damping, bit_flip, phase_flip"))},
		{"noise model not a string", with(func(r *quantum.JobRequest) { r.RuntimeOptions = map[string]any{"noiseModel": 1} }),
			invalid(field("runtimeOptions.noiseModel", "must be one of ideal, depolarizing, amplitude_damping, phase_damping, bit_flip, phase_flip"))},
		{"method", with(func(r *quantum.JobRequest) { r.RuntimeOptions = map[string]any{"method": "tensornetwork"} }),
			invalid(field("runtimeOptions.method", "must be one of auto, statevector, densitymatrix, stabilizer, sparse (got tensornetwork)"))},
		{"runtimeOptions not JSON", with(func(r *quantum.JobRequest) { r.RuntimeOptions = map[string]any{"x": math.NaN()} }),
			invalid(field("runtimeOptions", "must hold only JSON values (objects, arrays, strings, numbers, booleans, null)"))},
		{"long name", with(func(r *quantum.JobRequest) { r.Name = long }), invalid(field("name", "must be at most 255 characters"))},
		{"name with NUL", with(func(r *quantum.JobRequest) { r.Name = "a\x00b" }), invalid(field("name", textRule))},
		{"name not UTF-8", with(func(r *quantum.JobRequest) { r.Name = "a\xffb" }), invalid(field("name", textRule))},
		{"tag value not UTF-8", with(func(r *quantum.JobRequest) { r.Tags = map[string]any{"x": "a\xffb"} }), invalid(field("tags.x", textRule))},
		{"tag key not UTF-8", with(func(r *quantum.JobRequest) { r.Tags = map[string]any{"x\xff": "y"} }), invalid(field("tags", "keys "+textRule))},
		{"runtime option not UTF-8", with(func(r *quantum.JobRequest) { r.RuntimeOptions = map[string]any{"x": "a\xffb"} }),
			invalid(field("runtimeOptions.x", textRule))},
		{"idempotency key with a space", with(func(r *quantum.JobRequest) { r.IdempotencyKey = "two words" }),
			invalid(field("Idempotency-Key", "must be visible ASCII characters (no spaces)"))},
		{"long idempotency key", with(func(r *quantum.JobRequest) { r.IdempotencyKey = long }),
			invalid(field("Idempotency-Key", "must be at most 255 characters"))},
		{"several at once", quantum.JobRequest{DeviceQRN: "qbraid:qbraid:sim:nope", Shots: 0, Program: &quantum.Program{Data: bell}, Name: long,
			Tags: map[string]any{"t": 1.5}, RuntimeOptions: map[string]any{"seed": -1}},
			invalid(field("program.format", required), field("shots", atLeast1), field("deviceQrn", `no device "qbraid:qbraid:sim:nope"`),
				field("name", "must be at most 255 characters"), field("tags.t", tagRule), field("runtimeOptions.seed", seedRule))},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			j, err := e.alice.CreateJob(ctx, tc.req)
			if err == nil {
				t.Fatalf("created job %s (name %q), want %v", j.JobQRN, j.Name, tc.want)
			}
			wantErr(t, "CreateJob", err, tc.want)
		})
	}
	page := e.list(e.alice, quantum.JobQuery{})
	wantEqual(t, "jobs stored by invalid creates", page, &quantum.JobPage{Jobs: []*quantum.Job{},
		Pagination: quantum.Pagination{Page: 1, Limit: 50}})
}

// The compiler's words for the programs above, at line:column.
const (
	parseError = `5:1: expected ";" after the gate call, got "cx"`
	tooWide    = `2:1: qubit register "q" takes the program to 65 qubits, more than the limit of 64`
)
