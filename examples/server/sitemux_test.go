package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/store"
)

// TestSiteAnswersAsItsMux sends requests through the site and through its
// mux alone: the API's requests the site hands straight to the API get the
// answer the mux would have given, and so does everything else, down to
// the headers and the body (request ids and times aside).
func TestSiteAnswersAsItsMux(t *testing.T) {
	svc, err := quantum.New(store.NewMemory(), quantum.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	const key = "site-test-key"
	if _, err := svc.AddAPIKey(key, "site"); err != nil {
		t.Fatal(err)
	}
	s := site(httpadapter.New(svc))
	ids := regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	times := regexp.MustCompile(`\d{4}-\d\d-\d\dT[0-9:.]+Z`)
	answer := func(h http.Handler, method, target string, withKey bool) (int, http.Header, string) {
		req := httptest.NewRequest(method, target, nil)
		if withKey {
			req.Header.Set("X-API-KEY", key)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		hdr := rec.Header().Clone()
		hdr.Del("X-Request-Id")
		return rec.Code, hdr, times.ReplaceAllString(ids.ReplaceAllString(rec.Body.String(), "ID"), "TIME")
	}
	targets := []string{
		"/api/v1/devices", "/api/v1/jobs", "/api/v1/jobs/nowhere", "/api/v1/jobs/nowhere/result",
		"/api/v1/nowhere", "/api/", "/api", "/api/v1//jobs", "/api/v1/./jobs", "/api/v1/x/../jobs",
		"/api/v1/jobs/.", "/api/v1/jobs/..", "/api/%2e%2e/console/", "/api/v1/jobs?page=2",
		"/healthz", "/control/v1/reset", "/console/", "/", "/metrics", "/nowhere",
	}
	for _, target := range targets {
		for _, method := range []string{"GET", "PUT", "DELETE"} {
			for _, withKey := range []bool{true, false} {
				code, hdr, body := answer(s, method, target, withKey)
				wantCode, wantHdr, wantBody := answer(s.ServeMux, method, target, withKey)
				if code != wantCode || body != wantBody {
					t.Errorf("%s %s (key %v): %d %q, its mux: %d %q", method, target, withKey, code, body, wantCode, wantBody)
					continue
				}
				for k := range wantHdr {
					if hdr.Get(k) != wantHdr.Get(k) {
						t.Errorf("%s %s (key %v): %s %q, its mux: %q", method, target, withKey, k, hdr.Get(k), wantHdr.Get(k))
					}
				}
				if len(hdr) != len(wantHdr) {
					t.Errorf("%s %s (key %v): headers %v, its mux: %v", method, target, withKey, hdr, wantHdr)
				}
			}
		}
	}
}
