package runner

import (
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
	"go.uber.org/zap"
)

// The controls a test suite sets (storage.DeviceControl) are the
// catalogue's to apply. On a store that several nodes share they live in
// the store: this node reads them again when the feed says they changed,
// and before it runs jobs claimed after a change it has not read (the
// claim answers the controls' version), so that a failure injected
// through one node is taken by the next job to start on any.

// reloadControls reads the store's controls into the catalogue.
func (r *Runner) reloadControls() {
	if r.s.controls == nil {
		return
	}
	all, err := retrying(r.ctx, r, "read the controls", "", func() (storage.Controls, error) { return r.s.controls.Controls(r.ctx) })
	if err != nil {
		if r.ctx.Err() == nil {
			r.s.log.Warn("the controls could not be read", zap.Error(err))
		}
		return
	}
	if r.s.devices.SetControls(all) {
		r.Wake() // a device released or back ONLINE
	}
}

// takeFailure takes one of the failures injected on the device, and
// returns its message.
func (r *Runner) takeFailure(device string) (string, bool) {
	if r.s.controls == nil {
		return r.s.devices.TakeFailure(device)
	}
	if !r.s.devices.Failing(device) {
		return "", false
	}
	type taken struct {
		msg string
		ok  bool
	}
	t, err := retrying(r.ctx, r, "take an injected failure", "", func() (taken, error) {
		msg, ok, err := r.s.controls.TakeFailure(r.ctx, device)
		return taken{msg, ok}, err
	})
	if err != nil {
		return "", false
	}
	return t.msg, t.ok
}

// leastRunTime is the least a job on the device takes: its MinRunTime or
// the latency its controls set, whichever is longer.
func (r *Runner) leastRunTime(d *qtype.Device) time.Duration {
	if d == nil {
		return 0
	}
	return max(d.MinRunTime, r.s.devices.Latency(d.QRN))
}
