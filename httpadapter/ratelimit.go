package httpadapter

import (
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/qjobs/quantum"
)

// WithRateLimit bounds each user's requests to perSecond on average, with
// up to burst at once: a token bucket per user, which a request spends a
// token of. Past it a request is answered 429 RATE_LIMITED with a
// Retry-After (whole seconds, at least 1) and nothing is done. The limit
// applies after authentication, to every route that needs a key: a
// request without a valid key is refused before it, and costs no memory.
// A user's keys share the user's bucket. Idle buckets are dropped once
// full, so memory holds only the users seen lately.
//
// The default, and a perSecond or burst that is not above zero (or not
// finite), is no limit. The clock is WithClock's.
func WithRateLimit(perSecond float64, burst int) Option {
	return func(h *handler) {
		if perSecond > 0 && !math.IsInf(perSecond, 1) && burst > 0 {
			h.rate = newLimiter(perSecond, burst)
		} else {
			h.rate = nil
		}
	}
}

// sweepEvery is how often (by the handler's clock) buckets that have
// refilled are dropped: often enough to bound memory by the users of the
// last minute or so, seldom enough that the sweep's cost is nothing.
const sweepEvery = time.Minute

// limiter holds a token bucket per user ID. Only authenticated users get
// one, so the table is bounded by the users the Service knows; and no API
// key is kept in it.
type limiter struct {
	perSecond float64
	burst     float64

	mu        sync.Mutex
	buckets   map[string]bucket
	nextSweep time.Time
}

type bucket struct {
	tokens float64
	at     time.Time // when tokens was right
}

func newLimiter(perSecond float64, burst int) *limiter {
	return &limiter{perSecond: perSecond, burst: float64(burst), buckets: map[string]bucket{}}
}

// refilled is b's tokens at now: a clock that went back adds none.
func (l *limiter) refilled(b bucket, now time.Time) float64 {
	elapsed := now.Sub(b.at).Seconds()
	if elapsed <= 0 {
		return b.tokens
	}
	return min(l.burst, b.tokens+elapsed*l.perSecond)
}

// take spends one of user's tokens at now. When there is none, it says
// how long until there is one.
func (l *limiter) take(user string, now time.Time) (wait time.Duration, ok bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.sweep(now)
	tokens := l.burst
	if b, found := l.buckets[user]; found {
		tokens = l.refilled(b, now)
	}
	if tokens >= 1 {
		l.buckets[user] = bucket{tokens: tokens - 1, at: now}
		return 0, true
	}
	l.buckets[user] = bucket{tokens: tokens, at: now}
	// Bounded, so that a rate of a token in centuries cannot overflow.
	return time.Duration(min(math.Ceil((1-tokens)/l.perSecond*float64(time.Second)), maxWait)), false
}

// maxWait bounds take's wait, in nanoseconds: about 146 years, far from
// overflowing when rounded up to whole seconds.
const maxWait = 1 << 62

// sweep drops the buckets that are full again: a new bucket is the same.
// The caller holds mu.
func (l *limiter) sweep(now time.Time) {
	if now.Before(l.nextSweep) {
		return
	}
	l.nextSweep = now.Add(sweepEvery)
	for user, b := range l.buckets {
		if l.refilled(b, now) >= l.burst {
			delete(l.buckets, user)
		}
	}
}

// admit spends a token of u's bucket, or says when to come back.
func (h *handler) admit(u quantum.User) error {
	if h.rate == nil {
		return nil
	}
	wait, ok := h.rate.take(u.ID, h.now())
	if ok {
		return nil
	}
	// Whole seconds, at least one, as the Retry-After header says it.
	wait = max(time.Second, (wait+time.Second-1)/time.Second*time.Second)
	return &quantum.Error{
		Code: quantum.ERATELIMITED,
		Message: fmt.Sprintf("too many requests: this server allows each user %g a second, %d at once; retry in %d s",
			h.rate.perSecond, int(h.rate.burst), int64(wait/time.Second)),
		RetryAfter: wait,
	}
}

// size is the number of buckets held, for tests of the bound.
func (l *limiter) size() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.buckets)
}
