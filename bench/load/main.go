// Command load drives the job service over HTTP on loopback: concurrent
// clients each create a 2-qubit job, poll it until it is COMPLETED and read
// its result, as a client of the public API would. It reports jobs per
// second and the p50/p99 latency of create → result.
//
//	cd bench && go run ./load                      # in-process server, memory store
//	cd bench && go run ./load -jobs 20000 -clients 64
//	cd bench && go run ./load -url http://127.0.0.1:8080 -key KEY
//
// The run is bounded by -jobs and -timeout and talks only to the address
// it is given (by default a server it starts itself on 127.0.0.1).
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"runtime/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/store"
)

const bell = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n"

func main() {
	target := flag.String("url", "", "base URL of a running server (default: start one in-process on 127.0.0.1)")
	key := flag.String("key", "load-test-key", "API key")
	jobs := flag.Int("jobs", 10000, "jobs to run in all")
	clients := flag.Int("clients", 32, "concurrent clients")
	shots := flag.Int("shots", 1000, "shots per job")
	poll := flag.Duration("poll", time.Millisecond, "pause between polls of one job")
	timeout := flag.Duration("timeout", 2*time.Minute, "bound on the whole run")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the run (server and clients) to this file")
	memProfile := flag.String("memprofile", "", "write an allocation profile of the run to this file")
	flag.Parse()
	if *cpuProfile != "" || *memProfile != "" {
		stop, err := profile(*cpuProfile, *memProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer stop()
	}

	base := *target
	if base == "" {
		addr, stop, err := startServer(*key)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		defer stop()
		base = "http://" + addr
	} else if u, err := url.Parse(base); err != nil || !isLoopback(u.Hostname()) {
		fmt.Fprintln(os.Stderr, "-url must be a loopback address (127.0.0.0/8, localhost or ::1)")
		os.Exit(2)
	}

	ctx, cancel := context.WithTimeout(context.Background(), *timeout)
	defer cancel()
	tr := &http.Transport{MaxIdleConns: *clients * 2, MaxIdleConnsPerHost: *clients * 2}
	hc := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	body, _ := json.Marshal(map[string]any{
		"program":   map[string]any{"format": "qasm2", "data": bell},
		"shots":     *shots,
		"deviceQrn": "qbraid:qbraid:sim:qir-sv",
	})

	var next atomic.Int64
	var failures atomic.Int64
	latencies := make([][]time.Duration, *clients)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(*jobs) && ctx.Err() == nil {
				t0 := time.Now()
				if err := oneJob(ctx, hc, base, *key, body, *poll, *shots); err != nil {
					if failures.Add(1) <= 5 {
						fmt.Fprintln(os.Stderr, "job failed:", err)
					}
					continue
				}
				latencies[c] = append(latencies[c], time.Since(t0))
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)

	all := slices.Concat(latencies...)
	slices.Sort(all)
	if len(all) == 0 {
		fmt.Fprintln(os.Stderr, "no job completed")
		os.Exit(1)
	}
	pct := func(p float64) time.Duration { return all[min(len(all)-1, int(p*float64(len(all))))] }
	fmt.Printf("# %s, %d CPUs, %s\n", runtime.GOARCH, runtime.NumCPU(), time.Now().UTC().Format(time.DateOnly))
	fmt.Printf("jobs %d  failed %d  clients %d  shots %d  elapsed %.2fs\n", len(all), failures.Load(), *clients, *shots, elapsed.Seconds())
	fmt.Printf("throughput %.0f jobs/s  (create → poll → result)\n", float64(len(all))/elapsed.Seconds())
	fmt.Printf("latency p50 %v  p99 %v  max %v\n", pct(0.50).Round(time.Microsecond), pct(0.99).Round(time.Microsecond), all[len(all)-1].Round(time.Microsecond))
	fmt.Printf("requests %.2f a job (a create, the polls, a result)\n", float64(requests.Load())/float64(len(all)))
	if failures.Load() > 0 || ctx.Err() != nil {
		os.Exit(1)
	}
}

func oneJob(ctx context.Context, hc *http.Client, base, key string, body []byte, poll time.Duration, shots int) error {
	var created struct {
		Data struct {
			JobQRN string `json:"jobQrn"`
		} `json:"data"`
	}
	if err := call(ctx, hc, "POST", base+"/api/v1/jobs", key, body, http.StatusCreated, &created); err != nil {
		return err
	}
	qrn := created.Data.JobQRN
	for {
		var job struct {
			Data struct {
				Status    string  `json:"status"`
				StatusMsg *string `json:"statusMsg"`
			} `json:"data"`
		}
		if err := call(ctx, hc, "GET", base+"/api/v1/jobs/"+qrn, key, nil, http.StatusOK, &job); err != nil {
			return err
		}
		switch job.Data.Status {
		case "COMPLETED":
			var res struct {
				Data struct {
					ResultData struct {
						MeasurementCounts map[string]int `json:"measurementCounts"`
					} `json:"resultData"`
				} `json:"data"`
			}
			if err := call(ctx, hc, "GET", base+"/api/v1/jobs/"+qrn+"/result", key, nil, http.StatusOK, &res); err != nil {
				return err
			}
			total := 0
			for _, n := range res.Data.ResultData.MeasurementCounts {
				total += n
			}
			if total != shots {
				return fmt.Errorf("%s: counts add up to %d, want %d", qrn, total, shots)
			}
			return nil
		case "FAILED", "CANCELLED":
			return fmt.Errorf("%s ended %s", qrn, job.Data.Status)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}

// requests counts every request the clients send.
var requests atomic.Int64

func call(ctx context.Context, hc *http.Client, method, u, key string, body []byte, want int, out any) error {
	requests.Add(1)
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	req.Header.Set("X-API-KEY", key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(res.Body)
	if err != nil {
		return err
	}
	if res.StatusCode != want {
		return fmt.Errorf("%s %s: %d %s", method, u, res.StatusCode, raw)
	}
	return json.Unmarshal(raw, out)
}

func startServer(key string) (string, func(), error) {
	svc, err := quantum.New(store.NewMemory())
	if err != nil {
		return "", nil, err
	}
	if _, err := svc.AddAPIKey(key, "load"); err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := &http.Server{Handler: httpadapter.New(svc)}
	go func() {
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintln(os.Stderr, "server:", err)
		}
	}()
	return ln.Addr().String(), func() {
		_ = srv.Close()
		_ = svc.Close(context.Background())
	}, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// profile starts a CPU profile and arranges an allocation profile, both of
// the whole process (the in-process server and the clients alike); the
// returned function writes them.
func profile(cpu, mem string) (func(), error) {
	if mem != "" {
		runtime.MemProfileRate = 4096
	}
	var cpuFile *os.File
	if cpu != "" {
		f, err := os.Create(cpu)
		if err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return nil, err
		}
		cpuFile = f
	}
	return func() {
		if cpuFile != nil {
			pprof.StopCPUProfile()
			cpuFile.Close()
		}
		if mem != "" {
			if f, err := os.Create(mem); err == nil {
				_ = pprof.Lookup("allocs").WriteTo(f, 0)
				f.Close()
			}
		}
	}, nil
}
