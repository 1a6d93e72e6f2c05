package client

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

func TestEventReader(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     []event
	}{
		{"lf", "id: 1\nevent: job\ndata: {}\n\n", []event{{"1", "job", "{}"}}},
		{"crlf", "id: 1\r\nevent: job\r\ndata: {}\r\n\r\n", []event{{"1", "job", "{}"}}},
		{"cr", "id: 1\revent: job\rdata: {}\r\r", []event{{"1", "job", "{}"}}},
		{"multi-line data", "data: a\ndata: b\ndata\n\n", []event{{"", "message", "a\nb\n"}}},
		{"comments and retry", ": hello\nretry: 1000\n\n: heartbeat\n\nevent: job\ndata: x\n\n", []event{{"", "job", "x"}}},
		{"id carries over", "id: 7\nevent: job\ndata: a\n\nevent: job\ndata: b\n\n", []event{{"7", "job", "a"}, {"7", "job", "b"}}},
		{"no space after colon", "event:job\ndata:x\n\n", []event{{"", "job", "x"}}},
		{"unterminated last event is dropped", "event: job\ndata: x\n\nevent: job\ndata: y", []event{{"", "job", "x"}}},
		{"event without data is not dispatched", "event: job\n\nevent: other\ndata: z\n\n", []event{{"", "other", "z"}}},
		{"an id without data still counts", "id: 5\n\ndata: z\n\n", []event{{"5", "message", "z"}}},
		{"an empty id clears it", "id: 5\ndata: a\n\nid\ndata: b\n\n", []event{{"5", "message", "a"}, {"", "message", "b"}}},
		{"an id with NUL is ignored", "id: 5\ndata: a\n\nid: 6\x007\ndata: b\n\n", []event{{"5", "message", "a"}, {"5", "message", "b"}}},
		{"a byte order mark", "\uFEFFdata: a\n\n", []event{{"", "message", "a"}}},
		{"unknown fields and a colon in the value", "foo: bar\ndata: a: b\n\n", []event{{"", "message", "a: b"}}},
		{"only one space is cut", "data:  a\n\n", []event{{"", "message", " a"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := newEventReader(strings.NewReader(tc.in))
			var got []event
			for {
				ev, err := r.next()
				if errors.Is(err, io.EOF) {
					break
				}
				if err != nil {
					t.Fatal(err)
				}
				got = append(got, ev)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Fatalf("event %d: %q, want %q", i, got[i], tc.want[i])
				}
			}
		})
	}
}

// An event's last id counts only once the event is whole: a resume from
// an event cut off would skip it.
func TestEventReaderCommitsIDsAtDispatch(t *testing.T) {
	r := newEventReader(strings.NewReader("id: 1\ndata: a\n\nid: 2\ndata: b\n"))
	if ev, err := r.next(); err != nil || ev.id != "1" {
		t.Fatalf("%v %v", ev, err)
	}
	if _, err := r.next(); err != io.EOF || r.lastID != "1" {
		t.Fatalf("%v, last id %q; want EOF and 1", err, r.lastID)
	}
}

func TestEventReaderRetry(t *testing.T) {
	r := newEventReader(strings.NewReader("retry: 1500\nretry: 2x\nretry: -1\ndata: a\n\n"))
	if _, err := r.next(); err != nil || r.retry != 1500*time.Millisecond {
		t.Fatalf("%v, retry %v; want 1.5s", err, r.retry)
	}
}

func TestEventReaderBounds(t *testing.T) {
	long := strings.Repeat("x", maxEventLine+10)
	many := strings.Repeat("data: "+strings.Repeat("x", 1<<20)+"\n", maxEventData>>20+1)
	for _, tc := range []struct {
		name, in string
		want     error
	}{
		{"a line", "data: " + long, errLineTooLong},
		{"an event", many + "\n", errEventTooLong},
	} {
		if _, err := newEventReader(strings.NewReader(tc.in)).next(); !errors.Is(err, tc.want) {
			t.Errorf("%s over the bound: %v, want %v", tc.name, err, tc.want)
		}
	}
}

// FuzzEventReader: whatever a server sends, the reader ends (at EOF or
// with an error) without panicking, and every event it gives came from a
// data field.
func FuzzEventReader(f *testing.F) {
	for _, seed := range []string{
		"id: 1\nevent: job\ndata: {}\n\n", "data: a\r\ndata: b\r\n\r\n", ": c\r\rdata\n\n", "id: \x00\ndata: x\n\n", "\r\n\r\r\n",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, in string) {
		r := newEventReader(strings.NewReader(in))
		for range len(in) + 1 {
			ev, err := r.next()
			if err != nil {
				return
			}
			if !strings.Contains(in, "data") {
				t.Fatalf("event %q from input without a data field", ev)
			}
		}
		t.Fatalf("more events than bytes in %q", in)
	})
}
