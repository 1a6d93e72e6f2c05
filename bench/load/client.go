package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

const bell = "OPENQASM 2.0;\ninclude \"qelib1.inc\";\nqreg q[2];\ncreg c[2];\nh q[0];\ncx q[0],q[1];\nmeasure q -> c;\n"

// load is what the clients do: jobs in all, clients at once, each job a
// Bell pair of shots, polled every poll.
type load struct {
	jobs, clients, shots int
	poll                 time.Duration
}

// outcome is one run of the clients against one server.
type outcome struct {
	latencies []time.Duration // create → result of each job that completed, sorted
	failed    int64
	requests  int64
	elapsed   time.Duration
}

func (o outcome) jobsPerSecond() float64 { return float64(len(o.latencies)) / o.elapsed.Seconds() }

// pct is the latency at p (0.5 for the median); zero without jobs.
func (o outcome) pct(p float64) time.Duration {
	if len(o.latencies) == 0 {
		return 0
	}
	return o.latencies[min(len(o.latencies)-1, int(p*float64(len(o.latencies))))]
}

// drive runs l's jobs against the server at base with key. Its
// connections are its own and closed when it returns, so that one run
// leaves nothing open on the next server.
func drive(ctx context.Context, base, key string, l load) outcome {
	tr := &http.Transport{MaxIdleConns: l.clients * 2, MaxIdleConnsPerHost: l.clients * 2}
	defer tr.CloseIdleConnections()
	d := &driver{hc: &http.Client{Transport: tr, Timeout: 30 * time.Second}, base: base, key: key, l: l}
	d.body, _ = json.Marshal(map[string]any{
		"program":   map[string]any{"format": "qasm2", "data": bell},
		"shots":     l.shots,
		"deviceQrn": "qbraid:qbraid:sim:qir-sv",
	})

	var next atomic.Int64
	var failures atomic.Int64
	latencies := make([][]time.Duration, l.clients)
	var wg sync.WaitGroup
	start := time.Now()
	for c := range l.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(l.jobs) && ctx.Err() == nil {
				t0 := time.Now()
				if err := d.oneJob(ctx); err != nil {
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
	o := outcome{latencies: slices.Concat(latencies...), failed: failures.Load(), requests: d.requests.Load(), elapsed: time.Since(start)}
	slices.Sort(o.latencies)
	return o
}

type driver struct {
	hc        *http.Client
	base, key string
	body      []byte
	l         load
	requests  atomic.Int64 // every request the clients send
}

// oneJob creates a job, polls it until it ends and reads its result,
// checking that the counts add up to the shots.
func (d *driver) oneJob(ctx context.Context) error {
	var created struct {
		Data struct {
			JobQRN string `json:"jobQrn"`
		} `json:"data"`
	}
	if err := d.call(ctx, "POST", d.base+"/api/v1/jobs", d.body, http.StatusCreated, &created); err != nil {
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
		if err := d.call(ctx, "GET", d.base+"/api/v1/jobs/"+qrn, nil, http.StatusOK, &job); err != nil {
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
			if err := d.call(ctx, "GET", d.base+"/api/v1/jobs/"+qrn+"/result", nil, http.StatusOK, &res); err != nil {
				return err
			}
			total := 0
			for _, n := range res.Data.ResultData.MeasurementCounts {
				total += n
			}
			if total != d.l.shots {
				return fmt.Errorf("%s: counts add up to %d, want %d", qrn, total, d.l.shots)
			}
			return nil
		case "FAILED", "CANCELLED":
			return fmt.Errorf("%s ended %s", qrn, job.Data.Status)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(d.l.poll):
		}
	}
}

func (d *driver) call(ctx context.Context, method, u string, body []byte, want int, out any) error {
	d.requests.Add(1)
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return err
	}
	req.Header.Set("X-API-KEY", d.key)
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	res, err := d.hc.Do(req)
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
