package client_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/client"
)

const qrn = "qbraid:qbraid:sim:qir-sv-abcd-qjob-0123456789abcdef01234567"

// fake is a server whose answers a test scripts, counting the requests
// to each path.
type fake struct {
	mu    sync.Mutex
	calls map[string]int
	keys  []string // the Idempotency-Key of each create
	srv   *httptest.Server
}

func newFake(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int)) *fake {
	t.Helper()
	f := &fake{calls: map[string]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		f.mu.Lock()
		f.calls[r.Method+" "+r.URL.Path]++
		n := f.calls[r.Method+" "+r.URL.Path]
		if r.Method == "POST" && r.URL.Path == "/api/v1/jobs" {
			f.keys = append(f.keys, r.Header.Get("Idempotency-Key"))
		}
		f.mu.Unlock()
		handle(w, r, n)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fake) count(key string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[key]
}

func newClient(t *testing.T, url string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(url, "test-key", append([]client.Option{client.WithRetryWait(time.Millisecond, 5*time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func jobJSON(status string) string {
	return fmt.Sprintf(`{"name":"","shots":10,"deviceQrn":"qbraid:qbraid:sim:qir-sv","tags":{},"runtimeOptions":{},"jobQrn":%q,`+
		`"batchJobQrn":null,"vendor":"qbraid","provider":"qbraid","status":%q,"statusMsg":null,"experimentType":"gate_model",`+
		`"queuePosition":null,"timeStamps":{"createdAt":"2026-11-24T10:00:00.000Z","endedAt":null,"executionDuration":0},`+
		`"cost":0,"estimatedCost":0,"metadata":{}}`, qrn, status)
}

func ok(w http.ResponseWriter, status int, data string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"success":true,"data":%s}`, data)
}

func fail(w http.ResponseWriter, status int, code string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	fmt.Fprintf(w, `{"success":false,"message":"m","error":{"code":%q,"message":"m"}}`, code)
}

func TestNewChecksItsArguments(t *testing.T) {
	for _, tc := range []struct{ url, key string }{{"ftp://x", "k"}, {"http://", "k"}, {"::", "k"}, {"http://x", ""}} {
		if _, err := client.New(tc.url, tc.key); err == nil {
			t.Errorf("New(%q, %q) took them", tc.url, tc.key)
		}
	}
}

func TestRetries(t *testing.T) {
	for _, tc := range []struct {
		name      string
		opts      []client.Option
		key       string
		call      func(c *client.Client) error
		path      string
		answer    func(w http.ResponseWriter, n int)
		wantCalls int
		wantCode  string
	}{
		{
			name: "503 then success", path: "GET /api/v1/jobs/" + qrn,
			call:   func(c *client.Client) error { _, err := c.GetJob(ctx, qrn); return err },
			answer: failUntil(3, http.StatusServiceUnavailable, quantum.EBUSY, jobJSON("QUEUED")), wantCalls: 3,
		},
		{
			name: "500 on a read is retried", path: "GET /api/v1/jobs/" + qrn,
			call:   func(c *client.Client) error { _, err := c.GetJob(ctx, qrn); return err },
			answer: failUntil(2, http.StatusInternalServerError, quantum.EINTERNAL, jobJSON("QUEUED")), wantCalls: 2,
		},
		{
			name: "a create with a key is retried after a 500", path: "POST /api/v1/jobs",
			call:   func(c *client.Client) error { _, err := c.CreateJob(ctx, quantum.JobRequest{Shots: 1}); return err },
			answer: failUntil(2, http.StatusInternalServerError, quantum.EINTERNAL, jobJSON("INITIALIZING")), wantCalls: 2,
		},
		{
			name: "a create without a key is not retried after a 500", path: "POST /api/v1/jobs",
			opts:   []client.Option{client.WithoutAutoIdempotencyKey()},
			call:   func(c *client.Client) error { _, err := c.CreateJob(ctx, quantum.JobRequest{Shots: 1}); return err },
			answer: failUntil(2, http.StatusInternalServerError, quantum.EINTERNAL, jobJSON("INITIALIZING")), wantCalls: 1, wantCode: quantum.EINTERNAL,
		},
		{
			name: "a create without a key is retried after a 503", path: "POST /api/v1/jobs",
			opts:   []client.Option{client.WithoutAutoIdempotencyKey()},
			call:   func(c *client.Client) error { _, err := c.CreateJob(ctx, quantum.JobRequest{Shots: 1}); return err },
			answer: failUntil(2, http.StatusServiceUnavailable, quantum.EBUSY, jobJSON("INITIALIZING")), wantCalls: 2,
		},
		{
			name: "422 is not retried", path: "GET /api/v1/jobs/" + qrn,
			call:   func(c *client.Client) error { _, err := c.GetJob(ctx, qrn); return err },
			answer: failUntil(5, http.StatusUnprocessableEntity, quantum.EVALIDATION, ""), wantCalls: 1, wantCode: quantum.EVALIDATION,
		},
		{
			name: "retries end", path: "GET /api/v1/jobs/" + qrn, opts: []client.Option{client.WithRetries(2)},
			call:   func(c *client.Client) error { _, err := c.GetJob(ctx, qrn); return err },
			answer: failUntil(99, http.StatusBadGateway, quantum.EINTERNAL, ""), wantCalls: 3, wantCode: quantum.EINTERNAL,
		},
		{
			name: "a lost connection on a read is retried", path: "GET /api/v1/jobs/" + qrn,
			call: func(c *client.Client) error { _, err := c.GetJob(ctx, qrn); return err },
			answer: func(w http.ResponseWriter, n int) {
				if n == 1 {
					hangUp(w)
					return
				}
				ok(w, 200, jobJSON("QUEUED"))
			}, wantCalls: 2,
		},
		{
			name: "a lost connection on a create without a key is not retried", path: "POST /api/v1/jobs",
			opts: []client.Option{client.WithoutAutoIdempotencyKey()},
			call: func(c *client.Client) error { _, err := c.CreateJob(ctx, quantum.JobRequest{Shots: 1}); return err },
			answer: func(w http.ResponseWriter, n int) {
				if n == 1 {
					hangUp(w)
					return
				}
				ok(w, 201, jobJSON("INITIALIZING"))
			}, wantCalls: 1, wantCode: quantum.EINTERNAL,
		},
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
			if strings.HasPrefix(tc.path, "POST") && len(f.keys) > 1 && f.keys[0] != f.keys[1] {
				t.Fatalf("a retried create changed its key: %q then %q", f.keys[0], f.keys[1])
			}
		})
	}
}

// failUntil answers status with code until the n-th call, then data.
func failUntil(n, status int, code, data string) func(w http.ResponseWriter, call int) {
	return func(w http.ResponseWriter, call int) {
		if call < n {
			fail(w, status, code)
			return
		}
		ok(w, 200, data)
	}
}

func hangUp(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		conn.Close()
	}
}

var ctx = context.Background()

func TestRetryAfter(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		w.Header().Set("Retry-After", "30")
		fail(w, http.StatusTooManyRequests, quantum.ETOOMANYJOBS)
	})
	c := newClient(t, f.srv.URL)
	short, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	_, err := c.CreateJob(short, quantum.JobRequest{Shots: 1})
	var qe *quantum.Error
	if !errors.As(err, &qe) || qe.Code != quantum.ETOOMANYJOBS || qe.RetryAfter != 30*time.Second {
		t.Fatalf("%v, want TOO_MANY_ACTIVE_JOBS with RetryAfter 30s", err)
	}
	if n := f.count("POST /api/v1/jobs"); n != 1 {
		t.Fatalf("a Retry-After longer than the caller's deadline was waited for: %d calls", n)
	}
}

func TestAnswersThatAreNotEnvelopes(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch r.URL.Path {
		case "/api/v1/jobs/" + qrn:
			w.Header().Set("Content-Type", "text/html")
			w.WriteHeader(http.StatusBadGateway)
			fmt.Fprint(w, "<html>\x00bad gateway</html>")
		default:
			ok(w, 200, `"`+strings.Repeat("x", 9<<20)+`"`)
		}
	})
	c := newClient(t, f.srv.URL, client.WithRetries(0))
	_, err := c.GetJob(ctx, qrn)
	if quantum.ErrorCode(err) != quantum.EINTERNAL || !strings.Contains(err.Error(), "HTTP 502") || strings.Contains(err.Error(), "\x00") {
		t.Fatalf("a proxy's 502 gave %q", err)
	}
	_, err = c.GetDevice(ctx, "qbraid:qbraid:sim:qir-sv")
	if quantum.ErrorCode(err) != quantum.EINTERNAL || !strings.Contains(err.Error(), "larger than") {
		t.Fatalf("a 9 MiB answer gave %v", err)
	}
}

func TestUserAgentAndKey(t *testing.T) {
	var agent, key atomic.Value
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		agent.Store(r.Header.Get("User-Agent"))
		key.Store(r.Header.Get("X-API-KEY"))
		ok(w, 200, `{"userId":"u"}`)
	})
	if _, err := newClient(t, f.srv.URL).VerifyUser(ctx); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(agent.Load().(string), "quantum-go-client/") || key.Load() != "test-key" {
		t.Fatalf("User-Agent %q, key %q", agent.Load(), key.Load())
	}
}

// sse writes an event stream: events as "id status" pairs, then it ends
// (or hangs up when drop is set).
func sse(w http.ResponseWriter, events ...[2]string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(200)
	fmt.Fprint(w, "retry: 1000\n\n: hello\n\n")
	for _, ev := range events {
		fmt.Fprintf(w, "id: %s\nevent: job\ndata: %s\n\n", ev[0], jobJSON(ev[1]))
	}
}

func TestWaitResumesWhereTheStreamDropped(t *testing.T) {
	var lastIDs []string
	var mu sync.Mutex
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		mu.Lock()
		lastIDs = append(lastIDs, r.Header.Get("Last-Event-ID"))
		mu.Unlock()
		switch n {
		case 1:
			sse(w, [2]string{"a", "QUEUED"}, [2]string{"b", "RUNNING"}) // and the stream ends early
		case 2:
			sse(w, [2]string{"c", "COMPLETED"})
		}
	})
	j, err := newClient(t, f.srv.URL).Wait(ctx, qrn)
	if err != nil || j.Status != quantum.StatusCompleted || j.JobQRN != qrn {
		t.Fatalf("Wait: %v %v", j, err)
	}
	if fmt.Sprint(lastIDs) != "[ b]" {
		t.Fatalf("Last-Event-ID of each connection: %q, want none then b", lastIDs)
	}
}

func TestWaitAfterTheEnd(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if strings.HasSuffix(r.URL.Path, "/events") {
			if n == 1 {
				sse(w, [2]string{"a", "RUNNING"})
				return
			}
			w.WriteHeader(http.StatusNoContent) // the resume missed nothing: it ended
			return
		}
		ok(w, 200, jobJSON("FAILED"))
	})
	j, err := newClient(t, f.srv.URL).Wait(ctx, qrn)
	if err != nil || j.Status != quantum.StatusFailed {
		t.Fatalf("Wait: %v %v", j, err)
	}
}

func TestWaitPollsAServerWithoutStreams(t *testing.T) {
	for _, name := range []string{"404", "json"} {
		t.Run(name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
				switch {
				case strings.HasSuffix(r.URL.Path, "/events") && name == "404":
					fail(w, http.StatusNotFound, quantum.ENOTFOUND)
				case strings.HasSuffix(r.URL.Path, "/events"):
					ok(w, 200, jobJSON("RUNNING")) // the route is a job GET's, say
				case n < 3:
					ok(w, 200, jobJSON("RUNNING"))
				default:
					ok(w, 200, jobJSON("COMPLETED"))
				}
			})
			c := newClient(t, f.srv.URL)
			for range 2 {
				j, err := c.Wait(ctx, qrn)
				if err != nil || j.Status != quantum.StatusCompleted {
					t.Fatalf("Wait: %v %v", j, err)
				}
			}
			if n := f.count("GET /api/v1/jobs/" + qrn + "/events"); n != 1 {
				t.Fatalf("the stream was asked for %d times; once is enough to know it is missing", n)
			}
		})
	}
}

func TestWaitReturnsTheServersRefusal(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { fail(w, http.StatusForbidden, quantum.EFORBIDDEN) })
	_, err := newClient(t, f.srv.URL).Wait(ctx, qrn)
	if quantum.ErrorCode(err) != quantum.EFORBIDDEN {
		t.Fatalf("Wait: %v, want FORBIDDEN", err)
	}
	_, err = newClient(t, f.srv.URL).Wait(ctx, "statuses")
	if quantum.ErrorCode(err) != quantum.EVALIDATION || f.count("GET /api/v1/jobs/statuses/events") != 0 {
		t.Fatalf("Wait of a malformed QRN: %v", err)
	}
}

func TestWaitStopsWithItsContextAndLeavesNothing(t *testing.T) {
	release := make(chan struct{})
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sse(w, [2]string{"a", "RUNNING"})
		http.NewResponseController(w).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	c := newClient(t, f.srv.URL)
	base := runtime.NumGoroutine()
	short, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { _, err := c.Wait(short, qrn); done <- err }()
	for f.count("GET /api/v1/jobs/"+qrn+"/events") == 0 {
		time.Sleep(time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if quantum.ErrorCode(err) != quantum.ECANCELED {
			t.Fatalf("Wait: %v, want REQUEST_CANCELLED", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Wait did not return after its context ended")
	}
	f.srv.CloseClientConnections()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > base+2 { // the test server's own connection goroutines may linger briefly
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines, %d before", runtime.NumGoroutine(), base)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A stream that keeps failing does not hold Wait forever: the job's own
// answer ends it.
func TestWaitGivesUpOnABrokenStream(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		fail(w, http.StatusInternalServerError, quantum.EINTERNAL)
	})
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	_, err := newClient(t, f.srv.URL, client.WithRetries(2)).Wait(ctx, qrn)
	if quantum.ErrorCode(err) != quantum.EINTERNAL {
		t.Fatalf("Wait: %v, want the server's INTERNAL_ERROR", err)
	}
	if n := f.count("GET /api/v1/jobs/" + qrn + "/events"); n != 3 {
		t.Fatalf("the stream was tried %d times, want 3", n)
	}
}
