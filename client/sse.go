package client

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"
)

// An event stream is read as the WHATWG HTML standard (§9.2 Server-sent
// events) says: lines end in LF, CR or CRLF; a line starting with ':' is a
// comment; "id", "event", "data" and "retry" are fields, others are
// ignored; a blank line dispatches the event, unless it has no data.

// Bounds on a stream, so that a broken or hostile server cannot make the
// client buffer without end: one line (a job is one line), and the data
// of one event however many lines it spans.
const (
	maxEventLine = 16 << 20
	maxEventData = 16 << 20
)

var (
	errLineTooLong  = errors.New("client: an event stream line is too long")
	errEventTooLong = errors.New("client: an event stream event is too large")
)

type event struct {
	id, name, data string
}

type eventReader struct {
	sc     *bufio.Scanner
	first  bool   // no line read yet: a byte order mark may lead
	idBuf  string // the id field last seen, committed at the next dispatch
	lastID string // the id of the last event dispatched: what a resume sends
	retry  time.Duration
	onLine func() // called for every line read, comments too
}

func newEventReader(r io.Reader) *eventReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxEventLine)
	sc.Split(scanLines)
	return &eventReader{sc: sc, first: true}
}

// next returns the next event; io.EOF when the stream ends. An event cut
// off by the end is dropped, as the standard says.
func (r *eventReader) next() (event, error) {
	var name string
	var data strings.Builder
	hasData := false
	for r.sc.Scan() {
		if r.onLine != nil {
			r.onLine()
		}
		line := r.sc.Bytes()
		if r.first {
			line = bytes.TrimPrefix(line, []byte("\uFEFF"))
			r.first = false
		}
		if len(line) == 0 {
			r.lastID = r.idBuf
			if !hasData {
				name = "" // nothing to dispatch; the event type resets too
				continue
			}
			if name == "" {
				name = "message"
			}
			return event{id: r.lastID, name: name, data: data.String()}, nil
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := bytes.Cut(line, []byte(":"))
		value = bytes.TrimPrefix(value, []byte(" "))
		switch string(field) {
		case "event":
			name = string(value)
		case "data":
			if data.Len()+len(value)+1 > maxEventData {
				return event{}, errEventTooLong
			}
			if hasData {
				data.WriteByte('\n')
			}
			data.Write(value)
			hasData = true
		case "id":
			if bytes.IndexByte(value, 0) < 0 {
				r.idBuf = string(value)
			}
		case "retry":
			if ms, err := strconv.ParseUint(string(value), 10, 32); err == nil { // ASCII digits only

				r.retry = time.Duration(ms) * time.Millisecond
			}
		}
	}
	if err := r.sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return event{}, errLineTooLong
		}
		return event{}, err
	}
	return event{}, io.EOF
}

// scanLines splits at LF, CR or CRLF. A CR at the end of the bytes read so
// far waits for the next byte, which may be its LF.
func scanLines(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexAny(data, "\r\n"); i >= 0 {
		if data[i] == '\n' {
			return i + 1, data[:i], nil
		}
		if i+1 < len(data) {
			if data[i+1] == '\n' {
				return i + 2, data[:i], nil
			}
			return i + 1, data[:i], nil
		}
		if atEOF {
			return i + 1, data[:i], nil
		}
		return 0, nil, nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}
