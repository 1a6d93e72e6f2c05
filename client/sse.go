package client

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"strings"
)

// An event stream is read as the WHATWG HTML standard says: lines end in
// LF, CR or CRLF; a blank line dispatches the event; a line starting with
// ':' is a comment; "id", "event", "data" and "retry" are fields.

// maxEventLine bounds one line of a stream (a job is one line), so that a
// broken server cannot make the client buffer without end.
const maxEventLine = 16 << 20

type event struct {
	id, name, data string
}

type eventReader struct {
	sc     *bufio.Scanner
	lastID string
	onLine func() // called for every line read, comments too
}

func newEventReader(r io.Reader) *eventReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), maxEventLine)
	sc.Split(scanLines)
	return &eventReader{sc: sc}
}

var errLineTooLong = errors.New("client: an event stream line is too long")

// next returns the next event; io.EOF when the stream ends.
func (r *eventReader) next() (event, error) {
	var ev event
	var data strings.Builder
	hasData := false
	for r.sc.Scan() {
		if r.onLine != nil {
			r.onLine()
		}
		line := r.sc.Text()
		if line == "" {
			if !hasData {
				ev = event{} // nothing to dispatch
				continue
			}
			ev.data = data.String()
			if ev.name == "" {
				ev.name = "message"
			}
			ev.id = r.lastID
			return ev, nil
		}
		if line[0] == ':' {
			continue
		}
		field, value, _ := strings.Cut(line, ":")
		value = strings.TrimPrefix(value, " ")
		switch field {
		case "event":
			ev.name = value
		case "data":
			if hasData {
				data.WriteByte('\n')
			}
			data.WriteString(value)
			hasData = true
		case "id":
			if !strings.ContainsRune(value, 0) {
				r.lastID = value
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

// scanLines splits at LF, CR or CRLF. A CR at the end of the data read so
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
