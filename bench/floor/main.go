// Command floor is the least a server can do to answer bench/load's three
// requests: a bare net/http server that decodes a create with
// encoding/json, keeps the job in a map under a mutex, "runs" it on the
// spot (a Bell pair's counts drawn from coin flips) and answers
// GET /api/v1/jobs/{qrn} and GET /api/v1/jobs/{qrn}/result with the same
// paths, X-API-KEY check and JSON shapes as examples/server. It is what
// the server's CPU per job is measured against:
//
//	cd bench && go build -o /tmp/floor ./floor
//	/tmp/floor -addr 127.0.0.1:8090 -api-key KEY
//
// It checks nothing a real service must (programs, devices, limits,
// owners) and forgets nothing: it serves a benchmark, and nothing else.
package main

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"syscall"
	"time"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:8090", "listen address")
	key := flag.String("api-key", "", "the one API key (required)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the whole run to `FILE`, complete once the server has shut down")
	flag.Parse()
	if *key == "" {
		fmt.Fprintln(os.Stderr, "floor: -api-key is required")
		os.Exit(2)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "floor: -cpuprofile:", err)
			os.Exit(1)
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := serve(ctx, *addr, *key); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

func serve(ctx context.Context, addr, key string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s := &server{key: []byte(key), jobs: newJobs()}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, envelope{Success: true, Data: map[string]string{"status": "ok"}})
	})
	mux.HandleFunc("POST /api/v1/jobs", s.authed(s.create))
	mux.HandleFunc("GET /api/v1/jobs/{job_qrn}", s.authed(s.get))
	mux.HandleFunc("GET /api/v1/jobs/{job_qrn}/result", s.authed(s.result))
	// The same timeouts as examples/server: they cost a timer a request.
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: time.Minute,
		WriteTimeout: 2 * time.Minute, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 64 << 10}
	// bench/load reads the address from this line, as from examples/server's.
	fmt.Printf("floor server on http://%s\n", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	_ = srv.Close()
	if err := <-errc; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

type server struct {
	key  []byte
	jobs *jobs
}

// authed answers 401 as examples/server does unless the request carries
// the key.
func (s *server) authed(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		got := r.Header.Get("X-API-KEY")
		if got == "" {
			fail(w, http.StatusUnauthorized, "NO_VALID_AUTH", "an API key is required in the X-API-KEY header")
			return
		}
		if subtle.ConstantTimeCompare([]byte(got), s.key) != 1 {
			fail(w, http.StatusUnauthorized, "INVALID_API_KEY", "the API key is not valid")
			return
		}
		next(w, r)
	}
}

// createRequest holds the fields a create has.
type createRequest struct {
	Program *struct {
		Format string `json:"format"`
		Data   string `json:"data"`
	} `json:"program"`
	Shots          int            `json:"shots"`
	DeviceQRN      string         `json:"deviceQrn"`
	Name           string         `json:"name"`
	Tags           map[string]any `json:"tags"`
	RuntimeOptions map[string]any `json:"runtimeOptions"`
}

func (s *server) create(w http.ResponseWriter, r *http.Request) {
	var req createRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 4<<20)).Decode(&req); err != nil {
		fail(w, http.StatusUnprocessableEntity, "VALIDATION_ERROR", "body: is not valid JSON")
		return
	}
	if req.Program == nil || req.DeviceQRN == "" || req.Shots < 1 || req.Shots > 1_000_000 {
		fail(w, http.StatusUnprocessableEntity, "VALIDATION_ERROR", "program, deviceQrn and shots (1 to 1,000,000) are required")
		return
	}
	created := s.jobs.create(req)
	writeJSON(w, http.StatusCreated, envelope{Success: true, Data: created})
}

func (s *server) get(w http.ResponseWriter, r *http.Request) {
	j, ok := s.jobs.get(r.PathValue("job_qrn"))
	if !ok {
		fail(w, http.StatusNotFound, "NOT_FOUND", "no such job")
		return
	}
	writeJSON(w, http.StatusOK, envelope{Success: true, Data: j.job})
}

func (s *server) result(w http.ResponseWriter, r *http.Request) {
	j, ok := s.jobs.get(r.PathValue("job_qrn"))
	if !ok {
		fail(w, http.StatusNotFound, "NOT_FOUND", "no such job")
		return
	}
	writeJSON(w, http.StatusOK, envelope{Success: true, Data: result{
		Status: j.job.Status, Cost: j.job.Cost, TimeStamps: j.job.TimeStamps,
		ResultData: resultData{MeasurementCounts: j.counts},
	}})
}

type envelope struct {
	Success bool `json:"success"`
	Data    any  `json:"data"`
}

type errorEnvelope struct {
	Success bool   `json:"success"`
	Message string `json:"message"`
	Error   struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func fail(w http.ResponseWriter, status int, code, msg string) {
	e := errorEnvelope{Message: msg}
	e.Error.Code, e.Error.Message = code, msg
	writeJSON(w, status, e)
}

func writeJSON(w http.ResponseWriter, status int, body any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}
