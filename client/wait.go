package client

import (
	"context"
	"errors"
	"math/rand/v2"
	"mime"
	"net/http"
	"time"

	"github.com/qjobs/quantum"
)

// streamSilence is how long a stream may send nothing, not even the
// heartbeat the server sends every 15 s, before the client takes the
// connection for dead and opens another.
const streamSilence = 45 * time.Second

// Polling, for a server without event streams: the first wait, its
// growth, and the longest.
const (
	pollFirst  = 250 * time.Millisecond
	pollGrowth = 1.5
	pollMax    = 5 * time.Second
)

var (
	// errNoStream: the server has no event stream for jobs.
	errNoStream = errors.New("client: the server has no job event stream")
	// errDropped: the stream ended before the job did.
	errDropped = errors.New("client: the event stream ended early")
)

// Wait returns the job once it is COMPLETED, FAILED or CANCELLED. It
// follows the job's event stream, resuming it (Last-Event-ID) when the
// connection drops, and polls GET /jobs/{qrn} with backoff against a
// server that has no stream.
func (c *Client) Wait(ctx context.Context, qrn string) (*quantum.Job, error) {
	if err := quantum.CheckJobQRN(qrn); err != nil {
		return nil, err
	}
	r := retrier{c: c}
	lastID := ""
	for !c.noStream.Load() {
		job, err := c.follow(ctx, qrn, &lastID)
		switch {
		case err == nil:
			return job, nil
		case errors.Is(err, errNoStream):
			c.noStream.Store(true)
		case ctx.Err() != nil:
			return nil, cancelled(ctx.Err())
		case errors.Is(err, errDropped):
			// A stream that delivered events resets the backoff.
			if job != nil {
				r.tries = 0
			}
			if r.tries >= c.retries {
				// The stream keeps failing: ask for the job itself, whose
				// errors (after its own retries) end the wait.
				j, err := c.GetJob(ctx, qrn)
				if err != nil || j.Status.IsTerminal() {
					return j, err
				}
				r.tries = 0
			}
			if err := sleep(ctx, r.backoff()); err != nil {
				return nil, cancelled(err)
			}
			r.tries++
		default:
			return nil, err
		}
	}
	return c.poll(ctx, qrn)
}

// follow reads the job's stream until the job ends (returning it), the
// stream drops (errDropped, with the last job seen, if any) or the server
// refuses.
func (c *Client) follow(ctx context.Context, qrn string, lastID *string) (*quantum.Job, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	k := call{method: "GET", path: []string{"jobs", qrn, "events"}, header: http.Header{"Accept": {"text/event-stream"}}}
	if *lastID != "" {
		k.header.Set("Last-Event-ID", *lastID)
	}
	res, err := c.send(ctx, k)
	if err != nil {
		return nil, errors.Join(errDropped, err)
	}
	defer res.Body.Close()
	switch ct, _, _ := mime.ParseMediaType(res.Header.Get("Content-Type")); {
	case res.StatusCode == http.StatusNoContent:
		// A resume from the job's last event: it has ended.
		return c.GetJob(ctx, qrn)
	case res.StatusCode == http.StatusNotFound || res.StatusCode == http.StatusMethodNotAllowed:
		// No such job, or no such route: the job tells which.
		if _, err := c.GetJob(ctx, qrn); err != nil {
			return nil, err
		}
		return nil, errNoStream
	case res.StatusCode >= 500 || res.StatusCode == http.StatusTooManyRequests:
		return nil, errors.Join(errDropped, readAnswer(res, maxBody, nil))
	case res.StatusCode >= 300:
		return nil, readAnswer(res, maxBody, nil)
	case ct != "text/event-stream":
		return nil, errNoStream
	}
	silence := time.AfterFunc(streamSilence, cancel)
	defer silence.Stop()
	rd := newEventReader(res.Body)
	rd.lastID = *lastID
	rd.onLine = func() { silence.Reset(streamSilence) }
	var last *quantum.Job
	for {
		ev, err := rd.next()
		if err != nil {
			// The end of the body, a silent connection cut, or a line too
			// long: open the stream again from the last event.
			return last, errors.Join(errDropped, err)
		}
		*lastID = rd.lastID
		if ev.name != "job" {
			continue
		}
		var j quantum.Job
		if err := decodeInto([]byte(ev.data), &j); err != nil {
			return last, err
		}
		last = &j
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
		jitter := time.Duration(rand.Int64N(int64(wait)/5 + 1))
		if err := sleep(ctx, wait-wait/10+jitter); err != nil {
			return nil, cancelled(err)
		}
		wait = min(time.Duration(float64(wait)*pollGrowth), pollMax)
	}
}
