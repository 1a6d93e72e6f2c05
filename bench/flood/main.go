// Command flood measures what a flood of expensive creates does to a
// server: it starts the server binary it is given, sends -n concurrent
// creates of small programs that expand to millions of gates (compile
// bombs), and reports how they were answered and the server's peak
// resident memory (VmHWM), so that two builds can be compared:
//
//	go build -o /tmp/server-new ./examples/server
//	cd bench && go run ./flood -bin /tmp/server-new -n 50
//
// It talks only to the server it starts, on 127.0.0.1.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// bombs are programs of a few hundred bytes that expand to far more gates
// than any limit allows.
var bombs = []string{
	doubling(30),
	"OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit q;\nfor int i in [0:99999] { for int j in [0:99999] { x q; } }\n",
	"OPENQASM 3.0;\ninclude \"stdgates.inc\";\nqubit[4] q;\nfor int i in [0:99999] { h q; cx q[0], q[1]; rz(0.1) q[2]; }\nfor int i in [0:99999] { h q; cx q[0], q[1]; rz(0.1) q[2]; }\n",
}

// doubling defines gates g1..gn, each applying the one before twice: g_n
// is 2^n gates.
func doubling(n int) string {
	var b strings.Builder
	b.WriteString("OPENQASM 2.0;\ninclude \"qelib1.inc\";\ngate g0 a { h a; }\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "gate g%d a { g%d a; g%d a; }\n", i, i-1, i-1)
	}
	fmt.Fprintf(&b, "qreg q[1];\ng%d q[0];\n", n)
	return b.String()
}

func main() {
	bin := flag.String("bin", "", "server binary to start (required)")
	n := flag.Int("n", 50, "concurrent creates")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "-bin is required")
		os.Exit(2)
	}
	cmd := exec.Command(*bin, "-addr", "127.0.0.1:0", "-api-key", "flood", "-log-level", "error")
	out, err := cmd.StdoutPipe()
	if err != nil {
		fail(err)
	}
	if err := cmd.Start(); err != nil {
		fail(err)
	}
	defer func() { _ = cmd.Process.Kill(); _ = cmd.Wait() }()
	base := waitForAddress(out)
	pid := cmd.Process.Pid
	idle := status(pid, "VmRSS")

	var peakRSS int64
	stop := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		t := time.NewTicker(5 * time.Millisecond)
		defer t.Stop()
		for {
			peakRSS = max(peakRSS, status(pid, "VmRSS"))
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()

	start := time.Now()
	var mu sync.Mutex
	answers := map[string]int{}
	var slowest time.Duration
	var wg sync.WaitGroup
	for i := range *n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			t0 := time.Now()
			code := create(base, bombs[i%len(bombs)])
			mu.Lock()
			defer mu.Unlock()
			answers[code]++
			slowest = max(slowest, time.Since(t0))
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	close(stop)
	<-sampled

	codes := slices.Sorted(func(yield func(string) bool) {
		for k := range answers {
			if !yield(k) {
				return
			}
		}
	})
	fmt.Printf("%d concurrent creates of compile bombs in %v (slowest answer %v)\n", *n, elapsed.Round(time.Millisecond), slowest.Round(time.Millisecond))
	for _, c := range codes {
		fmt.Printf("  %4d × %s\n", answers[c], c)
	}
	fmt.Printf("server RSS: idle %d MiB, peak sampled %d MiB, VmHWM %d MiB\n", idle>>20, peakRSS>>20, status(pid, "VmHWM")>>20)
}

func create(base, program string) string {
	body, _ := json.Marshal(map[string]any{
		"deviceQrn": "qbraid:qbraid:sim:qir-sv", "shots": 100,
		"program": map[string]any{"format": map[bool]string{true: "qasm2", false: "qasm3"}[strings.HasPrefix(program, "OPENQASM 2")], "data": program},
	})
	req, _ := http.NewRequest("POST", base+"/api/v1/jobs", bytes.NewReader(body))
	req.Header.Set("X-API-KEY", "flood")
	req.Header.Set("Content-Type", "application/json")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return "error: " + err.Error()
	}
	defer res.Body.Close()
	var env struct {
		Error struct{ Code string } `json:"error"`
	}
	raw, _ := io.ReadAll(res.Body)
	_ = json.Unmarshal(raw, &env)
	return strconv.Itoa(res.StatusCode) + " " + env.Error.Code
}

func waitForAddress(out io.Reader) string {
	addr := regexp.MustCompile(`on (http://127\.0\.0\.1:\d+)`)
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := addr.FindStringSubmatch(sc.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case base := <-found:
		return base
	case <-time.After(time.Minute):
		fail(fmt.Errorf("the server did not start"))
	}
	return ""
}

// status reads a size field of /proc/<pid>/status in bytes.
func status(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field+":"); ok {
			f := strings.Fields(rest)
			if len(f) > 0 {
				kb, _ := strconv.ParseInt(f[0], 10, 64)
				return kb << 10
			}
		}
	}
	return 0
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "flood:", err)
	os.Exit(1)
}
