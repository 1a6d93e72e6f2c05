package apitest

import (
	"errors"
	"fmt"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
)

// grant gives the user credits through the Service (grants are not part
// of the API).
func (e *env) grant(u quantum.User, credits float64) {
	e.t.Helper()
	if _, err := e.svc.GrantCredits(ctx, u, credits, "apitest"); err != nil {
		e.t.Fatalf("GrantCredits(%v): %v", credits, err)
	}
}

// balance is the user's balance not reserved, which must be want.
func (e *env) balance(api quantum.API, u quantum.User, want float64) {
	e.t.Helper()
	got, err := api.CreditsBalance(ctx, "")
	if err != nil {
		e.t.Fatalf("CreditsBalance: %v", err)
	}
	wantEqual(e.t, "balance", got, &quantum.CreditsBalance{QbraidCredits: want, AutoRecharge: "off", OrganizationID: u.OrganizationID, UserID: u.ID})
}

// priced registers a FakeBackend device of its own that costs perTask
// credits a job.
func (e *env) priced(name string, perTask float64, b *quantumtest.FakeBackend) string {
	return e.device(name, b, func(d *quantum.Device) { d.Pricing = quantum.Pricing{PerTask: perTask} })
}

func refused(estimate, left string) *quantum.Error {
	return errorf(quantum.EINSUFFICIENTCREDITS, "insufficient credits: the job's estimated cost is %s credits and the balance not reserved is %s credits", estimate, left)
}

// testCreditsBalance: the balance as the public client reads it, for the
// caller's organization only; with credits off, what was granted.
func testCreditsBalance(t *testing.T, target Target) {
	e := open(t, target)
	e.balance(e.alice, e.aliceUser, 0)
	e.grant(e.aliceUser, 12.345678)
	e.balance(e.alice, e.aliceUser, 12.345678)
	e.balance(e.bob, e.bobUser, 0)
	got, err := e.alice.CreditsBalance(ctx, e.aliceUser.OrganizationID)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "balance of the caller's organization", got, &quantum.CreditsBalance{QbraidCredits: 12.345678,
		AutoRecharge: "off", OrganizationID: e.aliceUser.OrganizationID, UserID: e.aliceUser.ID})
	for _, org := range []string{e.bobUser.OrganizationID, "another", "x\x00y"} {
		_, err := e.alice.CreditsBalance(ctx, org)
		wantErr(t, fmt.Sprintf("CreditsBalance(%q)", org), err, errorf(quantum.ENOTFOUND, "User is not a member of this organization."))
	}
	// Off: a paid job is neither refused nor charged.
	sv1Job := e.create(e.bob, request(sv1, bell, 10))
	e.wait(e.bob, sv1Job.JobQRN)
	e.balance(e.bob, e.bobUser, 0)
}

// testCreditsCoverExactly: a user with 10 credits runs exactly the paid
// jobs their balance covers and is refused the next, which stores
// nothing; a free job is never refused.
func testCreditsCoverExactly(t *testing.T, target Target) {
	e := open(t, target, quantum.WithCredits(true))
	paid := e.priced("paid", 2, &quantumtest.FakeBackend{})
	e.grant(e.aliceUser, 10)
	for i := range 5 {
		j := e.create(e.alice, request(paid, bell, 100))
		if done := e.wait(e.alice, j.JobQRN); done.Status != quantum.StatusCompleted || done.Cost != 2 || done.EstimatedCost != 2 {
			t.Fatalf("paid job %d: %s, cost %v, estimate %v", i, done.Status, done.Cost, done.EstimatedCost)
		}
		e.balance(e.alice, e.aliceUser, float64(8-2*i))
	}
	for _, tc := range []struct {
		device, estimate string
	}{{paid, "2"}, {sv1, "7.5"}} {
		_, err := e.alice.CreateJob(ctx, request(tc.device, bell, 100))
		wantErr(t, "a paid job past the balance", err, refused(tc.estimate, "0"))
		if !errors.Is(err, quantum.ErrInsufficientCredits) {
			t.Fatalf("errors.Is(%v, ErrInsufficientCredits) is false", err)
		}
	}
	if n := e.list(e.alice, quantum.JobQuery{}).Pagination.Total; n != 5 {
		t.Fatalf("%d jobs stored, want the 5 paid for", n)
	}
	free := e.create(e.alice, request(flagship, bell, 100))
	e.wait(e.alice, free.JobQRN)
	e.grant(e.aliceUser, 2)
	e.wait(e.alice, e.create(e.alice, request(paid, bell, 100)).JobQRN)
	e.balance(e.alice, e.aliceUser, 0)
	e.balance(e.bob, e.bobUser, 0) // another user's credits are their own
	_, err := e.bob.CreateJob(ctx, request(paid, bell, 100))
	wantErr(t, "bob's paid job", err, refused("2", "0"))
}

// testCreditsReserved: unfinished jobs hold their estimate; a cancelled
// or failed job gives it back and is charged nothing.
func testCreditsReserved(t *testing.T, target Target) {
	e := open(t, target, quantum.WithCredits(true))
	blocked := e.priced("blocked", 3, &quantumtest.FakeBackend{Block: true})
	broken := e.priced("broken", 3, &quantumtest.FakeBackend{Fail: "the device broke"})
	e.grant(e.aliceUser, 10)
	var held []string
	for range 3 {
		held = append(held, e.create(e.alice, request(blocked, bell, 10)).JobQRN)
	}
	e.balance(e.alice, e.aliceUser, 1)
	_, err := e.alice.CreateJob(ctx, request(blocked, bell, 10))
	wantErr(t, "a fourth job", err, refused("3", "1"))
	if err := e.alice.CancelJob(ctx, held[0]); err != nil {
		t.Fatal(err)
	}
	if done := e.wait(e.alice, held[0]); done.Status != quantum.StatusCancelled || done.Cost != 0 {
		t.Fatalf("cancelled job: %s, cost %v", done.Status, done.Cost)
	}
	e.balance(e.alice, e.aliceUser, 4)
	failed := e.create(e.alice, request(broken, bell, 10))
	if done := e.wait(e.alice, failed.JobQRN); done.Status != quantum.StatusFailed || done.Cost != 0 {
		t.Fatalf("failed job: %s, cost %v", done.Status, done.Cost)
	}
	e.balance(e.alice, e.aliceUser, 4)
	for _, qrn := range held[1:] {
		if err := e.alice.CancelJob(ctx, qrn); err != nil {
			t.Fatal(err)
		}
		e.wait(e.alice, qrn)
	}
	e.balance(e.alice, e.aliceUser, 10)
}

// testCreditsBatch: a batch reserves its estimate (perTask + N × shots ×
// perShot) and is charged its cost, once, as one job.
func testCreditsBatch(t *testing.T, target Target) {
	e := open(t, target, quantum.WithCredits(true))
	dev := e.device("pershot", &quantumtest.FakeBackend{}, func(d *quantum.Device) {
		d.Pricing = quantum.Pricing{PerTask: 1, PerShot: 0.01}
	})
	e.grant(e.aliceUser, 10)
	p := quantum.Program{Format: "qasm3", Data: bell}
	batch := func(n int) quantum.JobRequest {
		b := make([]quantum.Program, n)
		for i := range b {
			b[i] = p
		}
		return quantum.JobRequest{DeviceQRN: dev, Shots: 100, Batch: b}
	}
	_, err := e.alice.CreateJob(ctx, batch(10)) // 1 + 10 = 11 credits
	wantErr(t, "a batch of 11 credits against 10", err, refused("11", "10"))
	j := e.create(e.alice, batch(3))
	if j.EstimatedCost != 4 {
		t.Fatalf("estimatedCost %v, want 4", j.EstimatedCost)
	}
	if done := e.wait(e.alice, j.JobQRN); done.Status != quantum.StatusCompleted || done.Cost != 4 {
		t.Fatalf("batch %s, cost %v", done.Status, done.Cost)
	}
	e.balance(e.alice, e.aliceUser, 6)
}
