package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// client is what a user of the public API would write: plain HTTP and JSON.
type client struct {
	t    *testing.T
	base string
	key  string
}

func (c *client) call(method, path string, body any) (int, map[string]any) {
	c.t.Helper()
	status, out := c.callNoFail(method, path, body)
	if status == 0 {
		c.t.Fatalf("%s %s: no answer", method, path)
	}
	return status, out
}

// callNoFail is call for a server that may be dying: no answer is status 0.
func (c *client) callNoFail(method, path string, body any) (int, map[string]any) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, c.base+path, rd)
	req.Header.Set("X-API-KEY", c.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil
	}
	defer res.Body.Close()
	var out map[string]any
	if err := json.NewDecoder(res.Body).Decode(&out); err != nil {
		return 0, nil
	}
	return res.StatusCode, out
}

func (c *client) ok(method, path string, body any, want int) map[string]any {
	c.t.Helper()
	status, out := c.call(method, path, body)
	if status != want || out["success"] != true {
		c.t.Fatalf("%s %s: %d %v, want %d", method, path, status, out, want)
	}
	d, _ := out["data"].(map[string]any)
	return d
}

func (c *client) submit(format, program string, shots int) string {
	c.t.Helper()
	d := c.ok("POST", "/api/v1/jobs", map[string]any{
		"program":        map[string]any{"format": format, "data": program},
		"shots":          shots,
		"deviceQrn":      "qbraid:qbraid:sim:qir-sv",
		"runtimeOptions": map[string]any{"seed": 1},
	}, http.StatusCreated)
	return d["jobQrn"].(string)
}

func (c *client) wait(qrn string) map[string]any {
	c.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		job := c.ok("GET", "/api/v1/jobs/"+qrn, nil, http.StatusOK)
		switch job["status"] {
		case "COMPLETED", "FAILED", "CANCELLED":
			return job
		}
		time.Sleep(10 * time.Millisecond)
	}
	c.t.Fatalf("job %s not finished after 30s", qrn)
	return nil
}

func startServer(t *testing.T, args ...string) (string, func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan string, 1)
	errc := make(chan error, 1)
	var out bytes.Buffer
	go func() {
		errc <- run(ctx, append([]string{"-addr", "127.0.0.1:0", "-log-level", "error"}, args...), system{out: &out, ready: func(a string) { addrc <- a }})
	}()
	select {
	case addr := <-addrc:
		var once sync.Once
		var stopErr error
		stop := func() error {
			once.Do(func() {
				cancel()
				select {
				case stopErr = <-errc:
				case <-time.After(30 * time.Second):
					stopErr = fmt.Errorf("server did not stop within 30s")
				}
			})
			return stopErr
		}
		t.Cleanup(func() { _ = stop() })
		return "http://" + addr, stop
	case err := <-errc:
		t.Fatalf("server did not start: %v\n%s", err, out.String())
	case <-time.After(30 * time.Second):
		t.Fatal("server did not start within 30s")
	}
	return "", nil
}

func TestSession(t *testing.T) {
	base, stop := startServer(t, "-api-key", "alice", "-api-key", "bob")
	alice := &client{t: t, base: base, key: "alice"}
	bob := &client{t: t, base: base, key: "bob"}

	_, devices := alice.call("GET", "/api/v1/devices", nil)
	found := false
	for _, d := range devices["data"].([]any) {
		found = found || d.(map[string]any)["qrn"] == "qbraid:qbraid:sim:qir-sv"
	}
	if !found {
		t.Fatalf("flagship device missing from %v", devices)
	}

	qasm2 := "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[3];\ncreg c[3];\nx q[0];\nh q[2];\nmeasure q -> c;\n"
	qasm3 := "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[2] q;\nbit[2] a;\nbit[1] b;\nx q[1];\na[1] = measure q[1];\nb[0] = measure q[0];\n"
	j2 := alice.submit("qasm2", qasm2, 500)
	j3 := alice.submit("qasm3", qasm3, 300)

	for qrn, want := range map[string]struct {
		shots int
		keys  []string
	}{
		// x q[0] → bit 0 is 1 (rightmost); h q[2] → bit 2 is 0 or 1.
		j2: {500, []string{"001", "101"}},
		// Registers concatenate with the first declared rightmost: b then a, key "b a1 a0" = "0" + "10".
		j3: {300, []string{"010"}},
	} {
		job := alice.wait(qrn)
		if job["status"] != "COMPLETED" {
			t.Fatalf("%s: %v %v", qrn, job["status"], job["statusMsg"])
		}
		res := alice.ok("GET", "/api/v1/jobs/"+qrn+"/result", nil, http.StatusOK)
		counts := res["resultData"].(map[string]any)["measurementCounts"].(map[string]any)
		total := 0
		for k, v := range counts {
			if !containsString(want.keys, k) {
				t.Errorf("%s: outcome %q, want one of %v", qrn, k, want.keys)
			}
			total += int(v.(float64))
		}
		if total != want.shots {
			t.Errorf("%s: counts add to %d, want %d", qrn, total, want.shots)
		}
	}

	// A long job, cancelled while it runs or waits (rx: not Clifford, on
	// the state vector).
	long := "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[20] q;\nbit c;\nfor int i in [0:19] { rx(0.5) q[i]; }\nc = measure q[0];\nreset q[0];\nrx(0.5) q[0];\n"
	jl := alice.submit("qasm3", long, 1000000)
	d := alice.ok("POST", "/api/v1/jobs/"+jl+"/cancel", nil, http.StatusAccepted)
	if d["status"] != "CANCELLING" {
		t.Fatalf("cancel answered %v", d)
	}
	if job := alice.wait(jl); job["status"] != "CANCELLED" {
		t.Fatalf("cancelled job ended %v", job["status"])
	}

	// An unfinished job for the bulk delete: bob's cannot be touched.
	unfinished := alice.submit("qasm3", long, 1000000)
	foreign := bob.submit("qasm2", qasm2, 10)
	bob.wait(foreign)
	alice.ok("DELETE", "/api/v1/jobs/"+j3, nil, http.StatusOK)
	unknown := "qbraid:qbraid:sim:qir-sv-0000-qjob-000000000000000000000000"
	qrns, _ := json.Marshal([]string{j2, foreign, unknown, unfinished})
	res := alice.ok("DELETE", "/api/v1/jobs?qrns="+url.QueryEscape(string(qrns)), nil, http.StatusOK)
	if fmt.Sprint(res["successfulIds"]) != fmt.Sprint([]any{j2}) {
		t.Errorf("successfulIds %v", res["successfulIds"])
	}
	failed := res["failedIds"].(map[string]any)
	if failed[foreign] != "Permission denied" || failed[unknown] != "Job not found" || failed[unfinished] != "Job is not in a final state" {
		t.Errorf("failedIds %v", failed)
	}
	status, _ := alice.call("GET", "/api/v1/jobs/"+unfinished, nil)
	if status != http.StatusOK {
		t.Errorf("unfinished job gone after a refused delete: %d", status)
	}
	alice.ok("POST", "/api/v1/jobs/"+unfinished+"/cancel", nil, http.StatusAccepted)

	if err := stop(); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestFlags(t *testing.T) {
	for _, args := range [][]string{{"-store", "sqlite"}, {"-workers", "0"}, {"extra"}, {"-log-level", "loud"},
		{"-memory-budget", "lots"}, {"-memory-budget", "0"}, {"-memory-budget", "99999999999GiB"}, {"-max-active-jobs", "0"},
		{"-max-body", "0"}, {"-max-body", "-1MiB"}, {"-max-body", "lots"},
		{"-max-connections", "0"}, {"-max-connections", "-5"}, {"-max-connections", "many"},
		{"-rate-limit", "-1"}, {"-rate-limit", "NaN"}, {"-rate-limit", "+Inf"}, {"-rate-limit", "fast"},
		{"-rate-burst", "0", "-rate-limit", "5"}, {"-rate-burst", "-1", "-rate-limit", "5"}, {"-rate-burst", "3"},
		{"-fair-share", "0"}, {"-fair-share", "1.5"}, {"-fair-share", "half"}} {
		err := run(context.Background(), args, system{out: io.Discard})
		if err == nil || !strings.Contains(err.Error(), strings.TrimPrefix(args[0], "-")) && args[0] != "extra" {
			t.Errorf("run(%v) = %v", args, err)
		}
	}
}

// -h prints the usage, with each flag's argument named and the memory
// budget's default explained, and is no error (exit 0).
func TestHelp(t *testing.T) {
	for _, arg := range []string{"-h", "-help", "--help"} {
		var out bytes.Buffer
		if err := run(context.Background(), []string{arg}, system{out: &out}); err != nil {
			t.Fatalf("run(%s) = %v, want nil", arg, err)
		}
		for _, want := range []string{"usage: server [flags]", "-api-keys-file FILE\n", "-api-key KEY\n", "-memory-budget SIZE\n",
			"cgroup", "GOMEMLIMIT", "QUANTUM_API_KEYS", "QUANTUM_POSTGRES_DSN", "-credits N\n", `"key user credits"`,
			"-max-body SIZE\n", "413 PAYLOAD_TOO_LARGE", "(default 4MiB)",
			"-max-connections N\n", "503 SERVICE_BUSY", "(default 1024)",
			"-rate-limit N\n", "429 RATE_LIMITED", "(default: no limit)", "-rate-burst N\n", "(default: twice -rate-limit, at least 1)", "-fair-share SHARE\n"} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("run(%s) printed no %q:\n%s", arg, want, out.String())
			}
		}
	}
}

func TestByteFlag(t *testing.T) {
	for in, want := range map[string]int64{"4096": 4096, "4097": 4097, "1536KiB": 1536 << 10, "64KiB": 64 << 10, "512MiB": 512 << 20, "8GiB": 8 << 30, "1TiB": 1 << 40, "100B": 100} {
		var b byteFlag
		if err := b.Set(in); err != nil || int64(b) != want {
			t.Errorf("Set(%q) = %d, %v; want %d", in, b, err, want)
		}
		// What -h shows reads back as the same size.
		var again byteFlag
		if err := again.Set(b.String()); err != nil || again != b {
			t.Errorf("Set(%q) after String = %d, %v; want %d", b.String(), again, err, b)
		}
	}
}

// With the badger store, jobs and their results outlive the server.
func TestBadgerStoreSurvivesRestart(t *testing.T) {
	dir := t.TempDir()
	base, stop := startServer(t, "-store", "badger", "-data", dir, "-api-key", "alice")
	alice := &client{t: t, base: base, key: "alice"}
	qrn := alice.submit("qasm2", "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[1];\ncreg c[1];\nx q[0];\nmeasure q -> c;\n", 50)
	alice.wait(qrn)
	if err := stop(); err != nil {
		t.Fatal(err)
	}

	base, _ = startServer(t, "-store", "badger", "-data", dir, "-api-key", "alice")
	alice = &client{t: t, base: base, key: "alice"}
	res := alice.ok("GET", "/api/v1/jobs/"+qrn+"/result", nil, http.StatusOK)
	counts := res["resultData"].(map[string]any)["measurementCounts"].(map[string]any)
	if counts["1"] != 50.0 || len(counts) != 1 {
		t.Fatalf("result after restart: %v", counts)
	}
}
