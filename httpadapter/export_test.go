package httpadapter

import (
	"net/http"

	"github.com/qjobs/quantum"
)

// RateBuckets is the number of users the handler's rate limit holds a
// bucket for (0 without WithRateLimit), for tests of its memory bound.
func RateBuckets(h http.Handler) int {
	if hh, ok := h.(*handler); ok && hh.rate != nil {
		return hh.rate.size()
	}
	return 0
}

// MaxRefusing is how many refused connections LimitListener answers at
// once.
const MaxRefusing = maxRefusing

// WriteJob writes job as the handler answers a create or a poll.
func WriteJob(w http.ResponseWriter, status int, job *quantum.Job) {
	(&handler{}).okJob(w, status, job)
}
