package httpadapter_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/store"
)

// FuzzHandler sends arbitrary methods, paths, queries and bodies: every
// answer must be a JSON envelope, and nothing may panic.
func FuzzHandler(f *testing.F) {
	f.Add("POST", "/api/v1/jobs", "", `{"program":{"format":"qasm2","data":"OPENQASM 2.0; qreg q[1]; h q[0];"},"shots":1,"deviceQrn":"qbraid:qbraid:sim:qir-sv"}`)
	f.Add("GET", "/api/v1/jobs", "tags=%7B%22a%22%3A1%7D&page=2&limit=3", "")
	f.Add("DELETE", "/api/v1/jobs", `qrns=["x"]`, "")
	f.Add("GET", "/api/v1/devices", "sortBy=name&retired=true", "")
	f.Add("POST", "/api/v1/jobs/qbraid:qbraid:sim:qir-sv-abcd-qjob-0123456789abcdef01234567/cancel", "", "")
	f.Add("PUT", "/api/v1/jobs", "", "{")
	// Extremes of client numbers and invalid text.
	f.Add("GET", "/api/v1/jobs", "page=9223372036854775807&limit=100", "")
	f.Add("GET", "/api/v1/jobs", "page=9223372036854775808", "")
	f.Add("GET", "/api/v1/devices", "page=9223372036854775807&limit=1", "")
	f.Add("GET", "/api/v1/devices", "page=-9223372036854775808&limit=-1", "")
	f.Add("GET", "/api/v1/jobs/cost-estimate", "deviceQrn=qbraid:qbraid:sim:qir-sv&shots=9223372036854775807", "")
	f.Add("POST", "/api/v1/jobs", "", `{"program":{"format":"qasm3","data":"qubit q;"},"shots":9223372036854775807,"deviceQrn":"qbraid:qbraid:sim:qir-sv"}`)
	f.Add("POST", "/api/v1/jobs", "", `{"program":{"format":"qasm3","data":"qubit q;"},"shots":-1e308,"deviceQrn":"qbraid:qbraid:sim:qir-sv"}`)
	f.Add("POST", "/api/v1/jobs", "", "{\"program\":{\"format\":\"qasm3\",\"data\":\"qubit q;\xff\"},\"shots\":1,\"deviceQrn\":\"qbraid:qbraid:sim:qir-sv\",\"name\":\"\\u0000\"}")
	f.Add("POST", "/api/v1/jobs", "", "{\"program\":{\"format\":\"qasm3\",\"data\":\"qubit q;\"},\"shots\":1,\"deviceQrn\":\"qbraid:qbraid:sim:qir-sv\",\"tags\":{\"\xc3\x28\":\"\\ud800\"}}")
	f.Add("GET", "/api/v1/jobs", "search=%FF%00&tags=%7B%22%FF%22%3A1%7D", "")
	svc, err := quantum.New(store.NewMemory(), quantum.WithWorkers(1))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { _ = svc.Close(context.Background()) })
	if _, err := svc.AddAPIKey(aliceKey, "alice"); err != nil {
		f.Fatal(err)
	}
	h := httpadapter.New(svc, httpadapter.WithMaxBodyBytes(1<<16))
	f.Fuzz(func(t *testing.T, method, path, query, body string) {
		if !strings.HasPrefix(path, "/") || strings.ContainsAny(method+path, " \t\r\n") || method == "" || method == "CONNECT" {
			return
		}
		target := path
		if query != "" {
			target += "?" + query
		}
		req, err := newRequest(method, target, body)
		if err != nil {
			return
		}
		req.Header.Set("X-API-KEY", aliceKey)
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code/100 == 3 && rec.Header().Get("Location") != "" {
			return // the mux sends an unclean path (//, /./) to its clean form
		}
		var env map[string]any
		if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil {
			t.Fatalf("%s %s: answer %d is not JSON: %q", method, target, rec.Code, rec.Body.String())
		}
		if _, ok := env["success"].(bool); !ok {
			t.Fatalf("%s %s: no success field: %q", method, target, rec.Body.String())
		}
		if rec.Code >= 500 && rec.Code != http.StatusServiceUnavailable {
			t.Fatalf("%s %s: %d %s", method, target, rec.Code, rec.Body.String())
		}
		if !utf8.Valid(rec.Body.Bytes()) {
			t.Fatalf("%s %s: the answer is not valid UTF-8: %q", method, target, rec.Body.String())
		}
	})
}

func newRequest(method, target, body string) (r *http.Request, err error) {
	defer func() {
		if recover() != nil { // httptest.NewRequest panics on targets it cannot parse
			r, err = nil, errBadTarget
		}
	}()
	return httptest.NewRequest(method, target, strings.NewReader(body)), nil
}

var errBadTarget = errors.New("unparseable target")
