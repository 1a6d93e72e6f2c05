package httpadapter_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/store"
)

// TestReadyz: unready while the store fails or once the service closes,
// ready again when the store recovers; never a word about why.
func TestReadyz(t *testing.T) {
	st := quantumtest.NewFaultyStore(store.NewMemory())
	svc, err := quantum.New(st)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(httpadapter.New(svc))
	defer srv.Close()
	get := func(path string) (int, string) {
		t.Helper()
		res, err := http.Get(srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	if code, body := get("/readyz"); code != 200 || !strings.Contains(body, `"ready"`) {
		t.Fatalf("readyz: %d %s", code, body)
	}
	fault := &quantumtest.Fault{Method: "GetJob", Err: errors.New("disk on fire at /var/secret")}
	st.Inject(fault)
	if code, body := get("/readyz"); code != 503 || !strings.Contains(body, `"unready"`) || strings.Contains(body, "secret") {
		t.Fatalf("readyz with a failing store: %d %s", code, body)
	}
	if code, _ := get("/healthz"); code != 200 {
		t.Fatalf("healthz with a failing store: %d, want 200: the process is alive", code)
	}
	st.Remove(fault)
	if code, _ := get("/readyz"); code != 200 {
		t.Fatalf("readyz after the store recovered: %d", code)
	}
	if err := svc.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if code, _ := get("/readyz"); code != 503 {
		t.Fatalf("readyz of a closed service: %d", code)
	}
}
