// Package catalogue holds the devices a Service has registered, with the
// backend that runs each one's jobs and the failures a test asked of it:
// what the Service's reads, its creates and the engine's claims look up.
package catalogue

import (
	"slices"
	"sync"

	"github.com/qjobs/quantum/qtype"
)

// Catalogue holds the devices and their backends.
type Catalogue struct {
	mu      sync.RWMutex
	devices map[string]*qtype.Device
	backend map[string]qtype.Backend
	fail    map[string]failures // FailNextJobs
	// takingJobs caches what Taking answers until the catalogue changes.
	takingJobs  []string
	takingKnown bool
}

// New returns an empty Catalogue.
func New() *Catalogue {
	return &Catalogue{devices: map[string]*qtype.Device{}, backend: map[string]qtype.Backend{}, fail: map[string]failures{}}
}

// Replace puts d in place of old, if old is still the device of its QRN.
// A device is never changed in place: readers hold its pointer unlocked.
func (c *Catalogue) Replace(old, d *qtype.Device) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.devices[d.QRN] != old {
		return false
	}
	c.devices[d.QRN] = d
	c.takingKnown = false
	return true
}

// SetFailures records FailNextJobs; false for a device not registered.
func (c *Catalogue) SetFailures(qrn string, n int, message string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.devices[qrn]; !ok {
		return false
	}
	if n == 0 {
		delete(c.fail, qrn)
	} else {
		c.fail[qrn] = failures{left: n, message: message}
	}
	return true
}

// TakeFailure counts down one of the device's failures to come and
// returns its message; ok is false when none is left.
func (c *Catalogue) TakeFailure(qrn string) (message string, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.fail[qrn]
	if !ok {
		return "", false
	}
	if f.left--; f.left == 0 {
		delete(c.fail, qrn)
	} else {
		c.fail[qrn] = f
	}
	return f.message, true
}

func (c *Catalogue) Put(d *qtype.Device, b qtype.Backend) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.devices[d.QRN] = d
	c.backend[d.QRN] = b
	c.takingKnown = false
}

// Taking returns, sorted and read-only, the QRNs of the devices whose jobs
// may be claimed now: registered, neither OFFLINE nor UNAVAILABLE. A
// worker asks before every claim; it is worked out again only after the
// catalogue changes.
func (c *Catalogue) Taking() []string {
	if t, ok := c.cachedTaking(); ok {
		return t
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.takingKnown {
		var t []string
		for qrn, d := range c.devices {
			if _, ok := c.backend[qrn]; ok && d.TakesJobs() {
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

func (c *Catalogue) All() []*qtype.Device {
	c.mu.RLock()
	defer c.mu.RUnlock()
	out := make([]*qtype.Device, 0, len(c.devices))
	for _, d := range c.devices {
		out = append(out, d)
	}
	slices.SortFunc(out, func(a, b *qtype.Device) int {
		if a.QRN < b.QRN {
			return -1
		}
		if a.QRN > b.QRN {
			return 1
		}
		return 0
	})
	return out
}

// failures is what FailNextJobs asked of a device.
type failures struct {
	left    int
	message string
}
