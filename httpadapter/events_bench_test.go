package httpadapter_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/internal/latency"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/store"
)

// BenchmarkWaitLatencyOverHTTP measures, job after job, the time from the
// store's commit of a job's end to the moment an HTTP client knows it:
// reading the job's event stream, and polling GET /jobs/{qrn} every
// millisecond.
func BenchmarkWaitLatencyOverHTTP(b *testing.B) {
	for _, tc := range []struct {
		name string
		wait func(c *http.Client, base, qrn string) error
	}{
		{"SSE", waitSSE},
		{"poll-1ms", pollEveryMillisecond},
	} {
		b.Run(tc.name, func(b *testing.B) {
			clock := latency.NewCommitClock(store.NewMemory())
			svc, _ := quantumtest.NewServiceOn(b, clock)
			device := quantumtest.Device("qbraid:qbraid:sim:fake")
			if err := svc.RegisterDevice(device, &quantumtest.FakeBackend{Delay: 3 * time.Millisecond}); err != nil {
				b.Fatal(err)
			}
			srv := httptest.NewServer(httpadapter.New(svc))
			defer srv.Close()
			c := srv.Client()
			body, _ := json.Marshal(map[string]any{"program": map[string]any{"format": "qasm2", "data": bell}, "shots": 10, "deviceQrn": device.QRN})
			latency.Run(b, clock, func() string {
				res, err := do(c, "POST", srv.URL+"/api/v1/jobs", body)
				if err != nil {
					b.Fatal(err)
				}
				var created struct {
					Data quantum.Job `json:"data"`
				}
				if err := json.Unmarshal(res, &created); err != nil || created.Data.JobQRN == "" {
					b.Fatalf("create: %s", res)
				}
				return created.Data.JobQRN
			}, func(qrn string) {
				if err := tc.wait(c, srv.URL, qrn); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

func do(c *http.Client, method, url string, body []byte) ([]byte, error) {
	req, _ := http.NewRequest(method, url, bytes.NewReader(body))
	req.Header.Set("X-API-KEY", quantumtest.APIKey)
	res, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	return io.ReadAll(res.Body)
}

// waitSSE reads the job's stream until an event with a terminal status.
func waitSSE(c *http.Client, base, qrn string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/api/v1/jobs/"+qrn+"/events", nil)
	req.Header.Set("X-API-KEY", quantumtest.APIKey)
	res, err := c.Do(req)
	if err != nil {
		return err
	}
	defer res.Body.Close()
	sc := bufio.NewScanner(res.Body)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var j quantum.Job
		if err := json.Unmarshal([]byte(data), &j); err != nil {
			return err
		}
		if j.Status.IsTerminal() {
			return nil
		}
	}
	return io.ErrUnexpectedEOF
}

func pollEveryMillisecond(c *http.Client, base, qrn string) error {
	// A random phase: polls in step with the job's fixed run time would
	// all land at the same point of the millisecond.
	time.Sleep(rand.N(time.Millisecond))
	for {
		res, err := do(c, "GET", base+"/api/v1/jobs/"+qrn, nil)
		if err != nil {
			return err
		}
		var got struct {
			Data quantum.Job `json:"data"`
		}
		if err := json.Unmarshal(res, &got); err != nil {
			return err
		}
		if got.Data.Status.IsTerminal() {
			return nil
		}
		time.Sleep(time.Millisecond)
	}
}
