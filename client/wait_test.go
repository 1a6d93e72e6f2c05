package client_test

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/client"
)

// getJob is the job a GET of the same JSON gives: what Wait must equal.
func getJob(t *testing.T, status string) *quantum.Job {
	t.Helper()
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { ok(w, 200, jobJSON(status)) })
	j, err := newClient(t, f.srv.URL).GetJob(ctx, qrn)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// TestWaitReadsEventStreams: the stream as the standard allows it to be
// written; Wait answers the first job event with a terminal status.
func TestWaitReadsEventStreams(t *testing.T) {
	running, done := jobJSON("RUNNING"), jobJSON("COMPLETED")
	half := strings.Index(done, `"status"`)
	for _, tc := range []struct{ name, stream string }{
		{"lf", "retry: 1000\n\nid: 1\nevent: job\ndata: " + running + "\n\nid: 2\nevent: job\ndata: " + done + "\n\n"},
		{"crlf", "id: 1\r\nevent: job\r\ndata: " + running + "\r\n\r\nid: 2\r\nevent: job\r\ndata: " + done + "\r\n\r\n"},
		{"cr", "id: 1\revent: job\rdata: " + running + "\r\rid: 2\revent: job\rdata: " + done + "\r\r"},
		{"multi-line data", "event: job\ndata: " + done[:half] + "\ndata:" + done[half:] + "\n\n"},
		{"comments, other events, a byte order mark", "\uFEFF: hi\n\n: heartbeat\n\nevent: reset\ndata: {}\n\nevent:job\ndata:" + done + "\n\n"},
		{"terminal is the first event", "id: x\nevent: job\ndata: " + done + "\n\n"},
		{"an event without a name is not a job", "data: " + done + "\n\nevent: job\ndata: " + running + "\n\nevent: job\ndata: " + done + "\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if r.Header.Get("Accept") != "text/event-stream" || r.Header.Get("Last-Event-ID") != "" {
					http.Error(w, "bad headers", http.StatusBadRequest)
					return
				}
				w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
				fmt.Fprint(w, tc.stream)
			})
			j, err := newClient(t, f.srv.URL).Wait(ctx, qrn)
			if err != nil {
				t.Fatal(err)
			}
			if want := getJob(t, "COMPLETED"); !reflect.DeepEqual(j, want) {
				t.Fatalf("Wait answered %+v, GetJob %+v", j, want)
			}
			if n := len(f.requests()); n != 1 {
				t.Fatalf("%d requests, want 1", n)
			}
		})
	}
}

// A stream that drops is opened again from the last whole event: an
// event cut off by the drop does not count.
func TestWaitResumesWhereTheStreamDropped(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch n {
		case 1:
			sse(w, [2]string{"a", "QUEUED"}, [2]string{"b", "RUNNING"})
			fmt.Fprintf(w, "id: c\nevent: job\ndata: %s", jobJSON("COMPLETED")) // no blank line: not dispatched
			http.NewResponseController(w).Flush()
			hangUp(w)
		case 2:
			fail(w, http.StatusServiceUnavailable, quantum.EBUSY) // a restart, say
		case 3:
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, "event: job\ndata: {garbled\n\n") // a broken event is a drop too
		default:
			sse(w, [2]string{"d", "COMPLETED"})
		}
	})
	j, err := newClient(t, f.srv.URL).Wait(ctx, qrn)
	if err != nil || j.Status != quantum.StatusCompleted {
		t.Fatalf("Wait: %v %v", j, err)
	}
	var ids []string
	for _, r := range f.requests() {
		ids = append(ids, r.header.Get("Last-Event-ID"))
	}
	if fmt.Sprint(ids) != "[ b b b]" {
		t.Fatalf("Last-Event-ID of each connection: %q, want none then b", ids)
	}
}

// A stream that cannot be opened for a moment (503 with Retry-After) is
// opened again once the server said.
func TestWaitHonoursRetryAfter(t *testing.T) {
	var refused time.Time
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		if n == 1 {
			refused = time.Now()
			w.Header().Set("Retry-After", "1")
			fail(w, http.StatusServiceUnavailable, quantum.EBUSY)
			return
		}
		if gap := time.Since(refused); gap < time.Second {
			fail(w, http.StatusBadRequest, "TOO_SOON")
			return
		}
		sse(w, [2]string{"a", "COMPLETED"})
	})
	if _, err := newClient(t, f.srv.URL).Wait(ctx, qrn); err != nil {
		t.Fatal(err)
	}
}

// A resume from the terminal event is answered 204: the job, read
// afresh, is the answer.
func TestWaitAfterTheEnd(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		switch {
		case !strings.HasSuffix(r.URL.Path, "/events"):
			ok(w, 200, jobJSON("FAILED"))
		case n == 1:
			sse(w, [2]string{"a", "RUNNING"})
		default:
			w.WriteHeader(http.StatusNoContent)
		}
	})
	j, err := newClient(t, f.srv.URL).Wait(ctx, qrn)
	if err != nil || !reflect.DeepEqual(j, getJob(t, "FAILED")) {
		t.Fatalf("Wait: %+v %v", j, err)
	}
}

// A server without the events route (the public service) is polled, and
// the client remembers not to ask again.
func TestWaitPollsAServerWithoutStreams(t *testing.T) {
	for _, tc := range []struct {
		name   string
		events func(w http.ResponseWriter)
	}{
		{"404", func(w http.ResponseWriter) { fail(w, http.StatusNotFound, quantum.ENOTFOUND) }},
		{"a proxy's 404", func(w http.ResponseWriter) { http.NotFound(w, nil) }},
		{"405", func(w http.ResponseWriter) { fail(w, http.StatusMethodNotAllowed, quantum.EMETHODNOTALLOWED) }},
		{"JSON", func(w http.ResponseWriter) { ok(w, 200, jobJSON("RUNNING")) }}, // a catch-all job route, say
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel() // each polls for about a second
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
				switch {
				case strings.HasSuffix(r.URL.Path, "/events"):
					tc.events(w)
				case n%3 != 0: // each Wait: RUNNING twice, then done
					ok(w, 200, jobJSON("RUNNING"))
				default:
					ok(w, 200, jobJSON("COMPLETED"))
				}
			})
			c := newClient(t, f.srv.URL)
			for range 2 {
				j, err := c.Wait(ctx, qrn)
				if err != nil || !reflect.DeepEqual(j, getJob(t, "COMPLETED")) {
					t.Fatalf("Wait: %+v %v", j, err)
				}
			}
			if n := f.count("GET /api/v1/jobs/" + qrn + "/events"); n != 1 {
				t.Fatalf("the stream was asked for %d times; once is enough to know it is missing", n)
			}
		})
	}
}

// The server's refusal before the stream is Wait's answer.
func TestWaitReturnsTheServersRefusal(t *testing.T) {
	for _, tc := range []struct {
		status int
		code   string
	}{
		{http.StatusUnauthorized, quantum.EINVALIDAPIKEY},
		{http.StatusForbidden, quantum.EFORBIDDEN},
		{http.StatusNotFound, quantum.ENOTFOUND}, // and the job's GET agrees
		{http.StatusUnprocessableEntity, quantum.EVALIDATION},
	} {
		t.Run(tc.code, func(t *testing.T) {
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) { fail(w, tc.status, tc.code) })
			_, err := newClient(t, f.srv.URL).Wait(ctx, qrn)
			if quantum.ErrorCode(err) != tc.code {
				t.Fatalf("Wait: %v, want %s", err, tc.code)
			}
		})
	}
}

// A stream that keeps failing does not hold Wait forever: the job's own
// answer ends it.
func TestWaitGivesUpOnABrokenStream(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		fail(w, http.StatusInternalServerError, quantum.EINTERNAL)
	})
	_, err := newClient(t, f.srv.URL, client.WithRetries(2)).Wait(ctx, qrn)
	if quantum.ErrorCode(err) != quantum.EINTERNAL {
		t.Fatalf("Wait: %v, want the server's INTERNAL_ERROR", err)
	}
	if n, m := f.count("GET /api/v1/jobs/"+qrn+"/events"), f.count("GET /api/v1/jobs/"+qrn); n != 3 || m != 3 {
		t.Fatalf("the stream was tried %d times and the job %d, want 3 and 3", n, m)
	}
}

// Wait ends promptly with its context, and leaves no goroutine behind,
// whether it streams or polls.
func TestWaitStopsWithItsContextAndLeavesNothing(t *testing.T) {
	for _, polls := range []bool{false, true} {
		t.Run(fmt.Sprintf("polls=%v", polls), func(t *testing.T) {
			opened := make(chan struct{}, 100)
			f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
				if strings.HasSuffix(r.URL.Path, "/events") && !polls {
					sse(w, [2]string{"a", "RUNNING"})
					opened <- struct{}{}
					<-r.Context().Done() // a stream that stays open
					return
				}
				if strings.HasSuffix(r.URL.Path, "/events") {
					fail(w, http.StatusNotFound, quantum.ENOTFOUND)
					return
				}
				ok(w, 200, jobJSON("RUNNING"))
				opened <- struct{}{}
			})
			tr := &http.Transport{}
			c := newClient(t, f.srv.URL, client.WithHTTPClient(&http.Client{Transport: tr}))
			base := runtime.NumGoroutine()
			waitCtx, cancel := context.WithCancel(ctx)
			done := make(chan error, 1)
			go func() { _, err := c.Wait(waitCtx, qrn); done <- err }()
			<-opened
			cancel()
			select {
			case err := <-done:
				if quantum.ErrorCode(err) != quantum.ECANCELED {
					t.Fatalf("Wait: %v, want REQUEST_CANCELLED", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Wait did not return after its context ended")
			}
			tr.CloseIdleConnections()
			wantGoroutines(t, base)
		})
	}
}

// A Wait that ends with its job leaves no goroutine behind either.
func TestWaitLeavesNothingWhenDone(t *testing.T) {
	f := newFake(t, func(w http.ResponseWriter, r *http.Request, n int) {
		sse(w, [2]string{"a", "RUNNING"}, [2]string{"b", "COMPLETED"})
		<-r.Context().Done() // the server would close; this one waits for the client to
	})
	tr := &http.Transport{}
	c := newClient(t, f.srv.URL, client.WithHTTPClient(&http.Client{Transport: tr}))
	base := runtime.NumGoroutine()
	if _, err := c.Wait(ctx, qrn); err != nil {
		t.Fatal(err)
	}
	tr.CloseIdleConnections()
	wantGoroutines(t, base)
}

// wantGoroutines waits for the goroutine count to come back to base: the
// test server's side of a closed connection ends a moment after it.
func wantGoroutines(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}
