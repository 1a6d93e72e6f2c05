package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"mime"
	"net/http"
	"time"

	"go.uber.org/zap"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
)

// streamSilence is how long a stream may send nothing, not even the
// heartbeat the server sends every 15 s, before the client takes the
// connection for dead (a NAT or proxy dropped it without a word) and
// opens another.
const streamSilence = 45 * time.Second

// Polling, for a server without event streams: the first wait, its
// growth, and the longest.
const (
	pollFirst  = 250 * time.Millisecond
	pollGrowth = 1.5
	pollMax    = 5 * time.Second
)

// errNoStream: the server has no event stream for jobs.
var errNoStream = errors.New("client: the server has no job event stream")

// dropped is a stream that ended, or could not be opened, before its job
// did: worth opening again.
type dropped struct {
	err      error
	progress bool          // a job event came first: the backoff starts over
	after    time.Duration // the server's Retry-After
}

func (d *dropped) Error() string { return "client: the event stream ended early: " + d.err.Error() }
func (d *dropped) Unwrap() error { return d.err }

// resume is what a stream leaves for the next connection.
type resume struct {
	lastID string        // Last-Event-ID
	retry  time.Duration // the server's "retry:" field
}

// Wait returns the job once it is COMPLETED, FAILED or CANCELLED. It
// follows the job's event stream, resuming it (Last-Event-ID) when the
// connection drops, and polls GET /jobs/{qrn} with backoff against a
// server that has no stream.
func (c *Client) Wait(ctx context.Context, qrn string) (*quantum.Job, error) {
	if err := ctx.Err(); err != nil { // checked first, as in process
		return nil, cancelled(err)
	}
	if err := qtype.CheckJobQRN(qrn); err != nil {
		return nil, err
	}
	if !c.noStream.Load() {
		j, err := c.stream(ctx, qrn)
		if !errors.Is(err, errNoStream) {
			return j, err
		}
		c.log.Debug("the server has no event stream: Wait polls", zap.String("host", c.base.Host))
		c.noStream.Store(true)
	}
	return c.poll(ctx, qrn)
}

// stream follows the job's events across connections until it ends.
func (c *Client) stream(ctx context.Context, qrn string) (*quantum.Job, error) {
	var at resume
	r := retrier{c: c}
	for {
		j, err := c.follow(ctx, qrn, &at)
		var d *dropped
		switch {
		case err == nil:
			return j, nil
		case ctx.Err() != nil && !isAnswer(err):
			return nil, cancelled(ctx.Err())
		case !errors.As(err, &d):
			return nil, err
		}
		if d.progress {
			r.tries = 0
		}
		if r.tries >= c.retries {
			// The stream keeps failing: the job's own answer (after its
			// own retries) says whether it has ended, or what is wrong.
			j, err := c.GetJob(ctx, qrn)
			if err != nil || j.Status.IsTerminal() {
				return j, err
			}
			r.tries = 0
		}
		if d.after > maxRetryAfter {
			return nil, d.err
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d.after {
			return nil, d.err
		}
		wait := max(r.backoff(), d.after, min(at.retry, c.retryMax))
		c.log.Debug("reopening an event stream", zap.String("job", qrn), zap.Duration("in", wait), zap.Error(d.err))
		if err := sleep(ctx, wait); err != nil {
			return nil, cancelled(err)
		}
		r.tries++
	}
}

// follow reads the job's stream until the job ends (returning it), the
// stream drops (*dropped) or the server refuses.
func (c *Client) follow(ctx context.Context, qrn string, at *resume) (*quantum.Job, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	k := call{method: "GET", path: []string{"jobs", qrn, "events"}, header: http.Header{"Accept": {"text/event-stream"}}}
	if at.lastID != "" {
		k.header.Set("Last-Event-ID", at.lastID)
	}
	res, err := c.send(ctx, k)
	if err != nil {
		return nil, &dropped{err: err}
	}
	defer res.Body.Close()
	ct, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type"))
	switch s := res.StatusCode; {
	case s == http.StatusNoContent:
		// A resume from the job's last event: it has ended.
		return c.GetJob(ctx, qrn)
	case s == http.StatusNotFound || s == http.StatusMethodNotAllowed:
		// No such job, or no such route: the job itself tells which.
		_ = readAnswer(res, maxBody, nil, nil)
		if _, err := c.GetJob(ctx, qrn); err != nil {
			return nil, err
		}
		return nil, errNoStream
	case s == http.StatusTooManyRequests || s >= 500:
		err := readAnswer(res, maxBody, nil, nil)
		var qe *quantum.Error
		if errors.As(err, &qe) && (s == http.StatusTooManyRequests || s == http.StatusServiceUnavailable) {
			return nil, &dropped{err: err, after: qe.RetryAfter}
		}
		return nil, &dropped{err: err}
	case s >= 300:
		return nil, readAnswer(res, maxBody, nil, nil)
	case ct != "text/event-stream":
		return nil, errNoStream
	}
	silence := time.AfterFunc(streamSilence, cancel)
	defer silence.Stop()
	rd := newEventReader(res.Body)
	rd.lastID, rd.idBuf, rd.retry = at.lastID, at.lastID, at.retry // they outlive a connection
	rd.onLine = func() { silence.Reset(streamSilence) }
	progress := false
	for {
		ev, err := rd.next()
		at.lastID, at.retry = rd.lastID, rd.retry
		if err != nil {
			// The end of the body, a connection cut, silence, or a line
			// too long: open the stream again from the last event.
			return nil, &dropped{err: err, progress: progress}
		}
		if ev.name != "job" {
			continue
		}
		var j quantum.Job
		if err := decodeJSON([]byte(ev.data), &j); err != nil {
			// A garbled event: the next connection, or the job's own
			// answer, has it right.
			return nil, &dropped{err: err, progress: progress}
		}
		progress = true
		if j.Status.IsTerminal() {
			return &j, nil
		}
	}
}

// poll reads the job with growing waits until it has ended.
func (c *Client) poll(ctx context.Context, qrn string) (*quantum.Job, error) {
	wait := pollFirst
	for {
		j, err := c.GetJob(ctx, qrn)
		if err != nil || j.Status.IsTerminal() {
			return j, err
		}
		jitter := time.Duration(rand.Int64N(int64(wait)/5 + 1)) // ±10%: pollers do not march in step
		if err := sleep(ctx, wait-wait/10+jitter); err != nil {
			return nil, cancelled(err)
		}
		wait = min(time.Duration(float64(wait)*pollGrowth), pollMax)
	}
}
