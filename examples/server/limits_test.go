package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// paddedBell is a Bell program of at least size bytes: a comment makes up
// the rest.
func paddedBell(size int) string {
	const bell = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n"
	return bell + "// " + strings.Repeat("x", max(size-len(bell), 0)) + "\n"
}

// -max-body sets the largest body a request may have: past it a 413
// PAYLOAD_TOO_LARGE in the error envelope naming the limit, under it the
// job is taken.
func TestMaxBody(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		program int // bytes
		want    int
		limit   int // named in the 413's message
	}{
		{"the default refuses more than 4 MiB", nil, 4<<20 + 1, http.StatusRequestEntityTooLarge, 4 << 20},
		{"the default takes a program of 3 MiB", nil, 3 << 20, http.StatusCreated, 0},
		{"a raised limit takes 5 MiB", []string{"-max-body", "8MiB"}, 5 << 20, http.StatusCreated, 0},
		{"a raised limit refuses more", []string{"-max-body", "8MiB"}, 8<<20 + 1, http.StatusRequestEntityTooLarge, 8 << 20},
		{"a lowered limit refuses 2 KiB", []string{"-max-body", "1KiB"}, 2 << 10, http.StatusRequestEntityTooLarge, 1 << 10},
		{"a lowered limit takes a small body", []string{"-max-body", "1KiB"}, 200, http.StatusCreated, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base, _ := startServer(t, append([]string{"-api-key", "alice"}, tc.args...)...)
			alice := &client{t: t, base: base, key: "alice"}
			status, out := alice.callNoFail("POST", "/api/v1/jobs", map[string]any{
				"program":   map[string]any{"format": "qasm2", "data": paddedBell(tc.program)},
				"shots":     10,
				"deviceQrn": "qbraid:qbraid:sim:qir-sv",
			})
			if status != tc.want {
				t.Fatalf("a program of %d bytes: %d %.300v, want %d", tc.program, status, out, tc.want)
			}
			if tc.want != http.StatusRequestEntityTooLarge {
				return
			}
			e, _ := out["error"].(map[string]any)
			if out["success"] != false || e["code"] != "PAYLOAD_TOO_LARGE" || e["message"] != out["message"] ||
				!strings.Contains(out["message"].(string), strconv.Itoa(tc.limit)) {
				t.Fatalf("413 answered %v, want PAYLOAD_TOO_LARGE naming %d", out, tc.limit)
			}
		})
	}
}

// conn is a raw connection to the server, answered once so that it
// surely holds one of -max-connections.
type conn struct {
	c  net.Conn
	rd *bufio.Reader
}

func holdConn(t *testing.T, base string) *conn {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	h := &conn{c: c, rd: bufio.NewReader(c)}
	if status := h.get(t, ""); status != http.StatusOK {
		t.Fatalf("a connection within -max-connections answered %d", status)
	}
	return h
}

func (h *conn) get(t *testing.T, header string) int {
	t.Helper()
	if _, err := io.WriteString(h.c, "GET /healthz HTTP/1.1\r\nHost: test\r\n"+header+"\r\n"); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(h.rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		t.Fatal(err)
	}
	return res.StatusCode
}

// close has the server close the connection, and waits until it has:
// its slot is free then.
func (h *conn) close(t *testing.T) {
	t.Helper()
	h.get(t, "Connection: close\r\n")
	if _, err := io.Copy(io.Discard, h.rd); err != nil {
		t.Fatal(err)
	}
	h.c.Close()
}

// Past -max-connections a new connection is answered 503 SERVICE_BUSY
// with Retry-After; once the connections that held the slots close, as
// many are served again.
func TestMaxConnections(t *testing.T) {
	for _, n := range []int{1, 3} {
		t.Run(strconv.Itoa(n), func(t *testing.T) {
			base, _ := startServer(t, "-api-key", "alice", "-max-connections", strconv.Itoa(n))
			hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			for round := range 2 {
				held := make([]*conn, n)
				for i := range held {
					held[i] = holdConn(t, base)
				}
				for range 5 {
					req, _ := http.NewRequest("GET", base+"/api/v1/devices", nil)
					req.Header.Set("X-API-KEY", "alice")
					res, err := hc.Do(req)
					if err != nil {
						t.Fatalf("round %d: %v", round, err)
					}
					var out map[string]any
					err = json.NewDecoder(res.Body).Decode(&out)
					res.Body.Close()
					e, _ := out["error"].(map[string]any)
					if err != nil || res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "1" ||
						out["success"] != false || e["code"] != "SERVICE_BUSY" || e["message"] != out["message"] {
						t.Fatalf("round %d, past %d connections: %d, Retry-After %q, %v (%v); want 503 SERVICE_BUSY, 1",
							round, n, res.StatusCode, res.Header.Get("Retry-After"), out, err)
					}
				}
				for _, h := range held {
					h.close(t)
				}
			}
			alice := &client{t: t, base: base, key: "alice"}
			alice.ok("GET", "/api/v1/users/verify", nil, http.StatusOK)
		})
	}
}

// -rate-burst defaults to twice -rate-limit, at least 1; given, it is
// kept.
func TestRateFlags(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		rate  float64
		burst int
	}{
		{nil, 0, 0},
		{[]string{"-rate-limit", "5"}, 5, 10},
		{[]string{"-rate-limit", "0.2"}, 0.2, 1},
		{[]string{"-rate-limit", "2.5"}, 2.5, 5},
		{[]string{"-rate-limit", "5", "-rate-burst", "1"}, 5, 1},
		{[]string{"-rate-limit", "0"}, 0, 0},
	} {
		c, err := parseFlags(tc.args, io.Discard)
		if err != nil || c.rate != tc.rate || c.burst != tc.burst {
			t.Errorf("parseFlags(%v) = rate %v, burst %d, %v; want %v, %d", tc.args, c.rate, c.burst, err, tc.rate, tc.burst)
		}
	}
}

// Past -rate-limit's burst a user's requests are 429 RATE_LIMITED with a
// Retry-After; another user's are not. The rate is so slow (one request
// in 1,000 s) that no token comes back while the test runs.
func TestRateLimit(t *testing.T) {
	base, _ := startServer(t, "-api-key", "alice", "-api-key", "bob", "-rate-limit", "0.001", "-rate-burst", "2")
	for _, key := range []string{"alice", "bob"} {
		for i := range 3 {
			req, _ := http.NewRequest("GET", base+"/api/v1/devices", nil)
			req.Header.Set("X-API-KEY", key)
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			var out map[string]any
			err = json.NewDecoder(res.Body).Decode(&out)
			res.Body.Close()
			if i < 2 {
				if res.StatusCode != http.StatusOK {
					t.Fatalf("%s's request %d of a burst of 2: %d %v", key, i+1, res.StatusCode, out)
				}
				continue
			}
			e, _ := out["error"].(map[string]any)
			retry, _ := strconv.Atoi(res.Header.Get("Retry-After"))
			if err != nil || res.StatusCode != http.StatusTooManyRequests || retry < 1 ||
				out["success"] != false || e["code"] != "RATE_LIMITED" || e["message"] != out["message"] {
				t.Fatalf("%s's request past the burst: %d, Retry-After %q, %v (%v); want 429 RATE_LIMITED",
					key, res.StatusCode, res.Header.Get("Retry-After"), out, err)
			}
		}
	}
}
