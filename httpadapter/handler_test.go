package httpadapter_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/store"
)

const (
	aliceKey = "alice-key-0123456789"
	bobKey   = "bob-key-9876543210"
	device   = "qbraid:qbraid:sim:qir-sv"
	bell     = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n"
)

type env struct {
	t      *testing.T
	svc    *quantum.Service
	srv    *httptest.Server
	client *http.Client // checks every request and answer against the OpenAPI document
}

func newEnv(t *testing.T, opts ...httpadapter.Option) *env {
	t.Helper()
	svc, err := quantum.New(store.NewMemory(), quantum.WithWorkers(2))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	for _, k := range []string{aliceKey, bobKey} {
		if _, err := svc.AddAPIKey(k, strings.Split(k, "-")[0]); err != nil {
			t.Fatal(err)
		}
	}
	srv := httptest.NewServer(httpadapter.New(svc, opts...))
	t.Cleanup(srv.Close)
	return envOn(t, svc, srv)
}

// envOn is the env of a service and its server, with a client that
// checks its traffic against the OpenAPI document.
func envOn(t *testing.T, svc *quantum.Service, srv *httptest.Server) *env {
	return &env{t: t, svc: svc, srv: srv, client: &http.Client{Transport: &checked{t: t, next: srv.Client().Transport}}}
}

type response struct {
	status int
	header http.Header
	body   map[string]any
	raw    string
}

func (e *env) do(method, path, key string, body any) response {
	e.t.Helper()
	return e.doKeyed("X-API-KEY", method, path, key, body)
}

// doKeyed is do with the key in the named header.
func (e *env) doKeyed(header, method, path, key string, body any) response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		buf, _ := json.Marshal(b)
		rd = bytes.NewReader(buf)
	}
	req, err := http.NewRequest(method, e.srv.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set(header, key)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	return e.send(req)
}

// send makes the request and reads the answer, which must be a JSON
// object.
func (e *env) send(req *http.Request) response {
	e.t.Helper()
	res, err := e.client.Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	r := response{status: res.StatusCode, header: res.Header, raw: string(raw)}
	if err := json.Unmarshal(raw, &r.body); err != nil {
		e.t.Fatalf("%s %s: body is not a JSON object: %q", req.Method, req.URL.Path, raw)
	}
	return r
}

// wantError checks the whole error envelope.
func wantError(t *testing.T, r response, status int, code string, fields ...string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.raw)
	}
	if r.body["success"] != false {
		t.Fatalf("success = %v in %s", r.body["success"], r.raw)
	}
	msg, _ := r.body["message"].(string)
	e, _ := r.body["error"].(map[string]any)
	if e == nil || e["code"] != code || e["message"] != msg || msg == "" {
		t.Fatalf("error = %v, message %q; want code %s with the same message at both levels", e, msg, code)
	}
	var got []string
	details, _ := e["details"].([]any)
	for _, d := range details {
		dm := d.(map[string]any)
		if dm["message"] == "" {
			t.Errorf("detail without a message: %v", dm)
		}
		got = append(got, dm["field"].(string))
	}
	if fmt.Sprint(got) != fmt.Sprint(fields) && len(fields) > 0 {
		t.Fatalf("details fields %v, want %v (body %s)", got, fields, r.raw)
	}
	if len(fields) == 0 && len(details) > 0 && code != quantum.EVALIDATION {
		t.Fatalf("unexpected details %v", details)
	}
	if r.header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("Content-Type %q", r.header.Get("Content-Type"))
	}
}

func data(t *testing.T, r response, status int) map[string]any {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.raw)
	}
	if r.body["success"] != true {
		t.Fatalf("success = %v", r.body["success"])
	}
	d, ok := r.body["data"].(map[string]any)
	if !ok {
		t.Fatalf("data is %T, want an object: %s", r.body["data"], r.raw)
	}
	return d
}

func jobBody(program string, shots int) map[string]any {
	return map[string]any{
		"program":   map[string]any{"format": "qasm2", "data": program},
		"shots":     shots,
		"deviceQrn": device,
	}
}

func (e *env) create(key string, body any) string {
	e.t.Helper()
	d := data(e.t, e.do("POST", "/api/v1/jobs", key, body), http.StatusCreated)
	return d["jobQrn"].(string)
}

// waitFor polls the job until it is terminal, with a deadline.
func (e *env) waitFor(key, qrn string) map[string]any {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		d := data(e.t, e.do("GET", "/api/v1/jobs/"+qrn, key, nil), http.StatusOK)
		switch d["status"] {
		case "COMPLETED", "FAILED", "CANCELLED":
			return d
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("job %s still %v after 20s", qrn, d["status"])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

var jobQRN = regexp.MustCompile(`^qbraid:qbraid:sim:qir-sv-[0-9a-f]{4}-qjob-[0-9a-f]{24}$`)
var timestamp = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$`)

func TestCreateJobAnswersTheWholeJob(t *testing.T) {
	e := newEnv(t)
	body := jobBody(bell, 100)
	body["name"] = "bell"
	body["tags"] = map[string]any{"team": "a", "n": 3, "ok": true}
	body["runtimeOptions"] = map[string]any{"seed": 7}
	r := e.do("POST", "/api/v1/jobs", aliceKey, body)
	d := data(t, r, http.StatusCreated)
	if r.header.Get("X-Request-Id") == "" {
		t.Error("no X-Request-Id header")
	}
	if !jobQRN.MatchString(d["jobQrn"].(string)) {
		t.Errorf("jobQrn %q does not have the decided form", d["jobQrn"])
	}
	want := map[string]any{
		"name": "bell", "shots": 100.0, "deviceQrn": device, "status": "INITIALIZING",
		"vendor": "qbraid", "provider": "qbraid", "experimentType": "gate_model",
		"batchJobQrn": nil, "statusMsg": nil, "cost": 0.0, "estimatedCost": 0.0,
	}
	for k, v := range want {
		if d[k] != v {
			t.Errorf("%s = %#v, want %#v", k, d[k], v)
		}
	}
	if fmt.Sprint(d["tags"]) != "map[n:3 ok:true team:a]" || fmt.Sprint(d["runtimeOptions"]) != "map[seed:7]" {
		t.Errorf("tags %v, runtimeOptions %v", d["tags"], d["runtimeOptions"])
	}
	if m, ok := d["metadata"].(map[string]any); !ok || m == nil {
		t.Errorf("metadata = %#v, want an object", d["metadata"])
	}
	ts := d["timeStamps"].(map[string]any)
	if !timestamp.MatchString(ts["createdAt"].(string)) || ts["endedAt"] != nil || ts["executionDuration"] != 0.0 {
		t.Errorf("timeStamps = %v", ts)
	}
	for _, k := range []string{"queuePosition"} {
		if _, ok := d[k]; !ok {
			t.Errorf("field %s missing", k)
		}
	}
}

func TestJobLifecycleOverHTTP(t *testing.T) {
	e := newEnv(t)
	body := jobBody(bell, 1000)
	body["runtimeOptions"] = map[string]any{"seed": 11}
	qrn := e.create(aliceKey, body)
	job := e.waitFor(aliceKey, qrn)
	if job["status"] != "COMPLETED" {
		t.Fatalf("job ended %v: %v", job["status"], job["statusMsg"])
	}
	ts := job["timeStamps"].(map[string]any)
	if !timestamp.MatchString(ts["endedAt"].(string)) {
		t.Errorf("endedAt %v", ts["endedAt"])
	}

	res := data(t, e.do("GET", "/api/v1/jobs/"+qrn+"/result", aliceKey, nil), http.StatusOK)
	counts := res["resultData"].(map[string]any)["measurementCounts"].(map[string]any)
	total := 0.0
	for k, v := range counts {
		if k != "00" && k != "11" {
			t.Errorf("Bell outcome %q", k)
		}
		total += v.(float64)
	}
	if total != 1000 || res["status"] != "COMPLETED" {
		t.Errorf("counts %v (total %v), status %v", counts, total, res["status"])
	}

	prog := data(t, e.do("GET", "/api/v1/jobs/"+qrn+"/program", aliceKey, nil), http.StatusOK)
	if prog["format"] != "qasm2" || prog["data"] != bell {
		t.Errorf("program = %v", prog)
	}

	// Percent-encoded colons name the same job.
	enc := strings.ReplaceAll(qrn, ":", "%3A")
	data(t, e.do("GET", "/api/v1/jobs/"+enc, aliceKey, nil), http.StatusOK)

	del := data(t, e.do("DELETE", "/api/v1/jobs/"+qrn, aliceKey, nil), http.StatusOK)
	if del["message"] == "" {
		t.Error("delete without a message")
	}
	wantError(t, e.do("GET", "/api/v1/jobs/"+qrn, aliceKey, nil), http.StatusNotFound, quantum.ENOTFOUND)
}

func TestCreateJobValidation(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		name   string
		body   any
		status int
		code   string
		fields []string
	}{
		{"empty object", map[string]any{}, 422, quantum.EVALIDATION, []string{"program", "shots", "deviceQrn"}},
		{"malformed JSON", `{"shots": `, 422, quantum.EVALIDATION, []string{"body"}},
		{"not an object", `[1,2]`, 422, quantum.EVALIDATION, []string{"body"}},
		{"shots as string", map[string]any{"program": map[string]any{"format": "qasm2", "data": bell}, "shots": "10", "deviceQrn": device}, 422, quantum.EVALIDATION, []string{"shots"}},
		{"fractional shots", map[string]any{"program": map[string]any{"format": "qasm2", "data": bell}, "shots": 1.5, "deviceQrn": device}, 422, quantum.EVALIDATION, []string{"shots"}},
		{"zero shots", jobBody(bell, 0), 422, quantum.EVALIDATION, []string{"shots"}},
		{"program data not a string", map[string]any{"program": map[string]any{"format": "qasm2", "data": 5}, "shots": 1, "deviceQrn": device}, 422, quantum.EVALIDATION, []string{"program.data"}},
		{"program without format", map[string]any{"program": map[string]any{"data": bell}, "shots": 1, "deviceQrn": device}, 422, quantum.EVALIDATION, []string{"program.format"}},
		{"tags not an object", map[string]any{"program": map[string]any{"format": "qasm2", "data": bell}, "shots": 1, "deviceQrn": device, "tags": "x"}, 422, quantum.EVALIDATION, []string{"tags"}},
		{"fractional tag", map[string]any{"program": map[string]any{"format": "qasm2", "data": bell}, "shots": 1, "deviceQrn": device, "tags": map[string]any{"x": 1.5}}, 422, quantum.EVALIDATION, []string{"tags.x"}},
		{"unknown device", map[string]any{"program": map[string]any{"format": "qasm2", "data": bell}, "shots": 1, "deviceQrn": "aws:aws:sim:nope"}, 422, quantum.EVALIDATION, []string{"deviceQrn"}},
		{"program that does not parse", jobBody("OPENQASM 2.0;\nqreg q[2];\nfoo q[0];\n", 1), 422, quantum.EVALIDATION, []string{"program.data"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			wantError(t, e.do("POST", "/api/v1/jobs", aliceKey, tc.body), tc.status, tc.code, tc.fields...)
		})
	}
	// Nothing was stored by any of them.
	list := e.do("GET", "/api/v1/jobs", aliceKey, nil)
	if n := list.body["pagination"].(map[string]any)["total"]; n != 0.0 {
		t.Fatalf("%v jobs stored by invalid requests", n)
	}
}

func TestNullOptionalFieldsAndUnknownFields(t *testing.T) {
	e := newEnv(t)
	body := jobBody(bell, 10)
	body["name"] = nil
	body["tags"] = nil
	body["runtimeOptions"] = nil
	body["somethingNew"] = map[string]any{"x": 1}
	d := data(t, e.do("POST", "/api/v1/jobs", aliceKey, body), http.StatusCreated)
	if fmt.Sprint(d["tags"]) != "map[]" || fmt.Sprint(d["runtimeOptions"]) != "map[]" {
		t.Fatalf("tags %v runtimeOptions %v, want {}", d["tags"], d["runtimeOptions"])
	}
}

func TestBodyLimit(t *testing.T) {
	e := newEnv(t, httpadapter.WithMaxBodyBytes(1024))
	wantError(t, e.do("POST", "/api/v1/jobs", aliceKey, jobBody(strings.Repeat("x", 2000), 1)), http.StatusRequestEntityTooLarge, quantum.EPAYLOADTOOLARGE)
}

func TestAuthentication(t *testing.T) {
	e := newEnv(t)
	routes := []struct{ method, path string }{
		{"GET", "/api/v1/jobs"}, {"POST", "/api/v1/jobs"}, {"DELETE", "/api/v1/jobs?qrns=[]"},
		{"GET", "/api/v1/devices"}, {"GET", "/api/v1/devices/" + device},
		{"GET", "/api/v1/jobs/x"}, {"GET", "/api/v1/users/verify"}, {"GET", "/api/v1/nowhere"},
	}
	for _, rt := range routes {
		wantError(t, e.do(rt.method, rt.path, "", nil), http.StatusUnauthorized, quantum.ENOVALIDAUTH)
		wantError(t, e.do(rt.method, rt.path, "wrong", nil), http.StatusUnauthorized, quantum.EINVALIDAPIKEY)
	}
	// Header names are case-insensitive.
	req, _ := http.NewRequest("GET", e.srv.URL+"/api/v1/users/verify", nil)
	req.Header["x-api-key"] = []string{aliceKey}
	req.Header.Set("X-Domain", "qbraid.com")
	res, err := e.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusOK {
		t.Fatalf("lower-case header: %d", res.StatusCode)
	}
}

func TestVerifyUser(t *testing.T) {
	e := newEnv(t)
	d := data(t, e.do("GET", "/api/v1/users/verify", aliceKey, nil), http.StatusOK)
	oid, _ := d["organizationUserId"].(string)
	if !regexp.MustCompile(`^[0-9a-f]{24}$`).MatchString(oid) || d["userId"] == "" || d["organizationId"] == "" || d["userName"] != "alice" {
		t.Fatalf("verify = %v", d)
	}
	qrn := e.create(aliceKey, jobBody(bell, 1))
	if !strings.Contains(qrn, "-"+oid[20:]+"-qjob-") {
		t.Fatalf("job %s does not carry the user's 4 hex %s", qrn, oid[20:])
	}
}

func TestCrossUserAccess(t *testing.T) {
	e := newEnv(t)
	qrn := e.create(aliceKey, jobBody(bell, 1))
	e.waitFor(aliceKey, qrn)
	for _, rt := range []struct{ method, path string }{
		{"GET", "/api/v1/jobs/" + qrn}, {"GET", "/api/v1/jobs/" + qrn + "/result"},
		{"GET", "/api/v1/jobs/" + qrn + "/program"}, {"POST", "/api/v1/jobs/" + qrn + "/cancel"},
		{"DELETE", "/api/v1/jobs/" + qrn},
	} {
		wantError(t, e.do(rt.method, rt.path, bobKey, nil), http.StatusForbidden, quantum.EFORBIDDEN)
	}
	list := e.do("GET", "/api/v1/jobs", bobKey, nil)
	if list.body["pagination"].(map[string]any)["total"] != 0.0 {
		t.Fatal("bob sees alice's job in his list")
	}
}

func TestJobErrors(t *testing.T) {
	e := newEnv(t)
	unknown := device + "-abcd-qjob-0123456789abcdef01234567"
	wantError(t, e.do("GET", "/api/v1/jobs/"+unknown, aliceKey, nil), http.StatusNotFound, quantum.ENOTFOUND)
	wantError(t, e.do("GET", "/api/v1/jobs/"+unknown+"/result", aliceKey, nil), http.StatusNotFound, quantum.ENOTFOUND)
	wantError(t, e.do("POST", "/api/v1/jobs/"+unknown+"/cancel", aliceKey, nil), http.StatusNotFound, quantum.ENOTFOUND)
	wantError(t, e.do("DELETE", "/api/v1/jobs/"+unknown, aliceKey, nil), http.StatusNotFound, quantum.ENOTFOUND)
	wantError(t, e.do("GET", "/api/v1/jobs/not-a-qrn", aliceKey, nil), http.StatusUnprocessableEntity, quantum.EVALIDATION, "job_qrn")

	// A finished job cannot be cancelled; its result is there.
	qrn := e.create(aliceKey, jobBody(bell, 1))
	e.waitFor(aliceKey, qrn)
	wantError(t, e.do("POST", "/api/v1/jobs/"+qrn+"/cancel", aliceKey, nil), http.StatusBadRequest, quantum.EINVALIDJOBSTATE)
}

func TestCancelAndUnfinishedJobs(t *testing.T) {
	e := newEnv(t)
	// 22 qubits and per-shot execution on the state vector keep the job
	// busy long enough (rx: not Clifford, else the stabilizer runs it in
	// milliseconds).
	long := "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[22] q;\nbit[1] c;\nfor int i in [0:21] { rx(0.5) q[i]; }\nc[0] = measure q[0];\nreset q[0];\nrx(0.5) q[1];\n"
	body := map[string]any{"program": map[string]any{"format": "qasm3", "data": long}, "shots": 100000, "deviceQrn": device}
	qrn := e.create(aliceKey, body)

	wantError(t, e.do("GET", "/api/v1/jobs/"+qrn+"/result", aliceKey, nil), http.StatusConflict, quantum.ERESULTNOTREADY)
	wantError(t, e.do("DELETE", "/api/v1/jobs/"+qrn, aliceKey, nil), http.StatusConflict, quantum.EJOBNOTFINAL)

	// No body, no Content-Type, as the public client sends it.
	req, _ := http.NewRequest("POST", e.srv.URL+"/api/v1/jobs/"+qrn+"/cancel", nil)
	req.Header.Set("X-API-KEY", aliceKey)
	res, err := e.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body2 map[string]any
	_ = json.NewDecoder(res.Body).Decode(&body2)
	res.Body.Close()
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("cancel: %d %v", res.StatusCode, body2)
	}
	d := body2["data"].(map[string]any)
	if d["jobQrn"] != qrn || d["status"] != "CANCELLING" || d["message"] == "" {
		t.Fatalf("cancel answer %v", d)
	}
	job := e.waitFor(aliceKey, qrn)
	if job["status"] != "CANCELLED" || job["cost"] != 0.0 {
		t.Fatalf("after cancel: %v, cost %v", job["status"], job["cost"])
	}
	wantError(t, e.do("GET", "/api/v1/jobs/"+qrn+"/result", aliceKey, nil), http.StatusConflict, quantum.ERESULTNOTREADY)
}

func TestListJobsPagingAndFilters(t *testing.T) {
	e := newEnv(t)
	var qrns []string
	for i := range 5 {
		body := jobBody(bell, 1)
		body["name"] = fmt.Sprintf("exp-alpha-%d", i)
		body["tags"] = map[string]any{"parity": []string{"even", "odd"}[i%2]}
		qrns = append(qrns, e.create(aliceKey, body))
	}
	for _, q := range qrns {
		e.waitFor(aliceKey, q)
	}
	r := e.do("GET", "/api/v1/jobs?limit=2&page=2", aliceKey, nil)
	if r.status != 200 {
		t.Fatalf("list: %s", r.raw)
	}
	p := r.body["pagination"].(map[string]any)
	wantP := map[string]any{"page": 2.0, "limit": 2.0, "total": 5.0, "totalPages": 3.0, "hasNext": true, "hasPrev": true}
	for k, v := range wantP {
		if p[k] != v {
			t.Errorf("pagination %s = %v, want %v", k, p[k], v)
		}
	}
	if !timestamp.MatchString(r.body["meta"].(map[string]any)["timestamp"].(string)) {
		t.Errorf("meta = %v", r.body["meta"])
	}
	items := r.body["data"].([]any)
	// Newest first: page 2 of 2 holds the 3rd and 2nd created.
	if len(items) != 2 || items[0].(map[string]any)["jobQrn"] != qrns[2] || items[1].(map[string]any)["jobQrn"] != qrns[1] {
		t.Errorf("page 2 = %v", items)
	}

	past := e.do("GET", "/api/v1/jobs?page=9", aliceKey, nil)
	if len(past.body["data"].([]any)) != 0 || past.body["pagination"].(map[string]any)["total"] != 5.0 {
		t.Errorf("page past the end: %s", past.raw)
	}

	tags := url.QueryEscape(`{"parity":"odd"}`)
	odd := e.do("GET", "/api/v1/jobs?tags="+tags, aliceKey, nil)
	if odd.body["pagination"].(map[string]any)["total"] != 2.0 {
		t.Errorf("tag filter: %s", odd.raw)
	}
	search := e.do("GET", "/api/v1/jobs?search=ALPHA-3", aliceKey, nil)
	if search.body["pagination"].(map[string]any)["total"] != 1.0 {
		t.Errorf("search: %s", search.raw)
	}
	done := e.do("GET", "/api/v1/jobs?statusGroup=returned&status=COMPLETED", aliceKey, nil)
	if done.body["pagination"].(map[string]any)["total"] != 5.0 {
		t.Errorf("status filter: %s", done.raw)
	}

	for _, q := range []struct{ query, field string }{
		{"page=0", "page"}, {"page=x", "page"}, {"limit=101", "limit"}, {"limit=0", "limit"},
		{"status=DONE", "status"}, {"statusGroup=some", "statusGroup"}, {"vendor=nope", "vendor"},
		{"search=", "search"}, {"search=" + strings.Repeat("a", 256), "search"}, {"tags=[1]", "tags"}, {"tags=%7B", "tags"},
	} {
		wantError(t, e.do("GET", "/api/v1/jobs?"+q.query, aliceKey, nil), http.StatusUnprocessableEntity, quantum.EVALIDATION, q.field)
	}
}

func TestBulkDelete(t *testing.T) {
	e := newEnv(t)
	done := e.create(aliceKey, jobBody(bell, 1))
	e.waitFor(aliceKey, done)
	foreign := e.create(bobKey, jobBody(bell, 1))
	e.waitFor(bobKey, foreign)
	unknown := device + "-abcd-qjob-0123456789abcdef01234567"
	qrns, _ := json.Marshal([]string{done, foreign, unknown, "garbage"})
	d := data(t, e.do("DELETE", "/api/v1/jobs?qrns="+url.QueryEscape(string(qrns)), aliceKey, nil), http.StatusOK)
	if fmt.Sprint(d["successfulIds"]) != fmt.Sprint([]any{done}) {
		t.Errorf("successfulIds = %v", d["successfulIds"])
	}
	failed := d["failedIds"].(map[string]any)
	want := map[string]string{foreign: "Permission denied", unknown: "Job not found", "garbage": "Invalid QRN"}
	for k, v := range want {
		if failed[k] != v {
			t.Errorf("failedIds[%s] = %v, want %q", k, failed[k], v)
		}
	}
	data(t, e.do("GET", "/api/v1/jobs/"+foreign, bobKey, nil), http.StatusOK) // still there

	for _, q := range []string{"", "qrns=", "qrns=x", "qrns=%5B%5D", "qrns=" + url.QueryEscape(`{"a":1}`), "qrns=" + url.QueryEscape(`[1,2]`)} {
		wantError(t, e.do("DELETE", "/api/v1/jobs?"+q, aliceKey, nil), http.StatusUnprocessableEntity, quantum.EVALIDATION, "qrns")
	}
}

func TestDevices(t *testing.T) {
	e := newEnv(t)
	r := e.do("GET", "/api/v1/devices", aliceKey, nil)
	if r.status != 200 {
		t.Fatalf("devices: %s", r.raw)
	}
	items := r.body["data"].([]any)
	if len(items) == 0 {
		t.Fatal("no devices")
	}
	p := r.body["pagination"].(map[string]any)
	if p["limit"] != 20.0 || p["page"] != 1.0 || p["total"] != float64(len(items)) {
		t.Errorf("pagination %v", p)
	}
	var names []string
	for _, it := range items {
		d := it.(map[string]any)
		names = append(names, d["name"].(string))
		if _, has := d["description"]; has {
			t.Errorf("list item %s carries a description", d["qrn"])
		}
		for _, k := range []string{"qrn", "vendor", "deviceType", "runInputTypes", "status", "queueDepth", "numberQubits", "paradigm", "pricingModel", "pricing", "directAccess"} {
			if _, ok := d[k]; !ok {
				t.Errorf("device %s lacks %s", d["qrn"], k)
			}
		}
	}
	for i := 1; i < len(names); i++ {
		if names[i-1] > names[i] {
			t.Errorf("devices not sorted by name: %v", names)
		}
	}

	d := data(t, e.do("GET", "/api/v1/devices/"+device, aliceKey, nil), http.StatusOK)
	if d["name"] != "QIR Simulator" || d["description"] == nil || d["directAccess"] != true {
		t.Errorf("device = %v", d)
	}
	data(t, e.do("GET", "/api/v1/devices/"+strings.ReplaceAll(device, ":", "%3a"), aliceKey, nil), http.StatusOK)
	wantError(t, e.do("GET", "/api/v1/devices/aws:aws:sim:none", aliceKey, nil), http.StatusNotFound, quantum.ENOTFOUND)

	sims := e.do("GET", "/api/v1/devices?deviceType=SIMULATOR&sortBy=name&sortOrder=desc&limit=1", aliceKey, nil)
	if len(sims.body["data"].([]any)) != 1 {
		t.Errorf("limit=1: %s", sims.raw)
	}
	for _, q := range []struct{ query, field string }{
		{"deviceType=GPU", "deviceType"}, {"sortBy=color", "sortBy"}, {"sortOrder=up", "sortOrder"},
		{"retired=maybe", "retired"}, {"limit=500", "limit"}, {"status=BROKEN", "status"},
	} {
		wantError(t, e.do("GET", "/api/v1/devices?"+q.query, aliceKey, nil), http.StatusUnprocessableEntity, quantum.EVALIDATION, q.field)
	}
}

func TestStatusesAndCostEstimate(t *testing.T) {
	e := newEnv(t)
	d := data(t, e.do("GET", "/api/v1/jobs/statuses", aliceKey, nil), http.StatusOK)
	if len(d["statuses"].([]any)) != 10 {
		t.Errorf("statuses %v", d["statuses"])
	}
	groups := d["groups"].(map[string]any)
	if len(groups["returned"].([]any)) != 3 || len(groups["pending"].([]any)) != 7 {
		t.Errorf("groups %v", groups)
	}
	c := data(t, e.do("GET", "/api/v1/jobs/cost-estimate?deviceQrn=aws:aws:sim:sv1&shots=100", aliceKey, nil), http.StatusOK)
	if c["estimatedCost"] != 7.5 || c["deviceQrn"] != "aws:aws:sim:sv1" || c["shots"] != 100.0 {
		t.Errorf("cost estimate %v", c)
	}
	wantError(t, e.do("GET", "/api/v1/jobs/cost-estimate?shots=1", aliceKey, nil), 422, quantum.EVALIDATION, "deviceQrn")
	wantError(t, e.do("GET", "/api/v1/jobs/cost-estimate?deviceQrn=aws:aws:sim:sv1&shots=x", aliceKey, nil), 422, quantum.EVALIDATION, "shots")
}

func TestUnknownRoutesAndMethods(t *testing.T) {
	e := newEnv(t)
	wantError(t, e.do("GET", "/api/v1/nowhere", aliceKey, nil), http.StatusNotFound, quantum.ENOTFOUND)
	r := e.do("PUT", "/api/v1/jobs", aliceKey, "{}")
	wantError(t, r, http.StatusMethodNotAllowed, quantum.EMETHODNOTALLOWED)
	if allow := r.header.Get("Allow"); !strings.Contains(allow, "GET") || !strings.Contains(allow, "POST") || !strings.Contains(allow, "DELETE") {
		t.Errorf("Allow = %q", allow)
	}
	r = e.do("PATCH", "/api/v1/jobs/"+device+"-abcd-qjob-0123456789abcdef01234567/cancel", aliceKey, nil)
	wantError(t, r, http.StatusMethodNotAllowed, quantum.EMETHODNOTALLOWED)
	if r.header.Get("Allow") != "POST" {
		t.Errorf("Allow = %q", r.header.Get("Allow"))
	}
}

func TestHealthz(t *testing.T) {
	e := newEnv(t)
	d := data(t, e.do("GET", "/healthz", "", nil), http.StatusOK)
	if d["status"] != "ok" {
		t.Fatalf("healthz %v", d)
	}
}

// A number that is an integer reaches the Service, which names its own
// bound; only one no int can hold is refused here.
func TestShotsAsJSONNumbers(t *testing.T) {
	e := newEnv(t)
	tests := []struct {
		shots  string
		status int
		msg    string
	}{
		{"1e3", http.StatusCreated, ""},
		{"10.0", http.StatusCreated, ""},
		{"10.5", 422, "shots: must be an integer"},
		{"3000000000", 422, "shots: must be at most 1000000 on " + device},
		{"1e99", 422, "shots: is out of range"},
		{"1e999", 422, "shots: is out of range"},
		{"-1e99", 422, "shots: is out of range"},
	}
	for _, tc := range tests {
		t.Run(tc.shots, func(t *testing.T) {
			body := `{"program":{"format":"qasm2","data":` + strconv.Quote(bell) + `},"deviceQrn":"` + device + `","shots":` + tc.shots + `}`
			r := e.do("POST", "/api/v1/jobs", aliceKey, body)
			if r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", r.status, tc.status, r.raw)
			}
			if tc.msg != "" && r.body["message"] != tc.msg {
				t.Fatalf("message %q, want %q", r.body["message"], tc.msg)
			}
		})
	}
}

func TestCostEstimateLetsTheServiceJudgeShots(t *testing.T) {
	e := newEnv(t)
	r := e.do("GET", "/api/v1/jobs/cost-estimate?deviceQrn=x:y:sim:z&shots=0", aliceKey, nil)
	wantError(t, r, 422, quantum.EVALIDATION, "deviceQrn", "shots")
	r = e.do("GET", "/api/v1/jobs/cost-estimate?deviceQrn=x:y:sim:z", aliceKey, nil)
	wantError(t, r, 422, quantum.EVALIDATION, "shots")
}
