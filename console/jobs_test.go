package console_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

// rows are the QRN and status of the jobs table's rows, top to bottom.
func (e *env) rows() []string {
	e.t.Helper()
	return eval[[]string](e, `[...document.querySelectorAll('#jobs-body tr[data-qrn]')].map((tr) => tr.dataset.status + ' ' + tr.querySelector('td.name').textContent)`)
}

// The list of 120 jobs: its filters and pages are the API's, set from the
// form or the URL.
func TestJobsListFiltersAndPages(t *testing.T) {
	e := newEnv(t)
	withFakes(t, e)
	for i := range 120 {
		team := "red"
		if i%3 == 0 {
			team = "blue"
		}
		device := instant
		if i%10 == 0 {
			device = failing
		}
		j := e.create(e.user, quantum.JobRequest{Program: program(), Shots: 10, DeviceQRN: device,
			Name: fmt.Sprintf("run-%03d", i), Tags: map[string]any{"team": team, "index": i}})
		quantumtest.WaitForJob(t, e.svc, e.user, j.JobQRN)
	}
	e.signIn(quantumtest.APIKey)

	for _, tc := range []struct {
		name    string
		route   string
		summary string   // the caption's start
		first   []string // the first rows
		rows    int
	}{
		{"first page", "/jobs", "120 jobs, newest first · page 1 of 5", []string{"COMPLETED run-119", "COMPLETED run-118"}, 25},
		{"last page", "/jobs?page=5", "120 jobs, newest first · page 5 of 5", []string{"COMPLETED run-019", "COMPLETED run-018"}, 20},
		{"100 a page", "/jobs?limit=100&page=2", "120 jobs, newest first · page 2 of 2", []string{"COMPLETED run-019"}, 20},
		{"status", "/jobs?status=FAILED", "12 jobs", []string{"FAILED run-110", "FAILED run-100"}, 12},
		{"status group", "/jobs?statusGroup=pending", "0 jobs", nil, 0},
		{"search", "/jobs?search=run-05", "10 jobs", []string{"COMPLETED run-059"}, 10},
		{"device via search", "/jobs?search=" + failing, "12 jobs", []string{"FAILED run-110"}, 12},
		{"tags", "/jobs?tags=team%3Dblue", "40 jobs", []string{"COMPLETED run-117"}, 25},
		{"tags as JSON", "/jobs?tags=" + strings.ReplaceAll(`{"index":%2042}`, `"`, "%22"), "1 job", []string{"COMPLETED run-042"}, 1},
		{"vendor", "/jobs?vendor=ionq", "0 jobs", nil, 0},
		{"provider", "/jobs?provider=qbraid&limit=10", "120 jobs", []string{"COMPLETED run-119"}, 10},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e.open(tc.route)
			e.waitJS(`document.querySelector('#jobs-summary')?.textContent.startsWith(` + quote(tc.summary) + `)`)
			got := e.rows()
			if len(got) != tc.rows {
				t.Errorf("%d rows, want %d", len(got), tc.rows)
			}
			for i, w := range tc.first {
				if i >= len(got) || got[i] != w {
					t.Errorf("rows start %q, want %q", got[:min(len(got), len(tc.first))], tc.first)
					break
				}
			}
		})
	}

	t.Run("the form", func(t *testing.T) {
		e.open("/jobs")
		e.visible("#jobs-body")
		e.run(
			chromedp.SetValue(chromedp.ID("status"), "COMPLETED"),
			chromedp.SendKeys(chromedp.ID("tags"), "team=red"),
			chromedp.SetValue(chromedp.ID("limit"), "50"),
			chromedp.Click(chromedp.CSS(`#main form.filters button[type="submit"]`)),
		)
		e.waitJS(`location.hash === '#/jobs?status=COMPLETED&tags=team%3Dred&limit=50'`)
		e.waitJS(`document.querySelector('#jobs-summary').textContent.startsWith('72 jobs, newest first · page 1 of 2')`)
		e.run(chromedp.Click(chromedp.CSS(`a[rel="next"]`)))
		e.waitJS(`document.querySelector('#jobs-summary').textContent.startsWith('72 jobs, newest first · page 2 of 2')`)
		if got := e.rows(); len(got) != 22 {
			t.Errorf("page 2 has %d rows, want 22", len(got))
		}
	})
}

// The list follows the event stream: a new job appears at the top and its
// status changes in place, without a reload.
func TestJobsListIsLive(t *testing.T) {
	e := newEnv(t)
	block := withFakes(t, e)
	for i := range 3 {
		j := e.create(e.user, quantum.JobRequest{Program: program(), Shots: 100, DeviceQRN: "qbraid:qbraid:sim:qir-sv",
			Name: fmt.Sprintf("Bell %d", i+1), Tags: map[string]any{"team": "red"}})
		quantumtest.WaitForJob(t, e.svc, e.user, j.JobQRN)
	}
	started := block.Started()
	e.signIn(quantumtest.APIKey)
	e.waitJS(`document.querySelector('#live').textContent.startsWith('Live')`)
	eval[chromedp.Void](e, `window.notReloaded = true`)

	j := e.create(e.user, quantum.JobRequest{Program: program(), Shots: 10, DeviceQRN: hangs, Name: "arrives live"})
	select {
	case <-started:
	case <-time.After(waitFor):
		t.Fatal("the job never started")
	}
	e.waitJS(`document.querySelector('#jobs-body tr[data-status="RUNNING"] td.name')?.textContent === 'arrives live'`)
	if _, err := e.svc.CancelJob(t.Context(), e.user, j.JobQRN); err != nil {
		t.Fatal(err)
	}
	e.waitJS(`document.querySelector('#jobs-body tr[data-status="CANCELLED"] td.name')?.textContent === 'arrives live'`)
	if !eval[bool](e, `window.notReloaded === true`) {
		t.Error("the page reloaded")
	}
	if got := e.rows(); len(got) != 4 || got[0] != "CANCELLED arrives live" {
		t.Errorf("rows %q", got)
	}

	// Two more for the picture: one that fails, one that runs.
	e.create(e.user, quantum.JobRequest{Program: program(), Shots: 10, DeviceQRN: failing, Name: "Bell on a failing device"})
	e.create(e.user, quantum.JobRequest{Program: program(), Shots: 10, DeviceQRN: hangs, Name: "still running"})
	e.waitJS(`document.querySelector('#jobs-body tr[data-status="RUNNING"]') !== null && document.querySelector('#jobs-body tr[data-status="FAILED"]') !== null`)
	e.screenshot("console-jobs.png")
}
