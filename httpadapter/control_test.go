package httpadapter_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/store"
)

const controlKey = "control-key-0123456789abcdef"

// controlEnv is a service with the control API, alice, a device of
// FakeBackend that completes at once (fake) and one whose jobs block until
// cancelled (blocked), and a client that checks control traffic against
// the control API's document.
type controlEnv struct {
	*env
	ctlClient *http.Client
	alice     quantum.User
	fake      string
	blocked   string
}

func newControlEnv(t *testing.T, opts ...quantum.Option) *controlEnv {
	t.Helper()
	svc, err := quantum.New(store.NewMemory(), append([]quantum.Option{quantum.WithWorkers(2)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	alice, err := svc.AddAPIKey(aliceKey, "alice")
	if err != nil {
		t.Fatal(err)
	}
	fake, blocked := quantumtest.Device("qbraid:qbraid:sim:fake"), quantumtest.Device("qbraid:qbraid:sim:blocked")
	if err := svc.RegisterDevice(fake, &quantumtest.FakeBackend{}); err != nil {
		t.Fatal(err)
	}
	if err := svc.RegisterDevice(blocked, &quantumtest.FakeBackend{Block: true}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpadapter.New(svc, httpadapter.WithControlKey(controlKey)))
	t.Cleanup(srv.Close)
	return &controlEnv{env: envOn(t, svc, srv), alice: alice, fake: fake.QRN, blocked: blocked.QRN,
		ctlClient: &http.Client{Transport: &checked{t: t, next: srv.Client().Transport, router: controlSpec(t)}}}
}

// ctl sends a control request with the given X-CONTROL-KEY ("" for none),
// checked against the control API's document.
func (e *controlEnv) ctl(method, path, key string, body any) response {
	e.t.Helper()
	c := *e.env
	c.client = e.ctlClient
	return c.doKeyed("X-CONTROL-KEY", method, path, key, body)
}

// job creates a job of alice's on the device and returns its QRN.
func (e *controlEnv) job(device string) string {
	e.t.Helper()
	body := jobBody(bell, 10)
	body["deviceQrn"] = device
	return e.create(aliceKey, body)
}

// wait waits (no polling) for the job to end.
func (e *controlEnv) wait(qrn string) *quantum.Job {
	e.t.Helper()
	return quantumtest.WaitForJob(e.t, e.svc, e.alice, qrn)
}

// Without a control key the handler serves no control path: each is a
// 404, with any header.
func TestControlAPIIsOffWithoutAKey(t *testing.T) {
	e := newEnv(t)
	for _, path := range []string{"/control/v1/reset", "/control/v1/users", "/control/v1/openapi.json"} {
		req, _ := http.NewRequest("POST", e.srv.URL+path, nil)
		req.Header.Set("X-CONTROL-KEY", controlKey)
		r := e.send(req)
		wantError(t, r, http.StatusNotFound, quantum.ENOTFOUND)
	}
}

// Every control path needs the control key: none, a wrong one or an API
// key is a 401, unknown paths too; and the control key is no API key.
func TestControlKey(t *testing.T) {
	e := newControlEnv(t)
	for _, key := range []string{"", "wrong-key-0123456789abcdef", aliceKey} {
		for _, p := range []struct{ method, path string }{
			{"POST", "/control/v1/reset"}, {"PUT", "/control/v1/devices/" + e.fake}, {"GET", "/control/v1/openapi.json"},
			{"GET", "/control/v1/nothing"},
		} {
			wantError(t, e.ctl(p.method, p.path, key, nil), http.StatusUnauthorized, quantum.ENOVALIDAUTH)
		}
	}
	wantError(t, e.do("GET", "/api/v1/users/verify", controlKey, nil), http.StatusUnauthorized, quantum.EINVALIDAPIKEY)
	wantError(t, e.ctl("GET", "/control/v1/nothing", controlKey, nil), http.StatusNotFound, quantum.ENOTFOUND)
	r := e.ctl("GET", "/control/v1/openapi.json", controlKey, nil)
	if r.status != http.StatusOK || !strings.Contains(r.raw, "/control/v1/devices/{device_qrn}/failures") {
		t.Fatalf("the control API's document: %d", r.status)
	}
}

// PUT /control/v1/devices/{qrn}: the fields it names change, null clears
// one, and /api/v1 shows the device so; a device not ONLINE refuses
// creates.
func TestControlDeviceState(t *testing.T) {
	e := newControlEnv(t)
	path := "/control/v1/devices/" + e.fake
	d := data(t, e.ctl("PUT", path, controlKey, map[string]any{
		"status": "OFFLINE", "statusMsg": "maintenance", "nextAvailable": "2026-12-01T08:00:00Z", "avgQueueTime": 90,
	}), http.StatusOK)
	if d["status"] != "OFFLINE" || d["statusMsg"] != "maintenance" || d["nextAvailable"] != "2026-12-01T08:00:00Z" || d["avgQueueTime"] != 90.0 {
		t.Fatalf("device after PUT: %v", d)
	}
	shown := data(t, e.do("GET", "/api/v1/devices/"+e.fake, aliceKey, nil), http.StatusOK)
	if shown["status"] != "OFFLINE" || shown["statusMsg"] != "maintenance" {
		t.Fatalf("GET /api/v1 shows %v", shown)
	}
	body := jobBody(bell, 10)
	body["deviceQrn"] = e.fake
	wantError(t, e.do("POST", "/api/v1/jobs", aliceKey, body), http.StatusUnprocessableEntity, quantum.EVALIDATION, "deviceQrn")

	// Only what is named changes; null clears.
	d = data(t, e.ctl("PUT", path, controlKey, map[string]any{"status": "ONLINE", "statusMsg": nil}), http.StatusOK)
	if d["status"] != "ONLINE" || d["statusMsg"] != nil || d["avgQueueTime"] != 90.0 {
		t.Fatalf("device after the second PUT: %v", d)
	}
	if j := e.wait(e.job(e.fake)); j.Status != quantum.StatusCompleted {
		t.Fatalf("a job once ONLINE again: %s", j.Status)
	}
}

// Bad changes are a 422 naming each field, or a 404 for a device not
// registered; nothing changes.
func TestControlDeviceRefusals(t *testing.T) {
	e := newControlEnv(t)
	path := "/control/v1/devices/" + e.fake
	for _, tc := range []struct {
		body   any
		fields []string
	}{
		{map[string]any{"status": "BROKEN"}, []string{"status"}},
		{map[string]any{"status": nil}, []string{"status"}},
		{map[string]any{"latency": "soon"}, []string{"latency"}},
		{map[string]any{"latency": "2h"}, []string{"latency"}},
		{map[string]any{"latency": "-1s"}, []string{"latency"}},
		{map[string]any{"avgQueueTime": -1}, []string{"avgQueueTime"}},
		{map[string]any{"avgQueueTime": "9"}, []string{"avgQueueTime"}},
		{map[string]any{"nextAvailable": "tomorrow"}, []string{"nextAvailable"}},
		{map[string]any{"colour": "red"}, []string{"colour"}},
		{map[string]any{"status": 3, "avgQueueTime": 1.5}, []string{"status", "avgQueueTime"}},
		{map[string]any{"status": "OFFLINE", "statusMsg": strings.Repeat("x", 1025)}, []string{"statusMsg"}},
		{"{not json", []string{"body"}},
	} {
		wantError(t, e.ctl("PUT", path, controlKey, tc.body), http.StatusUnprocessableEntity, quantum.EVALIDATION, tc.fields...)
	}
	wantError(t, e.ctl("PUT", "/control/v1/devices/qbraid:qbraid:sim:nosuch", controlKey, map[string]any{"status": "OFFLINE"}),
		http.StatusNotFound, quantum.ENOTFOUND)
	if d := data(t, e.do("GET", "/api/v1/devices/"+e.fake, aliceKey, nil), http.StatusOK); d["status"] != "ONLINE" {
		t.Fatalf("a refused change changed the device: %v", d)
	}
}

// A held device's jobs stay QUEUED while another device's run; a release
// runs them.
func TestControlHold(t *testing.T) {
	e := newControlEnv(t)
	data(t, e.ctl("POST", "/control/v1/devices/"+e.fake+"/hold", controlKey, nil), http.StatusOK)
	held := e.job(e.fake)
	other := quantumtest.Device("qbraid:qbraid:sim:other")
	if err := e.svc.RegisterDevice(other, &quantumtest.FakeBackend{}); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if j := e.wait(e.job(other.QRN)); j.Status != quantum.StatusCompleted {
			t.Fatalf("a job on a device not held: %s", j.Status)
		}
	}
	if d := data(t, e.do("GET", "/api/v1/jobs/"+held, aliceKey, nil), http.StatusOK); d["status"] != "QUEUED" {
		t.Fatalf("a job on a held device is %v", d["status"])
	}
	data(t, e.ctl("DELETE", "/control/v1/devices/"+e.fake+"/hold", controlKey, nil), http.StatusOK)
	if j := e.wait(held); j.Status != quantum.StatusCompleted {
		t.Fatalf("a job released: %s", j.Status)
	}
	wantError(t, e.ctl("POST", "/control/v1/devices/qbraid:qbraid:sim:nosuch/hold", controlKey, nil), http.StatusNotFound, quantum.ENOTFOUND)
}

// Injected failures end the next jobs FAILED with the message, cost 0,
// their credits released; count 0 clears those left.
func TestControlFailures(t *testing.T) {
	e := newControlEnv(t, quantum.WithCredits(true))
	// A user with credits, through the control API, on a priced device.
	const carol = "carol-key-0123456789abcdef"
	u := data(t, e.ctl("POST", "/control/v1/users", controlKey, map[string]any{"apiKey": carol, "name": "carol", "credits": 100}), http.StatusOK)
	if u["userName"] != "carol" || u["userId"] == "" {
		t.Fatalf("user: %v", u)
	}
	priced := quantumtest.Device("qbraid:qbraid:sim:priced")
	priced.Pricing = quantum.Pricing{PerTask: 5}
	if err := e.svc.RegisterDevice(priced, &quantumtest.FakeBackend{}); err != nil {
		t.Fatal(err)
	}
	d := data(t, e.ctl("POST", "/control/v1/devices/"+priced.QRN+"/failures", controlKey, map[string]any{"count": 2, "message": "calibration drifted"}), http.StatusOK)
	if d["qrn"] != priced.QRN {
		t.Fatalf("answer: %v", d)
	}
	carolUser, err := e.svc.Authenticate(context.Background(), carol)
	if err != nil {
		t.Fatal(err)
	}
	body := jobBody(bell, 10)
	body["deviceQrn"] = priced.QRN
	for i := range 3 {
		qrn := e.create(carol, body)
		j := quantumtest.WaitForJob(t, e.svc, carolUser, qrn)
		want := quantum.StatusFailed
		if i == 2 {
			want = quantum.StatusCompleted
		}
		if j.Status != want || i < 2 && (quantumtest.StatusMsg(j) != "calibration drifted" || j.Cost != 0) {
			t.Fatalf("job %d: %s (%s), cost %v", i, j.Status, quantumtest.StatusMsg(j), j.Cost)
		}
	}
	bal := data(t, e.do("GET", "/api/v1/billing/credits/balance", carol, nil), http.StatusOK)
	if bal["qbraidCredits"] != 95.0 {
		t.Fatalf("balance %v, want 100 less the one job that ran (5)", bal["qbraidCredits"])
	}
	// count 0 clears.
	data(t, e.ctl("POST", "/control/v1/devices/"+priced.QRN+"/failures", controlKey, map[string]any{"count": 3, "message": "x"}), http.StatusOK)
	data(t, e.ctl("POST", "/control/v1/devices/"+priced.QRN+"/failures", controlKey, map[string]any{"count": 0}), http.StatusOK)
	if j := quantumtest.WaitForJob(t, e.svc, carolUser, e.create(carol, body)); j.Status != quantum.StatusCompleted {
		t.Fatalf("after clearing: %s", j.Status)
	}
	for _, tc := range []struct {
		body   any
		fields []string
	}{
		{map[string]any{"count": -1, "message": "x"}, []string{"count"}},
		{map[string]any{"count": 1}, []string{"message"}},
		{map[string]any{"count": 1, "message": " "}, []string{"message"}},
		{map[string]any{"count": 2000000, "message": "x"}, []string{"count"}},
		{map[string]any{"message": "x"}, []string{"count"}},
		{map[string]any{"count": "1", "message": "x"}, []string{"count"}},
		{map[string]any{"count": 1, "message": "x", "when": "now"}, []string{"when"}},
	} {
		wantError(t, e.ctl("POST", "/control/v1/devices/"+priced.QRN+"/failures", controlKey, tc.body), http.StatusUnprocessableEntity, quantum.EVALIDATION, tc.fields...)
	}
}

// A latency makes every job on the device run at least that long.
func TestControlLatency(t *testing.T) {
	e := newControlEnv(t)
	const least = 300 * time.Millisecond
	data(t, e.ctl("PUT", "/control/v1/devices/"+e.fake, controlKey, map[string]any{"latency": "300ms"}), http.StatusOK)
	j := e.wait(e.job(e.fake))
	if j.Status != quantum.StatusCompleted || j.TimeStamps.ExecutionDuration < least.Milliseconds() {
		t.Fatalf("%s in %d ms, want COMPLETED in at least %v", j.Status, j.TimeStamps.ExecutionDuration, least)
	}
	data(t, e.ctl("PUT", "/control/v1/devices/"+e.fake, controlKey, map[string]any{"latency": nil}), http.StatusOK)
	if j := e.wait(e.job(e.fake)); j.Status != quantum.StatusCompleted || j.TimeStamps.ExecutionDuration >= least.Milliseconds() {
		t.Fatalf("with the latency cleared: %s in %d ms", j.Status, j.TimeStamps.ExecutionDuration)
	}
}

// Users: added with a key (a conflict if it is in use, refused if it is
// the control key or too short), with credits; credits granted to them.
func TestControlUsers(t *testing.T) {
	e := newControlEnv(t)
	const dave = "dave-key-0123456789abcdef"
	u := data(t, e.ctl("POST", "/control/v1/users", controlKey, map[string]any{"apiKey": dave}), http.StatusOK)
	if v := data(t, e.do("GET", "/api/v1/users/verify", dave, nil), http.StatusOK); v["userId"] != u["userId"] {
		t.Fatalf("verify: %v, added: %v", v, u)
	}
	wantError(t, e.ctl("POST", "/control/v1/users", controlKey, map[string]any{"apiKey": dave}), http.StatusConflict, quantum.ECONFLICT)
	wantError(t, e.ctl("POST", "/control/v1/users", controlKey, map[string]any{"apiKey": aliceKey}), http.StatusConflict, quantum.ECONFLICT)
	for _, tc := range []struct {
		body   any
		fields []string
	}{
		{map[string]any{"apiKey": controlKey}, []string{"apiKey"}},
		{map[string]any{"apiKey": "short"}, []string{"apiKey"}},
		{map[string]any{}, []string{"apiKey"}},
		{map[string]any{"apiKey": "erin-key-0123456789abcdef", "credits": -1}, []string{"credits"}},
		{map[string]any{"apiKey": "erin-key-0123456789abcdef", "credits": "9"}, []string{"credits"}},
		{map[string]any{"apiKey": "erin-key-0123456789abcdef", "role": "admin"}, []string{"role"}},
	} {
		wantError(t, e.ctl("POST", "/control/v1/users", controlKey, tc.body), http.StatusUnprocessableEntity, quantum.EVALIDATION, tc.fields...)
	}
	path := "/control/v1/users/" + u["userId"].(string) + "/credits"
	b := data(t, e.ctl("POST", path, controlKey, map[string]any{"amount": 12.5}), http.StatusOK)
	if b["qbraidCredits"] != 12.5 {
		t.Fatalf("balance %v", b)
	}
	if b := data(t, e.do("GET", "/api/v1/billing/credits/balance", dave, nil), http.StatusOK); b["qbraidCredits"] != 12.5 {
		t.Fatalf("the user's own balance: %v", b)
	}
	wantError(t, e.ctl("POST", "/control/v1/users/0123456789abcdef01234567/credits", controlKey, map[string]any{"amount": 1}), http.StatusNotFound, quantum.ENOTFOUND)
	wantError(t, e.ctl("POST", path, controlKey, map[string]any{"amount": 0}), http.StatusUnprocessableEntity, quantum.EVALIDATION, "amount")
	wantError(t, e.ctl("POST", path, controlKey, map[string]any{"amount": "5"}), http.StatusUnprocessableEntity, quantum.EVALIDATION, "amount")
	wantError(t, e.ctl("POST", path, controlKey, map[string]any{}), http.StatusUnprocessableEntity, quantum.EVALIDATION, "amount")
}

// A reset deletes every job of every user (a running one cancelled
// first) and returns every device to its registered state; users, keys
// and balances stay.
func TestControlReset(t *testing.T) {
	e := newControlEnv(t, quantum.WithCredits(true))
	const frank = "frank-key-0123456789abcdef"
	data(t, e.ctl("POST", "/control/v1/users", controlKey, map[string]any{"apiKey": frank, "credits": 40}), http.StatusOK)
	done := e.job(e.fake)
	e.wait(done)
	running := e.job(e.blocked)
	quantumtest.WaitForStatus(t, e.svc, e.alice, running, 10*time.Second, quantum.StatusRunning)
	data(t, e.ctl("POST", "/control/v1/devices/"+e.fake+"/hold", controlKey, nil), http.StatusOK)
	queued := e.job(e.fake)
	quantumtest.WaitForStatus(t, e.svc, e.alice, queued, 10*time.Second, quantum.StatusQueued)
	data(t, e.ctl("PUT", "/control/v1/devices/"+e.blocked, controlKey, map[string]any{"status": "UNAVAILABLE", "latency": "1s"}), http.StatusOK)
	data(t, e.ctl("POST", "/control/v1/devices/"+e.fake+"/failures", controlKey, map[string]any{"count": 5, "message": "x"}), http.StatusOK)

	r := e.ctl("POST", "/control/v1/reset", controlKey, nil)
	if d := data(t, r, http.StatusOK); d["done"] != true {
		t.Fatalf("reset answered %v", d)
	}
	list := e.do("GET", "/api/v1/jobs", aliceKey, nil)
	if list.status != http.StatusOK || len(list.body["data"].([]any)) != 0 {
		t.Fatalf("jobs after a reset: %s", list.raw)
	}
	for _, qrn := range []string{done, running, queued} {
		wantError(t, e.do("GET", "/api/v1/jobs/"+qrn, aliceKey, nil), http.StatusNotFound, quantum.ENOTFOUND)
	}
	if d := data(t, e.do("GET", "/api/v1/devices/"+e.blocked, aliceKey, nil), http.StatusOK); d["status"] != "ONLINE" {
		t.Fatalf("device after a reset: %v", d)
	}
	// No hold, no failures, no latency left; users and balances stay.
	if j := e.wait(e.job(e.fake)); j.Status != quantum.StatusCompleted || j.TimeStamps.ExecutionDuration > 500 {
		t.Fatalf("a job after a reset: %s in %d ms", j.Status, j.TimeStamps.ExecutionDuration)
	}
	if b := data(t, e.do("GET", "/api/v1/billing/credits/balance", frank, nil), http.StatusOK); b["qbraidCredits"] != 40.0 {
		t.Fatalf("frank's balance after a reset: %v", b)
	}
}
