package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/internal/pgtest"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/store/postgres"
)

// controlNode is a Service on the shared database, with a device of
// FakeBackend that completes at once.
func controlNode(t *testing.T, dsn, name string) *quantum.Service {
	t.Helper()
	st, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	svc, _ := quantumtest.NewServiceOn(t, st, quantum.WithNode(name), quantum.WithWorkers(2), quantum.WithCredits(true))
	t.Cleanup(st.Close)
	for _, qrn := range []string{"qbraid:qbraid:sim:fast", "qbraid:qbraid:sim:other"} {
		if err := svc.RegisterDevice(quantumtest.Device(qrn), &quantumtest.FakeBackend{}); err != nil {
			t.Fatal(err)
		}
	}
	return svc
}

const bellQASM = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n"

// Controls set through one node hold on another at once: a hold, an
// injected failure and a latency apply to the next job the other node
// runs; a user added on one node is known on the other, with the credits
// granted there; a reset through one node deletes the other's jobs and
// clears what was set.
func TestControlsHoldOnEveryNode(t *testing.T) {
	dsn := pgtest.DSN(t)
	ctx := context.Background()
	a, b := controlNode(t, dsn, "node-a"), controlNode(t, dsn, "node-b")
	const fast, other = "qbraid:qbraid:sim:fast", "qbraid:qbraid:sim:other"

	// A user added on a, used on b.
	const key = "shared-key-0123456789abcdef"
	ua, err := a.AddUser(ctx, key, "sam")
	if err != nil {
		t.Fatal(err)
	}
	ub, err := b.Authenticate(ctx, key)
	if err != nil || ub.ID != ua.ID {
		t.Fatalf("node b on a key added on node a: %+v (%v)", ub, err)
	}
	if _, err := a.AddUser(ctx, key, "sam"); quantum.ErrorCode(err) != quantum.ECONFLICT {
		t.Fatalf("the key added twice: %v", err)
	}
	byID, err := b.UserByID(ctx, ua.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.GrantCredits(ctx, byID, 100, "test"); err != nil {
		t.Fatal(err)
	}
	req := func(device string) quantum.JobRequest {
		return quantum.JobRequest{DeviceQRN: device, Shots: 10, Program: &quantum.Program{Format: "qasm2", Data: bellQASM}}
	}
	create := func(svc *quantum.Service, device string) string {
		t.Helper()
		j, err := svc.CreateJob(ctx, ub, req(device))
		if err != nil {
			t.Fatal(err)
		}
		return j.JobQRN
	}

	// OFFLINE through a: b shows it and refuses a create at once, saying
	// so.
	if err := a.SetDeviceStatus(ctx, fast, quantum.DeviceOffline, "maintenance"); err != nil {
		t.Fatal(err)
	}
	if d, err := b.GetDevice(ctx, ub, fast); err != nil || d.Status != quantum.DeviceOffline || d.StatusMsg == nil || *d.StatusMsg != "maintenance" {
		t.Fatalf("the device on b, just after a took it OFFLINE: %+v, %v", d, err)
	}
	if p, err := b.ListDevices(ctx, ub, quantum.DeviceQuery{QRN: fast}); err != nil || len(p.Devices) != 1 || p.Devices[0].Status != quantum.DeviceOffline {
		t.Fatalf("the device listed on b, just after a took it OFFLINE: %+v, %v", p, err)
	}
	_, err = b.CreateJob(ctx, ub, req(fast))
	var qe *quantum.Error
	if !errors.As(err, &qe) || qe.Code != quantum.EVALIDATION || len(qe.Details) != 1 || qe.Details[0].Message != "device "+fast+" is OFFLINE, not ONLINE" {
		t.Fatalf("a create on b for a device taken OFFLINE through a: %v", err)
	}
	if err := a.SetDeviceStatus(ctx, fast, quantum.DeviceOnline, ""); err != nil {
		t.Fatal(err)
	}

	// A hold set on a: b's job stays QUEUED while b runs others.
	if _, err := a.HoldDevice(ctx, fast, true); err != nil {
		t.Fatal(err)
	}
	held := create(b, fast)
	quantumtest.WaitForStatus(t, b, ub, held, 10*time.Second, quantum.StatusQueued)
	for range 3 {
		if j := quantumtest.WaitForJob(t, b, ub, create(b, other)); j.Status != quantum.StatusCompleted {
			t.Fatalf("a job on a device not held: %s", j.Status)
		}
	}
	if j, _ := b.GetJob(ctx, ub, held); j.Status != quantum.StatusQueued {
		t.Fatalf("a job on a device held through another node: %s", j.Status)
	}
	if _, err := a.HoldDevice(ctx, fast, false); err != nil {
		t.Fatal(err)
	}
	if j := quantumtest.WaitForJob(t, b, ub, held); j.Status != quantum.StatusCompleted {
		t.Fatalf("released: %s", j.Status)
	}

	// A failure injected on a: the next job b starts fails, credits back.
	if _, err := a.FailNextJobs(ctx, fast, 1, "injected on a"); err != nil {
		t.Fatal(err)
	}
	j := quantumtest.WaitForJob(t, b, ub, create(b, fast))
	if j.Status != quantum.StatusFailed || quantumtest.StatusMsg(j) != "injected on a" || j.Cost != 0 {
		t.Fatalf("a job after a failure injected through the other node: %s (%s), cost %v", j.Status, quantumtest.StatusMsg(j), j.Cost)
	}
	if j := quantumtest.WaitForJob(t, a, ub, create(a, fast)); j.Status != quantum.StatusCompleted {
		t.Fatalf("only one failure was injected: %s", j.Status)
	}

	// A latency set on a holds for b's next job.
	if _, err := a.ControlDevice(ctx, fast, func(c *quantum.DeviceControl) { c.Latency = 300 * time.Millisecond }); err != nil {
		t.Fatal(err)
	}
	if j := quantumtest.WaitForJob(t, b, ub, create(b, fast)); j.TimeStamps.ExecutionDuration < 300 {
		t.Fatalf("a job on b ran %d ms under a latency of 300 ms set on a", j.TimeStamps.ExecutionDuration)
	}

	// A reset through a deletes b's jobs, a queued one among them, and
	// clears the controls for b too.
	if _, err := a.HoldDevice(ctx, fast, true); err != nil {
		t.Fatal(err)
	}
	queued := create(b, fast)
	quantumtest.WaitForStatus(t, b, ub, queued, 10*time.Second, quantum.StatusQueued)
	if err := a.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	page, err := b.ListJobs(ctx, ub, quantum.JobQuery{})
	if err != nil || page.Pagination.Total != 0 {
		t.Fatalf("b's jobs after a reset through a: %+v (%v)", page, err)
	}
	if j := quantumtest.WaitForJob(t, b, ub, create(b, fast)); j.Status != quantum.StatusCompleted || j.TimeStamps.ExecutionDuration >= 300 {
		t.Fatalf("a job on b after the reset: %s in %d ms", j.Status, j.TimeStamps.ExecutionDuration)
	}
	bal, err := b.CreditsBalance(ctx, ub, "")
	if err != nil || bal.QbraidCredits != 100 {
		t.Fatalf("balance after the reset: %+v (%v), want the 100 granted (the jobs are free)", bal, err)
	}
}
