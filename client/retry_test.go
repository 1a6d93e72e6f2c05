package client_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"
	"go.uber.org/zap/zaptest/observer"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/client"
)

func TestRetries(t *testing.T) {
	get := func(c *client.Client) error { _, err := c.GetJob(ctx, qrn); return err }
	create := func(c *client.Client) error { _, err := c.CreateJob(ctx, quantum.JobRequest{Shots: 1}); return err }
	createWithKey := func(c *client.Client) error {
		_, err := c.CreateJob(ctx, quantum.JobRequest{Shots: 1, IdempotencyKey: "mine"})
		return err
	}
	noAutoKey := []client.Option{client.WithoutAutoIdempotencyKey()}
	for _, tc := range []struct {
		name      string
		opts      []client.Option
		call      func(c *client.Client) error
		path      string
		answer    func(w http.ResponseWriter, n int)
		wantCalls int
		wantCode  string
	}{
		{name: "503 then success", path: "GET /api/v1/jobs/" + qrn, call: get,
			answer: failUntil(3, http.StatusServiceUnavailable, quantum.EBUSY), wantCalls: 3},
		{name: "500 on a read", path: "GET /api/v1/jobs/" + qrn, call: get,
			answer: failUntil(2, http.StatusInternalServerError, quantum.EINTERNAL), wantCalls: 2},
		{name: "a proxy's 502 on a cancel", path: "POST /api/v1/jobs/" + qrn + "/cancel",
			call:   func(c *client.Client) error { return c.CancelJob(ctx, qrn) },
			answer: proxyUntil(2, http.StatusBadGateway), wantCalls: 2},
		{name: "504 on a delete", path: "DELETE /api/v1/jobs/" + qrn,
			call:   func(c *client.Client) error { return c.DeleteJob(ctx, qrn) },
			answer: proxyUntil(3, http.StatusGatewayTimeout), wantCalls: 3},
		{name: "a create with an automatic key after a 500", path: "POST /api/v1/jobs", call: create,
			answer: failUntil(2, http.StatusInternalServerError, quantum.EINTERNAL), wantCalls: 2},
		{name: "a create with its own key after a 500", path: "POST /api/v1/jobs", call: createWithKey, opts: noAutoKey,
			answer: failUntil(3, http.StatusInternalServerError, quantum.EINTERNAL), wantCalls: 3},
		{name: "a create without a key after a 500", path: "POST /api/v1/jobs", call: create, opts: noAutoKey,
			answer: failUntil(2, http.StatusInternalServerError, quantum.EINTERNAL), wantCalls: 1, wantCode: quantum.EINTERNAL},
		{name: "a create without a key after a 503", path: "POST /api/v1/jobs", call: create, opts: noAutoKey,
			answer: failUntil(2, http.StatusServiceUnavailable, quantum.EBUSY), wantCalls: 2},
		{name: "a create without a key after a 429", path: "POST /api/v1/jobs", call: create, opts: noAutoKey,
			answer: failUntil(2, http.StatusTooManyRequests, quantum.ETOOMANYJOBS), wantCalls: 2},
		{name: "422", path: "GET /api/v1/jobs/" + qrn, call: get,
			answer: failUntil(5, http.StatusUnprocessableEntity, quantum.EVALIDATION), wantCalls: 1, wantCode: quantum.EVALIDATION},
		{name: "404", path: "GET /api/v1/jobs/" + qrn, call: get,
			answer: failUntil(5, http.StatusNotFound, quantum.ENOTFOUND), wantCalls: 1, wantCode: quantum.ENOTFOUND},
		{name: "409 on a create with a key", path: "POST /api/v1/jobs", call: create,
			answer: failUntil(5, http.StatusConflict, quantum.EINVALIDJOBSTATE), wantCalls: 1, wantCode: quantum.EINVALIDJOBSTATE},
		{name: "retries end", path: "GET /api/v1/jobs/" + qrn, opts: []client.Option{client.WithRetries(2)}, call: get,
			answer: failUntil(99, http.StatusInternalServerError, quantum.EINTERNAL), wantCalls: 3, wantCode: quantum.EINTERNAL},
		{name: "no retries", path: "GET /api/v1/jobs/" + qrn, opts: []client.Option{client.WithRetries(0)}, call: get,
			answer: failUntil(99, http.StatusServiceUnavailable, quantum.EBUSY), wantCalls: 1, wantCode: quantum.EBUSY},
		{name: "a lost connection on a read", path: "GET /api/v1/jobs/" + qrn, call: get,
			answer: hangUpUntil(3), wantCalls: 3},
		{name: "a lost connection on a create with a key", path: "POST /api/v1/jobs", call: create,
			answer: hangUpUntil(2), wantCalls: 2},
		{name: "a lost connection on a create without a key", path: "POST /api/v1/jobs", call: create, opts: noAutoKey,
			answer: hangUpUntil(2), wantCalls: 1, wantCode: quantum.EINTERNAL},
		{name: "an answer cut short on a read", path: "GET /api/v1/jobs/" + qrn, call: get,
			answer: func(w http.ResponseWriter, n int) {
				if n == 1 {
					w.Header().Set("Content-Length", "1000")
					fmt.Fprint(w, `{"success":true,"data":{`)
					return
				}
				ok(w, 200, jobJSON("QUEUED"))
			}, wantCalls: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { tc.answer(w, n) })
			err := tc.call(newClient(t, f.srv.URL, tc.opts...))
			if got := quantum.ErrorCode(err); got != tc.wantCode {
				t.Fatalf("error %v (code %q), want code %q", err, got, tc.wantCode)
			}
			if got := f.count(tc.path); got != tc.wantCalls {
				t.Fatalf("%d calls, want %d", got, tc.wantCalls)
			}
			// A retried create must be the same create: same key, same body.
			var first *seen
			for _, r := range f.requests() {
				if first == nil {
					first = &r
				} else if r.header.Get("Idempotency-Key") != first.header.Get("Idempotency-Key") || r.body != first.body {
					t.Fatalf("a retry changed the request: key %q body %s, then key %q body %s",
						first.header.Get("Idempotency-Key"), first.body, r.header.Get("Idempotency-Key"), r.body)
				}
			}
		})
	}
}

// failUntil answers an error envelope until the n-th call, then a job.
func failUntil(n, status int, code string) func(w http.ResponseWriter, call int) {
	return func(w http.ResponseWriter, call int) {
		if call < n {
			fail(w, status, code)
			return
		}
		ok(w, 200, jobJSON("QUEUED"))
	}
}

// proxyUntil answers a bare status until the n-th call, then a message.
func proxyUntil(n, status int) func(w http.ResponseWriter, call int) {
	return func(w http.ResponseWriter, call int) {
		if call < n {
			http.Error(w, "upstream trouble", status)
			return
		}
		ok(w, 200, `{"message":"m"}`)
	}
}

// hangUpUntil drops the connection until the n-th call, then answers a
// job.
func hangUpUntil(n int) func(w http.ResponseWriter, call int) {
	return func(w http.ResponseWriter, call int) {
		if call < n {
			hangUp(w)
			return
		}
		ok(w, 201, jobJSON("INITIALIZING"))
	}
}

// A dial that fails sent nothing: even a create without a key is tried
// again.
func TestFailedDialIsRetried(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { ok(w, 201, jobJSON("INITIALIZING")) })
	var dials atomic.Int32
	tr := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if dials.Add(1) == 1 {
			return nil, &net.OpError{Op: "dial", Net: network, Err: errors.New("connection refused")}
		}
		return (&net.Dialer{}).DialContext(ctx, network, addr)
	}}
	defer tr.CloseIdleConnections()
	c := newClient(t, f.srv.URL, client.WithoutAutoIdempotencyKey(), client.WithHTTPClient(&http.Client{Transport: tr}))
	if _, err := c.CreateJob(ctx, quantum.JobRequest{Shots: 1}); err != nil {
		t.Fatal(err)
	}
	if dials.Load() != 2 || f.count("POST /api/v1/jobs") != 1 {
		t.Fatalf("%d dials, %d creates; want 2 and 1", dials.Load(), f.count("POST /api/v1/jobs"))
	}
}

// The server's Retry-After is waited for, even when the client's own
// backoff is shorter.
func TestRetryAfterIsHonoured(t *testing.T) {
	var first, second time.Time
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			first = time.Now()
			w.Header().Set("Retry-After", "1")
			fail(w, http.StatusServiceUnavailable, quantum.EBUSY)
			return
		}
		second = time.Now()
		ok(w, 200, jobJSON("QUEUED"))
	})
	if _, err := newClient(t, f.srv.URL).GetJob(ctx, qrn); err != nil {
		t.Fatal(err)
	}
	if gap := second.Sub(first); gap < time.Second {
		t.Fatalf("retried after %v, before the server's Retry-After of 1s", gap)
	}
}

// A Retry-After the caller cannot or should not sit out is answered at
// once, with the server's error.
func TestRetryAfterTooLong(t *testing.T) {
	for _, tc := range []struct {
		name      string
		after     string
		wantAfter time.Duration
		deadline  time.Duration
	}{
		{"past the caller's deadline", "30", 30 * time.Second, 5 * time.Second},
		{"past a minute", "120", 2 * time.Minute, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
				w.Header().Set("Retry-After", tc.after)
				fail(w, http.StatusTooManyRequests, quantum.ETOOMANYJOBS)
			})
			c := ctx
			if tc.deadline > 0 {
				var cancel context.CancelFunc
				c, cancel = context.WithTimeout(ctx, tc.deadline)
				defer cancel()
			}
			start := time.Now()
			_, err := newClient(t, f.srv.URL).CreateJob(c, quantum.JobRequest{Shots: 1})
			var qe *quantum.Error
			if !errors.As(err, &qe) || qe.Code != quantum.ETOOMANYJOBS || qe.RetryAfter != tc.wantAfter {
				t.Fatalf("%v, want TOO_MANY_ACTIVE_JOBS with RetryAfter %v", err, tc.wantAfter)
			}
			if n := f.count("POST /api/v1/jobs"); n != 1 || time.Since(start) > 2*time.Second {
				t.Fatalf("%d calls in %v: the Retry-After was waited for", n, time.Since(start))
			}
		})
	}
}

// A context that ends during the wait between tries ends the call at
// once.
func TestCancelDuringBackoff(t *testing.T) {
	asked := make(chan struct{}, 1)
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Retry-After", "30")
		fail(w, http.StatusServiceUnavailable, quantum.EBUSY)
		asked <- struct{}{}
	})
	c, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := newClient(t, f.srv.URL).GetJob(c, qrn); done <- err }()
	<-asked
	cancel()
	select {
	case err := <-done:
		var qe *quantum.Error
		if !errors.As(err, &qe) || qe.Code != quantum.ECANCELED {
			t.Fatalf("%v, want REQUEST_CANCELLED", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the call sat out the server's Retry-After after its context ended")
	}
}

// Retries are logged at Debug, without the API key or the program.
func TestRetryLogsKeepSecrets(t *testing.T) {
	core, logs := observer.New(zapcore.DebugLevel)
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			fail(w, http.StatusServiceUnavailable, quantum.EBUSY)
			return
		}
		ok(w, 201, jobJSON("INITIALIZING"))
	})
	c := newClient(t, f.srv.URL, client.WithLogger(zap.New(core)))
	if _, err := c.CreateJob(ctx, quantum.JobRequest{Program: &quantum.Program{Format: "qasm3", Data: "SECRET-PROGRAM"}}); err != nil {
		t.Fatal(err)
	}
	if logs.Len() != 1 {
		t.Fatalf("%d log entries, want 1 for the retry", logs.Len())
	}
	for _, e := range logs.All() {
		line := fmt.Sprint(e.Message, e.ContextMap())
		if strings.Contains(line, "test-key") || strings.Contains(line, "SECRET-PROGRAM") {
			t.Fatalf("a log entry tells a secret: %s", line)
		}
	}
}
