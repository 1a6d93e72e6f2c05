package metrics_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/client"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/metrics"
	"github.com/qjobs/quantum/quantumtest"
)

// scrape reads the metrics page into series → value.
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	res, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if res.StatusCode != 200 {
		body, _ := io.ReadAll(res.Body)
		t.Fatalf("GET /metrics: %d %s", res.StatusCode, body)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(res.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q", line)
		}
		out[line[:i]] = v
	}
	return out
}

const fake = "qbraid:qbraid:sim:fake"

// TestScrapeAddsUp runs jobs that complete, fail and are cancelled, and
// checks that the counters and gauges say exactly that.
func TestScrapeAddsUp(t *testing.T) {
	m := metrics.New()
	svc, _ := quantumtest.NewService(t, quantum.WithObserver(m))
	m.Watch(svc)
	backend := &quantumtest.FakeBackend{Delay: 5 * time.Millisecond}
	blocked := &quantumtest.FakeBackend{Block: true}
	started := blocked.Started()
	for qrn, b := range map[string]quantum.Backend{fake: backend, "qbraid:qbraid:sim:broken": &quantumtest.FakeBackend{Fail: "broke"}, "qbraid:qbraid:sim:blocked": blocked} {
		if err := svc.RegisterDevice(quantumtest.Device(qrn), b); err != nil {
			t.Fatal(err)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", m.Handler())
	mux.Handle("/", httpadapter.New(svc, httpadapter.WithObserver(m)))
	srv := httptest.NewServer(mux)
	defer srv.Close()
	api, err := client.New(srv.URL, quantumtest.APIKey)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	run := func(device string) string {
		t.Helper()
		j, err := api.CreateJob(ctx, quantum.JobRequest{DeviceQRN: device, Shots: 10,
			Program: &quantum.Program{Format: "qasm2", Data: "OPENQASM 2.0;\nqreg q[1];\n"}})
		if err != nil {
			t.Fatal(err)
		}
		return j.JobQRN
	}
	for range 3 {
		if j, err := api.Wait(ctx, run(fake)); err != nil || j.Status != quantum.StatusCompleted {
			t.Fatalf("%v %v", j, err)
		}
	}
	if j, err := api.Wait(ctx, run("qbraid:qbraid:sim:broken")); err != nil || j.Status != quantum.StatusFailed {
		t.Fatalf("%v %v", j, err)
	}
	running := run("qbraid:qbraid:sim:blocked")
	<-started

	stats, err := svc.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	expect(t, srv.URL+"/metrics", map[string]float64{
		`quantum_jobs_created_total{device="` + fake + `"}`:                                   3,
		`quantum_jobs_created_total{device="qbraid:qbraid:sim:broken"}`:                       1,
		`quantum_jobs_ended_total{device="` + fake + `",status="COMPLETED"}`:                  3,
		`quantum_jobs_ended_total{device="qbraid:qbraid:sim:broken",status="FAILED"}`:         1,
		`quantum_jobs_failed_total{device="qbraid:qbraid:sim:broken",reason="backend"}`:       1,
		`quantum_job_execution_seconds_count{device="` + fake + `"}`:                          3,
		`quantum_job_queue_wait_seconds_count{device="` + fake + `"}`:                         3,
		`quantum_jobs_running{device="qbraid:qbraid:sim:blocked"}`:                            1,
		`quantum_jobs_running{device="` + fake + `"}`:                                         0,
		`quantum_jobs_queued{device="` + fake + `"}`:                                          0,
		`quantum_http_requests_total{route="POST /api/v1/jobs",status="201"}`:                 5,
		`quantum_http_requests_total{route="GET /api/v1/jobs/{job_qrn}/events",status="200"}`: 4,
		`quantum_event_streams`:                      0,
		`quantum_stats_up`:                           1,
		`quantum_memory_budget_bytes`:                float64(quantumtest.MemoryBudget),
		`quantum_store_errors_total{op="UpdateJob"}`: 0,
		`quantum_jobs_ended_total{device="qbraid:qbraid:sim:blocked",status="CANCELLED"}`:      -1,
		`quantum_http_requests_total{route="GET /api/v1/jobs/{job_qrn}/events",status="404"}`:  -1,
		`quantum_store_call_seconds_count{op="CreateJob"}`:                                     5,
		`quantum_jobs_ended_total{device="` + fake + `",status="FAILED"}`:                      -1,
		`quantum_jobs_failed_total{device="` + fake + `",reason="backend"}`:                    0,
		`quantum_http_requests_total{route="GET /api/v1/jobs/{job_qrn}",status="200"}`:         -1,
		`quantum_http_requests_total{route="unmatched",status="404"}`:                          -1,
		`quantum_http_requests_total{route="GET /api/v1/jobs/{job_qrn}/result",status="200"}`:  -1,
		`quantum_http_requests_total{route="POST /api/v1/jobs/{job_qrn}/cancel",status="202"}`: -1,
		`quantum_jobs_ended_total{device="qbraid:qbraid:sim:broken",status="COMPLETED"}`:       -1,
		`quantum_job_execution_seconds_count{device="qbraid:qbraid:sim:blocked"}`:              -1,
		`quantum_memory_in_use_bytes`: 0,
		`quantum_workers`:             float64(stats.Workers),
	})

	// The cancel: the job ends CANCELLED after it ran.
	if err := api.CancelJob(ctx, running); err != nil {
		t.Fatal(err)
	}
	if j, err := api.Wait(ctx, running); err != nil || j.Status != quantum.StatusCancelled {
		t.Fatalf("%v %v", j, err)
	}
	expect(t, srv.URL+"/metrics", map[string]float64{
		`quantum_jobs_ended_total{device="qbraid:qbraid:sim:blocked",status="CANCELLED"}`:      1,
		`quantum_job_execution_seconds_count{device="qbraid:qbraid:sim:blocked"}`:              1,
		`quantum_jobs_running{device="qbraid:qbraid:sim:blocked"}`:                             0,
		`quantum_http_requests_total{route="POST /api/v1/jobs/{job_qrn}/cancel",status="202"}`: 1,
	})
}

// expect scrapes until every series has its value (-1: is absent), or
// fails after a deadline. The metrics of a job's end are recorded just
// after the store has it, and a stream's when its handler returns: a
// client may see the end a moment before they are.
func expect(t *testing.T, url string, want map[string]float64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		got := scrape(t, url)
		var wrong []string
		for series, w := range want {
			v, ok := got[series]
			switch {
			case w < 0 && ok:
				wrong = append(wrong, fmt.Sprintf("%s = %v, want no such series", series, v))
			case w >= 0 && (!ok || v != w):
				wrong = append(wrong, fmt.Sprintf("%s = %v (present %v), want %v", series, v, ok, w))
			}
		}
		if len(wrong) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after 10 s:\n%s", strings.Join(wrong, "\n"))
		}
		time.Sleep(5 * time.Millisecond)
	}
}
