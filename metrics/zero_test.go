package metrics_test

import (
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/metrics"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/storage"
)

// TestCountersStartAtZero: before any event, a scrape shows the failure
// counters at 0 for every label value they can take (every Store method;
// every device and class of failure), so that an alert on their rate
// reads 0, not "no data".
func TestCountersStartAtZero(t *testing.T) {
	m := metrics.New()
	svc, _ := quantumtest.NewService(t, quantum.WithObserver(m))
	m.Watch(svc)
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	got := scrape(t, srv.URL)

	want := map[string]float64{}
	store := reflect.TypeFor[storage.Store]()
	for i := range store.NumMethod() {
		want[`quantum_store_errors_total{op="`+store.Method(i).Name+`"}`] = 0
	}
	stats, err := svc.Stats(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if len(stats.Queued) == 0 {
		t.Fatal("the service has no device")
	}
	for device := range stats.Queued {
		for _, reason := range qtype.FailReasons() {
			want[`quantum_jobs_failed_total{device="`+device+`",reason="`+reason+`"}`] = 0
		}
	}
	for series, w := range want {
		if v, ok := got[series]; !ok || v != w {
			t.Errorf("%s = %v (present %v), want %v", series, v, ok, w)
		}
	}
}

// A device registered after Watch has its failure series once a job of
// it is created.
func TestLaterDeviceStartsAtZero(t *testing.T) {
	m := metrics.New()
	svc, user := quantumtest.NewService(t, quantum.WithObserver(m))
	m.Watch(svc)
	const later = "qbraid:qbraid:sim:later"
	if err := svc.RegisterDevice(quantumtest.Device(later), &quantumtest.FakeBackend{}); err != nil {
		t.Fatal(err)
	}
	job, err := svc.CreateJob(t.Context(), user, quantum.JobRequest{DeviceQRN: later, Shots: 1,
		Program: &quantum.Program{Format: "qasm2", Data: "OPENQASM 2.0;\nqreg q[1];\n"}})
	if err != nil {
		t.Fatal(err)
	}
	quantumtest.WaitForJob(t, svc, user, job.JobQRN)
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	got := scrape(t, srv.URL)
	for _, reason := range qtype.FailReasons() {
		series := `quantum_jobs_failed_total{device="` + later + `",reason="` + reason + `"}`
		if v, ok := got[series]; !ok || v != 0 {
			t.Errorf("%s = %v (present %v), want 0", series, v, ok)
		}
	}
}
