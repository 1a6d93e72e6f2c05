package quantum

import (
	"fmt"
	"slices"
	"strings"
)

// A test suite that mocks a quantum platform needs its devices to go
// offline, come back, retire and fail on cue, to exercise its own handling
// of them. These are the controls; quantumtest wraps them for tests.

// deviceStatuses are the statuses a device may have.
var deviceStatuses = []string{DeviceOnline, DeviceOffline, DeviceUnavailable, DeviceRetired}

// UpdateDevice changes a registered device on this Service: change edits
// a copy of it as registered, which replaces it once checked (as a
// RegisterDevice of it would). Its QRN, vendor and provider cannot
// change, and its status must be one of ONLINE, OFFLINE, UNAVAILABLE and
// RETIRED. A device's controls (ControlDevice), when it has any, replace
// its status and what it says of itself. Errors name the device and the
// field.
func (s *Service) UpdateDevice(qrn string, change func(*Device)) error {
	d, ok := s.devices.Registered(qrn)
	if !ok {
		return fmt.Errorf("quantum: device %q is not registered", qrn)
	}
	c := d.Clone()
	change(&c)
	switch {
	case c.QRN != d.QRN || c.Vendor != d.Vendor || c.Provider != d.Provider:
		return fmt.Errorf("quantum: device %q: its qrn, vendor and provider cannot change", qrn)
	case !slices.Contains(deviceStatuses, c.Status):
		return fmt.Errorf("quantum: device %q: status %q is not one of %s", qrn, c.Status, strings.Join(deviceStatuses, ", "))
	case c.AvgQueueTime != nil && *c.AvgQueueTime < 0:
		return fmt.Errorf("quantum: device %q: avgQueueTime must be at least 0", qrn)
	}
	if err := c.CheckTopology(); err != nil {
		return fmt.Errorf("quantum: device %q: %w", qrn, err)
	}
	if !s.devices.Replace(d, &c) {
		return fmt.Errorf("quantum: device %q changed while it was being updated; try again", qrn)
	}
	if s.runner != nil {
		s.runner.Wake() // jobs waiting for it may run now
	}
	return nil
}
