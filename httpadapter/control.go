package httpadapter

import (
	"bytes"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"math"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/qjobs/quantum"
)

// The control API (/control/v1, decisions.md, "The control API for test
// suites"): a test suite in any language steers the service as Go tests
// do with quantumtest, through the Service's own controls. It is served
// only with WithControlKey; without one every path under /control/ is a
// 404, as any path the handler does not serve.

// WithControlKey serves the control API to requests whose X-CONTROL-KEY
// header is key (compared in constant time; never logged). An API key is
// never a control key, and the control key is never an API key. An empty
// key serves nothing.
func WithControlKey(key string) Option {
	return func(h *handler) {
		if key != "" {
			sum := sha256.Sum256([]byte(key))
			h.controlKey = &sum
		}
	}
}

func (h *handler) controlRoutes() {
	if h.controlKey == nil {
		return
	}
	m := h.mux
	m.HandleFunc("GET /control/v1/openapi.json", h.controlled(h.controlOpenAPI))
	m.HandleFunc("PUT /control/v1/devices/{device_qrn}", h.controlled(h.controlDevice))
	m.HandleFunc("POST /control/v1/devices/{device_qrn}/failures", h.controlled(h.controlFailures))
	m.HandleFunc("POST /control/v1/devices/{device_qrn}/hold", h.controlled(h.controlHold(true)))
	m.HandleFunc("DELETE /control/v1/devices/{device_qrn}/hold", h.controlled(h.controlHold(false)))
	m.HandleFunc("POST /control/v1/users", h.controlled(h.controlAddUser))
	m.HandleFunc("POST /control/v1/users/{user_id}/credits", h.controlled(h.controlGrant))
	m.HandleFunc("POST /control/v1/reset", h.controlled(h.controlReset))
}

// controlled checks the control key before the handler runs.
func (h *handler) controlled(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := h.checkControlKey(r); err != nil {
			h.fail(w, r, err)
			return
		}
		next(w, r)
	}
}

// checkControlKey compares the X-CONTROL-KEY header with the control key
// through their hashes, in constant time: neither the key's length nor
// how much of it a guess got right shows in the timing.
func (h *handler) checkControlKey(r *http.Request) error {
	got := strings.TrimSpace(r.Header.Get("X-CONTROL-KEY"))
	if got == "" {
		return &quantum.Error{Code: quantum.ENOVALIDAUTH, Message: "a control key is required in the X-CONTROL-KEY header"}
	}
	sum := sha256.Sum256([]byte(got))
	if subtle.ConstantTimeCompare(sum[:], h.controlKey[:]) != 1 {
		return &quantum.Error{Code: quantum.ENOVALIDAUTH, Message: "the control key is not valid"}
	}
	return nil
}

// isControlKey reports whether key is the control key.
func (h *handler) isControlKey(key string) bool {
	sum := sha256.Sum256([]byte(key))
	return h.controlKey != nil && subtle.ConstantTimeCompare(sum[:], h.controlKey[:]) == 1
}

// controlDevice is PUT /control/v1/devices/{qrn}: the fields it names
// change, null clearing one.
func (h *handler) controlDevice(w http.ResponseWriter, r *http.Request) {
	fields, err := h.readBody(w, r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var fe fieldErrors
	for _, k := range sortedKeys(fields) {
		if !slices.Contains([]string{"status", "statusMsg", "nextAvailable", "avgQueueTime", "latency"}, k) {
			fe.add(k, "is not a field of a device's controls (status, statusMsg, nextAvailable, avgQueueTime, latency)")
		}
	}
	var change []func(*quantum.DeviceControl)
	if raw, ok := fields["status"]; ok {
		if !present(raw) {
			fe.add("status", "must be one of ONLINE, OFFLINE, UNAVAILABLE, RETIRED (it cannot be null)")
		} else if s := decodeString(raw, "status", &fe); s != "" {
			change = append(change, func(c *quantum.DeviceControl) { c.Status = s })
		}
	}
	for _, f := range []struct {
		name string
		set  func(*quantum.DeviceControl, *string)
	}{
		{"statusMsg", func(c *quantum.DeviceControl, v *string) { c.StatusMsg = v }},
		{"nextAvailable", func(c *quantum.DeviceControl, v *string) { c.NextAvailable = v }},
	} {
		raw, ok := fields[f.name]
		if !ok {
			continue
		}
		var v *string
		if present(raw) {
			s := decodeString(raw, f.name, &fe)
			v = &s
		}
		change = append(change, func(c *quantum.DeviceControl) { f.set(c, v) })
	}
	if raw, ok := fields["avgQueueTime"]; ok {
		var v *int
		if present(raw) {
			n := decodeInt(raw, "avgQueueTime", &fe)
			v = &n
		}
		change = append(change, func(c *quantum.DeviceControl) { c.AvgQueueTime = v })
	}
	if raw, ok := fields["latency"]; ok {
		d := time.Duration(0)
		if present(raw) {
			d = decodeDuration(raw, "latency", &fe)
		}
		change = append(change, func(c *quantum.DeviceControl) { c.Latency = d })
	}
	if err := fe.err(); err != nil {
		h.fail(w, r, err)
		return
	}
	d, err := h.svc.ControlDevice(r.Context(), r.PathValue("device_qrn"), func(c *quantum.DeviceControl) {
		for _, f := range change {
			f(c)
		}
	})
	h.deviceAnswer(w, r, d, err)
}

// decodeDuration reads a duration written as Go writes one ("250ms",
// "1m30s", "0s").
func decodeDuration(raw json.RawMessage, field string, fe *fieldErrors) time.Duration {
	s := decodeString(raw, field, fe)
	if s == "" {
		return 0
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		fe.add(field, `must be a duration such as "250ms", "2s" or "0s"`)
		return 0
	}
	return d
}

// controlFailures is POST /control/v1/devices/{qrn}/failures.
func (h *handler) controlFailures(w http.ResponseWriter, r *http.Request) {
	fields, err := h.readBody(w, r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var fe fieldErrors
	onlyFields(fields, &fe, "count", "message")
	count := 0
	if raw, ok := fields["count"]; !ok || !present(raw) {
		fe.add("count", "is required: how many of the next jobs fail (0 clears those left)")
	} else {
		count = decodeInt(raw, "count", &fe)
	}
	message := ""
	if raw, ok := fields["message"]; ok && present(raw) {
		message = decodeString(raw, "message", &fe)
	}
	if err := fe.err(); err != nil {
		h.fail(w, r, err)
		return
	}
	d, err := h.svc.FailNextJobs(r.Context(), r.PathValue("device_qrn"), count, message)
	h.deviceAnswer(w, r, d, err)
}

// controlHold is POST (hold) and DELETE (release) of
// /control/v1/devices/{qrn}/hold.
func (h *handler) controlHold(hold bool) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		d, err := h.svc.HoldDevice(r.Context(), r.PathValue("device_qrn"), hold)
		h.deviceAnswer(w, r, d, err)
	}
}

// deviceAnswer answers the device after a change, or the change's error.
func (h *handler) deviceAnswer(w http.ResponseWriter, r *http.Request, d *quantum.Device, err error) {
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, http.StatusOK, d)
}

// controlAddUser is POST /control/v1/users.
func (h *handler) controlAddUser(w http.ResponseWriter, r *http.Request) {
	fields, err := h.readBody(w, r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var fe fieldErrors
	onlyFields(fields, &fe, "apiKey", "name", "credits")
	key, name := "", ""
	if raw, ok := fields["apiKey"]; !ok || !present(raw) {
		fe.add("apiKey", "is required: the new user's API key, 16 to 255 bytes")
	} else if key = decodeString(raw, "apiKey", &fe); h.isControlKey(key) {
		fe.add("apiKey", "must not be the control key")
	}
	if raw, ok := fields["name"]; ok && present(raw) {
		name = decodeString(raw, "name", &fe)
	}
	credits := 0.0
	if raw, ok := fields["credits"]; ok && present(raw) {
		credits = decodeCredits(raw, "credits", &fe)
	}
	if err := fe.err(); err != nil {
		h.fail(w, r, err)
		return
	}
	u, err := h.svc.AddUser(r.Context(), key, name)
	if err == nil && credits > 0 {
		_, err = h.svc.GrantCredits(r.Context(), u, credits, "control API: a new user's credits")
	}
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, http.StatusOK, u)
}

// controlGrant is POST /control/v1/users/{userId}/credits.
func (h *handler) controlGrant(w http.ResponseWriter, r *http.Request) {
	fields, err := h.readBody(w, r)
	if err != nil {
		h.fail(w, r, err)
		return
	}
	var fe fieldErrors
	onlyFields(fields, &fe, "amount")
	amount := 0.0
	if raw, ok := fields["amount"]; !ok || !present(raw) {
		fe.add("amount", "is required: the credits to add")
	} else {
		amount = decodeCredits(raw, "amount", &fe)
	}
	if err := fe.err(); err != nil {
		h.fail(w, r, err)
		return
	}
	u, err := h.svc.UserByID(r.Context(), r.PathValue("user_id"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	b, err := h.svc.GrantCredits(r.Context(), u, amount, "control API")
	if err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, http.StatusOK, b)
}

// decodeCredits reads a number of credits.
func decodeCredits(raw json.RawMessage, field string, fe *fieldErrors) float64 {
	if t := bytes.TrimSpace(raw); len(t) > 0 && t[0] == '"' {
		fe.add(field, "must be a number")
		return 0
	}
	var v float64
	if err := json.Unmarshal(raw, &v); err != nil || math.IsInf(v, 0) {
		fe.add(field, "must be a number")
		return 0
	}
	if v < 0 {
		fe.add(field, "must be at least 0")
	}
	return v
}

// controlReset is POST /control/v1/reset.
func (h *handler) controlReset(w http.ResponseWriter, r *http.Request) {
	if err := h.svc.Reset(r.Context()); err != nil {
		h.fail(w, r, err)
		return
	}
	h.ok(w, http.StatusOK, map[string]bool{"done": true})
}

// onlyFields refuses the fields of a body not among names.
func onlyFields(fields map[string]json.RawMessage, fe *fieldErrors, names ...string) {
	for _, k := range sortedKeys(fields) {
		if !slices.Contains(names, k) {
			fe.add(k, "is not a field of this request (it takes "+strings.Join(names, ", ")+")")
		}
	}
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
