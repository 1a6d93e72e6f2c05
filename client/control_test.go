package client_test

import (
	"context"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/client"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/quantumtest"
)

const testControlKey = "control-key-0123456789abcdef"

// The Go client of the control API against a real server: every call,
// and its errors as quantum.Errors with their codes.
func TestControl(t *testing.T) {
	svc, _ := quantumtest.NewService(t, quantum.WithCredits(true))
	fake := quantumtest.Device("qbraid:qbraid:sim:fake")
	if err := svc.RegisterDevice(fake, &quantumtest.FakeBackend{}); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpadapter.New(svc, httpadapter.WithControlKey(testControlKey)))
	t.Cleanup(srv.Close)
	ctx := context.Background()
	ctl, err := client.NewControl(srv.URL+"/api/v1", testControlKey, client.WithRetries(0))
	if err != nil {
		t.Fatal(err)
	}

	d, err := ctl.UpdateDevice(ctx, fake.QRN, client.DeviceChange{Status: quantum.DeviceOffline,
		StatusMsg: client.Set("maintenance"), AvgQueueTime: client.Set(60), Latency: client.Set(50 * time.Millisecond)})
	if err != nil || d.Status != quantum.DeviceOffline || d.StatusMsg == nil || *d.StatusMsg != "maintenance" || *d.AvgQueueTime != 60 {
		t.Fatalf("UpdateDevice: %+v (%v)", d, err)
	}
	d, err = ctl.UpdateDevice(ctx, fake.QRN, client.DeviceChange{Status: quantum.DeviceOnline, StatusMsg: client.Null[string](), AvgQueueTime: client.Null[int]()})
	if err != nil || d.Status != quantum.DeviceOnline || d.StatusMsg != nil || d.AvgQueueTime != nil {
		t.Fatalf("UpdateDevice clearing: %+v (%v)", d, err)
	}

	u, err := ctl.AddUser(ctx, "gina-key-0123456789abcdef", "gina", 10)
	if err != nil || u.Name != "gina" || u.ID == "" {
		t.Fatalf("AddUser: %+v (%v)", u, err)
	}
	if _, err := ctl.AddUser(ctx, "gina-key-0123456789abcdef", "gina", 0); quantum.ErrorCode(err) != quantum.ECONFLICT {
		t.Fatalf("AddUser twice: %v", err)
	}
	b, err := ctl.GrantCredits(ctx, u.ID, 5)
	if err != nil || b.QbraidCredits != 15 {
		t.Fatalf("GrantCredits: %+v (%v)", b, err)
	}

	api, err := client.New(srv.URL, "gina-key-0123456789abcdef", client.WithRetries(0))
	if err != nil {
		t.Fatal(err)
	}
	req := quantum.JobRequest{DeviceQRN: fake.QRN, Shots: 10, Program: &quantum.Program{Format: "qasm3", Data: "OPENQASM 3.0;\nqubit q;\nh q;\n"}}
	if _, err := ctl.HoldDevice(ctx, fake.QRN); err != nil {
		t.Fatal(err)
	}
	if _, err := ctl.FailNextJobs(ctx, fake.QRN, 1, "injected"); err != nil {
		t.Fatal(err)
	}
	j, err := api.CreateJob(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ctl.ReleaseDevice(ctx, fake.QRN); err != nil {
		t.Fatal(err)
	}
	if j, err = api.Wait(ctx, j.JobQRN); err != nil || j.Status != quantum.StatusFailed || *j.StatusMsg != "injected" {
		t.Fatalf("a job after an injected failure: %+v (%v)", j, err)
	}
	if err := ctl.Reset(ctx); err != nil {
		t.Fatal(err)
	}
	if page, err := api.ListJobs(ctx, quantum.JobQuery{}); err != nil || page.Pagination.Total != 0 {
		t.Fatalf("jobs after Reset: %+v (%v)", page, err)
	}

	if _, err := ctl.HoldDevice(ctx, "qbraid:qbraid:sim:nosuch"); quantum.ErrorCode(err) != quantum.ENOTFOUND {
		t.Fatalf("an unknown device: %v", err)
	}
	if _, err := ctl.FailNextJobs(ctx, fake.QRN, -1, "x"); quantum.ErrorCode(err) != quantum.EVALIDATION {
		t.Fatalf("a bad count: %v", err)
	}
	wrong, _ := client.NewControl(srv.URL, "not-the-control-key-0123", client.WithRetries(0))
	if err := wrong.Reset(ctx); quantum.ErrorCode(err) != quantum.ENOVALIDAUTH {
		t.Fatalf("a wrong control key: %v", err)
	}
	if _, err := client.NewControl(srv.URL, ""); err == nil {
		t.Fatal("a Control without a key")
	}
}
