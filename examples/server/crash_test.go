package main

import (
	"bufio"
	"context"
	"fmt"
	"maps"
	"math"
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
// job was lost or changed. Credits are on, and half the jobs are paid
// (SV1, by the minute): after each restart every job ends, and each
// user's credits spent, granted less balance, are exactly the costs of
// their COMPLETED jobs: no job charged twice or left holding credits.

// crashKeys are the users' keys; each is granted crashCredits (once,
// however many restarts).
var crashKeys = []string{"crash", "crash-2"}

const crashCredits = 1_000_000

type process struct {
	cmd  *exec.Cmd
	base string
}

func startBinary(t *testing.T, bin string, storeArgs []string) *process {
	t.Helper()
	args := []string{"-addr", "127.0.0.1:0", "-workers", "2", "-log-level", "error", "-credits", fmt.Sprint(crashCredits)}
	for _, k := range crashKeys {
		args = append(args, "-api-key", k)
	}
	cmd := exec.Command(bin, append(args, storeArgs...)...)
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

// submitted is what a client was acknowledged with a 201, and whose
// key it was.
type submitted struct {
	name  string
	shots int
	key   string
}

// Devices of the crash test's jobs: free, and paid by the minute.
const (
	freeDevice = "qbraid:qbraid:sim:qir-sv"
	paidDevice = "aws:aws:sim:sv1"
)

const quickBell = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n"

// slow runs once per shot on 18 qubits of the state vector: seconds of
// work per job (rx: not Clifford, which the stabilizer would run in
// milliseconds).
const slow = "OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[18] q;\nbit c;\nfor int i in [0:17] { rx(0.5) q[i]; }\nc = measure q[0];\nreset q[0];\nrx(0.5) q[0];\n"

func submit(c *client, device, name, format, program string, shots int) (string, bool) {
	status, out := c.callNoFail("POST", "/api/v1/jobs", map[string]any{
		"program": map[string]any{"format": format, "data": program}, "shots": shots,
		"deviceQrn": device, "name": name, "tags": map[string]any{"name": name},
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
	costs := map[string]map[string]int64{} // key → job → micro-credits charged, deleted jobs included

	// 1. Kill during submission: clients keep creating jobs while it dies,
	// each user free and paid ones.
	p := startBinary(t, bin, storeArgs)
	cs := clientsOf(t, p)
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			key, device := crashKeys[w%2], []string{freeDevice, paidDevice}[w/2%2]
			for i := 0; ctx.Err() == nil; i++ {
				name := fmt.Sprintf("w%d-%d", w, i)
				if qrn, ok := submit(cs[key], device, name, "qasm2", quickBell, 100); ok {
					mu.Lock()
					acked[qrn] = submitted{name, 100, key}
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
	cs = clientsOf(t, p)
	c := cs["crash"]
	checkAll(t, cs, acked, results)
	checkCredits(t, cs, costs)

	// 2. Kill during execution: slow jobs running and queued.
	// slowShots keeps a job running for seconds (about 2 s a job alone on
	// Intel Xeon, less on AMD EPYC): long enough to be killed running,
	// short enough that four finish within wait's deadline after the restart
	// on the slower machine, two at a time.
	const slowShots = 500
	for i := range 4 {
		qrn, ok := submit(c, []string{freeDevice, paidDevice}[i%2], fmt.Sprintf("slow-%d", i), "qasm3", slow, slowShots)
		if !ok {
			t.Fatal("slow job refused")
		}
		acked[qrn] = submitted{fmt.Sprintf("slow-%d", i), slowShots, "crash"}
	}
	waitUntil(t, func() bool {
		_, out := c.call("GET", "/api/v1/jobs?status=RUNNING", nil)
		return out["pagination"].(map[string]any)["total"].(float64) > 0
	})
	p.kill()
	p = startBinary(t, bin, storeArgs)
	cs = clientsOf(t, p)
	c = cs["crash"]
	checkAll(t, cs, acked, results)
	checkCredits(t, cs, costs)

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
				status, _ := cs[acked[qrn].key].callNoFail("DELETE", "/api/v1/jobs/"+qrn, nil)
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
	cs = clientsOf(t, p)
	for qrn := range deleted {
		if status, _ := cs[acked[qrn].key].call("GET", "/api/v1/jobs/"+qrn, nil); status != http.StatusNotFound {
			t.Errorf("job %s came back after its delete was acknowledged: %d", qrn, status)
		}
		delete(acked, qrn)
	}
	inFlight.Range(func(k, _ any) bool { // a delete cut off by the kill may have happened or not
		if status, _ := cs[acked[k.(string)].key].call("GET", "/api/v1/jobs/"+k.(string), nil); status == http.StatusNotFound {
			delete(acked, k.(string))
		}
		return true
	})
	checkAll(t, cs, acked, results)
	checkCredits(t, cs, costs)
	t.Logf("%d jobs acknowledged and kept, %d deleted, across 3 kills", len(acked), len(deleted))
}

// clientsOf are the clients of every user of p.
func clientsOf(t *testing.T, p *process) map[string]*client {
	cs := map[string]*client{}
	for _, k := range crashKeys {
		cs[k] = &client{t: t, base: p.base, key: k}
	}
	return cs
}

// checkCredits waits for every job of every user to end (those created
// but never acknowledged too), notes the cost of each (costs keeps those
// of jobs deleted since), and checks that what each user spent is
// exactly the sum of their COMPLETED jobs' costs, in micro-credits.
func checkCredits(t *testing.T, cs map[string]*client, costs map[string]map[string]int64) {
	t.Helper()
	for key, c := range cs {
		if costs[key] == nil {
			costs[key] = map[string]int64{}
		}
		for _, job := range allJobs(c) {
			qrn := job["jobQrn"].(string)
			job = c.wait(qrn)
			cost := int64(math.Round(job["cost"].(float64) * 1e6))
			if job["status"] != "COMPLETED" && cost != 0 {
				t.Fatalf("job %s ended %v with cost %d micro-credits", qrn, job["status"], cost)
			}
			if before, seen := costs[key][qrn]; seen && before != cost {
				t.Fatalf("job %s: cost changed across a crash: %d, then %d micro-credits", qrn, before, cost)
			}
			costs[key][qrn] = cost
		}
		var spent int64
		for _, cost := range costs[key] {
			spent += cost
		}
		left := int64(math.Round(c.balance() * 1e6))
		if granted := int64(crashCredits * 1e6); granted-left != spent {
			t.Fatalf("user %s: granted %d, balance %d micro-credits: spent %d, but their %d jobs cost %d",
				key, granted, left, granted-left, len(costs[key]), spent)
		}
		t.Logf("user %s: %d jobs cost %d micro-credits, exactly what the balance lost", key, len(costs[key]), spent)
	}
}

// allJobs lists every job of c's user, a page at a time.
func allJobs(c *client) []map[string]any {
	c.t.Helper()
	var jobs []map[string]any
	for page := 1; ; page++ {
		_, out := c.call("GET", fmt.Sprintf("/api/v1/jobs?limit=100&page=%d", page), nil)
		for _, j := range out["data"].([]any) {
			jobs = append(jobs, j.(map[string]any))
		}
		if out["pagination"].(map[string]any)["hasNext"] != true {
			return jobs
		}
	}
}

// checkAll asserts that every acknowledged job is there, unchanged, and
// reaches a terminal state with a whole result; results seen before are
// identical.
func checkAll(t *testing.T, cs map[string]*client, acked map[string]submitted, results map[string]map[string]any) {
	t.Helper()
	for qrn, want := range acked {
		c := cs[want.key]
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
