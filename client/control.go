package client

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"strings"
	"time"

	"github.com/qjobs/quantum"
)

// Control is the control API (/control/v1) over HTTP, for a test suite
// that steers a remote service as quantumtest steers one in process:
// devices offline, slow, failing on cue or held; users with credits; a
// clean service. It needs the server's control key (examples/server
// -control-key-file). It is safe for concurrent use.
type Control struct{ c *Client }

// NewControl returns a Control of the server at baseURL (the server, or
// its /api/v1 or /control/v1: all work) with its control key. It takes
// the options New takes.
func NewControl(baseURL, controlKey string, opts ...Option) (*Control, error) {
	if controlKey == "" {
		return nil, errors.New("client: a control key is required")
	}
	root := strings.TrimRight(baseURL, "/")
	root = strings.TrimSuffix(strings.TrimSuffix(root, "/api/v1"), "/control/v1")
	c, err := New(root, controlKey, opts...)
	if err != nil {
		return nil, errors.New(strings.ReplaceAll(err.Error(), "API key", "control key"))
	}
	u, _ := url.Parse(root) // New parsed it
	c.base, c.keyHeader = u.JoinPath("control", "v1"), "X-CONTROL-KEY"
	return &Control{c: c}, nil
}

// Field is a field of a DeviceChange: left out (its zero value), set to
// a value (Set), or cleared (Null).
type Field[T any] struct {
	set, null bool
	v         T
}

// Set is a field set to v.
func Set[T any](v T) Field[T] { return Field[T]{set: true, v: v} }

// Null is a field cleared.
func Null[T any]() Field[T] { return Field[T]{set: true, null: true} }

// DeviceChange is a change of a device's controls: each field given
// changes, the others stay.
type DeviceChange struct {
	// Status is ONLINE, OFFLINE, UNAVAILABLE or RETIRED ("": unchanged).
	Status        string
	StatusMsg     Field[string]
	NextAvailable Field[string] // RFC 3339
	AvgQueueTime  Field[int]
	// Latency makes every job on the device run at least that long (Null
	// or Set(0) clears it).
	Latency Field[time.Duration]
}

func (ch DeviceChange) body() map[string]any {
	b := map[string]any{}
	if ch.Status != "" {
		b["status"] = ch.Status
	}
	put := func(name string, set, null bool, v any) {
		switch {
		case null:
			b[name] = nil
		case set:
			b[name] = v
		}
	}
	put("statusMsg", ch.StatusMsg.set, ch.StatusMsg.null, ch.StatusMsg.v)
	put("nextAvailable", ch.NextAvailable.set, ch.NextAvailable.null, ch.NextAvailable.v)
	put("avgQueueTime", ch.AvgQueueTime.set, ch.AvgQueueTime.null, ch.AvgQueueTime.v)
	put("latency", ch.Latency.set, ch.Latency.null, ch.Latency.v.String())
	return b
}

// UpdateDevice changes a device's controls (PUT
// /control/v1/devices/{qrn}) and returns the device as /api/v1 now
// shows it.
func (k *Control) UpdateDevice(ctx context.Context, qrn string, ch DeviceChange) (*quantum.Device, error) {
	return k.device(ctx, "PUT", []string{"devices", qrn}, ch.body())
}

// FailNextJobs makes the next n jobs that start on the device end FAILED
// with message (n = 0 clears those left).
func (k *Control) FailNextJobs(ctx context.Context, qrn string, n int, message string) (*quantum.Device, error) {
	return k.device(ctx, "POST", []string{"devices", qrn, "failures"}, map[string]any{"count": n, "message": message})
}

// HoldDevice holds the device's queue: its QUEUED jobs stay QUEUED.
func (k *Control) HoldDevice(ctx context.Context, qrn string) (*quantum.Device, error) {
	return k.device(ctx, "POST", []string{"devices", qrn, "hold"}, nil)
}

// ReleaseDevice releases the device's queue: its jobs run in order.
func (k *Control) ReleaseDevice(ctx context.Context, qrn string) (*quantum.Device, error) {
	return k.device(ctx, "DELETE", []string{"devices", qrn, "hold"}, nil)
}

// AddUser adds apiKey for a new user, with credits (0 for none), and
// returns the user. A key in use is a CONFLICT.
func (k *Control) AddUser(ctx context.Context, apiKey, name string, credits float64) (quantum.User, error) {
	body := map[string]any{"apiKey": apiKey}
	if name != "" {
		body["name"] = name
	}
	if credits != 0 {
		body["credits"] = credits
	}
	var u quantum.User
	err := k.send(ctx, "POST", []string{"users"}, body, false, &u)
	return u, err
}

// GrantCredits adds amount credits to the user's balance and returns it.
func (k *Control) GrantCredits(ctx context.Context, userID string, amount float64) (*quantum.CreditsBalance, error) {
	var b quantum.CreditsBalance
	if err := k.send(ctx, "POST", []string{"users", userID, "credits"}, map[string]any{"amount": amount}, false, &b); err != nil {
		return nil, err
	}
	return &b, nil
}

// Reset deletes every job of every user and returns every device to its
// registered state; users, keys and balances stay. It returns once the
// server is done.
func (k *Control) Reset(ctx context.Context) error {
	var out struct {
		Done bool `json:"done"`
	}
	return k.send(ctx, "POST", []string{"reset"}, nil, true, &out)
}

func (k *Control) device(ctx context.Context, method string, path []string, body map[string]any) (*quantum.Device, error) {
	var d quantum.Device
	// Each of these sets a state, so a repeat does what the first did.
	if err := k.send(ctx, method, path, body, true, &d); err != nil {
		return nil, err
	}
	return &d, nil
}

func (k *Control) send(ctx context.Context, method string, path []string, body map[string]any, idempotent bool, out any) error {
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			return &quantum.Error{Code: quantum.EINTERNAL, Message: "client: " + err.Error()}
		}
	}
	return k.c.do(ctx, call{method: method, path: path, body: data, idempotent: idempotent}, out, nil)
}
