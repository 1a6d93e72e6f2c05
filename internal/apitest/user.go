package apitest

import (
	"regexp"
	"testing"

	"github.com/qjobs/quantum"
)

var hex24 = regexp.MustCompile(`^[0-9a-f]{24}$`)

// testVerifyUser: each key's API acts for the user the Service made for
// that key, and the user's 4 hex are in the QRNs of their jobs.
func testVerifyUser(t *testing.T, target Target) {
	e := open(t, target)
	for _, who := range []struct {
		name string
		api  quantum.API
		want quantum.User
	}{{"alice", e.alice, e.aliceUser}, {"bob", e.bob, e.bobUser}} {
		got, err := who.api.VerifyUser(ctx)
		if err != nil {
			t.Fatalf("%s: VerifyUser: %v", who.name, err)
		}
		wantEqual(t, who.name+"'s user", got, who.want)
		for _, id := range []string{got.ID, got.OrganizationUserID, got.OrganizationID} {
			if !hex24.MatchString(id) {
				t.Fatalf("%s: user %+v: IDs must be 24 hex", who.name, got)
			}
		}
	}
	if e.aliceUser.ID == e.bobUser.ID {
		t.Fatalf("two keys, one user %+v", e.aliceUser)
	}
	// A second API for the same key acts for the same user.
	again, err := e.as(t, aliceKey).VerifyUser(ctx)
	if err != nil {
		t.Fatal(err)
	}
	wantEqual(t, "alice's user again", again, e.aliceUser)
}
