package quantumtest

import (
	"context"
	"testing"
	"time"

	"github.com/qjobs/quantum"
)

// These wrap the Service's controls (quantum.Service.ControlDevice and
// the methods beside it), which the control API serves over HTTP to test
// suites in other languages: each fails the test if the Service refuses.

// SetDeviceStatus sets a device's status (quantum.DeviceOnline,
// DeviceOffline, DeviceUnavailable, DeviceRetired) and its statusMsg (""
// for none). Jobs queued on a device that is not ONLINE wait for it; a
// RETIRED device's fail.
func SetDeviceStatus(t testing.TB, svc *quantum.Service, qrn, status, msg string) {
	t.Helper()
	if err := svc.SetDeviceStatus(context.Background(), qrn, status, msg); err != nil {
		t.Fatalf("quantumtest: %v", err)
	}
}

// SetDeviceAvailability sets what a device says of its queue and its next
// availability window (nil for none), as a list of devices shows them.
func SetDeviceAvailability(t testing.TB, svc *quantum.Service, qrn string, nextAvailable *string, avgQueueTime *int) {
	t.Helper()
	_, err := svc.ControlDevice(context.Background(), qrn, func(c *quantum.DeviceControl) {
		c.NextAvailable, c.AvgQueueTime = nextAvailable, avgQueueTime
	})
	if err != nil {
		t.Fatalf("quantumtest: %v", err)
	}
}

// SetDeviceLatency makes every job on the device run at least d, as a
// slow QPU would (0 clears it).
func SetDeviceLatency(t testing.TB, svc *quantum.Service, qrn string, d time.Duration) {
	t.Helper()
	if _, err := svc.ControlDevice(context.Background(), qrn, func(c *quantum.DeviceControl) { c.Latency = d }); err != nil {
		t.Fatalf("quantumtest: %v", err)
	}
}

// HoldDevice holds a device's queue (its QUEUED jobs stay QUEUED) or, with
// hold false, releases it.
func HoldDevice(t testing.TB, svc *quantum.Service, qrn string, hold bool) {
	t.Helper()
	if _, err := svc.HoldDevice(context.Background(), qrn, hold); err != nil {
		t.Fatalf("quantumtest: %v", err)
	}
}

// FailNextJobs makes the device fail the next n jobs that start on it,
// with msg as their statusMsg.
func FailNextJobs(t testing.TB, svc *quantum.Service, qrn string, n int, msg string) {
	t.Helper()
	if _, err := svc.FailNextJobs(context.Background(), qrn, n, msg); err != nil {
		t.Fatalf("quantumtest: %v", err)
	}
}

// Reset deletes every job and returns every device to its registered
// state (quantum.Service.Reset): a clean service for the next test.
func Reset(t testing.TB, svc *quantum.Service) {
	t.Helper()
	if err := svc.Reset(context.Background()); err != nil {
		t.Fatalf("quantumtest: %v", err)
	}
}
