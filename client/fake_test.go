package client_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum/client"
)

var ctx = context.Background()

const qrn = "qbraid:qbraid:sim:qir-sv-abcd-qjob-0123456789abcdef01234567"

// seen is one request as a fake server received it.
type seen struct {
	method, path, rawPath, query string
	header                       http.Header
	body                         string
}

// fake is a server whose answers a test scripts. handle gets the number
// of the request to the same method and path, from 1.
type fake struct {
	mu    sync.Mutex
	calls map[string]int
	reqs  []seen
	srv   *httptest.Server
}

func newFake(t *testing.T, handle func(w http.ResponseWriter, r *http.Request, n int)) *fake {
	t.Helper()
	f := &fake{calls: map[string]int{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		f.mu.Lock()
		f.calls[r.Method+" "+r.URL.Path]++
		n := f.calls[r.Method+" "+r.URL.Path]
		f.reqs = append(f.reqs, seen{r.Method, r.URL.Path, r.URL.RawPath, r.URL.RawQuery, r.Header.Clone(), string(body)})
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

func (f *fake) requests() []seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seen(nil), f.reqs...)
}

// newClient is a client of url whose retries wait a millisecond or so.
func newClient(t *testing.T, url string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(url, "test-key", append([]client.Option{client.WithRetryWait(time.Millisecond, 5*time.Millisecond)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func jobJSON(status string) string {
	return fmt.Sprintf(`{"name":"","shots":10,"deviceQrn":"qbraid:qbraid:sim:qir-sv","tags":{"n":3,"f":1.5},"runtimeOptions":{},"jobQrn":%q,`+
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

// hangUp closes the connection without an answer.
func hangUp(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		conn.Close()
	}
}

// sse starts an event stream and writes events, given as "id status"
// pairs, each a job event; the stream ends when the handler returns.
func sse(w http.ResponseWriter, events ...[2]string) {
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	fmt.Fprint(w, ": hello\n\n")
	for _, ev := range events {
		fmt.Fprintf(w, "id: %s\nevent: job\ndata: %s\n\n", ev[0], jobJSON(ev[1]))
	}
	http.NewResponseController(w).Flush()
}
