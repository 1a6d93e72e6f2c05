package console_test

import (
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/qjobs/quantum/console"
)

// Every answer carries the policy: scripts and styles from the console's
// own files only, no framing, no sniffing, and no CORS header at all.
func TestHeaders(t *testing.T) {
	h := http.StripPrefix("/console", console.New())
	for _, tc := range []struct {
		method, path string
		status       int
		ctype        string
	}{
		{"GET", "/console/", 200, "text/html; charset=utf-8"},
		{"GET", "/console/index.html", 200, "text/html; charset=utf-8"},
		{"HEAD", "/console/", 200, "text/html; charset=utf-8"},
		{"GET", "/console/app.js", 200, "text/javascript; charset=utf-8"},
		{"GET", "/console/style.css", 200, "text/css; charset=utf-8"},
		{"GET", "/console/icon.svg", 200, "image/svg+xml"},
		{"GET", "/console/nothing.js", 404, ""},
		{"GET", "/console/../console.go", 404, ""},
		{"POST", "/console/", 405, ""},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(tc.method, tc.path, nil)
			req.Header.Set("Origin", "https://evil.example")
			h.ServeHTTP(rec, req)
			res := rec.Result()
			if res.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", res.StatusCode, tc.status)
			}
			if tc.ctype != "" && res.Header.Get("Content-Type") != tc.ctype {
				t.Errorf("Content-Type %q, want %q", res.Header.Get("Content-Type"), tc.ctype)
			}
			csp := res.Header.Get("Content-Security-Policy")
			for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"} {
				if !strings.Contains(csp, want) {
					t.Errorf("CSP %q lacks %q", csp, want)
				}
			}
			if strings.Contains(csp, "unsafe") {
				t.Errorf("CSP %q allows something unsafe", csp)
			}
			if got := res.Header.Get("X-Content-Type-Options"); got != "nosniff" {
				t.Errorf("X-Content-Type-Options %q", got)
			}
			for k := range res.Header {
				if strings.HasPrefix(k, "Access-Control-") {
					t.Errorf("CORS header %s: %q", k, res.Header.Get(k))
				}
			}
		})
	}
}

// WithAPIBase names the API in the page and lets the page connect there,
// and nowhere else.
func TestAPIBase(t *testing.T) {
	rec := httptest.NewRecorder()
	console.New(console.WithAPIBase(`https://api.example.com/"><script>`)).ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	body, _ := io.ReadAll(rec.Body)
	if strings.Contains(string(body), `"><script>`) {
		t.Errorf("the API base is not escaped in the page:\n%s", body)
	}
	if !strings.Contains(string(body), `content="https://api.example.com/&#34;&gt;&lt;script&gt;"`) {
		t.Errorf("the page does not name the API base:\n%s", body)
	}
	if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "connect-src 'self' https://api.example.com;") {
		t.Errorf("CSP %q does not allow the API's origin", csp)
	}
}

// The page's files follow the rules the policy enforces, so that the
// browser never has to refuse anything: no inline script or handler, no
// style attribute, and no HTML parsed from strings.
func TestAssetsNeedNothingUnsafe(t *testing.T) {
	assets := os.DirFS("assets")
	files, err := fs.Glob(assets, "*")
	if err != nil || len(files) == 0 {
		t.Fatal(files, err)
	}
	for _, f := range files {
		b, err := fs.ReadFile(assets, f)
		if err != nil {
			t.Fatal(err)
		}
		src := string(b)
		for _, bad := range []*regexp.Regexp{
			regexp.MustCompile(`innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function`),
			regexp.MustCompile(`<script>|<script [^>]*>[^<]`), // an inline script
			regexp.MustCompile(`\son[a-z]+="`),                // an inline handler
			regexp.MustCompile(`style="|setAttribute\('style'`),
			regexp.MustCompile(`https?://[a-z0-9.-]+`), // anything from another host (SVG's namespace aside)
		} {
			for _, m := range bad.FindAllString(src, -1) {
				if m == "http://www.w3.org" {
					continue
				}
				t.Errorf("%s: %q", f, m)
			}
		}
	}
}
