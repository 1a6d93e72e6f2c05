// Package client is the Go client of the quantum job service's /api/v1:
// quantum.API over HTTP. Code written against quantum.API runs unchanged
// against an embedded Service (Service.For) or a remote server (New): both
// return the same values and the same *quantum.Error codes.
//
// The client retries what is safe to retry: connection errors, 429 and
// 503 (after the server's Retry-After) on every call, other 5xx on calls
// that are idempotent, and creates that carry an idempotency key, which it
// makes for every create that has none. Wait follows the job's event
// stream, and polls a server that has none.
package client

import (
	"errors"
	"fmt"
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
	base      *url.URL // ends in /api/v1 (/control/v1 for a Control)
	key       string
	keyHeader string // X-API-KEY (X-CONTROL-KEY for a Control)
	http      *http.Client
	agent     string
	retries   int
	retryBase time.Duration
	retryMax  time.Duration
	autoKey   bool
	log       *zap.Logger

	// noStream is set once the server has shown that it has no event
	// streams: Wait polls at once from then on instead of asking again.
	noStream atomic.Bool
}

var _ quantum.API = (*Client)(nil)

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends every request through hc (its transport, proxy,
// TLS and cookie settings). Leave hc.Timeout zero: it would cut Wait's
// event streams; every call takes a context instead. Unless hc has a
// CheckRedirect of its own, the client follows no redirect, so that the
// API key never goes to another server.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) {
		if hc != nil {
			c.http = hc
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
// full jitter, and are never shorter than a Retry-After of the server.
func WithRetryWait(base, maxWait time.Duration) Option {
	return func(c *Client) {
		if base > 0 {
			c.retryBase = base
		}
		if maxWait > 0 {
			c.retryMax = maxWait
		}
		c.retryMax = max(c.retryMax, c.retryBase)
	}
}

// WithoutAutoIdempotencyKey stops the client from giving a key to every
// create that has none. A create without a key is then not retried once
// it may have reached the server: a retry could make a second job.
func WithoutAutoIdempotencyKey() Option { return func(c *Client) { c.autoKey = false } }

// WithLogger logs retries and reconnections at Debug. API keys and
// programs are never logged. The default logs nothing.
func WithLogger(l *zap.Logger) Option {
	return func(c *Client) {
		if l != nil {
			c.log = l
		}
	}
}

// New returns a client of the server at baseURL acting with apiKey.
// baseURL is the server ("https://host:port", optionally with a path
// prefix), to which /api/v1 is added, or the API itself
// ("https://host:port/api/v1"), as the README and curl sessions write it:
// both work.
func New(baseURL, apiKey string, opts ...Option) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(baseURL, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("client: base URL %q: want http(s)://host[:port][/prefix]", baseURL)
	}
	if apiKey == "" {
		return nil, errors.New("client: an API key is required")
	}
	if strings.ContainsAny(apiKey, "\x00\r\n") {
		// net/http would refuse every request with it, far from here.
		return nil, errors.New("client: the API key holds a control character")
	}
	base := u
	if !strings.HasSuffix(u.Path, "/api/v1") {
		base = u.JoinPath("api", "v1")
	}
	c := &Client{
		base: base, key: apiKey, keyHeader: "X-API-KEY", http: defaultHTTPClient(), agent: defaultAgent(),
		retries: 4, retryBase: 200 * time.Millisecond, retryMax: 10 * time.Second, autoKey: true, log: zap.NewNop(),
	}
	for _, o := range opts {
		o(c)
	}
	if c.http.CheckRedirect == nil {
		hc := *c.http // the caller's client stays as it was
		hc.CheckRedirect = refuseRedirect
		c.http = &hc
	}
	return c, nil
}

// refuseRedirect keeps the API key at home: net/http would send the
// X-API-KEY header on to any host a redirect names. The API itself never
// redirects, so the 3xx is answered to the caller as an error.
func refuseRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

// defaultHTTPClient bounds each phase of a connection but not a whole
// response: an event stream lasts as long as its job.
func defaultHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 60 * time.Second,
		ExpectContinueTimeout: time.Second,
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
