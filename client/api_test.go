package client_test

import (
	"net/http/httptest"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/client"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/internal/apitest"
	"github.com/qjobs/quantum/quantumtest"
)

// TestAPIOverHTTP runs the conformance suite of quantum.API through
// client → HTTP → httpadapter → Service. The root package's
// TestAPIInProcess runs it against Service.For: the two must pass alike.
func TestAPIOverHTTP(t *testing.T) {
	apitest.Run(t, apitest.Target{
		Name: "over-http",
		Open: func(t *testing.T, opts ...quantum.Option) (*quantum.Service, func(*testing.T, string) quantum.API) {
			svc, _ := quantumtest.NewService(t, opts...)
			srv := httptest.NewServer(httpadapter.New(svc))
			t.Cleanup(srv.Close)
			return svc, func(t *testing.T, key string) quantum.API {
				if _, err := svc.AddAPIKey(key, "apitest user"); err != nil {
					t.Fatal(err)
				}
				// No retries: a 429 would be retried after its Retry-After
				// (5 s, 4 times) before its error came back; the retries
				// are tested on their own.
				c, err := client.New(srv.URL, key, client.WithRetries(0))
				if err != nil {
					t.Fatal(err)
				}
				return c
			}
		},
	})
}
