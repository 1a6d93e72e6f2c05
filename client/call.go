package client

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"go.uber.org/zap"

	"github.com/qjobs/quantum"
)

// call is one request: what to send, and whether it may be repeated.
type call struct {
	method string
	path   []string // segments after /api/v1, escaped here
	query  url.Values
	body   []byte
	header http.Header
	// idempotent calls are repeated after a 5xx or a lost answer; others
	// only when the server surely did nothing (a failed dial, 429, 503).
	idempotent bool
	limit      int64 // bound on the answer's body; 0 for maxBody
}

func (c *Client) url(path []string, q url.Values) string {
	u := *c.base
	raw := c.base.EscapedPath()
	for _, p := range path {
		raw += "/" + url.PathEscape(p)
	}
	// Path and RawPath must agree, or URL.String escapes Path its own way.
	u.Path, _ = url.PathUnescape(raw)
	u.RawPath = raw
	u.RawQuery = q.Encode()
	return u.String()
}

func (c *Client) newRequest(ctx context.Context, k call) (*http.Request, error) {
	var body io.Reader
	if k.body != nil {
		body = bytes.NewReader(k.body)
	}
	req, err := http.NewRequestWithContext(ctx, k.method, c.url(k.path, k.query), body)
	if err != nil {
		return nil, &quantum.Error{Code: quantum.EINTERNAL, Message: "client: " + err.Error()}
	}
	if k.body != nil {
		// A retry, or net/http's own resend on a stale connection, sends
		// the same bytes again.
		b := k.body
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		req.Header.Set("Content-Type", "application/json")
	}
	for h, vs := range k.header {
		req.Header[h] = vs
	}
	req.Header.Set(c.keyHeader, c.key)
	req.Header.Set("User-Agent", c.agent)
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json")
	}
	return req, nil
}

// do sends the call, retrying as its kind allows, and decodes the data
// of a success into out and its pagination into page (either may be nil).
func (c *Client) do(ctx context.Context, k call, out any, page *quantum.Pagination) error {
	if k.limit == 0 {
		k.limit = maxBody
	}
	r := retrier{c: c}
	for {
		res, err := c.send(ctx, k)
		status := 0
		if err == nil {
			status = res.StatusCode
			err = readAnswer(res, k.limit, out, page)
		}
		if err == nil {
			return nil
		}
		if ctx.Err() != nil && !isAnswer(err) {
			return cancelled(ctx.Err())
		}
		wait, again := r.next(ctx, k, status, err)
		if !again {
			return err
		}
		c.log.Debug("retrying a call", zap.String("method", k.method), zap.String("path", strings.Join(k.path, "/")),
			zap.Int("try", r.tries+1), zap.Duration("in", wait), zap.Error(err))
		if err := sleep(ctx, wait); err != nil {
			return cancelled(err)
		}
	}
}

// send makes one try of the call.
func (c *Client) send(ctx context.Context, k call) (*http.Response, error) {
	req, err := c.newRequest(ctx, k)
	if err != nil {
		return nil, err
	}
	res, err := c.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &transportError{err: err}
	}
	return res, nil
}

// transportError is a request that got no whole answer: a failed dial, a
// connection lost before or during the response.
type transportError struct{ err error }

func (e *transportError) Error() string { return "client: " + e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// isAnswer reports whether err is what the server answered (as opposed to
// the request not getting through, which a context's end explains).
func isAnswer(err error) bool {
	var te *transportError
	return !errors.As(err, &te) && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// badAnswer is the error of a 2xx answer the client cannot read.
func badAnswer(res *http.Response, format string, args ...any) *quantum.Error {
	return &quantum.Error{Code: quantum.EINTERNAL,
		Message: fmt.Sprintf("client: the answer of %s %s ", res.Request.Method, res.Request.URL.Path) + fmt.Sprintf(format, args...)}
}
