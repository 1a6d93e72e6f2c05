package httpadapter_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/httpadapter"
	"github.com/qjobs/quantum/store"
)

// limitedServer serves the API on a LimitListener of n connections and
// returns its address.
func limitedServer(t *testing.T, n int) string {
	t.Helper()
	svc, err := quantum.New(store.NewMemory(), quantum.WithWorkers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = svc.Close(context.Background()) })
	if _, err := svc.AddAPIKey(aliceKey, "alice"); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(httpadapter.New(svc))
	srv.Listener = httpadapter.LimitListener(srv.Listener, n)
	srv.Start()
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

// held is a connection that holds a slot: it has been answered once, and
// stays open (keep-alive) until released.
type held struct {
	c  net.Conn
	rd *bufio.Reader
}

const healthz = "GET /healthz HTTP/1.1\r\nHost: test\r\n"

// hold opens a connection and has one request answered on it, so that it
// surely holds a slot.
func hold(t *testing.T, addr string) *held {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	h := &held{c: c, rd: bufio.NewReader(c)}
	if res := h.roundTrip(t, healthz+"\r\n"); res.StatusCode != http.StatusOK {
		t.Fatalf("a connection within the limit answered %d", res.StatusCode)
	}
	return h
}

func (h *held) roundTrip(t *testing.T, req string) *http.Response {
	t.Helper()
	if _, err := io.WriteString(h.c, req); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(h.rd, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, res.Body); err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res
}

// release asks the server to close the connection and waits until it
// has: the slot is given back before the server's side closes.
func (h *held) release(t *testing.T) {
	t.Helper()
	h.roundTrip(t, healthz+"Connection: close\r\n\r\n")
	if _, err := io.Copy(io.Discard, h.rd); err != nil {
		t.Fatalf("waiting for the server to close: %v", err)
	}
	h.c.Close()
}

// wantBusy checks the listener's refusal: a 503 SERVICE_BUSY in the error
// envelope, Retry-After 1, and the connection closed.
func wantBusy(t *testing.T, res *http.Response) {
	t.Helper()
	defer res.Body.Close()
	if res.StatusCode != http.StatusServiceUnavailable || res.Header.Get("Retry-After") != "1" || !res.Close ||
		res.Header.Get("Content-Type") != "application/json; charset=utf-8" {
		t.Fatalf("%s, Retry-After %q, close %v, Content-Type %q; want 503, 1, true, JSON",
			res.Status, res.Header.Get("Retry-After"), res.Close, res.Header.Get("Content-Type"))
	}
	var env struct {
		Success *bool  `json:"success"`
		Message string `json:"message"`
		Error   struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.NewDecoder(res.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	if env.Success == nil || *env.Success || env.Error.Code != quantum.EBUSY || env.Message == "" || env.Error.Message != env.Message {
		t.Fatalf("envelope %+v, want success false and SERVICE_BUSY with the same message at both levels", env)
	}
}

// A flood of connections past the limit is answered 503, each at once;
// once the connections holding the slots close, as many are served
// again, round after round, and never one more.
func TestConnectionLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		n     int
		flood int
	}{
		{"one slot", 1, 20},
		{"a few slots", 4, 50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := limitedServer(t, tc.n)
			client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
			for round := range 3 {
				holders := make([]*held, tc.n)
				for i := range holders {
					holders[i] = hold(t, addr)
				}
				var wg sync.WaitGroup
				answers := make(chan *http.Response, tc.flood)
				for range tc.flood {
					wg.Go(func() {
						req, _ := http.NewRequest("GET", "http://"+addr+"/api/v1/devices", nil)
						req.Header.Set("X-API-KEY", aliceKey)
						res, err := client.Do(req)
						if err != nil {
							t.Errorf("round %d: a request past the limit got no answer: %v", round, err)
							return
						}
						answers <- res
					})
				}
				wg.Wait()
				close(answers)
				for res := range answers {
					wantBusy(t, res)
				}
				for _, h := range holders {
					h.release(t)
				}
			}
			// Served as before.
			req, _ := http.NewRequest("GET", "http://"+addr+"/api/v1/devices", nil)
			req.Header.Set("X-API-KEY", aliceKey)
			res, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusOK {
				t.Fatalf("after the floods: %s", res.Status)
			}
		})
	}
}

// Refused connections whose clients never close hold at most MaxRefusing
// goroutines; the next ones wait for one of those to end, or for a slot,
// and are then answered: none is dropped, none is lost.
func TestRefusalsAreBounded(t *testing.T) {
	addr := limitedServer(t, 1)
	h := hold(t, addr)
	base := runtime.NumGoroutine()
	const flood = 200
	conns := make([]*held, flood)
	defer func() {
		for _, c := range conns {
			c.c.Close()
		}
	}()
	for i := range conns {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		conns[i] = &held{c: c, rd: bufio.NewReader(c)}
		if _, err := io.WriteString(c, healthz+"\r\n"); err != nil {
			t.Fatal(err)
		}
	}
	// The first MaxRefusing are answered while their clients hold them.
	for _, c := range conns[:httpadapter.MaxRefusing] {
		if _, err := c.rd.Peek(1); err != nil {
			t.Fatal(err)
		}
	}
	if extra := runtime.NumGoroutine() - base; extra > httpadapter.MaxRefusing+10 {
		t.Fatalf("%d refused connections left open by their clients hold %d goroutines, want at most about %d",
			flood, extra, httpadapter.MaxRefusing)
	}
	// The slot freed goes to the connection waiting, and so does each
	// one freed after it; the others are refused as the clients before
	// them close.
	h.release(t)
	served := 0
	for i, c := range conns {
		res, err := http.ReadResponse(c.rd, nil)
		if err != nil {
			t.Fatalf("connection %d: %v", i, err)
		}
		if res.StatusCode != http.StatusOK {
			wantBusy(t, res)
			c.c.Close()
			continue
		}
		served++
		if _, err := io.Copy(io.Discard, res.Body); err != nil {
			t.Fatal(err)
		}
		c.release(t)
	}
	if served < 1 {
		t.Fatal("no connection served after the slot was freed")
	}
	hold(t, addr).release(t)
}

// pipeListener accepts the server's ends of in-memory pipes.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return &net.UnixAddr{Name: "pipe", Net: "unix"} }

// dial hands the listener a connection, once it takes it, and returns
// the client's end.
func (l *pipeListener) dial() net.Conn {
	server, client := net.Pipe()
	l.conns <- server
	return client
}

// A connection gives its slot back once, however often it is closed; a
// refused one is answered and closed; the inner listener's error ends
// Accept.
func TestLimitListenerSlots(t *testing.T) {
	pl := newPipeListener()
	ln := httpadapter.LimitListener(pl, 2)
	accepted := make(chan net.Conn)
	acceptErr := make(chan error, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				acceptErr <- err
				return
			}
			accepted <- c
		}
	}()
	// refused dials and expects the 503; a connection accepted instead
	// fails the test.
	refused := func(what string) {
		t.Helper()
		answer := make(chan *http.Response, 1)
		go func() {
			c := pl.dial()
			defer c.Close()
			go io.WriteString(c, healthz+"\r\n") // a pipe's write waits for its read
			res, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Errorf("%s: %v", what, err)
				close(answer)
				return
			}
			body, _ := io.ReadAll(res.Body)
			res.Body = io.NopCloser(bytes.NewReader(body))
			answer <- res
		}()
		select {
		case c := <-accepted:
			c.Close()
			t.Fatalf("%s: accepted past the limit", what)
		case res := <-answer:
			if res == nil {
				t.FailNow()
			}
			wantBusy(t, res)
		}
	}
	pl.dial()
	first := <-accepted
	pl.dial()
	<-accepted
	refused("a third connection of two")

	for range 3 {
		if err := first.Close(); err != nil && !errors.Is(err, io.ErrClosedPipe) {
			t.Fatal(err)
		}
	}
	pl.dial()
	<-accepted
	refused("a connection after one closed three times")

	// With every refusal under way (their clients never read), Accept
	// waits; Close ends the wait.
	for range httpadapter.MaxRefusing {
		c := pl.dial()
		t.Cleanup(func() { c.Close() })
		if _, err := io.WriteString(c, healthz+"\r\n"); err != nil {
			t.Fatal(err)
		}
	}
	pl.dial() // taken by the inner Accept: it waits for a slot or a refusal
	if err := ln.Close(); err != nil {
		t.Fatal(err)
	}
	if err := <-acceptErr; !errors.Is(err, net.ErrClosed) {
		t.Fatalf("Accept after the inner listener closed: %v", err)
	}
}
