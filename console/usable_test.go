package console_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

// views are the console's views, each with a JavaScript condition that
// says it has loaded.
func views(job string) []struct{ route, ready string } {
	return []struct{ route, ready string }{
		{"/jobs", `document.querySelector('#jobs-body tr[data-qrn]')`},
		{jobRoute(job), `document.querySelector('#result .histogram svg') && document.querySelector('#program pre')`},
		{"/submit", `document.querySelector('#estimate:not(:empty)')`},
		{"/devices", `document.querySelector('#devices tbody tr')`},
		{"/devices/qbraid%3Aqbraid%3Asim%3Aqir-sv", `document.querySelector('#device-description')`},
	}
}

// Every control of every view has a name a screen reader can say (a
// label, or aria-label), and every view opens with its heading focused.
func TestControlsAreLabelled(t *testing.T) {
	e := newEnv(t)
	job := e.create(e.user, quantum.JobRequest{Program: program(), Shots: 100, DeviceQRN: "qbraid:qbraid:sim:qir-sv", Name: "labelled"})
	quantumtest.WaitForJob(t, e.svc, e.user, job.JobQRN)
	e.signIn(quantumtest.APIKey)
	for _, v := range views(job.JobQRN) {
		e.open(v.route)
		e.waitJS(`Boolean(` + v.ready + `)`)
		unnamed := eval[[]string](e, `[...document.querySelectorAll('input, select, textarea, button, a[href]')]
			.filter((el) => !el.closest('[hidden]'))
			.filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label') && !el.textContent.trim())
			.map((el) => el.outerHTML.slice(0, 80))`)
		if len(unnamed) > 0 {
			t.Errorf("%s: controls without a name: %q", v.route, unnamed)
		}
		if got := eval[string](e, `document.activeElement.tagName`); got != "H1" {
			t.Errorf("%s: focus on %s after opening, want the heading", v.route, got)
		}
	}
}

// Times show in the browser's time zone, with the UTC instant on hover.
func TestTimesAreLocal(t *testing.T) {
	e := newEnv(t)
	job := e.create(e.user, quantum.JobRequest{Program: program(), Shots: 10, DeviceQRN: "qbraid:qbraid:sim:qir-sv", Name: "when"})
	quantumtest.WaitForJob(t, e.svc, e.user, job.JobQRN)
	e.run(chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
		_, err := chromedp.Call(ctx, emulation.SetTimezoneOverride, emulation.SetTimezoneOverrideParams{TimezoneID: "Asia/Tokyo"})
		return err
	}), chromedp.Reload()) // the page reads its zone when it loads
	e.signIn(quantumtest.APIKey)
	e.visible("#jobs-body time")
	created := job.TimeStamps.CreatedAt
	tokyo := created.In(time.FixedZone("JST", 9*3600))
	title := eval[string](e, `document.querySelector('#jobs-body time').title`)
	if want := created.UTC().Format("2006-01-02 15:04:05.000") + " UTC"; title != want {
		t.Errorf("title %q, want %q", title, want)
	}
	shown := e.text("#jobs-body time")
	if hour := tokyo.Format("3:04:05"); !strings.Contains(shown, hour) {
		t.Errorf("shown %q, want Tokyo's %s", shown, hour)
	}
}

// tabTo presses Tab until the focused element matches sel (at most 60
// times), as a keyboard user moves through the page.
func (e *env) tabTo(sel string) {
	e.t.Helper()
	for range 60 {
		if eval[bool](e, `document.activeElement.matches(`+quote(sel)+`)`) {
			return
		}
		e.run(chromedp.KeyEvent(kb.Tab))
	}
	e.t.Fatalf("Tab never reached %s", sel)
}

// A keyboard alone goes through the console: sign in, open a job from the
// list, delete it and confirm, back on the list.
func TestKeyboardOnly(t *testing.T) {
	e := newEnv(t)
	job := e.create(e.user, quantum.JobRequest{Program: program(), Shots: 10, DeviceQRN: "qbraid:qbraid:sim:qir-sv", Name: "by keyboard"})
	quantumtest.WaitForJob(t, e.svc, e.user, job.JobQRN)
	e.signIn(quantumtest.APIKey) // types the key and presses Enter
	e.visible("#jobs-body tr[data-qrn]")
	e.tabTo(`#jobs-body td.name a`)
	e.run(chromedp.KeyEvent(kb.Enter))
	e.visible(`#job-status [data-status="COMPLETED"]`)
	e.tabTo(`#delete`)
	e.run(chromedp.KeyEvent(kb.Enter))
	e.waitJS(`document.activeElement.id === 'confirm-yes'`)
	e.run(chromedp.KeyEvent(kb.Enter))
	e.waitJS(`document.querySelector('#jobs-summary')?.textContent.startsWith('0 jobs')`)
	if _, err := e.svc.GetJob(context.Background(), e.user, job.JobQRN); quantum.ErrorCode(err) != quantum.ENOTFOUND {
		t.Errorf("the job is still there: %v", err)
	}
}
