package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestVersion(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), []string{"-version"}, system{out: &out}); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "quantum server ") || !strings.Contains(out.String(), "revision") || !strings.Contains(out.String(), "go1.") {
		t.Fatalf("-version printed %q", out.String())
	}
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(body)
}

// TestOperatorEndpoints: health, readiness and metrics, on the main
// listener and with -metrics-addr on one of their own.
func TestOperatorEndpoints(t *testing.T) {
	base, _ := startServer(t, "-api-key", "k1")
	for _, path := range []string{"/healthz", "/readyz", "/metrics"} {
		if code, body := get(t, base+path); code != 200 || body == "" {
			t.Fatalf("%s: %d %s", path, code, body)
		}
	}
	c := &client{t: t, base: base, key: "k1"}
	c.wait(c.submit("qasm2", "OPENQASM 2.0;\nqreg q[1];\n", 10))
	// A job's end is counted just after the store has it: a client may
	// see it a moment before.
	wants := []string{
		`quantum_jobs_ended_total{device="qbraid:qbraid:sim:qir-sv",status="COMPLETED"} 1`,
		`quantum_http_requests_total{route="POST /api/v1/jobs",status="201"} 1`,
		`quantum_jobs_queued{device="qbraid:qbraid:sim:qir-sv"} 0`,
		"go_goroutines",
	}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		_, body := get(t, base+"/metrics")
		missing := slices.DeleteFunc(slices.Clone(wants), func(w string) bool { return strings.Contains(body, w) })
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics lacks %q", missing)
		}
	}

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	base, _ = startServer(t, "-api-key", "k1", "-metrics-addr", addr)
	if code, _ := get(t, base+"/metrics"); code != 404 {
		t.Fatalf("/metrics on the main listener with -metrics-addr: %d, want 404", code)
	}
	if code, body := get(t, "http://"+addr+"/metrics"); code != 200 || !strings.Contains(body, "quantum_workers") {
		t.Fatalf("/metrics on -metrics-addr: %d", code)
	}
}

// syncBuffer is a log destination tests read while the server writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestLogsAreJSONAndCarryNoKey: off a terminal the log is JSON, and the
// key and the program never appear in it.
func TestLogsAreJSONAndCarryNoKey(t *testing.T) {
	var logs syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	addrc, errc := make(chan string, 1), make(chan error, 1)
	go func() {
		errc <- run(ctx, []string{"-addr", "127.0.0.1:0", "-api-key", "secret-key-123", "-log-level", "debug"},
			system{out: io.Discard, log: &logs, ready: func(a string) { addrc <- a }})
	}()
	var base string
	select {
	case a := <-addrc:
		base = "http://" + a
	case err := <-errc:
		t.Fatal(err)
	case <-time.After(30 * time.Second):
		t.Fatal("server did not start")
	}
	c := &client{t: t, base: base, key: "secret-key-123"}
	qrn := c.submit("qasm2", "OPENQASM 2.0;\nqreg q[1];\n// a very private comment\n", 10)
	c.wait(qrn)
	cancel()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(logs.String()), "\n")
	if len(lines) < 3 {
		t.Fatalf("only %d log lines", len(lines))
	}
	// The job's life, line by line, by its QRN: its create, each status.
	var life []string
	for _, line := range lines {
		if strings.Contains(line, `"job":"`+qrn+`"`) {
			var v map[string]any
			_ = json.Unmarshal([]byte(line), &v)
			life = append(life, fmt.Sprint(v["msg"], " ", v["status"]))
		}
	}
	want := []string{"job status INITIALIZING", "request 201", "job status QUEUED", "job status RUNNING", "job status COMPLETED"}
	for _, w := range want {
		if !slices.Contains(life, w) {
			t.Errorf("the log lines of job %s are %q: no %q", qrn, life, w)
		}
	}
	for _, line := range lines {
		var v map[string]any
		if err := json.Unmarshal([]byte(line), &v); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		if strings.Contains(line, "secret-key-123") || strings.Contains(line, "very private") {
			t.Fatalf("the key or the program reached the log: %q", line)
		}
	}
}
