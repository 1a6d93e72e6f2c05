// Package catalogue holds the devices a Service has registered, with the
// backend that runs each one's jobs, and the controls a test suite set
// on them (storage.DeviceControl: a status, a latency, a hold, failures
// to inject): what the Service's reads, its creates and the engine's
// claims look up.
package catalogue

import (
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// Catalogue holds the devices and their backends.
type Catalogue struct {
	mu sync.RWMutex
	// registered are the devices as registered (or updated with
	// UpdateDevice); devices are the same with their controls applied,
	// what everything else reads. A device is never changed in place:
	// readers hold its pointer unlocked.
	registered map[string]*qtype.Device
	devices    map[string]*qtype.Device
	backend    map[string]qtype.Backend
	controls   map[string]storage.DeviceControl
	// version is that of the controls last applied from a ControlStore.
	version int64
	// takingJobs caches what Taking answers until the catalogue changes.
	takingJobs  []string
	takingKnown bool
}

// New returns an empty Catalogue.
func New() *Catalogue {
	return &Catalogue{registered: map[string]*qtype.Device{}, devices: map[string]*qtype.Device{},
		backend: map[string]qtype.Backend{}, controls: map[string]storage.DeviceControl{}}
}

// Put registers d, run by b.
func (c *Catalogue) Put(d *qtype.Device, b qtype.Backend) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.registered[d.QRN] = d
	c.backend[d.QRN] = b
	c.applyLocked(d.QRN)
}

// Registered returns the device as registered, without its controls.
func (c *Catalogue) Registered(qrn string) (*qtype.Device, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	d, ok := c.registered[qrn]
	return d, ok
}

// Replace puts d in place of old as the registered device, if old is
// still the registered device of its QRN.
func (c *Catalogue) Replace(old, d *qtype.Device) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.registered[d.QRN] != old {
		return false
	}
	c.registered[d.QRN] = d
	c.applyLocked(d.QRN)
	return true
}

// applyLocked makes the device of qrn its registered one with its
// controls applied.
func (c *Catalogue) applyLocked(qrn string) {
	c.takingKnown = false
	r, ok := c.registered[qrn]
	if !ok {
		delete(c.devices, qrn)
		return
	}
	ctl, ok := c.controls[qrn]
	if !ok {
		c.devices[qrn] = r
		return
	}
	d := r.Clone()
	d.Status, d.StatusMsg, d.NextAvailable, d.AvgQueueTime = ctl.Status, ctl.StatusMsg, ctl.NextAvailable, ctl.AvgQueueTime
	c.devices[qrn] = &d
}

// Control returns the device's controls: those set, or those the device
// has as registered (its status and what it says of itself); false for a
// device not registered.
func (c *Catalogue) Control(qrn string) (storage.DeviceControl, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.controlLocked(qrn)
}

func (c *Catalogue) controlLocked(qrn string) (storage.DeviceControl, bool) {
	if ctl, ok := c.controls[qrn]; ok {
		return ctl, true
	}
	r, ok := c.registered[qrn]
	if !ok {
		return storage.DeviceControl{}, false
	}
	return storage.DeviceControl{Device: qrn, Status: r.Status, StatusMsg: r.StatusMsg, NextAvailable: r.NextAvailable, AvgQueueTime: r.AvgQueueTime}, true
}

// SetControl sets the device's controls; false for a device not
// registered.
func (c *Catalogue) SetControl(ctl storage.DeviceControl) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.registered[ctl.Device]; !ok {
		return false
	}
	c.controls[ctl.Device] = ctl
	c.applyLocked(ctl.Device)
	return true
}

// SetControls replaces every device's controls with a ControlStore's,
// unless those applied are as new; it reports whether it applied them.
func (c *Catalogue) SetControls(all storage.Controls) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if all.Version != 0 && all.Version <= c.version {
		return false
	}
	c.version = all.Version
	old := c.controls
	c.controls = map[string]storage.DeviceControl{}
	for qrn, ctl := range all.Devices {
		c.controls[qrn] = ctl
	}
	for qrn := range old {
		c.applyLocked(qrn)
	}
	for qrn := range c.controls {
		c.applyLocked(qrn)
	}
	return true
}

// Version is the version of the controls last applied from a
// ControlStore.
func (c *Catalogue) Version() int64 {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.version
}

// ResetControls removes every device's controls: the devices are as
// registered again.
func (c *Catalogue) ResetControls() {
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.controls
	c.controls = map[string]storage.DeviceControl{}
	for qrn := range old {
		c.applyLocked(qrn)
	}
}

// TakeFailure counts down one of the device's failures to inject and
// returns its message; ok is false when none is left.
func (c *Catalogue) TakeFailure(qrn string) (message string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ctl, ok := c.controls[qrn]
	if !ok || ctl.Failures <= 0 {
		return "", false
	}
	ctl.Failures--
	c.controls[qrn] = ctl
	return ctl.FailMessage, true
}

// Failing reports whether failures are left to inject on the device.
func (c *Catalogue) Failing(qrn string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.controls[qrn].Failures > 0
}

// Latency is the least a job on the device takes.
func (c *Catalogue) Latency(qrn string) time.Duration {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.controls[qrn].Latency
}

// Takes reports whether the device's jobs may be claimed now: it is
// registered, neither OFFLINE nor UNAVAILABLE, and not held.
func (c *Catalogue) Takes(qrn string) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.takesLocked(qrn)
}

func (c *Catalogue) takesLocked(qrn string) bool {
	d, ok := c.devices[qrn]
	_, run := c.backend[qrn]
	return ok && run && d.TakesJobs() && !c.controls[qrn].Held
}

// Taking returns, sorted and read-only, the QRNs of the devices whose jobs
// may be claimed now (Takes). A worker asks before every claim; it is
// worked out again only after the catalogue changes.
func (c *Catalogue) Taking() []string {
	if t, ok := c.cachedTaking(); ok {
		return t
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.takingKnown {
		var t []string
		for qrn := range c.devices {
			if c.takesLocked(qrn) {
				t = append(t, qrn)
			}
		}
		slices.Sort(t)
		c.takingJobs, c.takingKnown = t, true
	}
	return c.takingJobs
}

func (c *Catalogue) cachedTaking() ([]string, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.takingJobs, c.takingKnown
}

// Get returns the device, its controls applied.
func (c *Catalogue) Get(qrn string) (*qtype.Device, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	d, ok := c.devices[qrn]
	return d, ok
}

func (c *Catalogue) BackendOf(qrn string) (qtype.Backend, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	b, ok := c.backend[qrn]
	return b, ok
}

// All returns every device, its controls applied, by QRN.
func (c *Catalogue) All() []*qtype.Device {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*qtype.Device, 0, len(c.devices))
	for _, d := range c.devices {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b *qtype.Device) int { return strings.Compare(a.QRN, b.QRN) })
	return out
}
