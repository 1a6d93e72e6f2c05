package httpadapter_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"go.uber.org/zap"
	"go.uber.org/zap/zaptest/observer"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store"
)

func TestCancelNotSupported(t *testing.T) {
	e := newEnv(t)
	d := quantumtest.Device("qbraid:qbraid:sim:stubborn")
	if err := e.svc.RegisterDevice(d, &quantumtest.FakeBackend{Block: true, NotCancellable: true}); err != nil {
		t.Fatal(err)
	}
	body := jobBody(bell, 1)
	body["deviceQrn"] = d.QRN
	qrn := data(t, e.do("POST", "/api/v1/jobs", aliceKey, body), http.StatusCreated)["jobQrn"].(string)
	wantError(t, e.do("POST", "/api/v1/jobs/"+qrn+"/cancel", aliceKey, nil), http.StatusBadRequest, quantum.ECANCELNOTSUPPORTED)
}

type brokenStore struct{ storage.Store }

func (brokenStore) GetJob(context.Context, string) (*storage.JobRecord, error) {
	return nil, errors.New("disk at /srv/secret is gone")
}

func TestInternalErrorAndLogs(t *testing.T) {
	core, logs := observer.New(zap.InfoLevel)
	svc, err := quantum.New(brokenStore{store.NewMemory()}, quantum.WithLogger(zap.New(core)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	if _, err := svc.AddAPIKey(aliceKey, "alice"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpadapter.New(svc, httpadapter.WithLogger(zap.New(core))))
	t.Cleanup(srv.Close)
	e := envOn(t, svc, srv)

	r := e.do("GET", "/api/v1/jobs/"+device+"-abcd-qjob-0123456789abcdef01234567", aliceKey, nil)
	wantError(t, r, http.StatusInternalServerError, quantum.EINTERNAL)
	if strings.Contains(r.raw, "secret") {
		t.Fatalf("500 echoes internals: %s", r.raw)
	}

	var sawRequest bool
	for _, entry := range logs.All() {
		fields := entry.ContextMap()
		for _, v := range fields {
			if s, ok := v.(string); ok && strings.Contains(s, aliceKey) {
				t.Fatalf("the API key was logged: %v", fields)
			}
		}
		if entry.Message == "request" && fields["route"] == "GET /api/v1/jobs/{job_qrn}" && fields["status"] == int64(500) {
			sawRequest = fields["requestId"] == r.header.Get("X-Request-Id") && fields["method"] == "GET"
		}
	}
	if !sawRequest {
		t.Fatalf("no request log line with route, status and request id: %v", logs.All())
	}
}
