package httpadapter

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/qjobs/quantum"
)

// quickJobRequest reads, in one pass, a create in the shape clients send:
// an object of program (format and data), shots, deviceQrn and perhaps
// name, all strings, shots a plain integer. Reading it field by field with encoding/json (decodeJobRequest)
// parsed it three times and was a tenth of what a job allocated. ok is
// false for any other body, well formed or not, which decodeJobRequest then
// reads as before, naming what is wrong: so where ok, req is the request it
// would have made, and a body with a problem always gets its full answer.
func quickJobRequest(body []byte) (req quantum.JobRequest, ok bool) {
	s := scanner{b: body}
	if !s.next('{') {
		return req, false
	}
	var seen struct{ program, shots, device, name bool }
	for {
		key, ok := s.str()
		if !ok || !s.next(':') {
			return req, false
		}
		switch key {
		case "program":
			if seen.program {
				return req, false
			}
			seen.program = true
			if req.Program, ok = s.program(); !ok {
				return req, false
			}
		case "shots":
			if seen.shots {
				return req, false
			}
			seen.shots = true
			if req.Shots, ok = s.int(); !ok {
				return req, false
			}
		case "deviceQrn":
			if seen.device {
				return req, false
			}
			seen.device = true
			if req.DeviceQRN, ok = s.str(); !ok {
				return req, false
			}
		case "name":
			if seen.name {
				return req, false
			}
			seen.name = true
			if req.Name, ok = s.str(); !ok {
				return req, false
			}
		default:
			return req, false
		}
		if s.next(',') {
			continue
		}
		if !s.next('}') {
			return req, false
		}
		break
	}
	s.space()
	return req, s.i == len(s.b) && seen.program && seen.shots && seen.device
}

// scanner reads the part of JSON quickJobRequest takes.
type scanner struct {
	b []byte
	i int
}

func (s *scanner) space() {
	for s.i < len(s.b) && (s.b[s.i] == ' ' || s.b[s.i] == '\t' || s.b[s.i] == '\n' || s.b[s.i] == '\r') {
		s.i++
	}
}

// next consumes c, after any space, if it comes next.
func (s *scanner) next(c byte) bool {
	s.space()
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// program reads {"format": "…", "data": "…"} in either order.
func (s *scanner) program() (*quantum.Program, bool) {
	if !s.next('{') {
		return nil, false
	}
	p := &quantum.Program{}
	var format, data bool
	for {
		key, ok := s.str()
		if !ok || !s.next(':') {
			return nil, false
		}
		switch {
		case key == "format" && !format:
			format = true
			p.Format, ok = s.str()
		case key == "data" && !data:
			data = true
			p.Data, ok = s.str()
		default:
			return nil, false
		}
		if !ok {
			return nil, false
		}
		if s.next(',') {
			continue
		}
		return p, s.next('}') && format && data
	}
}

// str reads a string of valid UTF-8 and escapes, as Go's and Python's
// JSON write strings (<, > and & as \u003c, \u003e and \u0026; all but
// ASCII as \u escapes); surrogates, which make pairs or U+FFFD, and text
// that is not UTF-8, which the general reader refuses by its own rule, are
// left to encoding/json.
func (s *scanner) str() (string, bool) {
	if !s.next('"') {
		return "", false
	}
	start := s.i
	for s.i < len(s.b) {
		switch c := s.b[s.i]; {
		case c == '"':
			raw := s.b[start:s.i]
			s.i++
			return string(raw), utf8.Valid(raw)
		case c == '\\':
			return s.escaped(start)
		case c < 0x20:
			return "", false
		}
		s.i++
	}
	return "", false
}

// escaped reads the rest of a string from its first escape on.
func (s *scanner) escaped(start int) (string, bool) {
	// The text is no longer than its source: one allocation holds it.
	end := s.i
	for end < len(s.b) && s.b[end] != '"' {
		if s.b[end] == '\\' {
			end++
		}
		end++
	}
	var out strings.Builder
	out.Grow(end - start)
	out.Write(s.b[start:s.i])
	for s.i < len(s.b) {
		c := s.b[s.i]
		s.i++
		switch {
		case c == '"':
			// Escapes are ASCII: the text is valid where its source is.
			return out.String(), utf8.Valid(s.b[start : s.i-1])
		case c == '\\':
			if s.i == len(s.b) {
				return "", false
			}
			e := s.b[s.i]
			s.i++
			switch e {
			case '"', '\\', '/':
				out.WriteByte(e)
			case 'b':
				out.WriteByte('\b')
			case 'f':
				out.WriteByte('\f')
			case 'n':
				out.WriteByte('\n')
			case 'r':
				out.WriteByte('\r')
			case 't':
				out.WriteByte('\t')
			case 'u':
				r, ok := s.hex4()
				if !ok || utf16.IsSurrogate(r) {
					return "", false
				}
				out.WriteRune(r)
			default:
				return "", false
			}
		case c < 0x20:
			return "", false
		default:
			out.WriteByte(c)
		}
	}
	return "", false
}

// hex4 reads the four hex digits of a \u escape.
func (s *scanner) hex4() (rune, bool) {
	if len(s.b)-s.i < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s.b[s.i : s.i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	s.i += 4
	return r, true
}

// int reads 0 or a positive integer of at most nine digits, which every
// int holds; a fraction, an exponent or a sign is left to encoding/json.
func (s *scanner) int() (int, bool) {
	s.space()
	start, n := s.i, 0
	for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
		n = n*10 + int(s.b[s.i]-'0')
		s.i++
	}
	digits := s.i - start
	if digits == 0 || digits > 9 || digits > 1 && s.b[start] == '0' {
		return 0, false
	}
	if s.i < len(s.b) && (s.b[s.i] == '.' || s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		return 0, false
	}
	return n, true
}
