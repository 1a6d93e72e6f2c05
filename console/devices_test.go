package console_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

// The devices table sorts through the API, a device's page shows its
// description, and its submit link offers the device's own lists.
func TestDevices(t *testing.T) {
	e := newEnv(t)
	e.signIn(quantumtest.APIKey)
	e.open("/devices")
	e.waitJS(`document.querySelector('#devices caption').textContent.includes('sorted by name, ascending')`)
	first := eval[string](e, `document.querySelector('#devices tbody tr').dataset.qrn`)
	page, err := e.svc.ListDevices(context.Background(), e.user, quantum.DeviceQuery{})
	if err != nil || first != page.Devices[0].QRN {
		t.Errorf("first device %q, want the API's %v (%v)", first, page.Devices[0].QRN, err)
	}

	// Qubits, twice: ascending, then descending. The caption is written
	// with the rows, so once it names the order the rows are in it.
	for _, order := range []string{"asc", "desc"} {
		e.run(chromedp.Click(chromedp.CSS(`th button.sort[aria-label^="Qubits"]`)))
		e.waitJS(`location.hash === '#/devices?sortBy=numberQubits&sortOrder=` + order + `'`)
		words := map[string]string{"asc": "ascending", "desc": "descending"}[order]
		e.waitJS(`document.querySelector('#devices caption').textContent.includes('sorted by qubits, ` + words + `')`)
		want, err := e.svc.ListDevices(context.Background(), e.user, quantum.DeviceQuery{SortBy: "numberQubits", SortOrder: order})
		if err != nil {
			t.Fatal(err)
		}
		if got := eval[string](e, `document.querySelector('#devices tbody tr').dataset.qrn`); got != want.Devices[0].QRN {
			t.Errorf("%s: first %q, want %q", order, got, want.Devices[0].QRN)
		}
	}

	const sv1 = "aws:aws:sim:sv1"
	e.open("/devices/" + strings.ReplaceAll(sv1, ":", "%3A"))
	d, _ := e.svc.GetDevice(context.Background(), e.user, sv1)
	if got := e.text("#device-description"); got != d.Description {
		t.Errorf("description %q, want %q", got, d.Description)
	}
	e.run(chromedp.Click(chromedp.CSS(`a[href^="#/submit?device="]`)))
	e.waitJS(`document.querySelector('#device')?.value === ` + quote(sv1))
	e.waitJS(`document.querySelector('#estimate').textContent.startsWith('Estimated cost: 7.5 credits')`)
	got := eval[[]string](e, `[...document.querySelectorAll('#precision option, #noiseModel option')].map((o) => o.value).filter(Boolean)`)
	want := append(append([]string{}, d.NoiseModels...), d.Precisions...)
	if strings.Join(sortedCopy(got), ",") != strings.Join(sortedCopy(want), ",") {
		t.Errorf("options offered %q, want the device's %q", got, want)
	}
}

func sortedCopy(s []string) []string {
	c := append([]string{}, s...)
	for i := range c {
		for j := i + 1; j < len(c); j++ {
			if c[j] < c[i] {
				c[i], c[j] = c[j], c[i]
			}
		}
	}
	return c
}

// Every view reads at 320 px wide in dark mode: nothing makes the page
// scroll sideways (wide tables and charts scroll in their own boxes), and
// the colours are the dark ones.
func TestNarrowAndDark(t *testing.T) {
	e := newEnv(t)
	withFakes(t, e)
	job := e.create(e.user, quantum.JobRequest{Program: &quantum.Program{Format: "qasm3", Data: spread(7)}, Shots: 500,
		DeviceQRN: "qbraid:qbraid:sim:qir-sv", Name: "a rather long job name that has to wrap somewhere on a phone", Tags: map[string]any{"team": "red"}})
	quantumtest.WaitForJob(t, e.svc, e.user, job.JobQRN)
	e.run(
		chromedp.EmulateViewport(320, 640),
		chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
			_, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
				Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
			return err
		}),
	)
	e.signIn(quantumtest.APIKey)
	for _, tc := range []struct{ route, ready string }{
		{"/jobs", "#jobs-body tr[data-qrn]"},
		{jobRoute(job.JobQRN), "#result .histogram svg"},
		{"/submit", "#estimate:not(:empty)"},
		{"/devices", "#devices tbody tr"},
		{"/devices/qbraid%3Aqbraid%3Asim%3Aqir-sv", "#device-description"},
	} {
		e.open(tc.route)
		e.waitJS(`document.querySelector(` + quote(tc.ready) + `) !== null`)
		if w := eval[int](e, `document.documentElement.scrollWidth`); w > 320 {
			t.Errorf("%s: the page is %d px wide at 320", tc.route, w)
		}
		if bg := eval[string](e, `getComputedStyle(document.body).backgroundColor`); bg != "rgb(13, 17, 23)" {
			t.Errorf("%s: background %s, want the dark one", tc.route, bg)
		}
		if strings.HasPrefix(tc.route, "/jobs/") {
			e.screenshot("console-job-narrow-dark.png")
			if os.Getenv("REVIEW") != "" {
				eval[chromedp.Void](e, `document.querySelector('#result').scrollIntoView()`)
				png := value(e, chromedp.CaptureScreenshot())
				_ = os.WriteFile("/tmp/review.png", png, 0o644)
			}
		}
	}
}
