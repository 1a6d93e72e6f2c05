package client_test

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/client"
	"github.com/qjobs/quantum/qtype"
)

func TestNewChecksItsArguments(t *testing.T) {
	for _, tc := range []struct{ url, key string }{
		{"ftp://x", "k"}, {"http://", "k"}, {"::", "k"}, {"x:8080", "k"}, {"http://x?a=b", "k"},
		{"http://x", ""}, {"http://x", "k\r\nX-Evil: 1"},
	} {
		if _, err := client.New(tc.url, tc.key); err == nil {
			t.Errorf("New(%q, %q) took them", tc.url, tc.key)
		}
	}
	if _, err := client.New("https://example.com:8443/prefix/", "k"); err != nil {
		t.Errorf("New of a good URL: %v", err)
	}
}

// TestRequests checks what each method sends: method, path, query,
// headers and body.
func TestRequests(t *testing.T) {
	yes := true
	no := false
	for _, tc := range []struct {
		name    string
		opts    []client.Option
		call    func(c *client.Client) error
		answer  string // the data of the success
		status  int
		method  string
		path    string            // as escaped on the wire
		query   url.Values        // nil: none
		body    map[string]any    // nil: none
		headers map[string]string // "": absent; "uuid": a UUID
	}{
		{
			name: "VerifyUser", call: func(c *client.Client) error { _, err := c.VerifyUser(ctx); return err },
			answer: `{"userId":"u"}`, method: "GET", path: "/api/v1/users/verify",
			headers: map[string]string{"X-Api-Key": "test-key", "Accept": "application/json"},
		},
		{
			name: "CreateJob with everything",
			call: func(c *client.Client) error {
				_, err := c.CreateJob(ctx, quantum.JobRequest{Program: &quantum.Program{Format: "qasm3", Data: "OPENQASM 3.0;"}, Shots: 7,
					DeviceQRN: "qbraid:qbraid:sim:qir-sv", Name: "n", Tags: map[string]any{"a": 1}, RuntimeOptions: map[string]any{"seed": 42},
					IdempotencyKey: "k-1"})
				return err
			},
			answer: jobJSON("INITIALIZING"), status: 201, method: "POST", path: "/api/v1/jobs",
			body: map[string]any{"program": map[string]any{"format": "qasm3", "data": "OPENQASM 3.0;"}, "shots": 7.0,
				"deviceQrn": "qbraid:qbraid:sim:qir-sv", "name": "n", "tags": map[string]any{"a": 1.0}, "runtimeOptions": map[string]any{"seed": 42.0}},
			headers: map[string]string{"Idempotency-Key": "k-1", "Content-Type": "application/json"},
		},
		{
			name:   "CreateJob with nothing gets a key and sends no program",
			call:   func(c *client.Client) error { _, err := c.CreateJob(ctx, quantum.JobRequest{}); return err },
			answer: jobJSON("INITIALIZING"), status: 201, method: "POST", path: "/api/v1/jobs",
			body:    map[string]any{"shots": 0.0, "deviceQrn": "", "name": ""},
			headers: map[string]string{"Idempotency-Key": "uuid"},
		},
		{
			name: "CreateJob without automatic keys", opts: []client.Option{client.WithoutAutoIdempotencyKey()},
			call: func(c *client.Client) error {
				_, err := c.CreateJob(ctx, quantum.JobRequest{Tags: map[string]any{}, RuntimeOptions: map[string]any{}})
				return err
			},
			answer: jobJSON("INITIALIZING"), status: 201, method: "POST", path: "/api/v1/jobs",
			body:    map[string]any{"shots": 0.0, "deviceQrn": "", "name": "", "tags": map[string]any{}, "runtimeOptions": map[string]any{}},
			headers: map[string]string{"Idempotency-Key": ""},
		},
		{
			name: "CreateJob sends a tag JSON cannot hold as null, for the server to refuse",
			call: func(c *client.Client) error {
				_, err := c.CreateJob(ctx, quantum.JobRequest{Tags: map[string]any{"x": math.Inf(1), "y": "ok"}})
				return err
			},
			answer: jobJSON("INITIALIZING"), status: 201, method: "POST", path: "/api/v1/jobs",
			body: map[string]any{"shots": 0.0, "deviceQrn": "", "name": "", "tags": map[string]any{"x": nil, "y": "ok"}},
		},
		{
			name: "GetJob", call: func(c *client.Client) error { _, err := c.GetJob(ctx, qrn); return err },
			answer: jobJSON("QUEUED"), method: "GET", path: "/api/v1/jobs/" + qrn,
		},
		{
			name: "GetJobResult", call: func(c *client.Client) error { _, err := c.GetJobResult(ctx, qrn); return err },
			answer: `{"status":"COMPLETED","resultData":{"measurementCounts":{}}}`, method: "GET", path: "/api/v1/jobs/" + qrn + "/result",
		},
		{
			name: "GetJobProgram", call: func(c *client.Client) error { _, err := c.GetJobProgram(ctx, qrn); return err },
			answer: `{"format":"qasm2","data":"x"}`, method: "GET", path: "/api/v1/jobs/" + qrn + "/program",
		},
		{
			name: "CancelJob", call: func(c *client.Client) error { return c.CancelJob(ctx, qrn) },
			answer: `{"message":"m"}`, status: 202, method: "POST", path: "/api/v1/jobs/" + qrn + "/cancel",
			headers: map[string]string{"Content-Type": ""},
		},
		{
			name: "DeleteJob", call: func(c *client.Client) error { return c.DeleteJob(ctx, qrn) },
			answer: `{"message":"m"}`, method: "DELETE", path: "/api/v1/jobs/" + qrn,
		},
		{
			name: "DeleteJobs of nil", call: func(c *client.Client) error { _, err := c.DeleteJobs(ctx, nil); return err },
			answer: `{"successfulIds":[],"failedIds":{}}`, method: "DELETE", path: "/api/v1/jobs", query: url.Values{"qrns": {"[]"}},
		},
		{
			name: "DeleteJobs", call: func(c *client.Client) error { _, err := c.DeleteJobs(ctx, []string{qrn, "x"}); return err },
			answer: `{"successfulIds":[],"failedIds":{}}`, method: "DELETE", path: "/api/v1/jobs", query: url.Values{"qrns": {`["` + qrn + `","x"]`}},
		},
		{
			name: "ListJobs with nothing", call: func(c *client.Client) error { _, err := c.ListJobs(ctx, quantum.JobQuery{}); return err },
			answer: `[]`, method: "GET", path: "/api/v1/jobs",
		},
		{
			name: "ListJobs with everything",
			call: func(c *client.Client) error {
				_, err := c.ListJobs(ctx, quantum.JobQuery{Vendor: "v", Provider: "p", Status: "QUEUED", StatusGroup: "pending", Search: "s & t",
					Tags: map[string]any{"k": "v"}, Page: 2, Limit: 5})
				return err
			},
			answer: `[]`, method: "GET", path: "/api/v1/jobs",
			query: url.Values{"vendor": {"v"}, "provider": {"p"}, "status": {"QUEUED"}, "statusGroup": {"pending"}, "search": {"s & t"},
				"tags": {`{"k":"v"}`}, "page": {"2"}, "limit": {"5"}},
		},
		{
			name: "ListDevices with everything",
			call: func(c *client.Client) error {
				_, err := c.ListDevices(ctx, quantum.DeviceQuery{QRN: "q", Vendor: "v", ProviderID: "p", DeviceType: "SIMULATOR", Status: "ONLINE",
					Retired: &no, Private: &yes, Verified: &yes, DirectAccess: &no, Search: "s", SortBy: "name", SortOrder: "desc", Page: 3, Limit: 4})
				return err
			},
			answer: `[]`, method: "GET", path: "/api/v1/devices",
			query: url.Values{"qrn": {"q"}, "vendor": {"v"}, "providerId": {"p"}, "deviceType": {"SIMULATOR"}, "status": {"ONLINE"},
				"retired": {"false"}, "private": {"true"}, "verified": {"true"}, "directAccess": {"false"}, "search": {"s"}, "sortBy": {"name"},
				"sortOrder": {"desc"}, "page": {"3"}, "limit": {"4"}},
		},
		{
			name: "GetDevice", call: func(c *client.Client) error { _, err := c.GetDevice(ctx, "qbraid:qbraid:sim:qir-sv"); return err },
			answer: `{"qrn":"qbraid:qbraid:sim:qir-sv"}`, method: "GET", path: "/api/v1/devices/qbraid:qbraid:sim:qir-sv",
		},
		{
			name: "EstimateCost", call: func(c *client.Client) error { _, err := c.EstimateCost(ctx, "a:b:sim:c", 0); return err },
			answer: `{"estimatedCost":1}`, method: "GET", path: "/api/v1/jobs/cost-estimate",
			query: url.Values{"deviceQrn": {"a:b:sim:c"}, "shots": {"0"}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { ok(w, max(tc.status, 200), tc.answer) })
			if err := tc.call(newClient(t, f.srv.URL, tc.opts...)); err != nil {
				t.Fatal(err)
			}
			reqs := f.requests()
			if len(reqs) != 1 {
				t.Fatalf("%d requests, want 1", len(reqs))
			}
			r := reqs[0]
			if path := cmp.Or(r.rawPath, r.path); r.method != tc.method || path != tc.path {
				t.Errorf("%s %s, want %s %s", r.method, path, tc.method, tc.path)
			}
			if q, _ := url.ParseQuery(r.query); !(len(q) == 0 && len(tc.query) == 0) && !reflect.DeepEqual(q, tc.query) {
				t.Errorf("query %v, want %v", q, tc.query)
			}
			if tc.body == nil && r.body != "" {
				t.Errorf("body %q, want none", r.body)
			}
			if tc.body != nil {
				var got map[string]any
				if err := json.Unmarshal([]byte(r.body), &got); err != nil || !reflect.DeepEqual(got, tc.body) {
					t.Errorf("body %s, want %v", r.body, tc.body)
				}
			}
			if ua := r.header.Get("User-Agent"); !strings.HasPrefix(ua, "quantum-go-client/") {
				t.Errorf("User-Agent %q", ua)
			}
			if k := r.header.Get("X-Api-Key"); k != "test-key" {
				t.Errorf("X-API-KEY %q", k)
			}
			for h, want := range tc.headers {
				got := r.header.Get(h)
				if want == "uuid" {
					if uuid.Validate(got) != nil {
						t.Errorf("%s %q, want a UUID", h, got)
					}
				} else if got != want {
					t.Errorf("%s %q, want %q", h, got, want)
				}
			}
		})
	}
}

func TestPathsAreEscapedUnderAPrefix(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { ok(w, 200, `{}`) })
	c, err := client.New(f.srv.URL+"/some prefix/", "k", client.WithUserAgent("mine/1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.GetDevice(ctx, "qbraid:qbraid:sim:a.b_c-d"); err != nil {
		t.Fatal(err)
	}
	r := f.requests()[0]
	if r.path != "/some prefix/api/v1/devices/qbraid:qbraid:sim:a.b_c-d" || r.header.Get("User-Agent") != "mine/1" {
		t.Fatalf("path %q (raw %q), User-Agent %q", r.path, r.rawPath, r.header.Get("User-Agent"))
	}
}

// A QRN that is not one never reaches a URL: "statuses" would be another
// route. The error is the Service's own.
func TestMalformedQRNsStayHome(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { ok(w, 200, `{}`) })
	c := newClient(t, f.srv.URL)
	job, device := qtype.CheckJobQRN("statuses"), qtype.CheckDeviceQRN("a/b")
	for _, tc := range []struct {
		name string
		call func() error
		want error
	}{
		{"GetJob", func() error { _, err := c.GetJob(ctx, "statuses"); return err }, job},
		{"GetJobResult", func() error { _, err := c.GetJobResult(ctx, "statuses"); return err }, job},
		{"GetJobProgram", func() error { _, err := c.GetJobProgram(ctx, "statuses"); return err }, job},
		{"CancelJob", func() error { return c.CancelJob(ctx, "statuses") }, job},
		{"DeleteJob", func() error { return c.DeleteJob(ctx, "statuses") }, job},
		{"Wait", func() error { _, err := c.Wait(ctx, "statuses"); return err }, job},
		{"GetDevice", func() error { _, err := c.GetDevice(ctx, "a/b"); return err }, device},
	} {
		if err := tc.call(); err == nil || !reflect.DeepEqual(err, tc.want) {
			t.Errorf("%s: %#v, want %#v", tc.name, err, tc.want)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Fatalf("%d requests for malformed QRNs", n)
	}
}

// TestUnsendableCreates: what JSON or a header cannot carry as it is gets
// the Service's own answer, without a request.
func TestUnsendableCreates(t *testing.T) {
	const text = "must be valid UTF-8 without NUL characters"
	const jsonRule = "must hold only JSON values (objects, arrays, strings, numbers, booleans, null)"
	fe := func(field, msg string) quantum.FieldError { return quantum.FieldError{Field: field, Message: msg} }
	for _, tc := range []struct {
		name string
		req  quantum.JobRequest
		want []quantum.FieldError
	}{
		{"name", quantum.JobRequest{Name: "a\xffb"}, []quantum.FieldError{fe("name", text)}},
		{"tag key", quantum.JobRequest{Tags: map[string]any{"k\xff": "v"}}, []quantum.FieldError{fe("tags", "keys "+text)}},
		{"tag value", quantum.JobRequest{Tags: map[string]any{"k": "v\xff", "n": math.NaN()}},
			[]quantum.FieldError{fe("tags.k", text), fe("tags.n", "must be a string, an integer or a boolean")}},
		{"nested option", quantum.JobRequest{RuntimeOptions: map[string]any{"a": map[string]any{"b": []any{"\xff"}}}},
			[]quantum.FieldError{fe("runtimeOptions.a.b", text)}},
		{"option key", quantum.JobRequest{RuntimeOptions: map[string]any{"a": map[string]any{"\xff": 1}}},
			[]quantum.FieldError{fe("runtimeOptions.a", "keys "+text)}},
		{"NaN option", quantum.JobRequest{RuntimeOptions: map[string]any{"x": math.NaN()}}, []quantum.FieldError{fe("runtimeOptions", jsonRule)}},
		{"all at once", quantum.JobRequest{Name: "\xff", Tags: map[string]any{"t": "\xff"}, RuntimeOptions: map[string]any{"x": math.NaN(), "s": "\xff"}},
			[]quantum.FieldError{fe("name", text), fe("tags.t", text), fe("runtimeOptions.s", text), fe("runtimeOptions", jsonRule)}},
		{"key with a space", quantum.JobRequest{Name: "\xff", IdempotencyKey: " k"},
			[]quantum.FieldError{fe("Idempotency-Key", "must be visible ASCII characters (no spaces)")}},
		{"key with a newline", quantum.JobRequest{IdempotencyKey: "k\n"},
			[]quantum.FieldError{fe("Idempotency-Key", "must be visible ASCII characters (no spaces)")}},
		{"NaN tag with a key", quantum.JobRequest{Tags: map[string]any{"n": math.NaN()}, IdempotencyKey: "k"},
			[]quantum.FieldError{fe("runtimeOptions", jsonRule)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { ok(w, 201, jobJSON("QUEUED")) })
			_, err := newClient(t, f.srv.URL).CreateJob(ctx, tc.req)
			var qe *quantum.Error
			if !errors.As(err, &qe) || qe.Code != quantum.EVALIDATION || !reflect.DeepEqual(qe.Details, tc.want) {
				t.Fatalf("%v, want VALIDATION_ERROR %v", err, tc.want)
			}
			if len(f.requests()) != 0 {
				t.Fatal("sent anyway")
			}
		})
	}
}

func TestAnswersDecodeAsInProcess(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Path {
		case "/api/v1/jobs":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"success":true,"data":[%s],"pagination":{"page":1,"limit":50,"total":1,"totalPages":1,"hasNext":false,"hasPrev":false},"meta":{}}`,
				jobJSON("QUEUED"))
		case "/api/v1/devices":
			ok(w, 200, `[]`)
		default:
			ok(w, 200, `{"status":"COMPLETED","cost":0,"timeStamps":{"createdAt":"2026-11-24T10:00:00.000Z"},"resultData":{"measurementCounts":null}}`)
		}
	})
	c := newClient(t, f.srv.URL)
	page, err := c.ListJobs(ctx, quantum.JobQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Jobs) != 1 || page.Pagination != (quantum.Pagination{Page: 1, Limit: 50, Total: 1, TotalPages: 1}) {
		t.Fatalf("page %+v", page)
	}
	if tags := page.Jobs[0].Tags; !reflect.DeepEqual(tags, map[string]any{"n": int64(3), "f": 1.5}) {
		t.Fatalf("tags %#v: want int64 and float64 as in process", tags)
	}
	if j := page.Jobs[0]; j.RuntimeOptions == nil || j.Metadata == nil || j.TimeStamps.CreatedAt.Location() != time.UTC {
		t.Fatalf("job %+v: want empty maps for {} and UTC times", j)
	}
	devices, err := c.ListDevices(ctx, quantum.DeviceQuery{})
	if err != nil || devices.Devices == nil || len(devices.Devices) != 0 {
		t.Fatalf("devices %+v, %v: want an empty, non-nil list", devices, err)
	}
	res, err := c.GetJobResult(ctx, qrn)
	if err != nil || res.ResultData.MeasurementCounts == nil {
		t.Fatalf("result %+v, %v: want empty, non-nil counts", res, err)
	}
}

func TestErrorAnswers(t *testing.T) {
	for _, tc := range []struct {
		name   string
		answer func(w http.ResponseWriter)
		want   func(host string) *quantum.Error
	}{
		{
			name: "an envelope with details and Retry-After",
			answer: func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Retry-After", "7")
				w.WriteHeader(http.StatusTooManyRequests)
				fmt.Fprint(w, `{"success":false,"message":"slow down","error":{"code":"TOO_MANY_ACTIVE_JOBS","message":"slow down","details":[{"field":"f","message":"g"}]}}`)
			},
			want: func(string) *quantum.Error {
				return &quantum.Error{Code: quantum.ETOOMANYJOBS, Message: "slow down", Details: []quantum.FieldError{{Field: "f", Message: "g"}}, RetryAfter: 7 * time.Second}
			},
		},
		{
			name: "a rate limit's 429",
			answer: func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "application/json")
				w.Header().Set("Retry-After", "2")
				w.WriteHeader(http.StatusTooManyRequests)
				fmt.Fprint(w, `{"success":false,"message":"slow down","error":{"code":"RATE_LIMITED","message":"slow down"}}`)
			},
			want: func(string) *quantum.Error {
				return &quantum.Error{Code: quantum.ERATELIMITED, Message: "slow down", RetryAfter: 2 * time.Second}
			},
		},
		{
			name: "a proxy's 502",
			answer: func(w http.ResponseWriter) {
				w.Header().Set("Content-Type", "text/html")
				w.WriteHeader(http.StatusBadGateway)
				fmt.Fprint(w, "<html>\x00bad\r\ngateway</html>"+strings.Repeat("x", 1000))
			},
			want: func(host string) *quantum.Error {
				return &quantum.Error{Code: quantum.EINTERNAL, Message: "HTTP 502 from " + host + ": <html> bad  gateway</html>" + strings.Repeat("x", 200-26)}
			},
		},
		{
			name:   "a bare 404",
			answer: func(w http.ResponseWriter) { http.NotFound(w, nil) },
			want: func(host string) *quantum.Error {
				return &quantum.Error{Code: quantum.ENOTFOUND, Message: "HTTP 404 from " + host + ": 404 page not found"}
			},
		},
		{
			name: "a bare 402 (a proxy or another server asking for payment)",
			answer: func(w http.ResponseWriter) {
				w.WriteHeader(http.StatusPaymentRequired)
			},
			want: func(host string) *quantum.Error {
				return &quantum.Error{Code: quantum.EINSUFFICIENTCREDITS, Message: "HTTP 402 from " + host}
			},
		},
		{
			name: "a 503 with a date",
			answer: func(w http.ResponseWriter) {
				w.Header().Set("Retry-After", time.Now().Add(time.Hour).UTC().Format(http.TimeFormat))
				w.WriteHeader(http.StatusServiceUnavailable)
			},
			want: func(host string) *quantum.Error {
				return &quantum.Error{Code: quantum.EBUSY, Message: "HTTP 503 from " + host, RetryAfter: time.Hour}
			},
		},
		{
			name:   "a success that is not an envelope",
			answer: func(w http.ResponseWriter) { fmt.Fprint(w, "<html>hello</html>") },
			want: func(host string) *quantum.Error {
				return &quantum.Error{Code: quantum.EINTERNAL, Message: "client: the answer of GET /api/v1/jobs/" + qrn + " is not a success envelope: <html>hello</html>"}
			},
		},
		{
			name:   "an answer too large",
			answer: func(w http.ResponseWriter) { ok(w, 200, `"`+strings.Repeat("x", 5<<20)+`"`) },
			want: func(host string) *quantum.Error {
				return &quantum.Error{Code: quantum.EINTERNAL, Message: "client: the answer of GET /api/v1/jobs/" + qrn + " is larger than 4194304 bytes"}
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { tc.answer(w) })
			_, err := newClient(t, f.srv.URL, client.WithRetries(0)).GetJob(ctx, qrn)
			want := tc.want(strings.TrimPrefix(f.srv.URL, "http://"))
			var qe *quantum.Error
			if !errors.As(err, &qe) {
				t.Fatalf("%v, want %#v", err, want)
			}
			if want.RetryAfter == time.Hour && qe.RetryAfter > time.Hour-time.Minute && qe.RetryAfter <= time.Hour {
				qe.RetryAfter = time.Hour // from a date to the second: a moment may have passed
			}
			if !reflect.DeepEqual(qe, want) {
				t.Fatalf("got  %#v\nwant %#v", qe, want)
			}
			if errors.Is(err, quantum.ErrInsufficientCredits) != (want.Code == quantum.EINSUFFICIENTCREDITS) {
				t.Fatalf("errors.Is(%v, ErrInsufficientCredits) = %v", err, !(want.Code == quantum.EINSUFFICIENTCREDITS))
			}
		})
	}
}

// A redirect is not followed: it would take the API key elsewhere.
func TestRedirectsKeepTheKey(t *testing.T) {
	elsewhere := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { ok(w, 200, `{}`) })
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		http.Redirect(w, r, elsewhere.srv.URL+r.URL.Path, http.StatusTemporaryRedirect)
	})
	_, err := newClient(t, f.srv.URL).VerifyUser(ctx)
	if quantum.ErrorCode(err) != quantum.EINTERNAL || !strings.Contains(err.Error(), "HTTP 307") || !strings.Contains(err.Error(), "does not follow") {
		t.Fatalf("%v, want an INTERNAL_ERROR naming the redirect", err)
	}
	if n := len(elsewhere.requests()); n != 0 {
		t.Fatalf("the redirect was followed %d times", n)
	}
}

// An answer of the wrong shape (a server of another version, say) says
// so, rather than passing for a garbled envelope.
func TestAnswerOfTheWrongShape(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { ok(w, 200, `{"shots":"many"}`) })
	_, err := newClient(t, f.srv.URL).GetJob(ctx, qrn)
	if quantum.ErrorCode(err) != quantum.EINTERNAL || !strings.Contains(err.Error(), "does not match the API") || len(f.requests()) != 1 {
		t.Fatalf("%v after %d requests, want one INTERNAL_ERROR saying the answer does not match the API", err, len(f.requests()))
	}
}
