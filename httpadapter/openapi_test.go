package httpadapter_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
)

var (
	specOnce   sync.Once
	specRouter routers.Router
	specErr    error
	specDoc    *openapi3.T
)

// spec is the served OpenAPI document, loaded and checked once.
func spec(t testing.TB) (*openapi3.T, routers.Router) {
	t.Helper()
	specOnce.Do(func() {
		specDoc, specErr = openapi3.NewLoader().LoadFromData(httpadapter.OpenAPI)
		if specErr == nil {
			specErr = specDoc.Validate(context.Background())
		}
		if specErr == nil {
			specRouter, specErr = legacy.NewRouter(specDoc)
		}
	})
	if specErr != nil {
		t.Fatalf("the OpenAPI document: %v", specErr)
	}
	return specDoc, specRouter
}

var (
	controlOnce   sync.Once
	controlRouter routers.Router
	controlErr    error
)

// controlSpec is the control API's document, loaded and checked once.
func controlSpec(t testing.TB) routers.Router {
	t.Helper()
	controlOnce.Do(func() {
		doc, err := openapi3.NewLoader().LoadFromData(httpadapter.ControlOpenAPI)
		if err == nil {
			err = doc.Validate(context.Background())
		}
		if err == nil {
			controlRouter, err = legacy.NewRouter(doc)
		}
		controlErr = err
	})
	if controlErr != nil {
		t.Fatalf("the control API's OpenAPI document: %v", controlErr)
	}
	return controlRouter
}

// checked is a transport that checks every request and answer against
// the OpenAPI document: a request the document allows must get an answer
// it documents; a request it does not allow must be refused (4xx) with an
// answer it documents. Event streams are checked up to their headers.
type checked struct {
	t      testing.TB
	next   http.RoundTripper
	report func(format string, args ...any) // t.Errorf unless a test of the check says otherwise
	// router is the document's router; nil: the /api/v1 document's.
	router routers.Router
}

func (c *checked) errorf(format string, args ...any) {
	if c.report != nil {
		c.report(format, args...)
		return
	}
	c.t.Errorf(format, args...)
}

func (c *checked) RoundTrip(req *http.Request) (*http.Response, error) {
	router := c.router
	if router == nil {
		_, router = spec(c.t)
	}
	var body []byte
	if req.Body != nil {
		body, _ = io.ReadAll(req.Body)
		req.Body.Close()
		req.Body = io.NopCloser(bytes.NewReader(body))
	}
	res, err := c.next.RoundTrip(req)
	if err != nil {
		return res, err
	}
	route, params, rerr := router.FindRoute(req)
	if rerr != nil {
		// Not a documented route: the server must say it has none (after
		// asking for a key, and counting the request against the user's
		// rate: a route's existence is no secret to share).
		switch res.StatusCode {
		case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusUnauthorized, http.StatusTooManyRequests:
		default:
			c.errorf("%s %s is not in the OpenAPI document, but answered %d", req.Method, req.URL.Path, res.StatusCode)
		}
		return res, nil
	}
	ctx := context.Background()
	in := &openapi3filter.RequestValidationInput{
		Request: cloneWithBody(req, body), PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc, MultiError: true},
	}
	if mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type")); mt != "application/json" {
		// The server also takes a JSON body with no Content-Type, or any
		// application/*+json, which the document cannot say: the body is
		// not checked against it then.
		in.Options.ExcludeRequestBody = true
	}
	reqErr := openapi3filter.ValidateRequest(ctx, in)
	if reqErr != nil && res.StatusCode < 400 {
		c.errorf("%s %s breaks the document (%v) but answered %d", req.Method, req.URL.Path, reqErr, res.StatusCode)
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: res.StatusCode, Header: res.Header,
		Options: &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
	}
	if mt, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); mt == "text/event-stream" {
		out.Options.ExcludeResponseBody = true
		out.Body = io.NopCloser(strings.NewReader(""))
	} else {
		data, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return nil, err
		}
		res.Body = io.NopCloser(bytes.NewReader(data))
		out.SetBodyBytes(data)
	}
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		c.errorf("%s %s answered %d, which the document does not allow: %v", req.Method, req.URL.Path, res.StatusCode, err)
	}
	return res, nil
}

func cloneWithBody(req *http.Request, body []byte) *http.Request {
	c := req.Clone(req.Context())
	c.Body = io.NopCloser(bytes.NewReader(body))
	return c
}

// TestOpenAPIDocument: the document is valid OpenAPI 3.1, served as it is
// embedded, and every route it lists exists.
func TestOpenAPIDocument(t *testing.T) {
	doc, _ := spec(t)
	if !strings.HasPrefix(doc.OpenAPI, "3.1.") {
		t.Fatalf("the document is OpenAPI %s, want 3.1", doc.OpenAPI)
	}
	e := newEnv(t)
	r := e.do("GET", "/api/v1/openapi.json", aliceKey, nil)
	if r.status != 200 || r.raw != string(httpadapter.OpenAPI) {
		t.Fatalf("GET /api/v1/openapi.json: %d, not the embedded document", r.status)
	}
	qrn := e.create(aliceKey, jobBody(bell, 10))
	e.waitFor(aliceKey, qrn)
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			p := strings.ReplaceAll(path, "{job_qrn}", qrn)
			p = strings.ReplaceAll(p, "{device_qrn}", device)
			req, _ := http.NewRequest(method, e.srv.URL+p, nil)
			req.Header.Set("X-API-KEY", aliceKey)
			res, err := e.client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var data []byte
			if res.Header.Get("Content-Type") != "text/event-stream" { // a stream of all jobs never ends
				data, _ = io.ReadAll(io.LimitReader(res.Body, 4096))
			}
			res.Body.Close()
			if bytes.Contains(data, []byte("no route for")) || res.StatusCode == http.StatusMethodNotAllowed {
				t.Errorf("%s %s is documented but not served: %d %s", method, path, res.StatusCode, data)
			}
		}
	}
}

// TestKeysAsDocumented: the document is served without a key (OpenAPI
// viewers cannot send one), and every route it does not mark public
// answers 401 without a key or with a wrong one.
func TestKeysAsDocumented(t *testing.T) {
	doc, _ := spec(t)
	e := newEnv(t)
	for _, key := range []string{"", "wrong"} {
		r := e.do("GET", "/api/v1/openapi.json", key, nil)
		if r.status != 200 || r.raw != string(httpadapter.OpenAPI) {
			t.Fatalf("GET /api/v1/openapi.json with key %q: %d %.200s, want 200 and the document", key, r.status, r.raw)
		}
	}
	public := 0
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if op.Security != nil && len(*op.Security) == 0 {
				public++
				continue
			}
			p := strings.ReplaceAll(path, "{job_qrn}", device+"-abcd-qjob-0123456789abcdef01234567")
			p = strings.ReplaceAll(p, "{device_qrn}", device)
			wantError(t, e.do(method, p, "", nil), http.StatusUnauthorized, quantum.ENOVALIDAUTH)
			wantError(t, e.do(method, p, "wrong", nil), http.StatusUnauthorized, quantum.EINVALIDAPIKEY)
		}
	}
	if public != 3 {
		t.Errorf("%d operations documented without a key, want 3: /healthz, /readyz, /api/v1/openapi.json", public)
	}
}

// TestTheCheckCatchesDrift: the checking transport fails an answer that
// the document does not allow, and a refused request answered 2xx.
func TestTheCheckCatchesDrift(t *testing.T) {
	for _, tc := range []struct {
		name, method, path, body string
		status                   int
		answer                   string
	}{
		{"a job without its status", "GET", "/api/v1/jobs/" + device + "-abcd-qjob-0123456789abcdef01234567", "", 200, `{"success":true,"data":{"jobQrn":"x"}}`},
		{"an undocumented status", "GET", "/api/v1/users/verify", "", 418, `{"success":false}`},
		{"a bad request taken", "POST", "/api/v1/jobs", `{"shots":"ten"}`, 201, `{"success":true,"data":{}}`},
		{"an undocumented route served", "GET", "/api/v1/secret", "", 200, `{}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var reports []string
			c := &checked{t: t, report: func(f string, a ...any) { reports = append(reports, fmt.Sprintf(f, a...)) },
				next: roundTrip(func(*http.Request) *http.Response {
					return &http.Response{StatusCode: tc.status, Header: http.Header{"Content-Type": {"application/json"}},
						Body: io.NopCloser(strings.NewReader(tc.answer))}
				})}
			req, _ := http.NewRequest(tc.method, "http://x"+tc.path, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			if _, err := c.RoundTrip(req); err != nil {
				t.Fatal(err)
			}
			if len(reports) == 0 {
				t.Fatal("the check let it pass")
			}
		})
	}
}

type roundTrip func(*http.Request) *http.Response

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r), nil }
