// Package client is the Go client of the quantum job service's /api/v1:
// quantum.API over HTTP. Code written against quantum.API runs unchanged
// against an embedded Service (Service.For) or a remote server (New).
//
// The client retries what is safe to retry: connection errors, 429 and
// 503 (after the server's Retry-After) on every call, other 5xx on calls
// that change nothing or are idempotent, and creates that carry an
// idempotency key, which it makes for every create that has none. Wait
// follows the job's event stream, and polls a server that has none.
package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"sync/atomic"
	"time"

	"go.uber.org/zap"

	"github.com/qjobs/quantum"
)

// Client is quantum.API over HTTP, for one API key. It is safe for
// concurrent use.
type Client struct {
	base      *url.URL // ends in /api/v1
	key       string
	http      *http.Client
	agent     string
	retries   int
	retryBase time.Duration
	retryMax  time.Duration
	autoKey   bool
	log       *zap.Logger

	// noStream is set once the server has shown that it has no event
	// streams: Wait polls at once from then on.
	noStream atomic.Bool
}

var _ quantum.API = (*Client)(nil)

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends every request through c (its transport, proxy,
// TLS and cookie settings). Leave c.Timeout zero: it would cut Wait's
// event streams; every call takes a context instead.
func WithHTTPClient(c *http.Client) Option {
	return func(cl *Client) {
		if c != nil {
			cl.http = c
		}
	}
}

// WithUserAgent sets the User-Agent header (default
// "quantum-go-client/<module version>").
func WithUserAgent(ua string) Option { return func(c *Client) { c.agent = ua } }

// WithRetries sets how many times a failed call is tried again (default
// 4); 0 turns retries off.
func WithRetries(n int) Option { return func(c *Client) { c.retries = max(n, 0) } }

// WithRetryWait sets the first wait between tries and the longest
// (default 200 ms and 10 s); waits double from base up to maxWait, with
// jitter, unless the server says how long with Retry-After.
func WithRetryWait(base, maxWait time.Duration) Option {
	return func(c *Client) {
		if base > 0 {
			c.retryBase = base
		}
		if maxWait > 0 {
			c.retryMax = maxWait
		}
	}
}

// WithoutAutoIdempotencyKey stops the client from giving a key to every
// create that has none. A create without a key is then not retried once
// it may have reached the server: a retry could make a second job.
func WithoutAutoIdempotencyKey() Option { return func(c *Client) { c.autoKey = false } }

// WithLogger logs retries at Debug. API keys and programs are never
// logged. The default logs nothing.
func WithLogger(l *zap.Logger) Option {
	return func(c *Client) {
		if l != nil {
			c.log = l
		}
	}
}

// New returns a client of the server at baseURL ("https://host:port",
// optionally with a path prefix; /api/v1 is added) acting with apiKey.
func New(baseURL, apiKey string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: base URL %q: want http(s)://host[:port][/prefix]", baseURL)
	}
	if apiKey == "" {
		return nil, errors.New("client: an API key is required")
	}
	u = u.JoinPath("api", "v1")
	c := &Client{
		base: u, key: apiKey, http: defaultHTTPClient(), agent: defaultAgent(),
		retries: 4, retryBase: 200 * time.Millisecond, retryMax: 10 * time.Second, autoKey: true, log: zap.NewNop(),
	}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// defaultHTTPClient bounds each phase of a connection but not a whole
// response: an event stream lasts as long as its job.
func defaultHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 60 * time.Second,
		IdleConnTimeout:       90 * time.Second,
		MaxIdleConnsPerHost:   16,
		ForceAttemptHTTP2:     true,
	}}
}

func defaultAgent() string {
	v := "dev"
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/qjobs/quantum" && d.Version != "" {
				v = d.Version
			}
		}
		if bi.Main.Path == "github.com/qjobs/quantum" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version
		}
	}
	return "quantum-go-client/" + v
}

// Bounds on what the client reads of a response, so that a broken or
// hostile server cannot exhaust its memory.
const (
	maxBody   = 8 << 20   // an ordinary answer
	maxResult = 256 << 20 // a result's counts
)

// call is one request: what to send, and whether it may be repeated.
type call struct {
	method string
	path   []string // segments after /api/v1, escaped here
	query  url.Values
	body   []byte
	header http.Header
	// idempotent calls are repeated after a 5xx or a lost answer; others
	// only when the server surely did nothing (a refused connection, 429,
	// 503).
	idempotent bool
	limit      int64
}

func (c *Client) url(path []string, q url.Values) string {
	u := c.base.JoinPath()
	for _, p := range path {
		u.Path += "/" + p
		u.RawPath += "/" + url.PathEscape(p)
	}
	if u.RawPath == u.Path {
		u.RawPath = ""
	}
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
		return nil, fmt.Errorf("client: %w", err)
	}
	if k.body != nil {
		b := k.body
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
		req.Header.Set("Content-Type", "application/json")
	}
	for h, vs := range k.header {
		req.Header[h] = vs
	}
	req.Header.Set("X-API-KEY", c.key)
	req.Header.Set("User-Agent", c.agent)
	if req.Header.Get("Accept") == "" {
		req.Header.Set("Accept", "application/json")
	}
	return req, nil
}

// do sends the call, retrying as its kind allows, and decodes the data
// of a success into out (if not nil).
func (c *Client) do(ctx context.Context, k call, out any) error {
	if k.limit == 0 {
		k.limit = maxBody
	}
	var r retrier
	r.init(c)
	for {
		res, err := c.send(ctx, k)
		if err == nil {
			err = readAnswer(res, k.limit, out)
		}
		wait, again := r.next(ctx, k, res, err)
		if !again {
			var qe *quantum.Error
			if ctx.Err() != nil && !errors.As(err, &qe) {
				return cancelled(ctx.Err())
			}
			return err
		}
		c.log.Debug("retrying a call", zap.String("method", k.method), zap.String("path", strings.Join(k.path, "/")),
			zap.Duration("in", wait), zap.Error(err))
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

// transportError is a request that got no answer.
type transportError struct{ err error }

func (e *transportError) Error() string { return "client: " + e.err.Error() }
func (e *transportError) Unwrap() error { return e.err }

// readAnswer reads a response: the data of a success into out, an error
// envelope (or any other failure) as a *quantum.Error.
func readAnswer(res *http.Response, limit int64, out any) error {
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, limit+1))
	if err != nil {
		return &transportError{err: err}
	}
	if int64(len(data)) > limit {
		return &quantum.Error{Code: quantum.EINTERNAL, Message: fmt.Sprintf("client: the answer of %s is larger than %d bytes", res.Request.URL.Path, limit)}
	}
	if res.StatusCode >= 300 {
		return answerError(res, data)
	}
	if out == nil || res.StatusCode == http.StatusNoContent {
		return nil
	}
	if raw, ok := out.(rawEnvelope); ok {
		if err := json.Unmarshal(data, raw.v); err != nil {
			return &quantum.Error{Code: quantum.EINTERNAL, Message: fmt.Sprintf("client: the answer of %s is not a success envelope: %s", res.Request.URL.Path, snippet(data))}
		}
		return nil
	}
	var env struct {
		Success bool            `json:"success"`
		Data    json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(data, &env); err != nil || !env.Success {
		return &quantum.Error{Code: quantum.EINTERNAL, Message: fmt.Sprintf("client: the answer of %s is not a success envelope: %s", res.Request.URL.Path, snippet(data))}
	}
	return decodeInto(env.Data, out)
}

// rawEnvelope asks readAnswer for the whole envelope (a list's data and
// pagination), decoded into v.
type rawEnvelope struct{ v any }

// decodeInto decodes JSON as the in-process API shows values: numbers in
// maps as int64 when integral, else float64.
func decodeInto(data []byte, out any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(out); err != nil {
		return &quantum.Error{Code: quantum.EINTERNAL, Message: "client: cannot decode the answer: " + err.Error()}
	}
	normalise(out)
	return nil
}

func normalise(out any) {
	switch v := out.(type) {
	case *quantum.Job:
		for _, m := range []map[string]any{v.Tags, v.RuntimeOptions, v.Metadata} {
			quantum.FromJSONNumbers(m)
		}
	case *[]*quantum.Job:
		for _, j := range *v {
			normalise(j)
		}
	case *map[string]any:
		quantum.FromJSONNumbers(*v)
	}
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
