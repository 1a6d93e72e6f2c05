package main

import (
	"net/http"
	"strings"

	"github.com/qjobs/quantum/console"
)

// site puts the web console beside the API: /api/v1, /control/v1 (served
// with a control key; a 404 without), /healthz and /readyz are the API's,
// the console is at / and at /console/. The console's page
// calls the API from the browser on the same origin, with the key the
// user signs in with: it has no access of its own.
func site(api http.Handler) *siteMux {
	mux := http.NewServeMux()
	mux.Handle("/api/", api)
	mux.Handle("/control/", api)
	mux.Handle("/healthz", api)
	mux.Handle("/readyz", api)
	ui := console.New()
	mux.Handle("/console/", http.StripPrefix("/console", ui))
	mux.Handle("/", ui)
	return &siteMux{ServeMux: mux, api: api}
}

// siteMux is the site's mux, but a request for the API (a clean path
// under /api/) goes to the API at once: its own mux judges the request,
// and the site's would only have found "/api/" again, one more route
// match a request. Every other request, and any path the site's mux
// would clean first (and redirect), goes through the site's mux as
// before.
type siteMux struct {
	*http.ServeMux
	api http.Handler
}

func (s *siteMux) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// The mux matches the escaped path, cleaned; CONNECT it takes as it is.
	if p := r.URL.EscapedPath(); strings.HasPrefix(p, "/api/") && r.Method != http.MethodConnect && cleanPath(p) {
		s.api.ServeHTTP(w, r)
		return
	}
	s.ServeMux.ServeHTTP(w, r)
}

// cleanPath says whether p is its own cleaned form (path.Clean's, with
// a trailing slash kept): no empty, "." or ".." segment.
func cleanPath(p string) bool {
	return !strings.Contains(p, "//") && !strings.Contains(p, "/./") && !strings.Contains(p, "/../") &&
		!strings.HasSuffix(p, "/.") && !strings.HasSuffix(p, "/..")
}
