package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"net/http"
	"syscall"
	"time"

	"github.com/qjobs/quantum"
)

// maxRetryAfter bounds how long the client honours a server's
// Retry-After: past it the error is returned.
const maxRetryAfter = time.Minute

// retrier decides whether, and after how long, a call is tried again.
type retrier struct {
	c     *Client
	tries int
}

func (r *retrier) init(c *Client) { r.c = c }

// next looks at one try's outcome: res (its body already read) and err.
func (r *retrier) next(ctx context.Context, k call, res *http.Response, err error) (time.Duration, bool) {
	if err == nil || ctx.Err() != nil || r.tries >= r.c.retries {
		return 0, false
	}
	var after time.Duration
	var qe *quantum.Error
	var te *transportError
	switch {
	case errors.As(err, &te):
		// Without an answer the server may have acted, unless the
		// connection was refused.
		if !k.idempotent && !errors.Is(te.err, syscall.ECONNREFUSED) {
			return 0, false
		}
	case errors.As(err, &qe) && res != nil:
		switch {
		case res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusServiceUnavailable:
			after = qe.RetryAfter
		case res.StatusCode >= 500 && k.idempotent:
		default:
			return 0, false
		}
	default:
		return 0, false
	}
	if after > maxRetryAfter {
		return 0, false
	}
	if dl, ok := ctx.Deadline(); ok && time.Until(dl) < after {
		return 0, false // the wait the server asks for outlasts the caller
	}
	wait := r.backoff()
	r.tries++
	return max(wait, after), true
}

// backoff is exponential with full jitter.
func (r *retrier) backoff() time.Duration {
	d := min(r.c.retryBase<<min(r.tries, 20), r.c.retryMax)
	return rand.N(d) + 1
}
