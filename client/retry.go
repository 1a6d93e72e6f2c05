package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"time"

	"github.com/qjobs/quantum"
)

// maxRetryAfter bounds how long the client honours a server's
// Retry-After: a server that asks for longer is down for longer than a
// caller should sit in one call, so the error is returned at once.
const maxRetryAfter = time.Minute

// retrier decides whether, and after how long, a call is tried again.
type retrier struct {
	c     *Client
	tries int // retries made so far
}

// next looks at the outcome of one try: the answer's HTTP status (0 if
// none came) and its error.
func (r *retrier) next(ctx context.Context, k call, status int, err error) (time.Duration, bool) {
	if err == nil || ctx.Err() != nil || r.tries >= r.c.retries {
		return 0, false
	}
	var after time.Duration
	var te *transportError
	var qe *quantum.Error
	switch {
	case errors.As(err, &te):
		// Without an answer the server may have acted, unless the request
		// never left. (net/http itself resends a request it had not yet
		// written on a stale kept-alive connection.)
		if !k.idempotent && !neverSent(te.err) {
			return 0, false
		}
	case status == http.StatusTooManyRequests || status == http.StatusServiceUnavailable:
		// The server refused before doing anything: safe for any call.
		if errors.As(err, &qe) {
			after = qe.RetryAfter
		}
	case status >= 500 && k.idempotent:
	default:
		return 0, false
	}
	if after > maxRetryAfter {
		return 0, false
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < after {
		return 0, false // the wait the server asks for outlasts the caller
	}
	wait := max(r.backoff(), after)
	r.tries++
	return wait, true
}

// backoff is exponential with full jitter: a random wait up to base×2^tries,
// capped, so that clients that failed together do not retry together.
func (r *retrier) backoff() time.Duration {
	d := r.c.retryBase
	for i := 0; i < r.tries && d < r.c.retryMax; i++ {
		d *= 2
	}
	return rand.N(min(d, r.c.retryMax)) + 1
}

// neverSent reports whether a request failed before any of it could
// reach the server: its connection was never made.
func neverSent(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	return errors.As(err, &dns) || (errors.As(err, &op) && op.Op == "dial")
}
