package httpadapter_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/store"
)

// TestRequestsNoRouteTakes checks what the handler answers a request that
// matches no route (and a few that do), straight from its mux: the mux
// judges each request once, and what it says of a route (Allow, a
// redirect) is shown only with a valid key under /api/.
func TestRequestsNoRouteTakes(t *testing.T) {
	svc, err := quantum.New(store.NewMemory(), quantum.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	if _, err := svc.AddAPIKey(aliceKey, "alice"); err != nil {
		t.Fatal(err)
	}
	core, logs := observer.New(zap.InfoLevel)
	h := httpadapter.New(svc, httpadapter.WithLogger(zap.New(core)))
	const any = "*"
	tests := []struct {
		method, path, key string
		status            int
		code              string // the error's, for an error
		allow, location   string // "" absent, any: not checked
		route             string // as logged
	}{
		{"GET", "/api/v1/nowhere", aliceKey, 404, quantum.ENOTFOUND, "", "", "unmatched"},
		{"GET", "/api/v1/nowhere", "", 401, quantum.ENOVALIDAUTH, "", "", "unmatched"},
		{"PUT", "/api/v1/jobs", "", 401, quantum.ENOVALIDAUTH, "", "", "unmatched"},
		{"PUT", "/api/v1/jobs", "not-a-key", 401, quantum.EINVALIDAPIKEY, "", "", "unmatched"},
		{"PUT", "/api/v1/jobs", aliceKey, 405, quantum.EMETHODNOTALLOWED, "DELETE, GET, HEAD, POST", "", "unmatched"},
		{"GET", "/api/v1//jobs", aliceKey, 307, "", "", "/api/v1/jobs", "GET /api/v1/jobs"},
		{"GET", "/api/v1//nowhere", aliceKey, 404, quantum.ENOTFOUND, "", any, "unmatched"},
		{"GET", "/api/v1//nowhere", "", 401, quantum.ENOVALIDAUTH, "", "", "unmatched"},
		{"GET", "/elsewhere", "", 404, quantum.ENOTFOUND, "", "", "unmatched"},
		{"GET", "/api/v1/jobs/statuses", aliceKey, 200, "", "", "", "GET /api/v1/jobs/statuses"},
		{"GET", "/healthz", "", 200, "", "", "", "GET /healthz"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path+" "+tt.key, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.path, nil)
			if tt.key != "" {
				req.Header.Set("X-API-KEY", tt.key)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			if tt.code != "" {
				r := response{status: rec.Code, header: rec.Header(), raw: rec.Body.String()}
				if err := json.Unmarshal(rec.Body.Bytes(), &r.body); err != nil {
					t.Fatalf("not a JSON object: %s", rec.Body)
				}
				wantError(t, r, tt.status, tt.code)
			}
			if got := rec.Header().Get("Allow"); tt.allow != any && got != tt.allow {
				t.Errorf("Allow %q, want %q", got, tt.allow)
			}
			if got := rec.Header().Get("Location"); tt.location != any && got != tt.location {
				t.Errorf("Location %q, want %q", got, tt.location)
			}
			if rec.Header().Get("X-Request-Id") == "" {
				t.Error("no X-Request-Id")
			}
			lines := logs.TakeAll()
			if len(lines) == 0 {
				t.Fatal("no log line")
			}
			last := lines[len(lines)-1].ContextMap()
			if last["route"] != tt.route || last["status"] != int64(tt.status) || last["requestId"] != rec.Header().Get("X-Request-Id") {
				t.Errorf("logged %v, want route %q and status %d", last, tt.route, tt.status)
			}
		})
	}
}

// TestOuterPatternKept: a mux in front of the handler finds its own
// route in r.Pattern once the handler has served, whatever the handler's
// mux matched meanwhile.
func TestOuterPatternKept(t *testing.T) {
	svc, err := quantum.New(store.NewMemory(), quantum.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	h := httpadapter.New(svc)
	var after string
	outer := http.NewServeMux()
	outer.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r)
		after = r.Pattern
	})
	for _, path := range []string{"/api/v1/jobs/statuses", "/api/v1/nowhere"} {
		outer.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", path, nil))
		if after != "/api/" {
			t.Errorf("GET %s: the outer mux's pattern after the handler: %q, want /api/", path, after)
		}
	}
}
