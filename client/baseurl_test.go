package client_test

import (
	"net/http"
	"testing"

	"github.com/qjobs/quantum/client"
)

// The base URL may name the server or the API itself: the README defines
// API=http://127.0.0.1:8080/api/v1 for curl, and a user hands that on.
func TestBaseURLWithOrWithoutTheAPIPath(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { ok(w, 200, `{}`) })
	for _, tc := range []struct{ base, want string }{
		{"", "/api/v1/users/verify"},
		{"/", "/api/v1/users/verify"},
		{"/api/v1", "/api/v1/users/verify"},
		{"/api/v1/", "/api/v1/users/verify"},
		{"/prefix", "/prefix/api/v1/users/verify"},
		{"/prefix/api/v1", "/prefix/api/v1/users/verify"},
		{"/api", "/api/api/v1/users/verify"},
		{"/api/v2", "/api/v2/api/v1/users/verify"},
	} {
		t.Run(tc.base, func(t *testing.T) {
			c, err := client.New(f.srv.URL+tc.base, "k")
			if err != nil {
				t.Fatal(err)
			}
			before := len(f.requests())
			if _, err := c.VerifyUser(ctx); err != nil {
				t.Fatal(err)
			}
			reqs := f.requests()
			if len(reqs) != before+1 || reqs[before].path != tc.want {
				t.Fatalf("New(%q): requests %v, want one of %s", f.srv.URL+tc.base, reqs[before:], tc.want)
			}
		})
	}
}
