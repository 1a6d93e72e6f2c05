package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/qjobs/quantum/internal/testenv"
)

// startDemo runs the server as a newcomer does, with no key given, and
// returns what it printed once it listens.
func startDemo(t *testing.T) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out bytes.Buffer
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"-addr", "127.0.0.1:0", "-log-level", "error"}, system{out: &out, ready: func(string) { close(ready) }})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
	})
	select {
	case <-ready:
		return out.String() // written before ready
	case err := <-done:
		t.Fatalf("server did not start: %v\n%s", err, out.String())
	}
	return ""
}

// The server prints the console's URL and the demo key; the console is at
// that URL and at /console/, with its security headers, and the API still
// answers its own routes.
func TestConsoleIsServed(t *testing.T) {
	printed := startDemo(t)
	m := regexp.MustCompile(`web console: (http://\S+/) `).FindStringSubmatch(printed)
	if m == nil {
		t.Fatalf("no console URL in:\n%s", printed)
	}
	base := m[1]
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, tc := range []struct {
		path   string
		status int
		want   string // in the body, or the Location of a redirect
	}{
		{"", 200, `<script type="module" src="app.js">`},
		{"console/", 200, `<script type="module" src="app.js">`},
		{"console/app.js", 200, "import"},
		{"console", http.StatusTemporaryRedirect, "/console/"},
		{"healthz", 200, `"status":"ok"`},
		{"api/v1/devices", 401, `"NO_VALID_AUTHENTICATION"`},
		{"api/v1/nothing", 401, `"success":false`},
	} {
		res, err := noRedirect.Get(base + tc.path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		got := string(body)
		if res.StatusCode/100 == 3 {
			got = res.Header.Get("Location")
		}
		if res.StatusCode != tc.status || !strings.Contains(got, tc.want) {
			t.Errorf("GET /%s: %d %q, want %d with %q", tc.path, res.StatusCode, got, tc.status, tc.want)
		}
		if res.StatusCode == 200 && strings.Contains(res.Header.Get("Content-Type"), "html") && !strings.Contains(res.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Errorf("GET /%s: no policy on the page", tc.path)
		}
	}
}

// The newcomer's path, in a real browser: open the printed URL, sign in
// with the printed key, submit the Bell example, watch it complete and
// read its histogram.
func TestNewcomerPath(t *testing.T) {
	path := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			path = p
			break
		}
	}
	if path == "" {
		testenv.Skip(t, "Chromium is not installed: install it (Debian/Ubuntu: apt-get install chromium)")
		return
	}
	printed := startDemo(t)
	url := regexp.MustCompile(`web console: (http://\S+/) `).FindStringSubmatch(printed)
	key := regexp.MustCompile(`demo API key [^:]*: (\S+)`).FindStringSubmatch(printed)
	if url == nil || key == nil {
		t.Fatalf("no URL or key in:\n%s", printed)
	}

	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox)...)
	defer cancelAlloc()
	ctx, cancel := chromedp.NewContext(alloc)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelT()
	until := func(expr string) chromedp.Action[chromedp.Void] {
		return chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(time.Minute))
	}
	err := chromedp.Do(ctx,
		chromedp.Navigate(url[1]),
		chromedp.WaitVisible(chromedp.ID("apikey")),
		chromedp.SendKeys(chromedp.ID("apikey"), key[1]+"\r"),
		until(`document.querySelector('#jobs-summary')?.textContent.startsWith('0 jobs')`),
		chromedp.Click(chromedp.CSS(`a[data-nav="submit"]`)),
		until(`document.querySelector('#device')?.value === 'qbraid:qbraid:sim:qir-sv'`),
		chromedp.Click(chromedp.ID("example")),
		chromedp.Click(chromedp.ID("submit")),
		until(`document.querySelector('#job-status [data-status="COMPLETED"]') !== null`),
		until(`document.querySelectorAll('#result svg rect.bar').length === 2`),
	)
	if err != nil {
		where, _ := chromedp.Run(ctx, chromedp.Location())
		t.Fatalf("at %s: %v", where, err)
	}
	bars, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll('#result svg rect.bar')].map((r) => r.dataset.bitstring)`))
	if err != nil || strings.Join(bars, " ") != "00 11" {
		t.Errorf("the Bell histogram's bars are %q (%v), want 00 and 11", bars, err)
	}
}
