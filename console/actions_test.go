package console_test

import (
	"context"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

// Devices whose fake backends hold a job until it is cancelled.
const (
	hangs     = "qbraid:qbraid:sim:hang"
	hangsHard = "qbraid:qbraid:sim:stubborn" // cannot cancel
	instant   = "qbraid:qbraid:sim:instant"
	failing   = "qbraid:qbraid:sim:failing"
)

// withFakes registers the fake devices the tests below use.
func withFakes(t *testing.T, e *env) *quantumtest.FakeBackend {
	t.Helper()
	block := &quantumtest.FakeBackend{Block: true}
	for qrn, b := range map[string]*quantumtest.FakeBackend{
		hangs:     block,
		hangsHard: {Block: true, NotCancellable: true},
		instant:   {Counts: map[string]int{"0": 1, "1": 3}},
		failing:   {Fail: `<img src=x onerror=alert(1)> went wrong`},
	} {
		if err := e.svc.RegisterDevice(quantumtest.Device(qrn), b); err != nil {
			t.Fatal(err)
		}
	}
	return block
}

func program() *quantum.Program {
	return &quantum.Program{Format: "qasm2", Data: bell}
}

// Cancel on a job's page: a running job goes CANCELLED live; a device
// that cannot cancel answers with an error the page shows as the API
// words it.
func TestCancel(t *testing.T) {
	for _, tc := range []struct {
		device     string
		wantStatus string
		wantError  string // the API's message, shown
	}{
		{hangs, "CANCELLED", ""},
		{hangsHard, "", "does not support cancelling jobs"},
	} {
		t.Run(tc.device, func(t *testing.T) {
			e := newEnv(t)
			withFakes(t, e)
			job := e.create(e.user, quantum.JobRequest{Program: program(), Shots: 10, DeviceQRN: tc.device, Name: "long one"})
			quantumtest.WaitForStatus(t, e.svc, e.user, job.JobQRN, waitFor, quantum.StatusRunning)
			e.signIn(quantumtest.APIKey)
			e.open(jobRoute(job.JobQRN))
			e.visible(`#job-status [data-status="RUNNING"]`)
			if !eval[bool](e, `document.querySelector('#delete').disabled`) {
				t.Error("delete is offered for a running job")
			}
			e.run(chromedp.Click(chromedp.ID("cancel")))
			if tc.wantError != "" {
				if got := e.text("#job-error"); !strings.Contains(got, tc.wantError) {
					t.Errorf("error shown %q, want the API's message with %q", got, tc.wantError)
				}
				return
			}
			e.visible(`#job-status [data-status="` + tc.wantStatus + `"]`)
			if got := e.text("#job-notice"); !strings.HasPrefix(got, "Cancellation requested for job") {
				t.Errorf("notice %q, want the API's confirmation", got)
			}
			if got, _ := e.svc.GetJob(context.Background(), e.user, job.JobQRN); got.Status != quantum.StatusCancelled {
				t.Errorf("job is %s, want CANCELLED", got.Status)
			}
			e.visible(`#timeline [data-status="CANCELLED"]`)
		})
	}
}

// Delete from a job's page returns to the list with the API's message; a
// multi-select delete on the list removes the finished jobs chosen.
func TestDelete(t *testing.T) {
	e := newEnv(t)
	withFakes(t, e)
	var done []*quantum.Job
	for _, name := range []string{"first", "second", "third"} {
		j := e.create(e.user, quantum.JobRequest{Program: program(), Shots: 10, DeviceQRN: instant, Name: name})
		done = append(done, quantumtest.WaitForJob(t, e.svc, e.user, j.JobQRN))
	}
	running := e.create(e.user, quantum.JobRequest{Program: program(), Shots: 10, DeviceQRN: hangs, Name: "running"})
	quantumtest.WaitForStatus(t, e.svc, e.user, running.JobQRN, waitFor, quantum.StatusRunning)
	e.signIn(quantumtest.APIKey)

	// One, from its page.
	e.open(jobRoute(done[0].JobQRN))
	e.visible(`#job-status [data-status="COMPLETED"]`)
	e.run(chromedp.Click(chromedp.ID("delete")))
	e.visible("#confirm-yes")
	e.run(chromedp.Click(chromedp.ID("confirm-yes")))
	e.visible("#jobs-body")
	if got := e.text(".notice"); got != "Job "+done[0].JobQRN+" deleted" {
		t.Errorf("notice %q, want the API's message", got)
	}
	if _, err := e.svc.GetJob(context.Background(), e.user, done[0].JobQRN); quantum.ErrorCode(err) != quantum.ENOTFOUND {
		t.Errorf("after delete, GetJob: %v", err)
	}

	// Two, from the list; the running one cannot be chosen.
	e.waitJS(`document.querySelectorAll('#jobs-body tr').length === 3`)
	if !eval[bool](e, `document.querySelector(`+quote(`tr[data-qrn="`+running.JobQRN+`"] input.select`)+`).disabled`) {
		t.Error("a running job can be selected for delete")
	}
	e.run(chromedp.Click(chromedp.ID("select-all")))
	if got := e.text("#delete-selected"); got != "Delete selected (2)" {
		t.Errorf("delete button says %q", got)
	}
	e.run(chromedp.Click(chromedp.ID("delete-selected")))
	e.visible("#confirm-delete-yes")
	e.run(chromedp.Click(chromedp.ID("confirm-delete-yes")))
	e.waitJS(`document.querySelectorAll('#jobs-body tr').length === 1`)
	if got := e.text(".notice"); got != "Deleted 2 jobs." {
		t.Errorf("notice %q", got)
	}
	page, err := e.svc.ListJobs(context.Background(), e.user, quantum.JobQuery{})
	if err != nil || len(page.Jobs) != 1 || page.Jobs[0].JobQRN != running.JobQRN {
		t.Errorf("jobs left: %v %v, want the running one", page, err)
	}
}

// Another user's job is not reachable by its URL: the page shows the API's
// refusal and nothing of the job.
func TestAnotherUsersJob(t *testing.T) {
	e := newEnv(t)
	other, err := e.svc.AddAPIKey("second-key", "second")
	if err != nil {
		t.Fatal(err)
	}
	job := e.create(other, quantum.JobRequest{Program: program(), Shots: 10, DeviceQRN: "qbraid:qbraid:sim:qir-sv", Name: "secret name"})
	quantumtest.WaitForJob(t, e.svc, other, job.JobQRN)

	e.signIn(quantumtest.APIKey)
	e.open(jobRoute(job.JobQRN))
	e.visible("#job-error")
	_, apiErr := e.svc.GetJob(context.Background(), e.user, job.JobQRN)
	if got := e.text("#job-error"); apiErr == nil || got != apiErr.(*quantum.Error).Message {
		t.Errorf("error shown %q, want the API's %v", got, apiErr)
	}
	if body := e.text("main"); strings.Contains(body, "secret name") || strings.Contains(body, "OPENQASM") {
		t.Errorf("the other user's job shows: %q", body)
	}
	e.open("/jobs")
	e.waitJS(`document.querySelector('#jobs-summary').textContent.startsWith('0 jobs')`)
}

// What users store is shown as text: markup in a name, tags, a program
// and a status message renders literally and runs nothing (the env fails
// the test on any dialog or script error).
func TestUserDataIsText(t *testing.T) {
	const attack = `<img src=x onerror=alert(1)>`
	e := newEnv(t)
	withFakes(t, e)
	prog := &quantum.Program{Format: "qasm2", Data: "// " + attack + "<script>alert(2)</script>\n" + bell}
	ok := e.create(e.user, quantum.JobRequest{Program: prog, Shots: 10, DeviceQRN: instant, Name: attack,
		Tags: map[string]any{attack: `"><svg onload=alert(3)>`}})
	bad := e.create(e.user, quantum.JobRequest{Program: program(), Shots: 10, DeviceQRN: failing, Name: `<b>bold</b>`})
	quantumtest.WaitForJob(t, e.svc, e.user, ok.JobQRN)
	quantumtest.WaitForJob(t, e.svc, e.user, bad.JobQRN)
	e.signIn(quantumtest.APIKey)

	for _, tc := range []struct {
		route string
		sel   string
		want  []string
	}{
		{"/jobs", "#jobs-body", []string{attack, "<b>bold</b>"}},
		{jobRoute(ok.JobQRN), "main", []string{attack, `"><svg onload=alert(3)>`, "<script>alert(2)</script>"}},
		{jobRoute(bad.JobQRN), "#status-msg", []string{attack + " went wrong"}},
	} {
		e.open(tc.route)
		e.visible(tc.sel)
		e.waitJS(`document.querySelector(` + quote(tc.sel) + `).textContent.includes(` + quote(tc.want[0]) + `)`)
		if tc.route != "/jobs" {
			e.visible("#program pre") // the program text has arrived too
		}
		text := e.text(tc.sel)
		for _, w := range tc.want {
			if !strings.Contains(text, w) {
				t.Errorf("%s: %q not shown literally in %q", tc.route, w, text)
			}
		}
		if n := eval[int](e, `document.querySelectorAll('main img, main script, main b, main svg[onload]').length`); n != 0 {
			t.Errorf("%s: %d elements made from user data", tc.route, n)
		}
	}
}
