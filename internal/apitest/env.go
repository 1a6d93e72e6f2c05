package apitest

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/quantumtest"
)

const (
	aliceKey = "apitest-alice-key"
	bobKey   = "apitest-bob-key"
	// node names the Service, so that the "node" of a job's metadata is
	// known.
	node     = "apitest-node"
	flagship = "qbraid:qbraid:sim:qir-sv"
	sv1      = "aws:aws:sim:sv1"
	ionqSim  = "ionq:ionq:sim:simulator"
	qvm      = "azure:rigetti:sim:qvm"
	bell     = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[2] q;\nbit[2] c;\nh q[0];\ncx q[0], q[1];\nc = measure q;\n"
	bell2    = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n"
	// unknownJob is a well-formed job QRN that names no job.
	unknownJob = flagship + "-abcd-qjob-0123456789abcdef01234567"
	// waitLimit bounds every wait for a job.
	waitLimit = 30 * time.Second
)

// env is one subtest's world: a Service of its own, and the API as two
// users see it.
type env struct {
	t          *testing.T
	svc        *quantum.Service
	alice, bob quantum.API
	// aliceUser and bobUser are the users as the Service knows them, for
	// the helpers of quantumtest that take the Service itself.
	aliceUser, bobUser quantum.User
	// as gives the API of another key.
	as func(t *testing.T, key string) quantum.API
}

// open starts a Service of target's for the subtest; opts come after
// WithNode(node) and WithWorkers(4) (enough workers for the jobs a
// subtest keeps running on a blocked backend, whatever the machine).
func open(t *testing.T, target Target, opts ...quantum.Option) *env {
	t.Helper()
	svc, as := target.Open(t, append([]quantum.Option{quantum.WithNode(node), quantum.WithWorkers(4)}, opts...)...)
	e := &env{t: t, svc: svc, alice: as(t, aliceKey), bob: as(t, bobKey), as: as}
	var err error
	if e.aliceUser, err = svc.Authenticate(context.Background(), aliceKey); err != nil {
		t.Fatal(err)
	}
	if e.bobUser, err = svc.Authenticate(context.Background(), bobKey); err != nil {
		t.Fatal(err)
	}
	return e
}

// with is e for a subtest of e's test: its failures are the subtest's.
func (e *env) with(t *testing.T) *env {
	c := *e
	c.t = t
	return &c
}

// device registers a FakeBackend device qbraid:qbraid:sim:<name>, edited
// by edit, and returns its QRN.
func (e *env) device(name string, b quantum.Backend, edit ...func(*quantum.Device)) string {
	e.t.Helper()
	d := quantumtest.Device("qbraid:qbraid:sim:" + name)
	for _, f := range edit {
		f(&d)
	}
	if err := e.svc.RegisterDevice(d, b); err != nil {
		e.t.Fatal(err)
	}
	return d.QRN
}

// The fake devices most subtests use.
func (e *env) blocked() string { return e.device("blocked", &quantumtest.FakeBackend{Block: true}) }
func (e *env) broken() string {
	return e.device("broken", &quantumtest.FakeBackend{Fail: "the device broke"})
}

var ctx = context.Background()

// create makes a job that must be accepted.
func (e *env) create(api quantum.API, req quantum.JobRequest) *quantum.Job {
	e.t.Helper()
	j, err := api.CreateJob(ctx, req)
	if err != nil {
		e.t.Fatalf("CreateJob: %v", err)
	}
	return j
}

// wait is api.Wait, bounded by waitLimit; it must succeed.
func (e *env) wait(api quantum.API, qrn string) *quantum.Job {
	e.t.Helper()
	c, cancel := context.WithTimeout(ctx, waitLimit)
	defer cancel()
	j, err := api.Wait(c, qrn)
	if err != nil {
		e.t.Fatalf("Wait(%s): %v", qrn, err)
	}
	return j
}

// get is api.GetJob; it must succeed.
func (e *env) get(api quantum.API, qrn string) *quantum.Job {
	e.t.Helper()
	j, err := api.GetJob(ctx, qrn)
	if err != nil {
		e.t.Fatalf("GetJob(%s): %v", qrn, err)
	}
	return j
}

// running waits until alice's job is RUNNING (a blocked backend keeps it
// there).
func (e *env) running(qrn string) {
	e.t.Helper()
	quantumtest.WaitForStatus(e.t, e.svc, e.aliceUser, qrn, waitLimit, quantum.StatusRunning)
}

// list is api.ListJobs; it must succeed.
func (e *env) list(api quantum.API, q quantum.JobQuery) *quantum.JobPage {
	e.t.Helper()
	p, err := api.ListJobs(ctx, q)
	if err != nil {
		e.t.Fatalf("ListJobs(%+v): %v", q, err)
	}
	return p
}

func request(device, program string, shots int) quantum.JobRequest {
	return quantum.JobRequest{DeviceQRN: device, Shots: shots, Program: &quantum.Program{Format: "qasm3", Data: program}}
}

var jobQRNForm = regexp.MustCompile(`^[a-z0-9]+:[a-z0-9]+:(?:sim|qpu):[a-z0-9][a-z0-9._-]*-[0-9a-f]{4}-qjob-[0-9a-f]{24}$`)

// wantNewJob checks what of a job just created is not known in advance
// (its QRN, its creation time, made between before and after) and returns
// the job the request must have made, with those filled in.
func wantNewJob(t *testing.T, got *quantum.Job, u quantum.User, before, after time.Time, want quantum.Job) *quantum.Job {
	t.Helper()
	prefix := want.DeviceQRN + "-" + u.OrganizationUserID[len(u.OrganizationUserID)-4:] + "-qjob-"
	if !jobQRNForm.MatchString(got.JobQRN) || !strings.HasPrefix(got.JobQRN, prefix) || !qtype.ValidJobQRN(got.JobQRN) {
		t.Fatalf("jobQrn %q: want %s<24 hex>", got.JobQRN, prefix)
	}
	wantShownTime(t, "createdAt", got.TimeStamps.CreatedAt, before, after)
	want.JobQRN = got.JobQRN
	want.TimeStamps.CreatedAt = got.TimeStamps.CreatedAt
	if want.NumCircuits == 0 {
		want.NumCircuits = 1
	}
	return &want
}

// wantShownTime checks a time as the API shows it: UTC, whole
// milliseconds, between from and to (to the millisecond).
func wantShownTime(t *testing.T, what string, tm, from, to time.Time) {
	t.Helper()
	if tm.Location() != time.UTC || !tm.Equal(tm.Truncate(time.Millisecond)) || tm.Before(from.Truncate(time.Millisecond)) || tm.After(to) {
		t.Fatalf("%s %s (%s): want UTC, whole milliseconds, between %s and %s",
			what, tm.Format(time.RFC3339Nano), tm.Location(), from.UTC().Format(time.RFC3339Nano), to.UTC().Format(time.RFC3339Nano))
	}
}

// wantEnded checks the times of a job that has ended (by now) and
// returns them, for the job expected.
func wantEnded(t *testing.T, got qtype.TimeStamps, createdAt time.Time) qtype.TimeStamps {
	t.Helper()
	if got.EndedAt == nil {
		t.Fatalf("endedAt null on a finished job")
	}
	wantShownTime(t, "endedAt", *got.EndedAt, createdAt, time.Now())
	if ms := got.ExecutionDuration; ms < 0 || ms > got.EndedAt.Sub(createdAt).Milliseconds()+1 {
		t.Fatalf("executionDuration %d ms: want 0 to the %v between createdAt and endedAt", ms, got.EndedAt.Sub(createdAt))
	}
	ended := *got.EndedAt
	return qtype.TimeStamps{CreatedAt: createdAt, EndedAt: &ended, ExecutionDuration: got.ExecutionDuration}
}

// ended is want as it is once it has ended in status, with the times got
// shows (checked) and metadata meta.
func ended(t *testing.T, want *quantum.Job, got *quantum.Job, status quantum.JobStatus, meta map[string]any) *quantum.Job {
	t.Helper()
	c := *want
	c.Status = status
	c.QueuePosition = nil
	c.TimeStamps = wantEnded(t, got.TimeStamps, want.TimeStamps.CreatedAt)
	c.Metadata = meta
	return &c
}

func ptr[T any](v T) *T { return &v }
