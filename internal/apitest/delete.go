package apitest

import (
	"fmt"
	"testing"

	"github.com/qjobs/quantum"
)

// testDeleteJob: an unfinished job cannot be deleted; a finished one is
// gone, with its program and result, from everywhere.
func testDeleteJob(t *testing.T, target Target) {
	e := open(t, target)
	unfinished := e.create(e.alice, request(e.blocked(), bell, 10))
	e.running(unfinished.JobQRN)
	running := e.get(e.alice, unfinished.JobQRN)
	wantErr(t, "DeleteJob of a RUNNING job", e.alice.DeleteJob(ctx, unfinished.JobQRN),
		errorf(quantum.EJOBNOTFINAL, "job %s is RUNNING; only finished jobs can be deleted (cancel it first)", unfinished.JobQRN))
	wantEqual(t, "job after the refused delete", e.get(e.alice, unfinished.JobQRN), running)

	done := e.wait(e.alice, e.create(e.alice, request(flagship, bell, 10)).JobQRN)
	if err := e.alice.DeleteJob(ctx, done.JobQRN); err != nil {
		t.Fatalf("DeleteJob: %v", err)
	}
	for _, c := range jobCalls {
		wantErr(t, c.name+" of a deleted job", c.call(e.alice, done.JobQRN), errorf(quantum.ENOTFOUND, "job %s not found", done.JobQRN))
	}
	wantEqual(t, "jobs after the delete", e.list(e.alice, quantum.JobQuery{}), &quantum.JobPage{Jobs: []*quantum.Job{running},
		Pagination: quantum.Pagination{Page: 1, Limit: 50, Total: 1, TotalPages: 1}})
}

// testDeleteJobs: a bulk delete deletes what it may and gives a reason
// for every other QRN; it takes 1 to 100 QRNs.
func testDeleteJobs(t *testing.T, target Target) {
	e := open(t, target)
	done1 := e.wait(e.alice, e.create(e.alice, request(flagship, bell, 10)).JobQRN)
	done2 := e.wait(e.alice, e.create(e.alice, request(flagship, bell, 10)).JobQRN)
	failed := e.wait(e.alice, e.create(e.alice, request(e.broken(), bell, 10)).JobQRN)
	foreign := e.wait(e.bob, e.create(e.bob, request(flagship, bell, 10)).JobQRN)
	unfinished := e.create(e.alice, request(e.blocked(), bell, 10))
	e.running(unfinished.JobQRN)
	running := e.get(e.alice, unfinished.JobQRN)

	res, err := e.alice.DeleteJobs(ctx, []string{done1.JobQRN, foreign.JobQRN, unfinished.JobQRN, unknownJob, "garbage", failed.JobQRN, "statuses"})
	if err != nil {
		t.Fatalf("DeleteJobs: %v", err)
	}
	wantEqual(t, "DeleteJobs", res, &quantum.DeleteJobsResult{
		SuccessfulIDs: []string{done1.JobQRN, failed.JobQRN},
		FailedIDs: map[string]string{
			foreign.JobQRN:    quantum.ReasonForbidden,
			unfinished.JobQRN: quantum.ReasonNotFinal,
			unknownJob:        quantum.ReasonNotFound,
			"garbage":         quantum.ReasonInvalidQRN,
			"statuses":        quantum.ReasonInvalidQRN,
		},
	})
	wantEqual(t, "alice's jobs after the delete", e.list(e.alice, quantum.JobQuery{}), &quantum.JobPage{
		Jobs: []*quantum.Job{running, done2}, Pagination: quantum.Pagination{Page: 1, Limit: 50, Total: 2, TotalPages: 1}})
	wantEqual(t, "bob's job after alice's delete", e.get(e.bob, foreign.JobQRN), foreign)

	// A QRN twice: deleted once, then not found.
	res, err = e.alice.DeleteJobs(ctx, []string{done2.JobQRN, done2.JobQRN})
	if err != nil {
		t.Fatalf("DeleteJobs: %v", err)
	}
	wantEqual(t, "DeleteJobs of a QRN twice", res, &quantum.DeleteJobsResult{
		SuccessfulIDs: []string{done2.JobQRN}, FailedIDs: map[string]string{done2.JobQRN: quantum.ReasonNotFound}})

	hundred := make([]string, 100)
	notFound := map[string]string{}
	for i := range hundred {
		hundred[i] = fmt.Sprintf("%s-abcd-qjob-%024x", flagship, i)
		notFound[hundred[i]] = quantum.ReasonNotFound
	}
	res, err = e.alice.DeleteJobs(ctx, hundred)
	if err != nil {
		t.Fatalf("DeleteJobs of 100: %v", err)
	}
	wantEqual(t, "DeleteJobs of 100", res, &quantum.DeleteJobsResult{SuccessfulIDs: []string{}, FailedIDs: notFound})

	for _, qrns := range [][]string{nil, {}, append(hundred, unknownJob)} {
		_, err := e.alice.DeleteJobs(ctx, qrns)
		wantErr(t, fmt.Sprintf("DeleteJobs of %d", len(qrns)), err,
			invalid(field("qrns", fmt.Sprintf("must hold 1 to 100 job QRNs, got %d", len(qrns)))))
	}
}
