package httpadapter

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/qjobs/quantum"
)

// Job events are Server-Sent Events. A stream holds no goroutine of its
// own (the connection's serves it) and polls nothing: it sleeps until the
// Service announces a change of a job it follows, or a heartbeat is due.

// DefaultHeartbeat is how often an idle event stream sends a comment, so
// that proxies and clients see it alive.
const DefaultHeartbeat = 15 * time.Second

// streamWriteWait bounds each write to a stream: a client that stops
// reading is dropped instead of holding the stream forever.
const streamWriteWait = 30 * time.Second

// WithHeartbeat sets how often an idle event stream sends a heartbeat
// comment (default DefaultHeartbeat); zero or less keeps the default.
func WithHeartbeat(d time.Duration) Option {
	return func(h *handler) {
		if d > 0 {
			h.heartbeat = d
		}
	}
}

// WithStreamContext ends every event stream when ctx ends. http.Server's
// Shutdown waits for open requests, and a stream does not end on its own:
// pass a context that is cancelled when shutdown begins (for instance
// from Server.RegisterOnShutdown).
func WithStreamContext(ctx context.Context) Option {
	return func(h *handler) {
		if ctx != nil {
			h.streams = ctx
		}
	}
}

// jobEvents streams one job: its state at once, then each change, and it
// ends after the job's end. A resume (Last-Event-ID) that missed nothing
// of a job that has ended is answered 204, which tells an EventSource to
// stop reconnecting.
func (h *handler) jobEvents(w http.ResponseWriter, r *http.Request, u quantum.User) {
	watch, err := h.svc.WatchJob(r.Context(), u, r.PathValue("job_qrn"), r.Header.Get("Last-Event-ID"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	defer watch.Close()
	first, err := watch.Next(r.Context())
	if err != nil {
		h.fail(w, r, err)
		return
	}
	if len(first) == 0 && watch.Done() {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	h.stream(w, r, watch, first)
}

// jobsEvents streams every change of the caller's jobs (those reaching
// ?status= only, when given) until the client leaves.
func (h *handler) jobsEvents(w http.ResponseWriter, r *http.Request, u quantum.User) {
	watch, err := h.svc.WatchJobs(r.Context(), u, quantum.JobStatus(r.URL.Query().Get("status")), r.Header.Get("Last-Event-ID"))
	if err != nil {
		h.fail(w, r, err)
		return
	}
	defer watch.Close()
	h.stream(w, r, watch, nil)
}

func (h *handler) stream(w http.ResponseWriter, r *http.Request, watch *quantum.Watch, first []quantum.JobEvent) {
	ctx := r.Context()
	rc := http.NewResponseController(w)
	hd := w.Header()
	hd.Set("Content-Type", "text/event-stream")
	hd.Set("Cache-Control", "no-cache")
	hd.Set("X-Accel-Buffering", "no") // nginx would hold events back
	w.WriteHeader(http.StatusOK)
	h.obs.Streams(1)
	defer h.obs.Streams(-1)
	bw := bufio.NewWriterSize(w, 4<<10)
	bw.WriteString("retry: 1000\n\n") // an EventSource resumes after 1 s
	send := func(events []quantum.JobEvent, comment string) bool {
		_ = rc.SetWriteDeadline(time.Now().Add(streamWriteWait))
		for _, ev := range events {
			writeEvent(bw, ev)
		}
		if comment != "" {
			bw.WriteString(": " + comment + "\n\n")
		}
		if err := bw.Flush(); err != nil {
			return false
		}
		return rc.Flush() == nil
	}
	if !send(first, "") {
		return
	}
	beat := time.NewTicker(h.heartbeat)
	defer beat.Stop()
	for !watch.Done() {
		select {
		case <-ctx.Done():
			return
		case <-h.streams.Done():
			return
		case <-beat.C:
			if !send(nil, "heartbeat") {
				return
			}
		case <-watch.Ready():
			events, err := watch.Next(ctx)
			if err != nil {
				// The status is sent; ending the stream makes the client
				// resume, which reads the job again.
				if ctx.Err() == nil && quantum.ErrorCode(err) != quantum.EBUSY {
					h.log.Warn("event stream ended by an error", zap.String("requestId", requestID(w)), zap.Error(err))
				}
				return
			}
			if len(events) > 0 && !send(events, "") {
				return
			}
		}
	}
}

// writeEvent writes one event. JSON has no raw line breaks, so the job
// is one data line.
func writeEvent(bw *bufio.Writer, ev quantum.JobEvent) {
	bw.WriteString("id: " + ev.ID + "\n")
	if ev.Reset {
		bw.WriteString("event: reset\ndata: {}\n\n")
		return
	}
	data, err := json.Marshal(ev.Job)
	if err != nil {
		data = []byte("{}")
	}
	bw.WriteString("event: job\ndata: ")
	bw.Write(data)
	bw.WriteString("\n\n")
}
