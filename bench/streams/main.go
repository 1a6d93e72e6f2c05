// Command streams measures what open job event streams cost a server, from
// outside it: it opens -n streams of all of a user's jobs
// (GET /api/v1/jobs/events) to a running server, reads the server's own
// /metrics (go_goroutines, go_memstats_heap_inuse_bytes) before and with
// them open, then submits one job and times how long its end takes to
// reach every stream. Run the server in another process, so that the
// figures are the server's alone:
//
//	go run ./examples/server -addr 127.0.0.1:18090 -api-key bench-key &
//	cd bench && go run ./streams -url http://127.0.0.1:18090 -key bench-key -n 1000
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

func main() {
	url := flag.String("url", "http://127.0.0.1:18090", "the server")
	key := flag.String("key", "", "an API key of the server")
	n := flag.Int("n", 1000, "how many streams")
	flag.Parse()
	if err := run(*url, *key, *n); err != nil {
		fmt.Fprintln(os.Stderr, "streams:", err)
		os.Exit(1)
	}
}

func run(base, key string, n int) error {
	tr := &http.Transport{MaxIdleConnsPerHost: -1, MaxConnsPerHost: 0}
	client := &http.Client{Transport: tr}
	before, err := serverStats(client, base)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	type stream struct {
		rd   *bufio.Reader
		body io.Closer
	}
	streams := make([]stream, n)
	for i := range streams {
		req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/jobs/events?status=COMPLETED", nil)
		req.Header.Set("X-API-KEY", key)
		res, err := client.Do(req)
		if err != nil {
			return fmt.Errorf("stream %d: %w", i, err)
		}
		if res.StatusCode != 200 {
			return fmt.Errorf("stream %d: %s", i, res.Status)
		}
		rd := bufio.NewReader(res.Body)
		if _, err := rd.ReadString('\n'); err != nil { // "retry: 1000": the stream is open
			return fmt.Errorf("stream %d: %w", i, err)
		}
		streams[i] = stream{rd, res.Body}
	}
	runtime.GC()
	open, err := serverStats(client, base)
	if err != nil {
		return err
	}
	fmt.Printf("%d open streams: server goroutines %d → %d (%.2f per stream), heap in use %.1f → %.1f MiB (%.1f KiB per stream)\n",
		n, int(before.goroutines), int(open.goroutines), (open.goroutines-before.goroutines)/float64(n),
		before.heap/(1<<20), open.heap/(1<<20), (open.heap-before.heap)/float64(n)/1024)

	// One job's end, to every stream.
	var wg sync.WaitGroup
	arrived := make([]time.Duration, n)
	start := time.Now()
	for i, s := range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				line, err := s.rd.ReadString('\n')
				if err != nil {
					return
				}
				if strings.HasPrefix(line, "data: ") && strings.Contains(line, `"status":"COMPLETED"`) {
					arrived[i] = time.Since(start)
					return
				}
			}
		}()
	}
	body, _ := json.Marshal(map[string]any{"deviceQrn": "qbraid:qbraid:sim:qir-sv", "shots": 100,
		"program": map[string]string{"format": "qasm3", "data": "OPENQASM 3.0; qubit q; bit c; h q; c = measure q;"}})
	req, _ := http.NewRequest("POST", base+"/api/v1/jobs", bytes.NewReader(body))
	req.Header.Set("X-API-KEY", key)
	req.Header.Set("Content-Type", "application/json")
	res, err := client.Do(req)
	if err != nil {
		return err
	}
	res.Body.Close()
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		return errors.New("the job's end did not reach every stream within 30 s")
	}
	slices.Sort(arrived)
	fmt.Printf("one job, create to its COMPLETED event on every stream: first %v, median %v, last %v\n",
		arrived[0].Round(time.Microsecond), arrived[n/2].Round(time.Microsecond), arrived[n-1].Round(time.Microsecond))
	for _, s := range streams {
		s.body.Close()
	}
	cancel()
	tr.CloseIdleConnections()
	deadline := time.Now().Add(10 * time.Second)
	for {
		after, err := serverStats(&http.Client{}, base)
		if err != nil {
			return err
		}
		if after.goroutines <= before.goroutines+2 || time.Now().After(deadline) {
			fmt.Printf("streams closed: server goroutines %d (%d before)\n", int(after.goroutines), int(before.goroutines))
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
}

type stats struct{ goroutines, heap float64 }

// serverStats reads the server's own runtime figures from its /metrics.
func serverStats(c *http.Client, base string) (stats, error) {
	res, err := c.Get(base + "/metrics")
	if err != nil {
		return stats{}, err
	}
	defer res.Body.Close()
	var s stats
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			continue
		}
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			continue
		}
		switch name {
		case "go_goroutines":
			s.goroutines = v
		case "go_memstats_heap_inuse_bytes":
			s.heap = v
		}
	}
	if s.goroutines == 0 {
		return s, errors.New("the server's /metrics has no go_goroutines")
	}
	return s, sc.Err()
}
