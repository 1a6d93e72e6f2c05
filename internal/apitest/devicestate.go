package apitest

import (
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

// queuedBehind opens a Service of one worker, holds that worker with a
// job on a blocked device, and queues a job on a device of its own behind
// it: the worker is free again once the returned release is called.
func queuedBehind(t *testing.T, target Target) (e *env, dev string, queued *quantum.Job, release func()) {
	t.Helper()
	e = open(t, target, quantum.WithWorkers(1))
	blocked := &quantumtest.FakeBackend{Block: true}
	started := blocked.Started()
	hold := e.create(e.alice, request(e.device("blocked", blocked), bell, 10))
	<-started
	dev = e.device("moody", &quantumtest.FakeBackend{})
	queued = e.create(e.alice, request(dev, bell, 10))
	// The intake queues jobs on goroutines of its own: the job is QUEUED
	// before the test goes on, so that what it sees next is the device's
	// doing, not the intake's pace.
	quantumtest.WaitForStatus(t, e.svc, e.aliceUser, queued.JobQRN, waitLimit, quantum.StatusQueued)
	return e, dev, queued, func() {
		if err := e.alice.CancelJob(ctx, hold.JobQRN); err != nil {
			t.Fatal(err)
		}
		e.wait(e.alice, hold.JobQRN)
	}
}

// testDeviceOffline: a device that goes OFFLINE refuses creates, shows its
// state in the list, and keeps its queued jobs waiting until it is ONLINE.
func testDeviceOffline(t *testing.T, target Target) {
	e, dev, queued, release := queuedBehind(t, target)
	quantumtest.SetDeviceStatus(t, e.svc, dev, quantum.DeviceOffline, "maintenance")
	_, err := e.alice.CreateJob(ctx, request(dev, bell, 10))
	wantErr(t, "a create on an OFFLINE device", err, invalid(field("deviceQrn", "device "+dev+" is OFFLINE, not ONLINE")))
	next, wait := "2026-12-01T09:00:00.000Z", 120
	quantumtest.SetDeviceAvailability(t, e.svc, dev, &next, &wait)
	got, err := e.alice.GetDevice(ctx, dev)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != quantum.DeviceOffline || got.StatusMsg == nil || *got.StatusMsg != "maintenance" ||
		got.NextAvailable == nil || *got.NextAvailable != next || got.AvgQueueTime == nil || *got.AvgQueueTime != wait {
		t.Fatalf("device shows status %s, statusMsg %v, nextAvailable %v, avgQueueTime %v", got.Status, got.StatusMsg, got.NextAvailable, got.AvgQueueTime)
	}

	// The worker is free: it runs a job of another device, and not the
	// one waiting for the OFFLINE device.
	release()
	other := e.wait(e.alice, e.create(e.alice, request(e.device("other", &quantumtest.FakeBackend{}), bell, 10)).JobQRN)
	if other.Status != quantum.StatusCompleted {
		t.Fatalf("a job of an ONLINE device: %s", other.Status)
	}
	if j := e.get(e.alice, queued.JobQRN); j.Status != quantum.StatusQueued {
		t.Fatalf("a job of the OFFLINE device is %s, want QUEUED", j.Status)
	}
	quantumtest.SetDeviceStatus(t, e.svc, dev, quantum.DeviceOnline, "")
	if j := e.wait(e.alice, queued.JobQRN); j.Status != quantum.StatusCompleted {
		t.Fatalf("the job queued across the outage: %s: %s", j.Status, quantumtest.StatusMsg(j))
	}
}

// testDeviceRetired: jobs queued on a device that is RETIRED fail, saying
// so.
func testDeviceRetired(t *testing.T, target Target) {
	e, dev, queued, release := queuedBehind(t, target)
	quantumtest.SetDeviceStatus(t, e.svc, dev, quantum.DeviceRetired, "")
	release()
	if j := e.wait(e.alice, queued.JobQRN); j.Status != quantum.StatusFailed || quantumtest.StatusMsg(j) != "device "+dev+" is retired" {
		t.Fatalf("a job queued on a retired device: %s (%s)", j.Status, quantumtest.StatusMsg(j))
	}
}

// testDeviceFailsOnCue: FailNextJobs fails exactly the next n jobs, with
// its message.
func testDeviceFailsOnCue(t *testing.T, target Target) {
	e := open(t, target)
	dev := e.device("flaky", &quantumtest.FakeBackend{})
	quantumtest.FailNextJobs(t, e.svc, dev, 2, "calibration drifted")
	for i := range 3 {
		j := e.wait(e.alice, e.create(e.alice, request(dev, bell, 10)).JobQRN)
		want, msg := quantum.StatusFailed, "calibration drifted"
		if i == 2 {
			want, msg = quantum.StatusCompleted, "no status message"
		}
		if j.Status != want || quantumtest.StatusMsg(j) != msg {
			t.Fatalf("job %d: %s (%s), want %s (%s)", i, j.Status, quantumtest.StatusMsg(j), want, msg)
		}
	}
	failErr := func(_ *quantum.Device, err error) error { return err }
	for _, bad := range []error{
		failErr(e.svc.FailNextJobs(ctx, dev, -1, "x")),
		failErr(e.svc.FailNextJobs(ctx, dev, 1, " ")),
		failErr(e.svc.FailNextJobs(ctx, "qbraid:qbraid:sim:nosuch", 1, "x")),
		e.svc.UpdateDevice(dev, func(d *quantum.Device) { d.Status = "BROKEN" }),
		e.svc.UpdateDevice(dev, func(d *quantum.Device) { d.QRN = "qbraid:qbraid:sim:other" }),
	} {
		if bad == nil {
			t.Error("a bad device control was accepted")
		}
	}
}
