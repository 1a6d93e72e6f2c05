package httpadapter

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/qjobs/quantum"
)

// LimitListener returns a listener that holds at most n of ln's
// connections open at once: each connection it returns takes one of n
// slots, given back (once) when the connection is closed. A connection
// that arrives when every slot is taken is not served: once its
// request's header has come, it is answered with a plain HTTP/1.1 503
// SERVICE_BUSY in the error envelope, with Retry-After: 1 and
// Connection: close, and closed. Its request is discarded, so a client
// may repeat it as it is.
//
// Each open connection costs a goroutine and its buffers in http.Server;
// without a bound a flood of connections, or many slow ones, exhausts
// memory and file descriptors. Idle keep-alive connections hold their
// slot until http.Server's IdleTimeout closes them, and so do event
// streams for their whole life: leave room for them in n.
//
// Refusals are bounded too: at most 64 are answered at once, each within
// a second (a client that sends no header by then is closed unanswered).
// While 64 are under way, Accept waits for one of them to end or for a
// slot, and new connections wait in the kernel's queue.
//
// The answer is plain text, so wrap the listener of a server without
// TLS, or put TLS around this listener (tls.NewListener) knowing that a
// refused client then sees a failed handshake instead. It panics if n is
// below 1: an unlimited listener is ln itself.
func LimitListener(ln net.Listener, n int) net.Listener {
	if n < 1 {
		panic("httpadapter: LimitListener needs n of at least 1, got " + strconv.Itoa(n))
	}
	return &limitListener{Listener: ln, slots: make(chan struct{}, n), refusing: make(chan struct{}, maxRefusing),
		busy: busyAnswer(n), done: make(chan struct{})}
}

const (
	// maxRefusing bounds the goroutines answering refused connections: a
	// flood past the limit must not become a flood of goroutines.
	maxRefusing = 64
	// refuseWithin bounds how long a refused connection is held: to read
	// its header, write the answer, and read on until the client closes.
	refuseWithin = time.Second
	// maxDiscard bounds what is read of a refused connection's request:
	// its header, then as much again of what follows.
	maxDiscard = 64 << 10
)

type limitListener struct {
	net.Listener
	slots     chan struct{} // a token per connection open
	refusing  chan struct{} // a token per refusal under way
	busy      []byte        // the whole 503, made once
	done      chan struct{} // closed by Close
	closeOnce sync.Once
}

// Accept returns the next connection that finds a free slot, refusing
// those that do not. Every turn of its loop takes a connection, so it
// never spins; it waits only in the inner Accept, or for a slot or a
// refusal to end (within refuseWithin) when refusals are at their bound.
func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		// A free slot first: the select below picks at random among
		// ready cases.
		select {
		case l.slots <- struct{}{}:
			return l.limited(c), nil
		default:
		}
		select {
		case l.slots <- struct{}{}:
			return l.limited(c), nil
		case l.refusing <- struct{}{}:
			go func() {
				defer func() { <-l.refusing }()
				answerBusy(c, l.busy)
			}()
		case <-l.done:
			_ = c.Close()
			return nil, net.ErrClosed
		}
	}
}

// Close ends an Accept that waits for a slot, and closes ln.
func (l *limitListener) Close() error {
	l.closeOnce.Do(func() { close(l.done) })
	return l.Listener.Close()
}

func (l *limitListener) limited(c net.Conn) net.Conn {
	return &limitedConn{Conn: c, release: func() { <-l.slots }}
}

// answerBusy reads the request's header, writes the 503, half-closes,
// and reads what else the client sends until it closes. The answer waits
// for the header because a client that reads an answer before it has
// asked drops it (Go's http.Transport, as unsolicited); the reads after
// it because closing a socket with unread data resets the connection,
// and a reset may discard the answer before the client has read it.
func answerBusy(c net.Conn, busy []byte) {
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(refuseWithin))
	rd := bufio.NewReaderSize(c, 4<<10)
	if !skipHeader(rd) {
		return
	}
	if _, err := c.Write(busy); err != nil {
		return
	}
	if cw, ok := c.(closeWriter); ok {
		_ = cw.CloseWrite()
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(rd, maxDiscard))
}

// skipHeader reads up to the blank line that ends a request's header. It
// is false if the client stopped, or the deadline passed, before it; a
// header longer than maxDiscard is answered all the same.
func skipHeader(rd *bufio.Reader) bool {
	continued := false // the line so far was longer than rd's buffer
	for read := 0; read < maxDiscard; {
		line, err := rd.ReadSlice('\n')
		read += len(line)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continued = true
		case err != nil:
			return false
		case !continued && len(bytes.TrimRight(line, "\r\n")) == 0:
			return true
		default:
			continued = false
		}
	}
	return true
}

// busyAnswer is the whole HTTP answer to a refused connection.
func busyAnswer(n int) []byte {
	msg := fmt.Sprintf("the server has %d connections open, as many as it allows; retry in 1 s", n)
	body, _ := json.Marshal(errorBody{Message: msg, Error: errorDetail{Code: quantum.EBUSY, Message: msg}})
	body = append(body, '\n') // as writeJSON's answers end
	return fmt.Appendf(nil, "HTTP/1.1 503 Service Unavailable\r\n"+
		"Content-Type: application/json; charset=utf-8\r\n"+
		"Content-Length: %d\r\n"+
		"Retry-After: 1\r\n"+
		"Connection: close\r\n"+
		"\r\n%s", len(body), body)
}

type closeWriter interface{ CloseWrite() error }

// limitedConn gives its slot back when it is first closed.
type limitedConn struct {
	net.Conn
	once    sync.Once
	release func()
}

// Close gives the slot back before the socket closes, so that a client
// that sees the close may connect again at once.
func (c *limitedConn) Close() error {
	c.once.Do(c.release)
	return c.Conn.Close()
}

// CloseWrite lets http.Server half-close a connection whose request body
// it did not read (a 413): its answer then reaches the client before the
// reset that closing with unread data causes.
func (c *limitedConn) CloseWrite() error {
	if cw, ok := c.Conn.(closeWriter); ok {
		return cw.CloseWrite()
	}
	return errors.ErrUnsupported
}
