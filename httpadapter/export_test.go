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

// DecodeCreate reads body as a create's: in one pass where the quick
// reader takes it (quickOK), and field by field as the general reader does.
func DecodeCreate(body []byte) (quick quantum.JobRequest, quickOK bool, general quantum.JobRequest, err error) {
	quick, quickOK = quickJobRequest(body)
	general, err = jobRequestOf(body)
	return quick, quickOK, general, err
}

// WriteResult writes res as the handler answers a result's read.
func WriteResult(w http.ResponseWriter, res *quantum.JobResult) error { return writeResult(w, res) }

// RequestID makes a request id as the handler does for each request.
func RequestID() string { return requestIDs.next() }
