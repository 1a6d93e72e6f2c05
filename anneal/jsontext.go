package anneal

import (
	"unicode/utf16"
	"unicode/utf8"
)

// The problem's objects are read here without encoding/json's maps: a
// problem of a million couplings is a million keys, each itself JSON text
// to read, and a map of them would hold the whole problem twice over.
// encoding/json has checked the text (Decode validates it first), except
// the JSON inside each quadratic key, which these functions check as they
// read it.

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(s []byte, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}

// stringEnd is the index just past the JSON string starting at s[i] (a
// quote), and whether it holds escapes; -1 when s holds no valid string
// there (a control character, a bad escape, no closing quote).
func stringEnd(s []byte, i int) (end int, escaped bool) {
	if i >= len(s) || s[i] != '"' {
		return -1, false
	}
	for i++; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"':
			return i + 1, escaped
		case c < 0x20:
			return -1, false
		case c == '\\':
			escaped = true
			i++
			if i >= len(s) {
				return -1, false
			}
			switch s[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(s) {
					return -1, false
				}
				for _, h := range s[i+1 : i+5] {
					if hexValue(h) < 0 {
						return -1, false
					}
				}
				i += 4
			default:
				return -1, false
			}
		}
	}
	return -1, false
}

func hexValue(c byte) rune {
	switch {
	case '0' <= c && c <= '9':
		return rune(c - '0')
	case 'a' <= c && c <= 'f':
		return rune(c - 'a' + 10)
	case 'A' <= c && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}

// unescape appends to dst the text of a JSON string's body (between its
// quotes, checked by stringEnd), decoding escapes as encoding/json does: a
// \u escape that is half a surrogate pair alone is U+FFFD, and so is each
// byte that is not UTF-8.
func unescape(dst, body []byte) []byte {
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' {
			if c < utf8.RuneSelf {
				dst = append(dst, c)
				i++
				continue
			}
			r, size := utf8.DecodeRune(body[i:])
			dst = utf8.AppendRune(dst, r)
			i += size
			continue
		}
		i++
		switch body[i] {
		case 'b':
			dst = append(dst, '\b')
		case 'f':
			dst = append(dst, '\f')
		case 'n':
			dst = append(dst, '\n')
		case 'r':
			dst = append(dst, '\r')
		case 't':
			dst = append(dst, '\t')
		case 'u':
			r := hex4(body[i+1:])
			i += 4
			if utf16.IsSurrogate(r) {
				next := utf8.RuneError // the escape after it, if it is one
				if i+6 < len(body) && body[i+1] == '\\' && body[i+2] == 'u' {
					next = hex4(body[i+3:])
				}
				if d := utf16.DecodeRune(r, next); d != utf8.RuneError {
					r = d
					i += 6
				} else {
					r = utf8.RuneError
				}
			}
			dst = utf8.AppendRune(dst, r)
		default: // " \ /
			dst = append(dst, body[i])
		}
		i++
	}
	return dst
}

func hex4(s []byte) rune {
	return hexValue(s[0])<<12 | hexValue(s[1])<<8 | hexValue(s[2])<<4 | hexValue(s[3])
}

// valueEnd is the index just past the JSON value starting at s[i], in text
// encoding/json has checked; nested values are skipped by counting
// brackets, never by recursion.
func valueEnd(s []byte, i int) int {
	switch s[i] {
	case '"':
		end, _ := stringEnd(s, i)
		return end
	case '{', '[':
		depth := 0
		for i < len(s) {
			switch s[i] {
			case '"':
				i, _ = stringEnd(s, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return len(s)
	}
	for i < len(s) && !isSpace(s[i]) && s[i] != ',' && s[i] != '}' && s[i] != ']' {
		i++
	}
	return i
}

// pairNames reads a quadratic key's text, which must be a JSON array of
// two strings (`["u", "v"]` as Python's json.dumps writes a pair), into
// the two names, appended to buf (returned grown, to be reused). ok is
// false for any other text.
func pairNames(buf, key []byte) (grown, u, v []byte, ok bool) {
	i := skipSpace(key, 0)
	if i >= len(key) || key[i] != '[' {
		return buf, nil, nil, false
	}
	var names [2][2]int // start and end of each name in buf
	for n := range 2 {
		i = skipSpace(key, i+1)
		end, escaped := stringEnd(key, i)
		if end < 0 {
			return buf, nil, nil, false
		}
		names[n][0] = len(buf)
		if escaped {
			buf = unescape(buf, key[i+1:end-1])
		} else {
			buf = append(buf, key[i+1:end-1]...)
		}
		names[n][1] = len(buf)
		i = skipSpace(key, end)
		want := byte(',')
		if n == 1 {
			want = ']'
		}
		if i >= len(key) || key[i] != want {
			return buf, nil, nil, false
		}
	}
	if skipSpace(key, i+1) != len(key) {
		return buf, nil, nil, false
	}
	return buf, buf[names[0][0]:names[0][1]], buf[names[1][0]:names[1][1]], true
}

// quoteJSON is s as a JSON string, as paths in errors write keys.
func quoteJSON(s string) string {
	const hex = "0123456789abcdef"
	b := make([]byte, 0, len(s)+2)
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c == '\n':
			b = append(b, '\\', 'n')
		case c == '\r':
			b = append(b, '\\', 'r')
		case c == '\t':
			b = append(b, '\\', 't')
		case c < 0x20:
			b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return string(append(b, '"'))
}
