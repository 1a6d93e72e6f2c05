package storage

import (
	"context"
	"errors"
	"time"
)

// Controls are what a test suite sets on the service through the control
// API (decisions.md, "The control API for test suites"): each device's
// status and what it says of itself, a latency, a hold, failures to
// inject; and users it adds. A Service on a store of one process keeps
// them in memory. A Store that several Services share implements
// ControlStore, so that a change made on one node holds on every node:
// the claims of every node leave a held device's jobs, and those of a
// device that is OFFLINE or UNAVAILABLE, in the queue, and an injected
// failure is taken by exactly one job, whichever node starts it.

// DeviceControl is a device's state as the control API set it. A device
// without one is as its catalogue registered it.
type DeviceControl struct {
	Device string
	// Status, StatusMsg, NextAvailable and AvgQueueTime replace the
	// registered device's.
	Status        string
	StatusMsg     *string
	NextAvailable *string
	AvgQueueTime  *int
	// Latency is the least a job on the device takes (0: none).
	Latency time.Duration
	// Held leaves the device's QUEUED jobs in the queue.
	Held bool
	// Failures is how many of the next jobs to start on the device end
	// FAILED with FailMessage.
	Failures    int
	FailMessage string
}

// Controls are every device's controls and their version, which grows
// with each change.
type Controls struct {
	Version int64
	Devices map[string]DeviceControl
}

// APIKey is a user's API key as a ControlStore keeps it: the key's hash
// (never the key) and the user it names.
type APIKey struct {
	Hash               [32]byte
	UserID             string
	OrganizationUserID string
	OrganizationID     string
	Name               string
	CreatedAt          time.Time
}

// ControlStore is implemented by a Store that several Services share
// (store/postgres). Its CreateJob refuses a job of a device whose
// controls' status is not ONLINE (ErrDeviceNotOnline). Every change bumps
// the version, which its ChangeFeed
// announces (a Change with Controls set) and its ClaimJobs answers
// (ClaimedJobs.ControlsVersion), so that a node reads the controls again
// before it runs a job claimed after a change.
type ControlStore interface {
	// Controls returns every device's controls.
	Controls(ctx context.Context) (Controls, error)
	// UpdateControl applies change to the device's controls (a zero
	// DeviceControl with its Device set when it has none) in one atomic
	// step, and returns them as stored. change may be called more than
	// once.
	UpdateControl(ctx context.Context, device string, change func(*DeviceControl)) (DeviceControl, error)
	// TakeFailure counts down one of the device's failures to inject and
	// returns its message; ok is false when none is left. Of concurrent
	// calls, as many succeed as there were failures.
	TakeFailure(ctx context.Context, device string) (message string, ok bool, err error)
	// ResetControls removes every device's controls.
	ResetControls(ctx context.Context) error
	// AddAPIKey stores a key; ErrKeyExists if its hash is stored already.
	AddAPIKey(ctx context.Context, k APIKey) error
	// APIKeyByHash returns the key of the hash, or ErrKeyNotFound.
	APIKeyByHash(ctx context.Context, hash [32]byte) (APIKey, error)
	// APIKeyByUser returns a key of the user, or ErrKeyNotFound.
	APIKeyByUser(ctx context.Context, userID string) (APIKey, error)
}

// Errors of a ControlStore.
var (
	ErrKeyExists   = errors.New("the API key exists already")
	ErrKeyNotFound = errors.New("no such API key")
	// ErrDeviceNotOnline is CreateJob's answer, on a ControlStore, for a
	// job of a device whose controls say it is not ONLINE: nothing is
	// stored, whichever node made the change.
	ErrDeviceNotOnline = errors.New("the device is not ONLINE")
)
