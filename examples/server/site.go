package main

import (
	"net/http"

	"github.com/qjobs/quantum/console"
)

// site puts the web console beside the API: /api/v1, /control/v1 (served
// with a control key; a 404 without), /healthz and /readyz are the API's,
// the console is at / and at /console/. The console's page
// calls the API from the browser on the same origin, with the key the
// user signs in with: it has no access of its own.
func site(api http.Handler) *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/api/", api)
	mux.Handle("/control/", api)
	mux.Handle("/healthz", api)
	mux.Handle("/readyz", api)
	ui := console.New()
	mux.Handle("/console/", http.StripPrefix("/console", ui))
	mux.Handle("/", ui)
	return mux
}
