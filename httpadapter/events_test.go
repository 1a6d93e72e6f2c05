package httpadapter_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/internal/testenv"
	"github.com/qjobs/quantum/quantumtest"
)

type sseEvent struct {
	id, name string
	job      map[string]any
}

// stream is an open event stream.
type stream struct {
	res    *http.Response
	rd     *bufio.Reader
	cancel context.CancelFunc
	beats  int
}

// openStream opens an event stream, failing the test unless it answers
// 200 with text/event-stream.
func (e *env) openStream(path, key, lastID string) *stream {
	e.t.Helper()
	res, cancel := e.request(path, key, lastID)
	if res.StatusCode != http.StatusOK || res.Header.Get("Content-Type") != "text/event-stream" {
		body, _ := io.ReadAll(res.Body)
		cancel()
		e.t.Fatalf("GET %s: %d %s: %s", path, res.StatusCode, res.Header.Get("Content-Type"), body)
	}
	return &stream{res: res, rd: bufio.NewReader(res.Body), cancel: cancel}
}

func (e *env) request(path, key, lastID string) (*http.Response, context.CancelFunc) {
	e.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	req, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+path, nil)
	req.Header.Set("X-API-KEY", key)
	req.Header.Set("Accept", "text/event-stream")
	if lastID != "" {
		req.Header.Set("Last-Event-ID", lastID)
	}
	res, err := e.client.Do(req)
	if err != nil {
		cancel()
		e.t.Fatal(err)
	}
	return res, func() { cancel(); res.Body.Close() }
}

// next reads the next event; ok is false at the end of the stream.
func (s *stream) next(t *testing.T) (ev sseEvent, ok bool) {
	t.Helper()
	var data string
	for {
		line, err := s.rd.ReadString('\n')
		if err == io.EOF && line == "" {
			return ev, false
		}
		if err != nil {
			t.Fatalf("reading the stream: %v", err)
		}
		line = strings.TrimRight(line, "\n")
		switch {
		case line == "":
			if ev.name == "" && data == "" {
				continue // the end of a comment or of retry:
			}
			if data != "" && data != "{}" {
				if err := json.Unmarshal([]byte(data), &ev.job); err != nil {
					t.Fatalf("event data is not JSON: %q", data)
				}
			}
			return ev, true
		case strings.HasPrefix(line, ":"):
			if strings.Contains(line, "heartbeat") {
				s.beats++
			}
		case strings.HasPrefix(line, "id: "):
			ev.id = line[4:]
		case strings.HasPrefix(line, "event: "):
			ev.name = line[7:]
		case strings.HasPrefix(line, "data: "):
			data += line[6:]
		case strings.HasPrefix(line, "retry: "):
		default:
			t.Fatalf("unexpected line %q", line)
		}
	}
}

// all reads events until the stream ends.
func (s *stream) all(t *testing.T) []sseEvent {
	t.Helper()
	defer s.cancel()
	var out []sseEvent
	for {
		ev, ok := s.next(t)
		if !ok {
			return out
		}
		out = append(out, ev)
	}
}

func statuses(evs []sseEvent) []string {
	var out []string
	for _, ev := range evs {
		if ev.name == "reset" {
			out = append(out, "RESET")
			continue
		}
		out = append(out, ev.job["status"].(string))
	}
	return out
}

func TestJobEventsOrder(t *testing.T) {
	paths := map[string][]string{
		"complete": {"INITIALIZING", "QUEUED", "RUNNING", "COMPLETED"},
		"fail":     {"INITIALIZING", "QUEUED", "RUNNING", "FAILED"},
		"cancel":   {"INITIALIZING", "QUEUED", "RUNNING", "CANCELLING", "CANCELLED"},
	}
	for name, path := range paths {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			fake := &quantumtest.FakeBackend{Fail: map[bool]string{true: "the device broke"}[name == "fail"], Block: name == "cancel"}
			started := fake.Started()
			if err := e.svc.RegisterDevice(quantumtest.Device("qbraid:qbraid:sim:fake"), fake); err != nil {
				t.Fatal(err)
			}
			all := e.openStream("/api/v1/jobs/events", aliceKey, "")
			body := jobBody(bell, 10)
			body["deviceQrn"] = "qbraid:qbraid:sim:fake"
			qrn := e.create(aliceKey, body)
			one := e.openStream("/api/v1/jobs/"+qrn+"/events", aliceKey, "")
			if name == "cancel" {
				<-started
				e.do("POST", "/api/v1/jobs/"+qrn+"/cancel", aliceKey, nil)
			}
			got := one.all(t)
			st := statuses(got)
			if i := slices.Index(path, st[0]); i < 0 || !slices.Equal(st, path[i:]) {
				t.Fatalf("job stream gave %v, want a tail of %v", st, path)
			}
			final := data(t, e.do("GET", "/api/v1/jobs/"+qrn, aliceKey, nil), http.StatusOK)
			if last := got[len(got)-1].job; fmt.Sprint(last) != fmt.Sprint(final) {
				t.Errorf("the last event's job\n%v\ndiffers from GET's\n%v", last, final)
			}

			var seen []sseEvent
			for len(seen) < len(path) {
				ev, ok := all.next(t)
				if !ok {
					t.Fatal("the stream of all jobs ended")
				}
				seen = append(seen, ev)
			}
			all.cancel()
			if st := statuses(seen); !slices.Equal(st, path) {
				t.Fatalf("stream of all jobs gave %v, want %v", st, path)
			}

			// A resume from the last event misses nothing: 204 tells an
			// EventSource not to reconnect. From an earlier one: the job now.
			res, cancel := e.request("/api/v1/jobs/"+qrn+"/events", aliceKey, got[len(got)-1].id)
			cancel()
			if res.StatusCode != http.StatusNoContent {
				t.Fatalf("resume from the terminal event: %d, want 204", res.StatusCode)
			}
			if len(got) > 1 {
				again := e.openStream("/api/v1/jobs/"+qrn+"/events", aliceKey, got[0].id).all(t)
				if st := statuses(again); !slices.Equal(st, path[len(path)-1:]) {
					t.Fatalf("resume from the first event gave %v", st)
				}
			}
		})
	}
}

func TestJobEventsErrorsBeforeTheStream(t *testing.T) {
	e := newEnv(t)
	qrn := e.create(aliceKey, jobBody(bell, 10))
	other := qrn[:len(qrn)-4] + "ffff" // a job nobody has
	if other == qrn {
		other = qrn[:len(qrn)-4] + "eeee"
	}
	for _, tc := range []struct {
		path, key string
		status    int
		code      string
	}{
		{"/api/v1/jobs/" + qrn + "/events", "", 401, quantum.ENOVALIDAUTH},
		{"/api/v1/jobs/" + qrn + "/events", "wrong", 401, quantum.EINVALIDAPIKEY},
		{"/api/v1/jobs/" + qrn + "/events", bobKey, 403, quantum.EFORBIDDEN},
		{"/api/v1/jobs/" + other + "/events", aliceKey, 404, quantum.ENOTFOUND},
		{"/api/v1/jobs/not-a-qrn/events", aliceKey, 422, quantum.EVALIDATION},
		{"/api/v1/jobs/events?status=DONE", aliceKey, 422, quantum.EVALIDATION},
	} {
		r := e.do("GET", tc.path, tc.key, nil)
		wantError(t, r, tc.status, tc.code)
	}
}

func TestJobsEventsResumeAndFilter(t *testing.T) {
	e := newEnv(t)
	done := e.openStream("/api/v1/jobs/events?status=COMPLETED", aliceKey, "")
	defer done.cancel()
	all := e.openStream("/api/v1/jobs/events", aliceKey, "")
	first := e.create(aliceKey, jobBody(bell, 10))
	var last sseEvent
	for {
		ev, ok := all.next(t)
		if !ok {
			t.Fatal("stream ended")
		}
		if last = ev; ev.job["status"] == "COMPLETED" {
			break
		}
	}
	all.cancel()
	second := e.create(aliceKey, jobBody(bell, 10))
	e.waitFor(aliceKey, second)
	resumed := e.openStream("/api/v1/jobs/events", aliceKey, last.id)
	ev, _ := resumed.next(t)
	resumed.cancel()
	if ev.job["jobQrn"] != second || ev.job["status"] != "COMPLETED" {
		t.Fatalf("resume gave %v %v, want %s COMPLETED", ev.job["jobQrn"], ev.job["status"], second)
	}
	reset := e.openStream("/api/v1/jobs/events", aliceKey, "unknown.1")
	ev, _ = reset.next(t)
	reset.cancel()
	if ev.name != "reset" {
		t.Fatalf("resume from an unknown ID began with %q, want reset", ev.name)
	}
	for _, want := range []string{first, second} {
		ev, _ := done.next(t)
		if ev.job["jobQrn"] != want || ev.job["status"] != "COMPLETED" {
			t.Fatalf("COMPLETED stream gave %v %v, want %s", ev.job["jobQrn"], ev.job["status"], want)
		}
	}
}

func TestEventStreamHeartbeatAndShutdown(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	e := newEnv(t, httpadapter.WithHeartbeat(5*time.Millisecond), httpadapter.WithStreamContext(ctx))
	s := e.openStream("/api/v1/jobs/events", aliceKey, "")
	for s.beats < 3 {
		line, err := s.rd.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(line, ": heartbeat") {
			s.beats++
		}
	}
	stop()
	if evs := s.all(t); len(evs) != 0 {
		t.Fatalf("events after shutdown: %v", evs)
	}
}

func TestIdempotencyKeyOverHTTP(t *testing.T) {
	e := newEnv(t)
	post := func(key string, body map[string]any) response {
		t.Helper()
		buf, _ := json.Marshal(body)
		req, _ := http.NewRequest("POST", e.srv.URL+"/api/v1/jobs", strings.NewReader(string(buf)))
		req.Header.Set("X-API-KEY", aliceKey)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Idempotency-Key", key)
		return e.send(req)
	}
	first := data(t, post("k-1", jobBody(bell, 10)), http.StatusCreated)
	again := data(t, post("k-1", jobBody(bell, 10)), http.StatusCreated)
	if again["jobQrn"] != first["jobQrn"] {
		t.Fatalf("a retry made %v, want %v", again["jobQrn"], first["jobQrn"])
	}
	wantError(t, post("k-1", jobBody(bell, 11)), 422, quantum.EVALIDATION, "Idempotency-Key")
	wantError(t, post("two words", jobBody(bell, 10)), 422, quantum.EVALIDATION, "Idempotency-Key")
}

// goroutinesBackTo waits until the goroutine count is at most base.
func goroutinesBackTo(t *testing.T, base int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for runtime.NumGoroutine() > base {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines, want at most %d:\n%s", runtime.NumGoroutine(), base, buf[:runtime.Stack(buf, true)])
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// runningJob creates a job of alice's that runs until it is cancelled,
// and returns once it runs.
func (e *env) runningJob() string {
	e.t.Helper()
	fake := &quantumtest.FakeBackend{Block: true}
	started := fake.Started()
	if err := e.svc.RegisterDevice(quantumtest.Device("qbraid:qbraid:sim:blocked"), fake); err != nil {
		e.t.Fatal(err)
	}
	body := jobBody(bell, 10)
	body["deviceQrn"] = "qbraid:qbraid:sim:blocked"
	qrn := e.create(aliceKey, body)
	<-started
	return qrn
}

func TestDisconnectLeavesNothingBehind(t *testing.T) {
	e := newEnv(t)
	qrn := e.runningJob()
	e.srv.Client().CloseIdleConnections()
	base := runtime.NumGoroutine()
	for range 20 {
		s := e.openStream("/api/v1/jobs/"+qrn+"/events", aliceKey, "")
		if ev, _ := s.next(t); ev.job["status"] != "RUNNING" {
			t.Fatalf("first event %v", ev.job["status"])
		}
		a := e.openStream("/api/v1/jobs/events", aliceKey, "")
		s.cancel()
		a.cancel()
	}
	e.srv.Client().CloseIdleConnections()
	goroutinesBackTo(t, base)
}

// TestThousandStreams holds 1,000 streams of one job open at once, reports
// what each costs, and ends them all with one change.
func TestThousandStreams(t *testing.T) {
	if testing.Short() {
		testenv.Optional(t, "-short: opens 2,000 sockets")
	}
	e := newEnv(t)
	qrn := e.runningJob()

	const n = 1000
	tr := &http.Transport{MaxIdleConnsPerHost: -1}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	e.srv.Client().CloseIdleConnections()
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	base := runtime.NumGoroutine()

	streams := make([]*stream, n)
	for i := range streams {
		req, _ := http.NewRequest("GET", e.srv.URL+"/api/v1/jobs/"+qrn+"/events", nil)
		req.Header.Set("X-API-KEY", aliceKey)
		res, err := client.Do(req)
		if err != nil {
			t.Fatalf("stream %d: %v", i, err)
		}
		streams[i] = &stream{res: res, rd: bufio.NewReader(res.Body), cancel: func() { res.Body.Close() }}
		if ev, _ := streams[i].next(t); ev.job["status"] != "RUNNING" {
			t.Fatalf("stream %d began with %v", i, ev.job["status"])
		}
	}
	runtime.GC()
	var open runtime.MemStats
	runtime.ReadMemStats(&open)
	perStream := float64(int64(open.HeapAlloc)-int64(before.HeapAlloc)) / n
	goroutines := float64(runtime.NumGoroutine()-base) / n
	t.Logf("%d open streams: %.1f goroutines and %.1f KiB of heap per stream (server and test client together; the client's transport holds 2 of the goroutines)",
		n, goroutines, perStream/1024)

	e.do("POST", "/api/v1/jobs/"+qrn+"/cancel", aliceKey, nil)
	var wg sync.WaitGroup
	for i, s := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			evs := s.all(t)
			if st := statuses(evs); !slices.Equal(st, []string{"CANCELLING", "CANCELLED"}) && !slices.Equal(st, []string{"CANCELLED"}) {
				t.Errorf("stream %d ended with %v", i, st)
			}
		}()
	}
	wg.Wait()
	tr.CloseIdleConnections()
	e.srv.Client().CloseIdleConnections() // the cancel's connection
	goroutinesBackTo(t, base)
}

// TestStreamOutlivesTheServersTimeouts: a server's WriteTimeout bounds
// each write of a stream, not the stream (and net/http itself clears the
// ReadTimeout once a request without a body has been read).
func TestStreamOutlivesTheServersTimeouts(t *testing.T) {
	e := newEnv(t)
	srv := httptest.NewUnstartedServer(httpadapter.New(e.svc, httpadapter.WithHeartbeat(20*time.Millisecond)))
	srv.Config.ReadTimeout = 100 * time.Millisecond
	srv.Config.WriteTimeout = 100 * time.Millisecond
	srv.Start()
	t.Cleanup(srv.Close)
	e.srv = srv
	s := e.openStream("/api/v1/jobs/events", aliceKey, "")
	defer s.cancel()
	start := time.Now()
	for time.Since(start) < 500*time.Millisecond {
		if _, err := s.rd.ReadString('\n'); err != nil {
			t.Fatalf("the stream ended after %v: %v", time.Since(start), err)
		}
	}
}
