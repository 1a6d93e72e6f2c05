package client

import (
	"errors"
	"io"
	"strings"
	"testing"
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

func TestEventReaderBoundsLines(t *testing.T) {
	r := newEventReader(io.MultiReader(strings.NewReader("data: "), strings.NewReader(strings.Repeat("x", maxEventLine+10))))
	if _, err := r.next(); !errors.Is(err, errLineTooLong) {
		t.Fatalf("a line over the bound: %v, want errLineTooLong", err)
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
