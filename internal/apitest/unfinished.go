package apitest

import (
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

// plainJob is the job a request(device, bell, shots) of alice's makes,
// as CreateJob answers it: checked, with its QRN and creation time.
func (e *env) plainJob(device string, shots int) *quantum.Job {
	e.t.Helper()
	before := time.Now()
	created := e.create(e.alice, request(device, bell, shots))
	want := wantNewJob(e.t, created, e.aliceUser, before, time.Now(), quantum.Job{
		Shots: shots, DeviceQRN: device, Tags: map[string]any{}, RuntimeOptions: map[string]any{},
		Vendor: "qbraid", Provider: "qbraid", Status: quantum.StatusInitializing, ExperimentType: "gate_model",
		Metadata: map[string]any{},
	})
	wantEqual(e.t, "created job", created, want)
	return want
}

// runningAs is the job RUNNING, claimed by this Service's node.
func runningAs(j *quantum.Job) *quantum.Job {
	c := *j
	c.Status = quantum.StatusRunning
	c.Metadata = map[string]any{"node": node}
	return &c
}

// testResultNotReady: a RUNNING job has no result, and cannot be deleted.
func testResultNotReady(t *testing.T, target Target) {
	e := open(t, target)
	want := e.plainJob(e.blocked(), 10)
	qrn := want.JobQRN
	e.running(qrn)
	wantEqual(t, "running job", e.get(e.alice, qrn), runningAs(want))
	_, err := e.alice.GetJobResult(ctx, qrn)
	wantErr(t, "GetJobResult", err, errorf(quantum.ERESULTNOTREADY, "the result of job %s is not available: the job is RUNNING", qrn))
	wantErr(t, "DeleteJob", e.alice.DeleteJob(ctx, qrn),
		errorf(quantum.EJOBNOTFINAL, "job %s is RUNNING; only finished jobs can be deleted (cancel it first)", qrn))
	prog, err := e.alice.GetJobProgram(ctx, qrn)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "program of a running job", prog, &quantum.JobProgram{Program: quantum.Program{Format: "qasm3", Data: bell}})
	wantEqual(t, "running job after all that", e.get(e.alice, qrn), runningAs(want))
}

// testCancelRunning: a RUNNING job cancelled ends CANCELLED, with no
// result and no cost, and cannot be cancelled again.
func testCancelRunning(t *testing.T, target Target) {
	e := open(t, target)
	want := e.plainJob(e.blocked(), 10)
	qrn := want.JobQRN
	e.running(qrn)
	if err := e.alice.CancelJob(ctx, qrn); err != nil {
		t.Fatalf("CancelJob: %v", err)
	}
	done := e.wait(e.alice, qrn)
	want = ended(t, want, done, quantum.StatusCancelled, map[string]any{"node": node})
	wantEqual(t, "cancelled job from Wait", done, want)
	wantEqual(t, "cancelled job from GetJob", e.get(e.alice, qrn), want)
	_, err := e.alice.GetJobResult(ctx, qrn)
	wantErr(t, "GetJobResult", err, errorf(quantum.ERESULTNOTREADY, "the result of job %s is not available: the job is CANCELLED", qrn))
	wantErr(t, "CancelJob again", e.alice.CancelJob(ctx, qrn), errorf(quantum.EINVALIDJOBSTATE, "job %s is CANCELLED and cannot be cancelled", qrn))
}

// testCancelQueued: with the one worker busy, a job waits QUEUED, first
// in its device's queue; cancelled, it ends CANCELLED without running.
func testCancelQueued(t *testing.T, target Target) {
	e := open(t, target, quantum.WithWorkers(1))
	blocked := e.blocked()
	first := e.plainJob(blocked, 10)
	e.running(first.JobQRN)
	want := e.plainJob(blocked, 20)
	qrn := want.JobQRN
	quantumtest.WaitForStatus(t, e.svc, e.aliceUser, qrn, waitLimit, quantum.StatusQueued)
	queued := *want
	queued.Status, queued.QueuePosition = quantum.StatusQueued, ptr(1)
	wantEqual(t, "queued job", e.get(e.alice, qrn), &queued)
	wantEqual(t, "queued jobs", e.list(e.alice, quantum.JobQuery{Status: quantum.StatusQueued}), &quantum.JobPage{
		Jobs: []*quantum.Job{&queued}, Pagination: quantum.Pagination{Page: 1, Limit: 50, Total: 1, TotalPages: 1}})
	d, err := e.alice.GetDevice(ctx, blocked)
	if err != nil {
		t.Fatal(err)
	}
	if d.QueueDepth != 1 {
		t.Fatalf("queueDepth of %s is %d, want 1", blocked, d.QueueDepth)
	}
	_, err = e.alice.GetJobResult(ctx, qrn)
	wantErr(t, "GetJobResult", err, errorf(quantum.ERESULTNOTREADY, "the result of job %s is not available: the job is QUEUED", qrn))
	wantErr(t, "DeleteJob", e.alice.DeleteJob(ctx, qrn),
		errorf(quantum.EJOBNOTFINAL, "job %s is QUEUED; only finished jobs can be deleted (cancel it first)", qrn))

	if err := e.alice.CancelJob(ctx, qrn); err != nil {
		t.Fatalf("CancelJob: %v", err)
	}
	done := e.wait(e.alice, qrn)
	want = ended(t, want, done, quantum.StatusCancelled, map[string]any{})
	wantEqual(t, "cancelled queued job", done, want)
	if done.TimeStamps.ExecutionDuration != 0 {
		t.Fatalf("a job cancelled before it ran has executionDuration %d", done.TimeStamps.ExecutionDuration)
	}
	if err := e.alice.CancelJob(ctx, first.JobQRN); err != nil {
		t.Fatal(err)
	}
	e.wait(e.alice, first.JobQRN)
}

// testCancelFinished: a finished job cannot be cancelled.
func testCancelFinished(t *testing.T, target Target) {
	e := open(t, target)
	done := e.wait(e.alice, e.create(e.alice, request(flagship, bell, 10)).JobQRN)
	failed := e.wait(e.alice, e.create(e.alice, request(e.broken(), bell, 10)).JobQRN)
	for _, j := range []*quantum.Job{done, failed} {
		wantErr(t, "CancelJob", e.alice.CancelJob(ctx, j.JobQRN),
			errorf(quantum.EINVALIDJOBSTATE, "job %s is %s and cannot be cancelled", j.JobQRN, j.Status))
		wantEqual(t, "job after the cancel", e.get(e.alice, j.JobQRN), j)
	}
}

// testCancelNotSupported: a device that cannot cancel says so, and its
// job runs on.
func testCancelNotSupported(t *testing.T, target Target) {
	e := open(t, target)
	stubborn := e.device("stubborn", &quantumtest.FakeBackend{Block: true, NotCancellable: true})
	want := e.plainJob(stubborn, 10)
	e.running(want.JobQRN)
	wantErr(t, "CancelJob", e.alice.CancelJob(ctx, want.JobQRN),
		errorf(quantum.ECANCELNOTSUPPORTED, "device %s does not support cancelling jobs", stubborn))
	wantEqual(t, "job after the cancel", e.get(e.alice, want.JobQRN), runningAs(want))
}

// testFailed: a job whose backend fails ends FAILED with the backend's
// message, no cost and no result; its program stays readable.
func testFailed(t *testing.T, target Target) {
	e := open(t, target)
	want := e.plainJob(e.broken(), 10)
	qrn := want.JobQRN
	done := e.wait(e.alice, qrn)
	want = ended(t, want, done, quantum.StatusFailed, map[string]any{"node": node})
	want.StatusMsg = ptr("the device broke")
	wantEqual(t, "failed job from Wait", done, want)
	wantEqual(t, "failed job from GetJob", e.get(e.alice, qrn), want)
	_, err := e.alice.GetJobResult(ctx, qrn)
	wantErr(t, "GetJobResult", err, errorf(quantum.ERESULTNOTREADY, "the result of job %s is not available: the job is FAILED", qrn))
	prog, err := e.alice.GetJobProgram(ctx, qrn)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "program of a failed job", prog, &quantum.JobProgram{Program: quantum.Program{Format: "qasm3", Data: bell}})
}
