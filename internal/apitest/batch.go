package apitest

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/quantumtest"
)

// widthProgram is an OpenQASM program on width qubits that measures the
// bits of value, in OpenQASM 2 for even widths and 3 for odd ones: every
// shot gives the same key, value in width bits.
func widthProgram(width, value int) quantum.Program {
	var b strings.Builder
	if width%2 == 0 {
		fmt.Fprintf(&b, "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[%d];\ncreg c[%d];\n", width, width)
	} else {
		fmt.Fprintf(&b, "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[%d] q;\nbit[%d] c;\n", width, width)
	}
	for i := range width {
		if value>>i&1 == 1 {
			fmt.Fprintf(&b, "x q[%d];\n", i)
		}
	}
	format := "qasm3"
	if width%2 == 0 {
		b.WriteString("measure q -> c;\n")
		format = "qasm2"
	} else {
		b.WriteString("c = measure q;\n")
	}
	return quantum.Program{Format: format, Data: b.String()}
}

// testBatchCompletes runs a batch of 100 circuits of widths 1 to 7 in both
// OpenQASM versions and reads everything back: the job (numCircuits, one
// status), the result in order with each circuit's own key width and
// exact counts, the program as sent, and the seed that repeats it.
func testBatchCompletes(t *testing.T, target Target) {
	e := open(t, target)
	const n, shots = 100, 50
	batch := make([]quantum.Program, n)
	want := make([]string, n)
	for i := range batch {
		width := i%7 + 1
		value := (i * 37) % (1 << width)
		batch[i] = widthProgram(width, value)
		want[i] = fmt.Sprintf("%0*b", width, value)
	}
	req := quantum.JobRequest{DeviceQRN: flagship, Shots: shots, Batch: batch, Name: "sweep", Tags: map[string]any{"kind": "batch"}}
	created := e.create(e.alice, req)
	if created.NumCircuits != n || created.BatchJobQRN != nil || created.Status != quantum.StatusInitializing {
		t.Fatalf("created batch: numCircuits %d, batchJobQrn %v, status %s", created.NumCircuits, created.BatchJobQRN, created.Status)
	}
	done := e.wait(e.alice, created.JobQRN)
	if done.Status != quantum.StatusCompleted {
		t.Fatalf("batch ended %s: %s", done.Status, quantumtest.StatusMsg(done))
	}
	if done.NumCircuits != n {
		t.Fatalf("numCircuits %d, want %d", done.NumCircuits, n)
	}
	res, err := e.alice.GetJobResult(ctx, created.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != quantum.StatusCompleted || res.Cost != done.Cost || len(res.Results) != n || res.ResultData.MeasurementCounts != nil {
		t.Fatalf("result: status %s, cost %v (job %v), %d results, resultData %v", res.Status, res.Cost, done.Cost, len(res.Results), res.ResultData.MeasurementCounts)
	}
	wantEqual(t, "batch result times", res.TimeStamps, done.TimeStamps)
	for i, c := range res.Results {
		wantEqual(t, fmt.Sprintf("circuit %d's counts", i), c.ResultData.MeasurementCounts, map[string]int{want[i]: shots})
		if c.Status != quantum.StatusCompleted || c.Cost != 0 {
			t.Errorf("circuit %d: status %s, cost %v", i, c.Status, c.Cost)
		}
		ts := c.TimeStamps
		if !ts.CreatedAt.Equal(done.TimeStamps.CreatedAt) || ts.EndedAt == nil || ts.EndedAt.Before(ts.CreatedAt) ||
			ts.EndedAt.After(*done.TimeStamps.EndedAt) || ts.ExecutionDuration < 0 || ts.ExecutionDuration > done.TimeStamps.ExecutionDuration {
			t.Errorf("circuit %d's times %+v, the batch's %+v", i, ts, done.TimeStamps)
		}
	}
	prog, err := e.alice.GetJobProgram(ctx, created.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "program", prog, &quantum.JobProgram{Batch: batch})
	if _, ok := done.Metadata["seed"].(int64); !ok {
		t.Errorf("metadata.seed %#v: want the batch's seed", done.Metadata["seed"])
	}
}

// testBatchSeed: circuit i runs with the batch's seed + i, so that equal
// circuits give independent samples and the batch repeats with its seed.
func testBatchSeed(t *testing.T, target Target) {
	e := open(t, target)
	h := quantum.Program{Format: "qasm3", Data: "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[8] q;\nbit[8] c;\nh q;\nc = measure q;\n"}
	run := func(seed any) (*quantum.Job, []quantum.CircuitResult) {
		req := quantum.JobRequest{DeviceQRN: flagship, Shots: 200, Batch: []quantum.Program{h, h, h}}
		if seed != nil {
			req.RuntimeOptions = map[string]any{"seed": seed}
		}
		j := e.wait(e.alice, e.create(e.alice, req).JobQRN)
		res, err := e.alice.GetJobResult(ctx, j.JobQRN)
		if err != nil {
			t.Fatal(err)
		}
		return j, res.Results
	}
	first, a := run(nil)
	seed := first.Metadata["seed"].(int64)
	_, b := run(seed)
	for i := range a {
		wantEqual(t, fmt.Sprintf("circuit %d with the reported seed", i), b[i].ResultData, a[i].ResultData)
	}
	if fmt.Sprint(a[0].ResultData) == fmt.Sprint(a[1].ResultData) {
		t.Error("two equal circuits of one batch gave the same 200 samples of 256 outcomes: they share a seed")
	}
	// A single job with seed s+1 is circuit 1 of the batch.
	single := e.wait(e.alice, e.create(e.alice, quantum.JobRequest{DeviceQRN: flagship, Shots: 200, Program: &h,
		RuntimeOptions: map[string]any{"seed": seed + 1}}).JobQRN)
	res, err := e.alice.GetJobResult(ctx, single.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "a single job with the seed of circuit 1", res.ResultData, a[1].ResultData)
}

// testBatchCost: a batch pays perTask once and each circuit's shots; its
// estimate is perTask + N × shots × perShot.
func testBatchCost(t *testing.T, target Target) {
	e := open(t, target)
	priced := e.device("priced", &quantumtest.FakeBackend{Counts: map[string]int{"0": 1}}, func(d *quantum.Device) {
		d.Pricing = quantum.Pricing{PerTask: 1, PerShot: 0.01}
	})
	p := quantum.Program{Format: "qasm2", Data: bell2}
	created := e.create(e.alice, quantum.JobRequest{DeviceQRN: priced, Shots: 100, Batch: []quantum.Program{p, p, p}})
	if created.EstimatedCost != 4 {
		t.Fatalf("estimatedCost %v, want 1 + 3×100×0.01 = 4", created.EstimatedCost)
	}
	done := e.wait(e.alice, created.JobQRN)
	if done.Status != quantum.StatusCompleted || done.Cost != 4 {
		t.Fatalf("batch %s, cost %v: want COMPLETED, 4", done.Status, done.Cost)
	}
	res, err := e.alice.GetJobResult(ctx, created.JobQRN)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range res.Results {
		if c.Cost != 1 {
			t.Errorf("circuit %d's cost %v, want 100×0.01 = 1 (perTask is the batch's)", i, c.Cost)
		}
	}
}

// testBatchInvalid: each bad batch is refused naming the element, and
// nothing is stored.
func testBatchInvalid(t *testing.T, target Target) {
	e := open(t, target)
	single := e.device("single", &quantumtest.FakeBackend{}, func(d *quantum.Device) { d.BatchJobSupport = false })
	good := quantum.Program{Format: "qasm3", Data: bell}
	many := make([]quantum.Program, qtype.MaxBatchCircuits+1)
	for i := range many {
		many[i] = good
	}
	badQASM := quantum.Program{Format: "qasm3", Data: "OPENQASM 3.0;\nqubit q;\nnosuchgate q;\n"}
	tests := []struct {
		name  string
		req   quantum.JobRequest
		field string
		msg   string // the start of the field's message
	}{
		{"2,001 programs", quantum.JobRequest{DeviceQRN: flagship, Shots: 10, Batch: many}, "program", "a batch holds at most 2000 programs, got 2001"},
		{"empty", quantum.JobRequest{DeviceQRN: flagship, Shots: 10, Batch: []quantum.Program{}}, "program", "a batch must hold at least 1 program"},
		{"one bad program", quantum.JobRequest{DeviceQRN: flagship, Shots: 10, Batch: []quantum.Program{good, badQASM, good}}, "program[1].data", "3:1: "},
		{"two bad programs: the first is named", quantum.JobRequest{DeviceQRN: flagship, Shots: 10, Batch: []quantum.Program{good, good, good, good, good, badQASM, good, badQASM, badQASM}}, "program[5].data", "3:1: "},
		{"one without data", quantum.JobRequest{DeviceQRN: flagship, Shots: 10, Batch: []quantum.Program{good, good, {Format: "qasm3"}}}, "program[2].data", "is required"},
		{"a format the device lacks", quantum.JobRequest{DeviceQRN: flagship, Shots: 10, Batch: []quantum.Program{good, {Format: "braket", Data: "x"}}}, "program[1].format", "must be one of"},
		{"a device without batches", quantum.JobRequest{DeviceQRN: single, Shots: 10, Batch: []quantum.Program{good}}, "program", "Batch jobs are not supported by this device."},
		{"both", quantum.JobRequest{DeviceQRN: flagship, Shots: 10, Program: &good, Batch: []quantum.Program{good}}, "program", "give one program or a batch, not both"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.alice.CreateJob(ctx, tc.req)
			qe, ok := err.(*quantum.Error)
			if !ok || qe.Code != quantum.EVALIDATION || len(qe.Details) == 0 {
				t.Fatalf("CreateJob: %v, want a VALIDATION_ERROR", err)
			}
			d := qe.Details[0]
			if d.Field != tc.field || !strings.HasPrefix(d.Message, tc.msg) {
				t.Fatalf("error on %q: %q, want %q: %q…", d.Field, d.Message, tc.field, tc.msg)
			}
		})
	}
	if p := e.list(e.alice, quantum.JobQuery{}); p.Pagination.Total != 0 {
		t.Fatalf("%d jobs stored by refused batches", p.Pagination.Total)
	}
}

// testBatchFailsNamingCircuit: a circuit that fails fails the batch, and
// its statusMsg names the circuit.
func testBatchFailsNamingCircuit(t *testing.T, target Target) {
	e := open(t, target)
	broken := e.broken()
	p := quantum.Program{Format: "qasm3", Data: bell}
	done := e.wait(e.alice, e.create(e.alice, quantum.JobRequest{DeviceQRN: broken, Shots: 10, Batch: []quantum.Program{p, p}}).JobQRN)
	if msg := quantumtest.StatusMsg(done); done.Status != quantum.StatusFailed || msg != "circuit 0 of 2 (program[0]) failed: the device broke" || done.Cost != 0 {
		t.Fatalf("batch %s, cost %v: %q", done.Status, done.Cost, msg)
	}
	if _, err := e.alice.GetJobResult(ctx, done.JobQRN); quantum.ErrorCode(err) != quantum.ERESULTNOTREADY {
		t.Fatalf("result of a failed batch: %v", err)
	}
}

// testBatchWorkBound: the job's work bound holds for the whole batch, not
// for each circuit: circuits that each fit fail together, naming the
// circuit that would pass it.
func testBatchWorkBound(t *testing.T, target Target) {
	// A 10-qubit circuit of 10 rx gates (not Clifford: the state vector)
	// and 1,000 sampled shots is about 14,000 units; 50,000 hold three of
	// them, not ten.
	e := open(t, target, quantum.WithMaxWork(50_000))
	h10 := quantum.Program{Format: "qasm3", Data: "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[10] q;\nbit[10] c;\nrx(0.5) q;\nc = measure q;\n"}
	one := e.wait(e.alice, e.create(e.alice, quantum.JobRequest{DeviceQRN: flagship, Shots: 1000, Program: &h10}).JobQRN)
	if one.Status != quantum.StatusCompleted {
		t.Fatalf("one circuit: %s: %s", one.Status, quantumtest.StatusMsg(one))
	}
	batch := make([]quantum.Program, 10)
	for i := range batch {
		batch[i] = h10
	}
	done := e.wait(e.alice, e.create(e.alice, quantum.JobRequest{DeviceQRN: flagship, Shots: 1000, Batch: batch}).JobQRN)
	msg := quantumtest.StatusMsg(done)
	if done.Status != quantum.StatusFailed || !strings.Contains(msg, " of 10 (program[") || !strings.Contains(msg, "work limit exceeded") {
		t.Fatalf("batch of ten: %s: %q", done.Status, msg)
	}
	if strings.HasPrefix(msg, "circuit 0 ") || strings.HasPrefix(msg, "circuit 1 ") {
		t.Fatalf("the bound stopped the batch too early: %q", msg)
	}
}

// testBatchCancel: a cancel stops a batch wherever it is.
func testBatchCancel(t *testing.T, target Target) {
	e := open(t, target)
	fake := &quantumtest.FakeBackend{Block: true}
	started := fake.Started()
	blocked := e.device("blocked", fake)
	p := quantum.Program{Format: "qasm3", Data: bell}
	batch := make([]quantum.Program, 64)
	for i := range batch {
		batch[i] = p
	}
	j := e.create(e.alice, quantum.JobRequest{DeviceQRN: blocked, Shots: 10, Batch: batch})
	select {
	case <-started:
	case <-time.After(waitLimit):
		t.Fatal("the batch never started")
	}
	if err := e.alice.CancelJob(ctx, j.JobQRN); err != nil {
		t.Fatal(err)
	}
	done := e.wait(e.alice, j.JobQRN)
	if done.Status != quantum.StatusCancelled || done.Cost != 0 {
		t.Fatalf("cancelled batch: %s, cost %v", done.Status, done.Cost)
	}
	// Circuits run a CPU's worth at a time; none starts after the cancel.
	if runs, lanes := fake.Runs(), runtime.GOMAXPROCS(0); runs > lanes {
		t.Fatalf("%d circuits ran, want at most the %d that run at once", runs, lanes)
	}
}

// testBatchMemory: a batch holds what its largest circuit needs, not the
// sum, since its circuits run one at a time.
func testBatchMemory(t *testing.T, target Target) {
	e := open(t, target, quantum.WithMemoryBudget(1<<20))
	big := e.device("big", &quantumtest.FakeBackend{Memory: 600 << 10})
	p := quantum.Program{Format: "qasm3", Data: bell}
	done := e.wait(e.alice, e.create(e.alice, quantum.JobRequest{DeviceQRN: big, Shots: 10, Batch: []quantum.Program{p, p, p}}).JobQRN)
	if done.Status != quantum.StatusCompleted {
		t.Fatalf("a batch of three circuits of 600 KiB under a budget of 1 MiB: %s: %s", done.Status, quantumtest.StatusMsg(done))
	}
}
