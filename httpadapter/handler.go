package httpadapter

import (
	"context"
	"net/http"
	"strings"
	"time"

	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
)

// DefaultMaxBodyBytes bounds a request body unless WithMaxBodyBytes says
// otherwise: room for large QASM programs, not for abuse.
const DefaultMaxBodyBytes = 4 << 20

// Option configures the handler.
type Option func(*handler)

// WithLogger logs every request (method, route, status, duration, request
// id) and every internal error. The default, and a nil l, log nothing.
// API keys are never logged.
func WithLogger(l *zap.Logger) Option {
	return func(h *handler) {
		if l != nil {
			h.log = l
		}
	}
}

// WithMaxBodyBytes bounds request bodies; a larger one is a 413. Zero or
// a negative n means DefaultMaxBodyBytes.
func WithMaxBodyBytes(n int64) Option {
	return func(h *handler) {
		if n > 0 {
			h.maxBody = n
		}
	}
}

// WithClock sets the source of meta.timestamp and the clock of
// WithRateLimit, for tests. A nil now means time.Now, the default.
func WithClock(now func() time.Time) Option {
	return func(h *handler) {
		if now != nil {
			h.now = now
		}
	}
}

type handler struct {
	svc       *quantum.Service
	log       *zap.Logger
	maxBody   int64
	now       func() time.Time
	mux       *http.ServeMux
	heartbeat time.Duration   // between comments on an idle event stream
	streams   context.Context // ends every event stream when done
	obs       Observer
	rate      *limiter // nil: no WithRateLimit
	// controlKey is the control key's SHA-256 (WithControlKey); nil: no
	// control API.
	controlKey *[32]byte
}

// New returns the http.Handler that serves svc under /api/v1, plus
// GET /healthz (alive) and GET /readyz (able to work). Every route needs
// a key but those two and GET /api/v1/openapi.json. It panics if svc is
// nil, as http.Handle does for a nil handler: that is a mistake in the
// program, not in a request.
func New(svc *quantum.Service, opts ...Option) http.Handler {
	if svc == nil {
		panic("httpadapter: New needs a Service")
	}
	h := &handler{svc: svc, log: zap.NewNop(), maxBody: DefaultMaxBodyBytes, now: time.Now, mux: http.NewServeMux(),
		heartbeat: DefaultHeartbeat, streams: context.Background(), obs: nopObserver{}}
	for _, o := range opts {
		o(h)
	}
	h.routes()
	return h
}

func (h *handler) routes() {
	m := h.mux
	m.HandleFunc("GET /healthz", h.healthz)
	m.HandleFunc("GET /readyz", h.readyz)
	m.HandleFunc("GET /api/v1/openapi.json", h.openAPI)
	m.HandleFunc("GET /api/v1/users/verify", h.authed(h.verifyUser))

	m.HandleFunc("POST /api/v1/jobs", h.authed(h.createJob))
	m.HandleFunc("GET /api/v1/jobs", h.authed(h.listJobs))
	m.HandleFunc("DELETE /api/v1/jobs", h.authed(h.deleteJobs))
	m.HandleFunc("GET /api/v1/jobs/statuses", h.authed(h.jobStatuses))
	m.HandleFunc("GET /api/v1/jobs/cost-estimate", h.authed(h.costEstimate))
	m.HandleFunc("GET /api/v1/jobs/events", h.authed(h.jobsEvents))
	m.HandleFunc("GET /api/v1/jobs/{job_qrn}/events", h.authed(h.jobEvents))
	m.HandleFunc("GET /api/v1/jobs/{job_qrn}", h.authed(h.getJob))
	m.HandleFunc("DELETE /api/v1/jobs/{job_qrn}", h.authed(h.deleteJob))
	m.HandleFunc("GET /api/v1/jobs/{job_qrn}/result", h.authed(h.getJobResult))
	m.HandleFunc("GET /api/v1/jobs/{job_qrn}/program", h.authed(h.getJobProgram))
	m.HandleFunc("POST /api/v1/jobs/{job_qrn}/cancel", h.authed(h.cancelJob))

	m.HandleFunc("GET /api/v1/devices", h.authed(h.listDevices))
	m.HandleFunc("GET /api/v1/devices/{device_qrn}", h.authed(h.getDevice))
	m.HandleFunc("GET /api/v1/devices/{device_qrn}/calibrations", h.authed(h.getDeviceCalibrations))

	m.HandleFunc("GET /api/v1/billing/credits/balance", h.authed(h.creditsBalance))
	h.controlRoutes()
}

// requestID is the id of the request w answers: the one in its
// X-Request-Id and its log line.
func requestID(w http.ResponseWriter) string {
	for {
		switch x := w.(type) {
		case *recorder:
			return x.id
		case interface{ Unwrap() http.ResponseWriter }:
			w = x.Unwrap()
		default:
			return ""
		}
	}
}

// ServeHTTP wraps every request: a request id (echoed in X-Request-Id), a
// log line, a JSON body for the mux's own 404 and 405, and a JSON 500 for a
// handler that panics.
func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := h.now()
	rec := &recorder{ResponseWriter: w, status: http.StatusOK, id: requestIDs.next(), method: r.Method, req: r}
	w.Header().Set("X-Request-Id", rec.id)
	// A mux in front of this handler (the site's) set r.Pattern to its
	// own route, which ours replaces while it serves: it gets it back.
	outer := r.Pattern
	defer func() {
		rec.serving = false
		if p := recover(); p != nil {
			h.log.Error("handler panic", zap.String("requestId", rec.id), zap.Any("panic", p), zap.Stack("stack"))
			if !rec.wrote {
				h.fail(rec, r, errPanic)
			}
		}
		rec.route = routeName(r.Pattern)
		r.Pattern = outer
		rec.took = time.Since(start)
		h.obs.Request(rec.route, rec.status, rec.took)
		// Checked first, so that a logger that drops the line costs
		// nothing; the fields are the recorder's, not a slice of their own.
		if ce := h.log.Check(zapcore.InfoLevel, "request"); ce != nil {
			ce.Write(zap.Inline((*requestLine)(rec)))
		}
	}()

	// The mux matches the request once, and sets r.Pattern before it
	// calls a handler: a route's handler writes through rec; the mux's own
	// answer to a request no route takes (404, 405 with Allow, a redirect)
	// is held apart (recorder.held) for the JSON answer below.
	rec.job = jobOfPath(r.URL.Path)
	r.Pattern, rec.serving = "", true
	h.mux.ServeHTTP(rec, r)
	rec.serving = false
	if r.Pattern != "" {
		return
	}
	rec.job = ""
	// Authentication applies to every route under /api/v1, unknown ones
	// too, so that a route's existence is no secret: nothing of the mux's
	// answer is shown without it.
	if strings.HasPrefix(r.URL.Path, "/api/") {
		if _, err := h.authenticate(r); err != nil {
			h.fail(rec, r, err)
			return
		}
	}
	if strings.HasPrefix(r.URL.Path, "/control/") && h.controlKey != nil {
		if err := h.checkControlKey(r); err != nil {
			h.fail(rec, r, err)
			return
		}
	}
	// The mux's headers (Allow) but its plain text's.
	for k, v := range rec.held {
		if k != "Content-Type" && k != "X-Content-Type-Options" {
			rec.Header()[k] = v
		}
	}
	code, msg := quantum.ENOTFOUND, "no route for "+r.Method+" "+r.URL.Path
	if rec.status == http.StatusMethodNotAllowed {
		code, msg = quantum.EMETHODNOTALLOWED, "method "+r.Method+" not allowed; allowed: "+rec.Header().Get("Allow")
	}
	h.fail(rec, r, &quantum.Error{Code: code, Message: msg})
}

// jobOfPath is the job QRN in a path under /api/v1/jobs/, for the log
// line: only a well-formed QRN, never what else a client may put there.
func jobOfPath(path string) string {
	rest, ok := strings.CutPrefix(path, "/api/v1/jobs/")
	if !ok {
		return ""
	}
	qrn, _, _ := strings.Cut(rest, "/")
	if !qtype.ValidJobQRN(qrn) {
		return ""
	}
	return qrn
}

var errPanic = &quantum.Error{Code: quantum.EINTERNAL, Message: "internal error"}

// routeName is the route for logs: the pattern, never the raw path (which
// may hold anything a client sent).
func routeName(pattern string) string {
	if pattern == "" {
		return "unmatched"
	}
	return pattern
}

// authed resolves the X-API-KEY header to a user before the handler runs.
func (h *handler) authed(next func(http.ResponseWriter, *http.Request, quantum.User)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		u, err := h.authenticate(r)
		if err != nil {
			h.fail(w, r, err)
			return
		}
		next(w, r, u)
	}
}

// authenticate resolves the X-API-KEY header (any capitalisation: HTTP
// headers are case-insensitive) to a user, then spends a token of the
// user's rate: only a known user's requests are counted, so that a flood
// of wrong keys fills no table.
func (h *handler) authenticate(r *http.Request) (quantum.User, error) {
	u, err := h.svc.Authenticate(r.Context(), strings.TrimSpace(r.Header.Get("X-API-KEY")))
	if err != nil {
		return quantum.User{}, err
	}
	if err := h.admit(u); err != nil {
		return quantum.User{}, err
	}
	return u, nil
}

// healthz says the process is alive and serving: no authentication, and
// nothing about its insides.
func (h *handler) healthz(w http.ResponseWriter, r *http.Request) {
	h.ok(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyWait bounds the store's answer to a readiness check.
const readyWait = 2 * time.Second

// readyz says whether the service can take work: its workers run and its
// store answers within readyWait. 503 otherwise; why is logged, never
// answered.
func (h *handler) readyz(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), readyWait)
	defer cancel()
	if err := h.svc.Ready(ctx); err != nil {
		h.log.Warn("not ready", zap.String("requestId", requestID(w)), zap.Error(err))
		writeJSON(w, http.StatusServiceUnavailable, successBody{Success: false, Data: map[string]string{"status": "unready"}})
		return
	}
	h.ok(w, http.StatusOK, map[string]string{"status": "ready"})
}

func (h *handler) verifyUser(w http.ResponseWriter, r *http.Request, u quantum.User) {
	h.ok(w, http.StatusOK, u)
}

// recorder remembers what the log line of a request says: its id, its
// route, the status and size of its response.
type recorder struct {
	http.ResponseWriter
	id     string
	method string
	route  string
	status int
	bytes  int64
	took   time.Duration
	wrote  bool
	job    string // the QRN of the job the request is about, for the log line

	// While the mux serves req (serving) without a route (req.Pattern
	// empty), what it writes is its own plain-text answer: its status is
	// kept, its headers are held, its body dropped.
	req     *http.Request
	serving bool
	held    http.Header
}

func (r *recorder) unrouted() bool { return r.serving && r.req.Pattern == "" }

func (r *recorder) Header() http.Header {
	if r.unrouted() {
		if r.held == nil {
			r.held = http.Header{}
		}
		return r.held
	}
	return r.ResponseWriter.Header()
}

// requestLine is a recorder as its log line's fields.
type requestLine recorder

func (l *requestLine) MarshalLogObject(enc zapcore.ObjectEncoder) error {
	enc.AddString("requestId", l.id)
	enc.AddString("method", l.method)
	enc.AddString("route", l.route)
	enc.AddInt64("status", int64(l.status))
	enc.AddDuration("duration", l.took)
	enc.AddInt64("bytes", l.bytes)
	if l.job != "" {
		enc.AddString("job", l.job)
	}
	return nil
}

func (r *recorder) WriteHeader(status int) {
	if r.unrouted() {
		r.status = status
		return
	}
	if r.wrote {
		return
	}
	r.status, r.wrote = status, true
	r.ResponseWriter.WriteHeader(status)
}

// Unwrap lets http.ResponseController reach the connection (to flush
// event streams and extend their write deadlines).
func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

func (r *recorder) Write(p []byte) (int, error) {
	if r.unrouted() {
		return len(p), nil
	}
	if !r.wrote {
		r.WriteHeader(http.StatusOK)
	}
	n, err := r.ResponseWriter.Write(p)
	r.bytes += int64(n)
	return n, err
}
