package main

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum/internal/pgtest"
	"github.com/qjobs/quantum/internal/testenv"
)

// The crash test builds the server, runs it on a store (a badger
// directory, a PostgreSQL database), kills it with SIGKILL at three
// points, restarts it on the same store, and checks that no acknowledged
// job was lost or changed.

type process struct {
	cmd  *exec.Cmd
	base string
}

func startBinary(t *testing.T, bin string, storeArgs []string) *process {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"-addr", "127.0.0.1:0", "-api-key", "crash", "-workers", "2", "-log-level", "error"}, storeArgs...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`)
	lines := bufio.NewScanner(out)
	found := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if m := addr.FindStringSubmatch(lines.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case base := <-found:
		p := &process{cmd: cmd, base: base}
		t.Cleanup(func() { p.kill() })
		return p
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatal("server did not start")
	}
	return nil
}

func (p *process) kill() {
	if p.cmd.ProcessState == nil {
		_ = p.cmd.Process.Kill() // SIGKILL: no shutdown, no flush
		_ = p.cmd.Wait()
	}
}

// submitted is what a client was acknowledged with a 201.
type submitted struct {
	name  string
	shots int
}

const quickBell = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n"

// slow runs once per shot on 18 qubits: seconds of work per job.
const slow = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[18] q;\nbit c;\nfor int i in [0:17] { h q[i]; }\nc = measure q[0];\nreset q[0];\nh q[0];\n"

func submit(c *client, name, format, program string, shots int) (string, bool) {
	status, out := c.callNoFail("POST", "/api/v1/jobs", map[string]any{
		"program": map[string]any{"format": format, "data": program}, "shots": shots,
		"deviceQrn": "qbraid:qbraid:sim:qir-sv", "name": name, "tags": map[string]any{"name": name},
		"runtimeOptions": map[string]any{"seed": 3},
	})
	if status != http.StatusCreated {
		return "", false
	}
	return out["data"].(map[string]any)["jobQrn"].(string), true
}

func TestMain(m *testing.M) { pgtest.Main(m) }

func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		testenv.Optional(t, "-short: builds and kills the server")
	}
	bin := filepath.Join(t.TempDir(), "server")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	t.Run("badger", func(t *testing.T) { crashRecovery(t, bin, []string{"-store", "badger", "-data", t.TempDir()}) })
	// A new process is a new node: it takes over the dead one's running
	// jobs once their leases expire, so the lease is short here.
	t.Run("postgres", func(t *testing.T) {
		crashRecovery(t, bin, []string{"-store", "postgres", "-postgres-dsn", pgtest.DSN(t), "-lease", "2s"})
	})
}

func crashRecovery(t *testing.T, bin string, storeArgs []string) {
	acked := map[string]submitted{}
	var mu sync.Mutex
	results := map[string]map[string]any{} // counts of jobs seen COMPLETED before a kill

	// 1. Kill during submission: clients keep creating jobs while it dies.
	p := startBinary(t, bin, storeArgs)
	c := &client{t: t, base: p.base, key: "crash"}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ctx.Err() == nil; i++ {
				name := fmt.Sprintf("w%d-%d", w, i)
				if qrn, ok := submit(c, name, "qasm2", quickBell, 100); ok {
					mu.Lock()
					acked[qrn] = submitted{name, 100}
					mu.Unlock()
				}
			}
		}()
	}
	waitUntil(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(acked) >= 200 })
	p.kill()
	stop()
	wg.Wait()
	p = startBinary(t, bin, storeArgs)
	c = &client{t: t, base: p.base, key: "crash"}
	checkAll(t, c, acked, results)

	// 2. Kill during execution: slow jobs running and queued.
	// slowShots keeps a job running for seconds (about 2 s a job alone on
	// Intel Xeon, less on AMD EPYC): long enough to be killed running,
	// short enough that four finish within wait's deadline after the restart
	// on the slower machine, two at a time.
	const slowShots = 500
	for i := range 4 {
		qrn, ok := submit(c, fmt.Sprintf("slow-%d", i), "qasm3", slow, slowShots)
		if !ok {
			t.Fatal("slow job refused")
		}
		acked[qrn] = submitted{fmt.Sprintf("slow-%d", i), slowShots}
	}
	waitUntil(t, func() bool {
		_, out := c.call("GET", "/api/v1/jobs?status=RUNNING", nil)
		return out["pagination"].(map[string]any)["total"].(float64) > 0
	})
	p.kill()
	p = startBinary(t, bin, storeArgs)
	c = &client{t: t, base: p.base, key: "crash"}
	checkAll(t, c, acked, results)

	// 3. Kill during deletion: deleters run while it dies.
	deleted := map[string]bool{}
	var inFlight sync.Map
	ctx, stop = context.WithCancel(context.Background())
	queue := make(chan string)
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for qrn := range queue {
				inFlight.Store(qrn, true)
				status, _ := c.callNoFail("DELETE", "/api/v1/jobs/"+qrn, nil)
				if status == http.StatusOK {
					mu.Lock()
					deleted[qrn] = true
					mu.Unlock()
					inFlight.Delete(qrn)
				}
			}
		}()
	}
	go func() {
		for qrn := range acked {
			select {
			case queue <- qrn:
			case <-ctx.Done():
			}
			if ctx.Err() != nil {
				break
			}
		}
		close(queue)
	}()
	waitUntil(t, func() bool { mu.Lock(); defer mu.Unlock(); return len(deleted) >= 50 })
	p.kill()
	stop()
	wg.Wait()
	p = startBinary(t, bin, storeArgs)
	c = &client{t: t, base: p.base, key: "crash"}
	for qrn := range deleted {
		if status, _ := c.call("GET", "/api/v1/jobs/"+qrn, nil); status != http.StatusNotFound {
			t.Errorf("job %s came back after its delete was acknowledged: %d", qrn, status)
		}
		delete(acked, qrn)
	}
	inFlight.Range(func(k, _ any) bool { // a delete cut off by the kill may have happened or not
		if status, _ := c.call("GET", "/api/v1/jobs/"+k.(string), nil); status == http.StatusNotFound {
			delete(acked, k.(string))
		}
		return true
	})
	checkAll(t, c, acked, results)
	t.Logf("%d jobs acknowledged and kept, %d deleted, across 3 kills", len(acked), len(deleted))
}

// checkAll asserts that every acknowledged job is there, unchanged, and
// reaches a terminal state with a whole result; results seen before are
// identical.
func checkAll(t *testing.T, c *client, acked map[string]submitted, results map[string]map[string]any) {
	t.Helper()
	for qrn, want := range acked {
		job := c.wait(qrn)
		if job["name"] != want.name || job["shots"] != float64(want.shots) || job["tags"].(map[string]any)["name"] != want.name {
			t.Fatalf("job %s changed: %v", qrn, job)
		}
		if job["status"] != "COMPLETED" {
			t.Fatalf("job %s ended %v: %v", qrn, job["status"], job["statusMsg"])
		}
		res := c.ok("GET", "/api/v1/jobs/"+qrn+"/result", nil, http.StatusOK)
		counts := res["resultData"].(map[string]any)["measurementCounts"].(map[string]any)
		total := 0.0
		for _, n := range counts {
			total += n.(float64)
		}
		if total != float64(want.shots) {
			t.Fatalf("job %s: counts add up to %v, want %d", qrn, total, want.shots)
		}
		if before, ok := results[qrn]; ok && !maps.Equal(before, counts) {
			t.Fatalf("job %s: result changed across a crash: %v, then %v", qrn, before, counts)
		}
		results[qrn] = counts
	}
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 60s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
