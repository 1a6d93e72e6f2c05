package metrics

import (
	"fmt"
	"sync"
	"testing"
	"time"
)

// TestSeriesFoundAgain counts requests and store calls from many
// goroutines at once, on series made while others are read: every event
// lands on the series of its own label values, none is lost.
func TestSeriesFoundAgain(t *testing.T) {
	m := New()
	routes := []string{"POST /api/v1/jobs", "GET /api/v1/jobs/{job_qrn}", "unmatched"}
	statuses := []int{200, 201, 404}
	ops := []string{"CreateJob", "GetJob", "UpdateJob"}
	const rounds = 200
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range rounds {
				k := (g + i) % 3
				m.Request(routes[k], statuses[k], time.Millisecond)
				m.StoreCall(ops[k], time.Microsecond, nil)
			}
		}()
	}
	wg.Wait()
	families, err := m.reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{} // name{labels} → count
	for _, f := range families {
		for _, s := range f.GetMetric() {
			key := f.GetName() + "{"
			for _, l := range s.GetLabel() {
				key += l.GetName() + "=" + l.GetValue() + ","
			}
			key += "}"
			switch f.GetName() {
			case "quantum_http_requests_total":
				got[key] = s.GetCounter().GetValue()
			case "quantum_http_request_seconds", "quantum_store_call_seconds":
				got[key] = float64(s.GetHistogram().GetSampleCount())
			}
		}
	}
	want := map[string]float64{}
	for g := range 8 {
		for i := range rounds {
			k := (g + i) % 3
			want[fmt.Sprintf("quantum_http_requests_total{route=%s,status=%d,}", routes[k], statuses[k])]++
			want[fmt.Sprintf("quantum_http_request_seconds{route=%s,}", routes[k])]++
			want[fmt.Sprintf("quantum_store_call_seconds{op=%s,}", ops[k])]++
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d series, want %d: %v", len(got), len(want), got)
	}
	for k, n := range want {
		if got[k] != n {
			t.Errorf("%s: %v, want %v", k, got[k], n)
		}
	}
}
