package httpadapter_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/store"
)

// TestCredits: the balance route's body as the public client reads it,
// its organizationId, and the 402 of a create the balance cannot cover,
// each checked against the OpenAPI document.
func TestCredits(t *testing.T) {
	svc, err := quantum.New(store.NewMemory(), quantum.WithWorkers(2), quantum.WithCredits(true))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	alice, err := svc.AddAPIKey(aliceKey, "alice")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpadapter.New(svc))
	t.Cleanup(srv.Close)
	e := envOn(t, svc, srv)
	if _, err := svc.GrantCredits(context.Background(), alice, 10, "test"); err != nil {
		t.Fatal(err)
	}
	balance := func(query string) response {
		t.Helper()
		return e.do("GET", "/api/v1/billing/credits/balance"+query, aliceKey, nil)
	}
	want := `{"success":true,"data":{"qbraidCredits":10,"awsCredits":0,"autoRecharge":"off","organizationId":"` +
		alice.OrganizationID + `","userId":"` + alice.ID + `"}}`
	for _, q := range []string{"", "?organizationId=" + alice.OrganizationID, "?organizationId=", "?other=1"} {
		if r := balance(q); r.status != http.StatusOK || r.raw != want+"\n" && r.raw != want {
			t.Fatalf("balance%s: %d %s\nwant %s", q, r.status, r.raw, want)
		}
	}
	for _, org := range []string{"someone-else", "%00"} {
		r := balance("?organizationId=" + org)
		wantError(t, r, http.StatusNotFound, quantum.ENOTFOUND)
		if r.body["message"] != "User is not a member of this organization." {
			t.Fatalf("message %q", r.body["message"])
		}
	}

	bob, err := svc.AddAPIKey(bobKey, "bob")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.GrantCredits(context.Background(), bob, 7, "test"); err != nil {
		t.Fatal(err)
	}
	sv1 := jobBody(bell, 10)
	sv1["deviceQrn"] = "aws:aws:sim:sv1" // 7.5 credits estimated
	r := e.do("POST", "/api/v1/jobs", bobKey, sv1)
	wantError(t, r, http.StatusPaymentRequired, quantum.EINSUFFICIENTCREDITS)
	if msg := r.body["message"]; msg != "insufficient credits: the job's estimated cost is 7.5 credits and the balance not reserved is 7 credits" {
		t.Fatalf("402 message %q", msg)
	}
	if total := e.do("GET", "/api/v1/jobs", bobKey, nil).body["pagination"].(map[string]any)["total"]; total != 0.0 {
		t.Fatalf("the refused job was stored: %v jobs", total)
	}
	e.waitFor(bobKey, e.create(bobKey, jobBody(bell, 10))) // free
}
