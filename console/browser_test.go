package console_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/console"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/internal/testenv"
	"github.com/qjobs/quantum/quantumtest"
)

// The console's tests drive a real headless Chromium (chromedp) against a
// real Service, httpadapter and console on a loopback port. One browser
// serves the whole test process; each test has a tab in a browser context
// of its own, so sessionStorage starts empty.

const installHint = "Chromium is not installed, so the console's browser tests cannot run: " +
	"install it (Debian/Ubuntu: apt-get install chromium)"

// waitFor bounds every wait for the page to reach a state: generous, since
// the machine may be busy, and never a sleep.
const waitFor = 45 * time.Second

var browser struct {
	once   sync.Once
	ctx    context.Context // the browser's
	cancel func()
	err    error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if browser.cancel != nil {
		browser.cancel()
	}
	os.Exit(code)
}

// chromium is the path of the installed browser, or "".
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// startBrowser starts the process's browser once.
func startBrowser(path string) (context.Context, error) {
	browser.once.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(path),
			// Tests run as root in containers, where Chromium's sandbox
			// cannot start; the pages are the tests' own.
			chromedp.NoSandbox,
			chromedp.WindowSize(1280, 900),
		)
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(alloc)
		browser.ctx = ctx
		browser.cancel = func() { cancelCtx(); cancelAlloc() }
		browser.err = chromedp.Do(ctx)
	})
	return browser.ctx, browser.err
}

// env is one test's world: a Service with the quantumtest user, the API
// and the console on one origin, and a browser tab.
type env struct {
	t    *testing.T
	svc  *quantum.Service
	user quantum.User
	url  string // the console's address
	ctx  context.Context

	mu       sync.Mutex
	problems []string // script errors, CSP violations, dialogs
}

// newEnv starts a Service (with opts), serves it and the console, and
// opens a tab. The test skips (or fails, under CI=true) without Chromium.
func newEnv(t *testing.T, opts ...quantum.Option) *env {
	t.Helper()
	path := chromium()
	if path == "" {
		testenv.Skip(t, installHint)
		return nil
	}
	bctx, err := startBrowser(path)
	if err != nil {
		t.Fatalf("start Chromium (%s): %v", path, err)
	}
	svc, u := quantumtest.NewService(t, opts...)
	streams, endStreams := context.WithCancel(context.Background())
	mux := http.NewServeMux()
	mux.Handle("/api/", httpadapter.New(svc, httpadapter.WithStreamContext(streams)))
	mux.Handle("/", console.New())
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)  // last: after the streams have ended
	t.Cleanup(endStreams) // the event streams the page holds open

	e := &env{t: t, svc: svc, user: u, url: srv.URL + "/"}
	tab, closeTab := chromedp.NewContext(bctx, chromedp.WithNewBrowserContext(), chromedp.WithListener(e.watch))
	ctx, cancel := context.WithTimeout(tab, 3*time.Minute)
	t.Cleanup(func() {
		cancel()
		closeTab()
		e.mu.Lock()
		defer e.mu.Unlock()
		for _, p := range e.problems {
			t.Errorf("in the page: %s", p)
		}
	})
	e.ctx = ctx
	// The first action opens the tab, which lives as long as the context
	// that action gets: ctx, not one of run's shorter ones.
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("open a tab: %v", err)
	}
	e.run(chromedp.Navigate(e.url))
	return e
}

// watch records what must never happen in the page: an uncaught
// exception, an error logged by a script or by the browser's security
// checks (a CSP violation), a dialog (alert, which an injected script
// would open).
func (e *env) watch(ev any) {
	var p string
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		p = "uncaught exception: " + ev.ExceptionDetails.Text
		if ev.ExceptionDetails.Exception != nil {
			p += " " + ev.ExceptionDetails.Exception.Description
		}
	case *runtime.EventConsoleAPICalled:
		if ev.Type == runtime.ConsoleAPICalledTypeError {
			p = "console.error"
			for _, a := range ev.Args {
				p += " " + string(a.Value) + a.Description
			}
		}
	case *log.EventEntryAdded:
		// Failed requests (a 401 for a bad key, a 403 for another user's
		// job) are logged as network errors: the tests ask for those.
		if ev.Entry.Level == log.EntryLevelError && ev.Entry.Source != log.EntrySourceNetwork {
			p = fmt.Sprintf("%s error: %s", ev.Entry.Source, ev.Entry.Text)
		}
	case *page.EventJavascriptDialogOpening:
		p = fmt.Sprintf("a %s dialog opened: %q", ev.Type, ev.Message)
		go func() {
			_, _ = chromedp.Call(e.ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}()
	}
	if p != "" {
		e.mu.Lock()
		e.problems = append(e.problems, p)
		e.mu.Unlock()
	}
}

// run runs browser actions, each wait bounded by waitFor.
func (e *env) run(actions ...chromedp.Action[chromedp.Void]) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, waitFor)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		e.fatal(err)
	}
}

// value runs one browser action that returns a value.
func value[T any](e *env, action chromedp.Action[T]) T {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(e.ctx, waitFor)
	defer cancel()
	v, err := chromedp.Run(ctx, action)
	if err != nil {
		e.fatal(err)
	}
	return v
}

// fatal ends the test with where the page was and what it said.
func (e *env) fatal(err error) {
	e.t.Helper()
	where, _ := chromedp.Run(e.ctx, chromedp.Location())
	shown, _ := chromedp.Run(e.ctx, chromedp.Evaluate[string](`(document.querySelector("#result")?.innerText ?? "") + " // " + document.querySelector("main")?.innerText.slice(0, 300)`))
	e.t.Fatalf("browser at %s: %v\npage: %s", where, err, shown)
}

// text is the text of the first element matching sel, once visible.
func (e *env) text(sel string) string {
	e.t.Helper()
	e.visible(sel)
	return strings.TrimSpace(eval[string](e, `document.querySelector(`+quote(sel)+`).innerText`))
}

// waitJS waits until the JavaScript expression is true.
func (e *env) waitJS(expr string) {
	e.t.Helper()
	e.run(chromedp.Poll[chromedp.Void](expr, chromedp.WithPollingInterval(50*time.Millisecond), chromedp.WithPollingTimeout(waitFor)))
}

// visible waits until an element matching sel is rendered. (It asks the
// page, which sees its own DOM as it changes.)
func (e *env) visible(sel string) {
	e.t.Helper()
	e.waitJS(`(() => { const el = document.querySelector(` + quote(sel) + `); return el !== null && el.getClientRects().length > 0; })()`)
}

// quote is s as a JavaScript string literal.
func quote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`).Replace(s) + "'"
}

// eval evaluates a JavaScript expression.
func eval[T any](e *env, expr string) T {
	e.t.Helper()
	return value(e, chromedp.Evaluate[T](expr))
}

// signIn signs in with key through the form and waits for the jobs list.
func (e *env) signIn(key string) {
	e.t.Helper()
	e.run(
		chromedp.WaitVisible(chromedp.ID("apikey")),
		chromedp.SendKeys(chromedp.ID("apikey"), key+"\r"), // Enter submits, as a person would
	)
	e.visible("#jobs-summary")
}

// open goes to a console route (a fragment such as /jobs/QRN).
func (e *env) open(route string) {
	e.t.Helper()
	e.run(chromedp.Navigate(e.url + "#" + route))
}

// jobRoute is the route of a job's page, as the console links it.
func jobRoute(qrn string) string {
	return "/jobs/" + strings.ReplaceAll(qrn, ":", "%3A")
}

// create makes a job through the Service, as another client would.
func (e *env) create(u quantum.User, req quantum.JobRequest) *quantum.Job {
	e.t.Helper()
	j, err := e.svc.CreateJob(context.Background(), u, req)
	if err != nil {
		e.t.Fatalf("CreateJob: %v", err)
	}
	return j
}

// screenshot writes the page to docs/name when UPDATE_SCREENSHOTS=1: the
// README's pictures of the console come from here.
func (e *env) screenshot(name string) {
	e.t.Helper()
	if os.Getenv("UPDATE_SCREENSHOTS") != "1" {
		return
	}
	png := value(e, chromedp.FullScreenshot(100))
	if strings.Contains(name, "narrow") {
		png = value(e, chromedp.CaptureScreenshot()) // the phone's screen, not its whole page
	}
	if err := os.WriteFile("../docs/"+name, png, 0o644); err != nil {
		e.t.Fatal(err)
	}
}
