package quantum

import (
	"context"
	"errors"
	"slices"
	"strings"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// A test suite that mocks a quantum platform steers the service as a
// test of it needs: devices that go offline, slow down, fail on cue or
// hold their queue; users added with credits; a clean service before each
// test. These are the Service's controls. quantumtest wraps them for Go
// tests, and httpadapter serves them as the control API (/control/v1)
// for suites in any language. On a store that several Services share
// (storage.ControlStore) they are kept in the store, so that a change
// made through one node holds on every node.

// DeviceControl is a device's state as the controls set it: its status
// and what it says of itself (replacing the registered device's), a
// latency, a hold, failures to inject.
type DeviceControl = storage.DeviceControl

// Bounds of what the controls take.
const (
	// MaxLatency bounds a device's latency.
	MaxLatency = time.Hour
	// MaxInjectedFailures bounds the failures injected at once.
	MaxInjectedFailures = 1_000_000
	maxControlText      = 1024
)

// ControlDevice changes a device's controls: change edits a copy of them
// (for a device never controlled, its status and what it says of itself
// as registered), which replaces them once checked, and the device as
// the API now shows it is returned. The rules: Status is one of ONLINE,
// OFFLINE, UNAVAILABLE and RETIRED; AvgQueueTime is at least 0;
// NextAvailable is a time in RFC 3339; Latency from 0 to MaxLatency;
// Failures from 0 to MaxInjectedFailures, with a FailMessage when above
// 0; messages are text of at most 1,024 bytes. A device not ONLINE takes
// no new jobs; jobs queued on one that is OFFLINE or UNAVAILABLE, or
// held, wait; those on a RETIRED one fail when a worker takes them; a job
// on a device with a latency runs at least that long; an injected failure
// ends the next job to start on the device FAILED with FailMessage, cost
// 0, its credits released. Errors are VALIDATION_ERROR naming the field,
// NOT_FOUND for a device not registered.
func (s *Service) ControlDevice(ctx context.Context, qrn string, change func(*DeviceControl)) (*Device, error) {
	base, ok := s.devices.Control(qrn)
	if !ok {
		return nil, qtype.Errorf(ENOTFOUND, "device %s not found", qrn)
	}
	// Checked on a copy first, so that a bad change is refused before it
	// reaches the store.
	c := base
	change(&c)
	if err := checkControl(qrn, base, c); err != nil {
		return nil, err
	}
	if cs, ok := s.controlStore(); ok {
		var bad error
		_, err := cs.UpdateControl(ctx, qrn, func(stored *DeviceControl) {
			if stored.Status == "" { // none stored: the device as registered
				*stored = base
			}
			before := *stored
			change(stored)
			if bad = checkControl(qrn, before, *stored); bad != nil {
				*stored = before // changed under us into something the change breaks
			}
		})
		if err != nil {
			return nil, s.internal(ctx, err, "update the device's controls")
		}
		if bad != nil {
			return nil, bad
		}
		if err := s.loadControls(ctx); err != nil {
			return nil, err
		}
	} else {
		s.devices.SetControl(c)
	}
	if s.runner != nil {
		s.runner.Wake() // jobs waiting for it may run now
	}
	d, _ := s.devices.Get(qrn)
	return s.liveDevice(ctx, d)
}

// checkControl checks a device's controls after a change from before.
func checkControl(qrn string, before, c DeviceControl) error {
	var v qtype.Validation
	if c.Device != qrn {
		v.Add("device", "cannot change (it is %s)", qrn)
	}
	if !slices.Contains(deviceStatuses, c.Status) {
		v.Add("status", "must be one of %s", strings.Join(deviceStatuses, ", "))
	}
	if c.StatusMsg != nil && checkText(&v, "statusMsg", *c.StatusMsg) && len(*c.StatusMsg) > maxControlText {
		v.Add("statusMsg", "must be at most %d bytes", maxControlText)
	}
	if c.NextAvailable != nil {
		if _, err := time.Parse(time.RFC3339Nano, *c.NextAvailable); err != nil {
			v.Add("nextAvailable", "must be a time in RFC 3339, such as 2026-11-29T12:00:00Z")
		}
	}
	if c.AvgQueueTime != nil && *c.AvgQueueTime < 0 {
		v.Add("avgQueueTime", "must be at least 0")
	}
	if c.Latency < 0 || c.Latency > MaxLatency {
		v.Add("latency", "must be from 0s to %v", MaxLatency)
	}
	switch {
	case c.Failures < 0 || c.Failures > MaxInjectedFailures:
		v.Add("count", "must be from 0 to %d", MaxInjectedFailures)
	case c.Failures > 0 && strings.TrimSpace(c.FailMessage) == "":
		v.Add("message", "is required: the statusMsg of the jobs that fail")
	case c.Failures > 0 && checkText(&v, "message", c.FailMessage) && len(c.FailMessage) > maxControlText:
		v.Add("message", "must be at most %d bytes", maxControlText)
	}
	return v.Err()
}

// SetDeviceStatus sets a device's status and statusMsg ("" for none)
// through ControlDevice.
func (s *Service) SetDeviceStatus(ctx context.Context, qrn, status, msg string) error {
	_, err := s.ControlDevice(ctx, qrn, func(c *DeviceControl) {
		c.Status, c.StatusMsg = status, nil
		if msg != "" {
			c.StatusMsg = &msg
		}
	})
	return err
}

// HoldDevice holds (true) or releases (false) a device's queue, and
// returns the device: while held, its QUEUED jobs stay QUEUED; a release
// lets them run in order.
func (s *Service) HoldDevice(ctx context.Context, qrn string, hold bool) (*Device, error) {
	return s.ControlDevice(ctx, qrn, func(c *DeviceControl) { c.Held = hold })
}

// FailNextJobs makes the device fail the next n jobs that start on it,
// whichever node starts them, with message as their statusMsg (cost 0,
// credits released) instead of running them (a batch fails as one job),
// and returns the device. n = 0 clears what is left of an earlier call.
func (s *Service) FailNextJobs(ctx context.Context, qrn string, n int, message string) (*Device, error) {
	return s.ControlDevice(ctx, qrn, func(c *DeviceControl) {
		c.Failures, c.FailMessage = n, message
		if n == 0 {
			c.FailMessage = ""
		}
	})
}

// controlStore is the store's ControlStore, if it is one.
func (s *Service) controlStore() (storage.ControlStore, bool) { return s.controls, s.controls != nil }

// loadControls reads the store's controls into the catalogue.
func (s *Service) loadControls(ctx context.Context) error {
	cs, ok := s.controlStore()
	if !ok {
		return nil
	}
	all, err := cs.Controls(ctx)
	if err != nil {
		return s.internal(ctx, err, "read the controls")
	}
	s.devices.SetControls(all)
	return nil
}

// AddUser makes apiKey valid for a new user named name, as the control
// API does, and returns the user; CONFLICT if the key is valid already.
// On a store that several Services share (storage.ControlStore) the key
// is kept in the store, and every node accepts it. The key is 16 to 255
// bytes of text.
func (s *Service) AddUser(ctx context.Context, apiKey, name string) (User, error) {
	var v qtype.Validation
	if checkText(&v, "apiKey", apiKey) && (len(apiKey) < 16 || len(apiKey) > 255) {
		v.Add("apiKey", "must be 16 to 255 bytes")
	}
	if name != "" && checkText(&v, "name", name) && len(name) > 255 {
		v.Add("name", "must be at most 255 bytes")
	}
	if apiKey == "" {
		v.Add("apiKey", "is required")
	}
	if err := v.Err(); err != nil {
		return User{}, err
	}
	h := keyHash(apiKey)
	if _, ok := s.keyOf(h); ok {
		return User{}, qtype.Errorf(ECONFLICT, "that API key is in use")
	}
	u := userOfKey(h, name)
	if cs, ok := s.controlStore(); ok {
		err := cs.AddAPIKey(ctx, storage.APIKey{Hash: h, UserID: u.ID, OrganizationUserID: u.OrganizationUserID,
			OrganizationID: u.OrganizationID, Name: name, CreatedAt: s.now().UTC()})
		switch {
		case errors.Is(err, storage.ErrKeyExists):
			return User{}, qtype.Errorf(ECONFLICT, "that API key is in use")
		case err != nil:
			return User{}, s.internal(ctx, err, "store the API key")
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.keys[h]; ok {
		return User{}, qtype.Errorf(ECONFLICT, "that API key is in use")
	}
	s.keys[h] = keyEntry{hash: h, user: u}
	return u, nil
}

// knownUser is the user of a key the Service holds, by the user's ID.
func (s *Service) knownUser(id string) (User, bool) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	for _, e := range s.keys {
		if e.user.ID == id {
			return e.user, true
		}
	}
	return User{}, false
}

// UserByID returns the user of an API key the Service knows (one added
// on any node, on a ControlStore), or NOT_FOUND.
func (s *Service) UserByID(ctx context.Context, id string) (User, error) {
	if u, ok := s.knownUser(id); ok {
		return u, nil
	}
	if cs, ok := s.controlStore(); ok {
		k, err := cs.APIKeyByUser(ctx, id)
		switch {
		case err == nil:
			return User{ID: k.UserID, OrganizationUserID: k.OrganizationUserID, OrganizationID: k.OrganizationID, Name: k.Name}, nil
		case !errors.Is(err, storage.ErrKeyNotFound):
			return User{}, s.internal(ctx, err, "read the user")
		}
	}
	return User{}, qtype.Errorf(ENOTFOUND, "user %s not found", id)
}

// Reset makes the service as it started, for the next test: every job of
// every user is deleted (those unfinished are cancelled first, and what
// they reserved is released), and every device is as registered (status,
// latency, hold and failures to inject cleared). Users, keys and
// balances stay. It returns once it is done, or with ctx's error (a
// running job whose device cannot cancel is waited for).
func (s *Service) Reset(ctx context.Context) error {
	if cs, ok := s.controlStore(); ok {
		if err := cs.ResetControls(ctx); err != nil {
			return s.internal(ctx, err, "reset the controls")
		}
		if err := s.loadControls(ctx); err != nil {
			return err
		}
	}
	s.devices.ResetControls()
	s.runner.Wake()
	all := qtype.JobStatuses()
	for {
		jobs, err := s.store.Unfinished(ctx, all, time.Time{}, 500)
		if err != nil {
			return s.internal(ctx, err, "list the jobs to delete")
		}
		if len(jobs) == 0 {
			return nil
		}
		for _, j := range jobs {
			if err := s.resetJob(ctx, j); err != nil {
				return err
			}
		}
	}
}

// resetJob ends the job if it is unfinished and deletes it.
func (s *Service) resetJob(ctx context.Context, j *storage.JobRecord) error {
	status := j.Status
	switch status {
	case StatusInitializing, StatusValidating, StatusQueued:
		now := s.now().UTC()
		_, err := s.store.UpdateJob(ctx, j.JobQRN, status, func(r *storage.JobRecord) {
			r.Status, r.UpdatedAt, r.LeaseUntil = StatusCancelled, now, time.Time{}
			r.TimeStamps.EndedAt = &now
		}, nil)
		if err != nil {
			return s.ignoreMoved(ctx, err, "cancel a job to delete it")
		}
		status = StatusCancelled
	case StatusRunning, StatusCancelling:
		if status == StatusRunning {
			now := s.now().UTC()
			_, err := s.store.UpdateJob(ctx, j.JobQRN, status, func(r *storage.JobRecord) {
				r.Status, r.UpdatedAt = StatusCancelling, now
			}, nil)
			if err != nil {
				return s.ignoreMoved(ctx, err, "cancel a job to delete it")
			}
			s.runner.Cancel(status, j.JobQRN)
		}
		done, err := s.Wait(ctx, User{ID: j.Owner}, j.JobQRN)
		if err != nil {
			if ErrorCode(err) == ENOTFOUND {
				return nil
			}
			return err
		}
		status = done.Status
	}
	if err := s.store.DeleteJob(ctx, j.JobQRN, status); err != nil {
		return s.ignoreMoved(ctx, err, "delete a job")
	}
	return nil
}

// ignoreMoved passes over a job that changed or went meanwhile (the next
// round of Reset looks again), and reports other errors.
func (s *Service) ignoreMoved(ctx context.Context, err error, what string) error {
	if errors.Is(err, storage.ErrStatusChanged) || errors.Is(err, storage.ErrJobNotFound) {
		return nil
	}
	return s.internal(ctx, err, what)
}
