package metrics_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/metrics"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/quantumtest"
)

var _ qtype.CreditObserver = (*metrics.Metrics)(nil)

// TestCreditsCounted: the credits jobs reserve and are charged, by device.
func TestCreditsCounted(t *testing.T) {
	m := metrics.New()
	svc, u := quantumtest.NewService(t, quantum.WithObserver(m), quantum.WithCredits(true))
	const paid, blocked = "qbraid:qbraid:sim:paid", "qbraid:qbraid:sim:blocked"
	for qrn, b := range map[string]*quantumtest.FakeBackend{paid: {}, blocked: {Block: true}} {
		d := quantumtest.Device(qrn)
		d.Pricing = quantum.Pricing{PerTask: 1.5, PerShot: 0.25}
		if err := svc.RegisterDevice(d, b); err != nil {
			t.Fatal(err)
		}
	}
	ctx := context.Background()
	if _, err := svc.GrantCredits(ctx, u, 100, "test"); err != nil {
		t.Fatal(err)
	}
	run := func(device string) string {
		j, err := svc.CreateJob(ctx, u, quantum.JobRequest{DeviceQRN: device, Shots: 2,
			Program: &quantum.Program{Format: "qasm2", Data: "OPENQASM 2.0;\nqreg q[1];\n"}})
		if err != nil {
			t.Fatal(err)
		}
		return j.JobQRN
	}
	for range 2 {
		quantumtest.WaitForJob(t, svc, u, run(paid))
	}
	held := run(blocked)
	quantumtest.WaitForStatus(t, svc, u, held, 10*time.Second, quantum.StatusRunning)
	if _, err := svc.CancelJob(ctx, u, held); err != nil {
		t.Fatal(err)
	}
	quantumtest.WaitForJob(t, svc, u, held)
	srv := httptest.NewServer(m.Handler())
	defer srv.Close()
	got := scrape(t, srv.URL)
	for series, want := range map[string]float64{
		`quantum_credits_reserved_total{device="` + paid + `"}`:    4,
		`quantum_credits_charged_total{device="` + paid + `"}`:     4,
		`quantum_credits_reserved_total{device="` + blocked + `"}`: 2,
		`quantum_credits_charged_total{device="` + blocked + `"}`:  0,
	} {
		if v, ok := got[series]; !ok || v != want {
			t.Errorf("%s = %v (present %v), want %v", series, v, ok, want)
		}
	}
}
