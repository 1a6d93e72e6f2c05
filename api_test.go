package quantum_test

import (
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/internal/apitest"
	"github.com/qjobs/quantum/quantumtest"
)

// TestAPIInProcess runs the conformance suite of quantum.API against
// Service.For. client's TestAPIOverHTTP runs it over HTTP: the two must
// pass alike.
func TestAPIInProcess(t *testing.T) {
	apitest.Run(t, apitest.Target{
		Name: "in-process",
		Open: func(t *testing.T, opts ...quantum.Option) (*quantum.Service, func(*testing.T, string) quantum.API) {
			svc, _ := quantumtest.NewService(t, opts...)
			return svc, func(t *testing.T, key string) quantum.API {
				u, err := svc.AddAPIKey(key, "apitest user")
				if err != nil {
					t.Fatal(err)
				}
				return svc.For(u)
			}
		},
	})
}
