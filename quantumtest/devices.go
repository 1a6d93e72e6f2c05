package quantumtest

import (
	"testing"

	"github.com/qjobs/quantum"
)

// SetDeviceStatus sets a device's status (quantum.DeviceOnline,
// DeviceOffline, DeviceUnavailable, DeviceRetired) and its statusMsg (""
// for none), failing the test if the Service refuses. Jobs queued on a
// device that is not ONLINE wait for it; a RETIRED device's fail.
func SetDeviceStatus(t testing.TB, svc *quantum.Service, qrn, status, msg string) {
	t.Helper()
	err := svc.UpdateDevice(qrn, func(d *quantum.Device) {
		d.Status = status
		d.StatusMsg = nil
		if msg != "" {
			d.StatusMsg = &msg
		}
	})
	if err != nil {
		t.Fatalf("quantumtest: %v", err)
	}
}

// SetDeviceAvailability sets what a device says of its queue and its next
// availability window (nil for none), as a list of devices shows them.
func SetDeviceAvailability(t testing.TB, svc *quantum.Service, qrn string, nextAvailable *string, avgQueueTime *int) {
	t.Helper()
	err := svc.UpdateDevice(qrn, func(d *quantum.Device) { d.NextAvailable, d.AvgQueueTime = nextAvailable, avgQueueTime })
	if err != nil {
		t.Fatalf("quantumtest: %v", err)
	}
}

// FailNextJobs makes the device fail the next n jobs that start on it,
// with msg as their statusMsg.
func FailNextJobs(t testing.TB, svc *quantum.Service, qrn string, n int, msg string) {
	t.Helper()
	if err := svc.FailNextJobs(qrn, n, msg); err != nil {
		t.Fatalf("quantumtest: %v", err)
	}
}
