package httpadapter_test

import (
	"context"
	"encoding/json"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/store"
)

// doWith is do with the headers given, for requests do would not make.
func (e *env) doWith(method, path string, header map[string]string, body string) response {
	e.t.Helper()
	req, err := http.NewRequest(method, e.srv.URL+path, strings.NewReader(body))
	if err != nil {
		e.t.Fatal(err)
	}
	req.Header.Set("X-API-KEY", aliceKey)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	return e.send(req)
}

// Pages far past the end, up to the largest integer, are empty pages with
// true figures; the store keeps answering afterwards. Numbers past int64
// are a 422 on the parameter.
func TestPagingExtremes(t *testing.T) {
	e := newEnv(t)
	e.create(aliceKey, jobBody(bell, 10))
	maxInt := strconv.Itoa(math.MaxInt)
	for _, path := range []string{
		"/api/v1/jobs?page=" + maxInt,
		"/api/v1/jobs?page=" + maxInt + "&limit=100",
		"/api/v1/jobs?page=" + strconv.Itoa(math.MaxInt/50+2) + "&limit=50",
		"/api/v1/jobs?page=" + maxInt + "&search=qjob",
		"/api/v1/devices?page=" + maxInt,
		"/api/v1/devices?page=" + maxInt + "&limit=100",
	} {
		r := e.do("GET", path, aliceKey, nil)
		if r.status != http.StatusOK {
			t.Fatalf("GET %s: %d %s", path, r.status, r.raw)
		}
		if list, _ := r.body["data"].([]any); len(list) != 0 {
			t.Fatalf("GET %s: %d items, want none", path, len(list))
		}
		p := r.body["pagination"].(map[string]any)
		if p["page"] != float64(math.MaxInt) && !strings.Contains(path, "limit=50") || p["hasNext"] != false || p["total"].(float64) < 1 {
			t.Fatalf("GET %s: pagination %v", path, p)
		}
	}
	for _, q := range []string{"page=9223372036854775808", "page=-9223372036854775808", "limit=99999999999999999999", "page=0", "limit=101"} {
		field := strings.Split(q, "=")[0]
		wantError(t, e.do("GET", "/api/v1/jobs?"+q, aliceKey, nil), http.StatusUnprocessableEntity, quantum.EVALIDATION, field)
		wantError(t, e.do("GET", "/api/v1/devices?"+q, aliceKey, nil), http.StatusUnprocessableEntity, quantum.EVALIDATION, field)
	}
	// Still answering.
	if r := e.do("GET", "/api/v1/jobs", aliceKey, nil); r.status != http.StatusOK || len(r.body["data"].([]any)) != 1 {
		t.Fatalf("after the extremes: %d %s", r.status, r.raw)
	}
}

// Invalid UTF-8 and NUL in any string a client sends are a 422 on that
// field, before anything is stored.
func TestInvalidText(t *testing.T) {
	e := newEnv(t)
	program := `{"format":"qasm2","data":` + strconv.Quote(bell) + `}`
	body := func(name, tags, data string) string {
		p := program
		if data != "" {
			p = `{"format":"qasm2","data":"` + data + `"}`
		}
		return `{"program":` + p + `,"shots":1,"deviceQrn":"` + device + `","name":"` + name + `","tags":` + tags + `}`
	}
	tests := []struct {
		name, body, field string
	}{
		{"name with invalid UTF-8", body("bad \xff name", "{}", ""), "name"},
		{"name with NUL", body(`bad \u0000 name`, "{}", ""), "name"},
		{"tag value with invalid UTF-8", body("ok", "{\"k\":\"\xc3\x28\"}", ""), "tags"},
		{"tag value with NUL", body("ok", `{"k":"a\u0000b"}`, ""), "tags.k"},
		{"tag key with NUL", body("ok", `{"a\u0000":"b"}`, ""), "tags"},
		{"program with invalid UTF-8", body("ok", "{}", "OPENQASM 2.0;\xfe"), "program.data"},
		{"program with NUL", body("ok", "{}", `OPENQASM 2.0;\u0000`), "program.data"},
		{"runtime option with NUL", `{"program":` + program + `,"shots":1,"deviceQrn":"` + device + `","runtimeOptions":{"x":["a\u0000"]}}`, "runtimeOptions.x"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := e.doWith("POST", "/api/v1/jobs", map[string]string{"Content-Type": "application/json"}, tc.body)
			wantError(t, r, http.StatusUnprocessableEntity, quantum.EVALIDATION, tc.field)
			if !strings.Contains(r.raw, "UTF-8") {
				t.Fatalf("the message does not give the rule: %s", r.raw)
			}
		})
	}
	for _, q := range []string{"search=%FF", "provider=a%00b", "tags=%7B%22k%22%3A%22%FF%22%7D"} {
		field := strings.Split(q, "=")[0]
		wantError(t, e.do("GET", "/api/v1/jobs?"+q, aliceKey, nil), http.StatusUnprocessableEntity, quantum.EVALIDATION, field)
	}
	wantError(t, e.do("GET", "/api/v1/devices?search=%C3%28", aliceKey, nil), http.StatusUnprocessableEntity, quantum.EVALIDATION, "search")
	if r := e.do("GET", "/api/v1/jobs", aliceKey, nil); len(r.body["data"].([]any)) != 0 {
		t.Fatalf("invalid creates stored jobs: %s", r.raw)
	}
}

// A body that says it is anything but JSON is a 415; JSON with parameters,
// +json types and no Content-Type at all are accepted.
func TestContentType(t *testing.T) {
	e := newEnv(t)
	raw, _ := json.Marshal(jobBody(bell, 1))
	for _, ct := range []string{"text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x", "application/xml", "nonsense;;"} {
		r := e.doWith("POST", "/api/v1/jobs", map[string]string{"Content-Type": ct}, string(raw))
		wantError(t, r, http.StatusUnsupportedMediaType, quantum.EUNSUPPORTEDMEDIA)
	}
	for _, ct := range []string{"", "application/json", "application/json; charset=utf-8", "Application/JSON", "application/vnd.api+json"} {
		h := map[string]string{}
		if ct != "" {
			h["Content-Type"] = ct
		}
		if r := e.doWith("POST", "/api/v1/jobs", h, string(raw)); r.status != http.StatusCreated {
			t.Fatalf("Content-Type %q: %d %s", ct, r.status, r.raw)
		}
	}
	// Cancel takes no body: whatever a client says of an empty one is fine.
	for _, ct := range []string{"", "text/plain;charset=UTF-8", "application/x-www-form-urlencoded"} {
		qrn := e.create(aliceKey, jobBody(bell, 1))
		r := e.doWith("POST", "/api/v1/jobs/"+qrn+"/cancel", map[string]string{"Content-Type": ct}, "")
		if r.status != http.StatusAccepted && !(r.status == http.StatusBadRequest && strings.Contains(r.raw, "COMPLETED")) {
			t.Fatalf("cancel with Content-Type %q: %d %s", ct, r.status, r.raw)
		}
	}
}

// slowCheck is a backend whose Check waits until released.
type slowCheck struct {
	quantumtest.FakeBackend
	entered chan struct{}
	release chan struct{}
}

func (b *slowCheck) Check(ctx context.Context, t quantum.Task) (quantum.Resources, error) {
	b.entered <- struct{}{}
	<-b.release
	return quantum.Resources{}, nil
}

// Creates past the user's limit of unfinished jobs answer 429, and creates
// that find every compile slot busy answer 503; both with Retry-After, and
// neither stores anything.
func TestBusyAndTooManyJobs(t *testing.T) {
	svc, err := quantum.New(store.NewMemory(), quantum.WithWorkers(1), quantum.WithMaxActiveJobsPerUser(2),
		quantum.WithConcurrentChecks(1, 20*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	if _, err := svc.AddAPIKey(aliceKey, "alice"); err != nil {
		t.Fatal(err)
	}
	blocked := quantumtest.Device("qbraid:qbraid:sim:blocked")
	if err := svc.RegisterDevice(blocked, &quantumtest.FakeBackend{Block: true}); err != nil {
		t.Fatal(err)
	}
	slow := &slowCheck{FakeBackend: quantumtest.FakeBackend{Block: true}, entered: make(chan struct{}), release: make(chan struct{})}
	slowDevice := quantumtest.Device("qbraid:qbraid:sim:slow")
	if err := svc.RegisterDevice(slowDevice, slow); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpadapter.New(svc))
	t.Cleanup(srv.Close)
	e := envOn(t, svc, srv)

	onDevice := func(qrn string) map[string]any {
		b := jobBody(bell, 1)
		b["deviceQrn"] = qrn
		return b
	}
	// 503: one create holds the only compile slot.
	done := make(chan response)
	go func() { done <- e.do("POST", "/api/v1/jobs", aliceKey, onDevice(slowDevice.QRN)) }()
	<-slow.entered
	r := e.do("POST", "/api/v1/jobs", aliceKey, onDevice(blocked.QRN))
	wantError(t, r, http.StatusServiceUnavailable, quantum.EBUSY)
	if r.header.Get("Retry-After") != "1" {
		t.Fatalf("503 with Retry-After %q, want 1", r.header.Get("Retry-After"))
	}
	close(slow.release)
	data(t, <-done, http.StatusCreated)

	// 429: the slow job (unfinished until it runs) and one blocked job
	// make two; the third is refused.
	e.create(aliceKey, onDevice(blocked.QRN))
	r = e.do("POST", "/api/v1/jobs", aliceKey, onDevice(blocked.QRN))
	wantError(t, r, http.StatusTooManyRequests, quantum.ETOOMANYJOBS)
	if s, _ := strconv.Atoi(r.header.Get("Retry-After")); s < 1 {
		t.Fatalf("429 with Retry-After %q", r.header.Get("Retry-After"))
	}
	if r := e.do("GET", "/api/v1/jobs", aliceKey, nil); r.body["pagination"].(map[string]any)["total"] != float64(2) {
		t.Fatalf("refused creates stored jobs: %s", r.raw)
	}
}

// The streamed result is byte for byte what encoding/json writes for the
// same envelope, keys that need escaping included.
func TestStreamedResult(t *testing.T) {
	e := newEnv(t)
	counts := map[string]int{"0101": 3, "a<b>&c": 1, `"quoted"\`: 2, "ünï": 1, "\x01": 1, "": 1}
	for i := range 3000 {
		counts[strconv.FormatInt(int64(i), 2)] += 1
	}
	fd := quantumtest.Device("qbraid:qbraid:sim:keys")
	if err := e.svc.RegisterDevice(fd, &quantumtest.FakeBackend{Counts: counts}); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, n := range counts {
		total += n
	}
	b := jobBody(bell, total)
	b["deviceQrn"] = fd.QRN
	qrn := e.create(aliceKey, b)
	e.waitFor(aliceKey, qrn)
	r := e.do("GET", "/api/v1/jobs/"+qrn+"/result", aliceKey, nil)
	u, _ := e.svc.Authenticate(context.Background(), aliceKey)
	res, err := e.svc.GetJobResult(context.Background(), u, qrn)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := json.Marshal(struct {
		Success bool `json:"success"`
		Data    any  `json:"data"`
	}{true, res})
	if r.raw != string(want)+"\n" {
		t.Fatalf("streamed result differs from encoding/json:\n got %.300s\nwant %.300s", r.raw, want)
	}
	if !maps.Equal(res.ResultData.MeasurementCounts, counts) {
		t.Fatal("the result is not the backend's counts")
	}
}

// What a device reports beside its counts (RunResult.Data) stands beside
// measurementCounts in resultData, streamed byte for byte as
// encoding/json writes it; a device that samples no bit strings (an
// annealer) answers its data alone.
func TestStreamedResultWithData(t *testing.T) {
	e := newEnv(t)
	data := map[string]any{"measurements": []any{map[string]any{"success": true, "pre_sequence": []any{1, 0}}},
		"solutionCount": 2, "zeta": "<last>"}
	for _, tc := range []struct {
		name   string
		fake   *quantumtest.FakeBackend
		counts bool
	}{
		{"with counts", &quantumtest.FakeBackend{Counts: map[string]int{"gr": 1, "rg": 1}, Data: data}, true},
		{"data alone", &quantumtest.FakeBackend{Data: data, NoCounts: true}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fd := quantumtest.Device("qbraid:qbraid:sim:data-" + strings.ReplaceAll(tc.name, " ", "-"))
			if err := e.svc.RegisterDevice(fd, tc.fake); err != nil {
				t.Fatal(err)
			}
			b := jobBody(bell, 2)
			b["deviceQrn"] = fd.QRN
			qrn := e.create(aliceKey, b)
			e.waitFor(aliceKey, qrn)
			r := e.do("GET", "/api/v1/jobs/"+qrn+"/result", aliceKey, nil)
			u, _ := e.svc.Authenticate(context.Background(), aliceKey)
			res, err := e.svc.GetJobResult(context.Background(), u, qrn)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := json.Marshal(struct {
				Success bool `json:"success"`
				Data    any  `json:"data"`
			}{true, res})
			if r.raw != string(want)+"\n" {
				t.Fatalf("streamed result differs from encoding/json:\n got %s\nwant %s", r.raw, want)
			}
			rd := r.body["data"].(map[string]any)["resultData"].(map[string]any)
			if _, ok := rd["measurementCounts"]; ok != tc.counts {
				t.Errorf("measurementCounts present %v, want %v: %s", ok, tc.counts, r.raw)
			}
			if rd["solutionCount"] != float64(2) || rd["zeta"] != "<last>" || len(rd["measurements"].([]any)) != 1 {
				t.Errorf("resultData %v", rd)
			}
		})
	}
}

// A client that goes away mid-request is not an internal error: no 500,
// nothing logged at Error.
func TestClientGoneIsNotAnError(t *testing.T) {
	core, logs := observer.New(zapcore.InfoLevel)
	svc, err := quantum.New(store.NewMemory(), quantum.WithLogger(zap.New(core)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	if _, err := svc.AddAPIKey(aliceKey, "alice"); err != nil {
		t.Fatal(err)
	}
	h := httpadapter.New(svc, httpadapter.WithLogger(zap.New(core)))
	raw, _ := json.Marshal(jobBody(bell, 1))
	for _, req := range []*http.Request{
		httptest.NewRequest("POST", "/api/v1/jobs", strings.NewReader(string(raw))),
		httptest.NewRequest("GET", "/api/v1/jobs", nil),
	} {
		ctx, cancel := context.WithCancel(req.Context())
		cancel()
		req = req.WithContext(ctx)
		req.Header.Set("X-API-KEY", aliceKey)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s with the client gone: %d %s", req.Method, req.URL, rec.Code, rec.Body)
		}
	}
	if errs := logs.FilterLevelExact(zapcore.ErrorLevel).All(); len(errs) > 0 {
		t.Fatalf("a client going away was logged as an error: %v", errs)
	}
}
