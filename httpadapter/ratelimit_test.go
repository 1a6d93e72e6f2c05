package httpadapter_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/store"
)

// clock is a time a test moves by hand.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)} }

func (c *clock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// rateEnv is an env whose handler has a rate limit on a clock of the
// test's; h is the handler, to count its buckets.
func rateEnv(t *testing.T, perSecond float64, burst int) (*env, *clock, http.Handler) {
	t.Helper()
	svc, err := quantum.New(store.NewMemory(), quantum.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	for _, k := range []string{aliceKey, bobKey} {
		if _, err := svc.AddAPIKey(k, strings.Split(k, "-")[0]); err != nil {
			t.Fatal(err)
		}
	}
	c := newClock()
	h := httpadapter.New(svc, httpadapter.WithRateLimit(perSecond, burst), httpadapter.WithClock(c.now))
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return envOn(t, svc, srv), c, h
}

// wantRateLimited checks a 429 RATE_LIMITED in the error envelope, with
// the Retry-After given.
func wantRateLimited(t *testing.T, r response, retryAfter int) {
	t.Helper()
	wantError(t, r, http.StatusTooManyRequests, quantum.ERATELIMITED)
	if got := r.header.Get("Retry-After"); got != strconv.Itoa(retryAfter) {
		t.Fatalf("Retry-After %q, want %d", got, retryAfter)
	}
	if msg := r.body["message"].(string); !strings.Contains(msg, "retry in "+strconv.Itoa(retryAfter)+" s") {
		t.Fatalf("the message does not say when to retry: %q", msg)
	}
}

// Past a user's burst, requests are 429 RATE_LIMITED with a Retry-After
// of whole seconds, at least 1, until the bucket refills by the clock;
// another user is unaffected.
func TestRateLimit(t *testing.T) {
	type step struct {
		advance time.Duration
		key     string
		path    string
		status  int // the answer without a limit
		limited int // 0: answered as without a limit; else the Retry-After of a 429
	}
	const devices, verify = "/api/v1/devices", "/api/v1/users/verify"
	for _, tc := range []struct {
		name      string
		perSecond float64
		burst     int
		steps     []step
	}{
		{"a burst, then one a second", 1, 3, []step{
			{0, aliceKey, devices, 200, 0},
			{0, aliceKey, verify, 200, 0},
			{0, aliceKey, devices, 200, 0},
			{0, aliceKey, devices, 200, 1},
			{0, bobKey, devices, 200, 0}, // bob has a bucket of his own
			{999 * time.Millisecond, aliceKey, devices, 200, 1},
			{time.Millisecond, aliceKey, devices, 200, 0},
			{0, aliceKey, devices, 200, 1},
			// A long pause refills the burst, not more.
			{time.Hour, aliceKey, devices, 200, 0},
			{0, aliceKey, devices, 200, 0},
			{0, aliceKey, devices, 200, 0},
			{0, aliceKey, devices, 200, 1},
		}},
		{"a slow rate: Retry-After in whole seconds, rounded up", 0.3, 1, []step{
			{0, aliceKey, devices, 200, 0},
			{0, aliceKey, devices, 200, 4}, // 3.33 s
			{3 * time.Second, aliceKey, devices, 200, 1},
			{time.Second, aliceKey, devices, 200, 0},
		}},
		{"a fast rate: never a Retry-After of 0", 1000, 1, []step{
			{0, aliceKey, devices, 200, 0},
			{0, aliceKey, devices, 200, 1},
			{time.Millisecond, aliceKey, devices, 200, 0},
		}},
		{"a rate of a token in centuries: Retry-After does not overflow", 1e-300, 1, []step{
			{0, aliceKey, devices, 200, 0},
			{0, aliceKey, devices, 200, 4611686019}, // 2^62 ns, rounded up
		}},
		{"unknown routes count, once authenticated", 1, 1, []step{
			{0, aliceKey, "/api/v1/nothing", 404, 0},
			{0, aliceKey, devices, 200, 1},
			{0, aliceKey, "/api/v1/nothing", 404, 1},
		}},
		{"no key and wrong keys are refused before the limit, and spend nothing", 1, 1, []step{
			{0, "", devices, 401, 0},
			{0, "wrong", devices, 401, 0},
			{0, "wrong", "/api/v1/nothing", 401, 0},
			{0, aliceKey, devices, 200, 0},
			{0, "wrong", devices, 401, 0},
			{0, aliceKey, devices, 200, 1},
		}},
		{"routes without a key are not limited", 1, 1, []step{
			{0, aliceKey, devices, 200, 0},
			{0, aliceKey, "/healthz", 200, 0},
			{0, aliceKey, "/readyz", 200, 0},
			{0, aliceKey, "/api/v1/openapi.json", 200, 0},
			{0, aliceKey, devices, 200, 1},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, c, _ := rateEnv(t, tc.perSecond, tc.burst)
			for i, s := range tc.steps {
				c.advance(s.advance)
				r := e.do("GET", s.path, s.key, nil)
				if s.limited > 0 {
					wantRateLimited(t, r, s.limited)
					continue
				}
				if r.status != s.status {
					t.Fatalf("step %d (%s %s): %d %s, want %d", i, s.key, s.path, r.status, r.raw, s.status)
				}
			}
		})
	}
}

// A create past the limit stores nothing, and the same create once the
// bucket has refilled is taken.
func TestRateLimitedCreateStoresNothing(t *testing.T) {
	e, c, _ := rateEnv(t, 0.5, 1)
	e.create(aliceKey, jobBody(bell, 1))
	wantRateLimited(t, e.do("POST", "/api/v1/jobs", aliceKey, jobBody(bell, 1)), 2)
	c.advance(2 * time.Second)
	if r := e.do("GET", "/api/v1/jobs", aliceKey, nil); r.body["pagination"].(map[string]any)["total"] != float64(1) {
		t.Fatalf("a refused create stored a job: %s", r.raw)
	}
	c.advance(2 * time.Second)
	e.create(aliceKey, jobBody(bell, 1))
}

// The limiter holds a bucket per user seen lately and no more: wrong keys
// add none, and a bucket that has refilled is dropped.
func TestRateLimitMemory(t *testing.T) {
	e, c, h := rateEnv(t, 1, 2)
	for i := range 200 {
		e.do("GET", "/api/v1/devices", "wrong-"+strconv.Itoa(i), nil)
		e.do("GET", "/api/v1/nothing/"+strconv.Itoa(i), "wrong-"+strconv.Itoa(i), nil)
	}
	if n := httpadapter.RateBuckets(h); n != 0 {
		t.Fatalf("%d buckets after requests with wrong keys, want 0", n)
	}
	e.do("GET", "/api/v1/devices", aliceKey, nil)
	e.do("GET", "/api/v1/devices", bobKey, nil)
	if n := httpadapter.RateBuckets(h); n != 2 {
		t.Fatalf("%d buckets for two users, want 2", n)
	}
	// Long enough for a sweep and for both buckets to refill: bob's is
	// dropped, alice's made again by her request.
	c.advance(2 * time.Minute)
	e.do("GET", "/api/v1/devices", aliceKey, nil)
	if n := httpadapter.RateBuckets(h); n != 1 {
		t.Fatalf("%d buckets after bob went idle, want 1 (alice's)", n)
	}
}
