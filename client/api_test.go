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

func open(remote bool) func(t *testing.T, opts ...quantum.Option) (*quantum.Service, func(*testing.T, string) quantum.API) {
	return func(t *testing.T, opts ...quantum.Option) (*quantum.Service, func(*testing.T, string) quantum.API) {
		svc, _ := quantumtest.NewService(t, opts...)
		srv := httptest.NewServer(httpadapter.New(svc))
		t.Cleanup(srv.Close)
		return svc, func(t *testing.T, key string) quantum.API {
			u, err := svc.AddAPIKey(key, "")
			if err != nil {
				t.Fatal(err)
			}
			if !remote {
				return svc.For(u)
			}
			// No retries: a 429 would be retried after its Retry-After; the
			// retries are tested on their own.
			c, err := client.New(srv.URL, key, client.WithRetries(0))
			if err != nil {
				t.Fatal(err)
			}
			return c
		}
	}
}

// TestAPIOverHTTPIsExact runs the API script in process and through
// client → HTTP → httpadapter → Service, and fails on any difference
// between the two transcripts.
func TestAPIOverHTTPIsExact(t *testing.T) {
	apitest.Compare(t,
		apitest.Target{Name: "in-process", Open: open(false)},
		apitest.Target{Name: "over-http", Open: open(true)})
}
