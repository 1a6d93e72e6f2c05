package httpadapter_test

import (
	"math"
	"net/http"
	"testing"

	"github.com/qjobs/quantum/httpadapter"
)

// An option given a value that means nothing (nil, zero, negative) keeps
// its documented default: the handler still serves a whole job's life.
func TestInvalidOptionsKeepTheirDefaults(t *testing.T) {
	for _, tc := range []struct {
		name string
		opt  httpadapter.Option
	}{
		{"nil logger", httpadapter.WithLogger(nil)},
		{"nil clock", httpadapter.WithClock(nil)},
		{"zero body limit", httpadapter.WithMaxBodyBytes(0)},
		{"negative body limit", httpadapter.WithMaxBodyBytes(-1)},
		{"zero rate", httpadapter.WithRateLimit(0, 10)},
		{"negative rate", httpadapter.WithRateLimit(-1, 10)},
		{"NaN rate", httpadapter.WithRateLimit(math.NaN(), 10)},
		{"infinite rate", httpadapter.WithRateLimit(math.Inf(1), 10)},
		{"zero burst", httpadapter.WithRateLimit(1, 0)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, tc.opt)
			qrn := e.create(aliceKey, jobBody(bell, 10))
			if d := e.waitFor(aliceKey, qrn); d["status"] != "COMPLETED" {
				t.Fatalf("job %v", d["status"])
			}
			data(t, e.do("GET", "/api/v1/jobs/"+qrn+"/result", aliceKey, nil), http.StatusOK)
		})
	}
}
