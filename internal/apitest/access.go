package apitest

import (
	"context"
	"fmt"
	"testing"

	"github.com/qjobs/quantum"
)

// jobCalls are the methods that take one job's QRN, as calls that answer
// only their error.
var jobCalls = []struct {
	name string
	call func(api quantum.API, qrn string) error
}{
	{"GetJob", func(a quantum.API, q string) error { _, err := a.GetJob(ctx, q); return err }},
	{"GetJobResult", func(a quantum.API, q string) error { _, err := a.GetJobResult(ctx, q); return err }},
	{"GetJobProgram", func(a quantum.API, q string) error { _, err := a.GetJobProgram(ctx, q); return err }},
	{"CancelJob", func(a quantum.API, q string) error { return a.CancelJob(ctx, q) }},
	{"DeleteJob", func(a quantum.API, q string) error { return a.DeleteJob(ctx, q) }},
	{"Wait", func(a quantum.API, q string) error {
		c, cancel := context.WithTimeout(ctx, waitLimit)
		defer cancel()
		_, err := a.Wait(c, q)
		return err
	}},
}

// testNotFound: a well-formed QRN of no job is NOT_FOUND everywhere.
func testNotFound(t *testing.T, target Target) {
	e := open(t, target)
	for _, c := range jobCalls {
		t.Run(c.name, func(t *testing.T) {
			wantErr(t, c.name, c.call(e.alice, unknownJob), errorf(quantum.ENOTFOUND, "job %s not found", unknownJob))
		})
	}
	res, err := e.alice.DeleteJobs(ctx, []string{unknownJob})
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "DeleteJobs", res, &quantum.DeleteJobsResult{SuccessfulIDs: []string{}, FailedIDs: map[string]string{unknownJob: quantum.ReasonNotFound}})
}

// testForbidden: another user's job, finished or running, is FORBIDDEN
// everywhere, absent from their lists, and unchanged by their attempts.
func testForbidden(t *testing.T, target Target) {
	e := open(t, target)
	done := e.wait(e.alice, e.create(e.alice, request(flagship, bell, 10)).JobQRN)
	running := e.create(e.alice, request(e.blocked(), bell, 10))
	e.running(running.JobQRN)
	before := map[string]*quantum.Job{done.JobQRN: done, running.JobQRN: e.get(e.alice, running.JobQRN)}
	for _, qrn := range []string{done.JobQRN, running.JobQRN} {
		status := before[qrn].Status
		for _, c := range jobCalls {
			t.Run(fmt.Sprintf("%s/%s", c.name, status), func(t *testing.T) {
				wantErr(t, c.name, c.call(e.bob, qrn), errorf(quantum.EFORBIDDEN, "no permission to access job %s", qrn))
			})
		}
	}
	res, err := e.bob.DeleteJobs(ctx, []string{done.JobQRN, running.JobQRN})
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "bob's DeleteJobs", res, &quantum.DeleteJobsResult{SuccessfulIDs: []string{},
		FailedIDs: map[string]string{done.JobQRN: quantum.ReasonForbidden, running.JobQRN: quantum.ReasonForbidden}})
	empty := &quantum.JobPage{Jobs: []*quantum.Job{}, Pagination: quantum.Pagination{Page: 1, Limit: 50}}
	wantEqual(t, "bob's jobs", e.list(e.bob, quantum.JobQuery{}), empty)
	wantEqual(t, "bob's search for alice's job", e.list(e.bob, quantum.JobQuery{Search: done.JobQRN}), empty)
	for qrn, want := range before {
		wantEqual(t, "alice's job after bob's attempts", e.get(e.alice, qrn), want)
	}
}

// malformedJobQRNs are not job QRNs: among them the names of the routes
// beside /jobs/{qrn}, and what would change a URL's path or query.
var malformedJobQRNs = []string{
	"statuses", "events", "cost-estimate", "", "a/b", "not-a-qrn", " ", "..",
	flagship + "-abcd-qjob-0123",                     // too short
	flagship + "-ABCD-qjob-0123456789abcdef01234567", // upper-case hex
	unknownJob + "/result", unknownJob + "?x=1", unknownJob + "#x", "../" + unknownJob, " " + unknownJob, unknownJob + "\n",
	"qbraid:qbraid:sim:qir-sv%2Fx-abcd-qjob-0123456789abcdef01234567",
}

// testMalformedJobQRN: a QRN of the wrong form is a VALIDATION_ERROR on
// job_qrn everywhere, and an "Invalid QRN" of a bulk delete.
func testMalformedJobQRN(t *testing.T, target Target) {
	e := open(t, target)
	want := invalid(field("job_qrn", "must be a job QRN <deviceQrn>-<4 hex>-qjob-<24 hex>"))
	for _, c := range jobCalls {
		for _, qrn := range malformedJobQRNs {
			t.Run(fmt.Sprintf("%s/%q", c.name, qrn), func(t *testing.T) {
				wantErr(t, fmt.Sprintf("%s(%q)", c.name, qrn), c.call(e.alice, qrn), want)
			})
		}
	}
	res, err := e.alice.DeleteJobs(ctx, malformedJobQRNs)
	if err != nil {
		t.Fatal(err)
	}
	failed := map[string]string{}
	for _, q := range malformedJobQRNs {
		failed[q] = quantum.ReasonInvalidQRN
	}
	wantEqual(t, "DeleteJobs", res, &quantum.DeleteJobsResult{SuccessfulIDs: []string{}, FailedIDs: failed})
}
