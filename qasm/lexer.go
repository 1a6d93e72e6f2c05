package qasm

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

type tokKind uint8

const (
	tEOF tokKind = iota
	tIdent
	tInt
	tFloat
	tImag
	tDuration
	tString
	tBitString
	tPhys // $3
	tOp   // punctuation and operators; the text says which
	tPragma
	tAnnotation
)

type token struct {
	kind tokKind
	text string
	pos  position
}

func (t token) is(op string) bool { return t.kind == tOp && t.text == op }

// describe names a token the way an error message should show it.
func (t token) describe() string {
	switch t.kind {
	case tEOF:
		return "end of program"
	case tString:
		return "string " + t.text
	}
	return "\"" + t.text + "\""
}

// operators, longest first so that the lexer takes the longest match.
var operators = []string{
	"<<=", ">>=", "**=",
	"->", "++", "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "~=", "**",
	"==", "!=", "<=", ">=", "&&", "||", "<<", ">>",
	"+", "-", "*", "/", "%", "&", "|", "^", "~", "!", "<", ">", "=",
	"(", ")", "[", "]", "{", "}", ",", ";", ":", "@", ".",
}

// numberSuffixes are what may follow a number: "im" makes it imaginary,
// a time unit makes it a duration.
var numberSuffixes = []string{"im", "dt", "ns", "us", "µs", "ms", "s"}

// lex splits src into tokens. It never fails: a character it does not know
// becomes a one-character operator token that the parser then rejects with
// its position.
func lex(src string) ([]token, *Error) {
	// Every token but the last takes at least a byte: this never regrows.
	toks := make([]token, 0, len(src)+1)
	line, col := int32(1), int32(1)
	i := 0
	if strings.HasPrefix(src, "\ufeff") {
		i = len("\ufeff") // a byte-order mark from an editor
	}
	advance := func(n int) {
		for _, r := range src[i : i+n] {
			if r == '\n' {
				line++
				col = 1
			} else {
				col++
			}
		}
		i += n
	}
	for i < len(src) {
		c := src[i]
		switch {
		case c == '\n' || c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			advance(1)
			continue
		case strings.HasPrefix(src[i:], "//"):
			n := strings.IndexByte(src[i:], '\n')
			if n < 0 {
				n = len(src) - i
			}
			advance(n)
			continue
		case strings.HasPrefix(src[i:], "/*"):
			start := position{line, col}
			n := strings.Index(src[i+2:], "*/")
			if n < 0 {
				return nil, errorf(start, "comment opened here is never closed with \"*/\"")
			}
			advance(n + 4)
			continue
		}
		p := position{line, col}
		switch {
		case c == '"' || c == '\'':
			n := strings.IndexByte(src[i+1:], c)
			if n < 0 || strings.IndexByte(src[i+1:i+1+n], '\n') >= 0 {
				return nil, errorf(p, "string opened here is not closed on the same line")
			}
			s := src[i+1 : i+1+n]
			k := tString
			if s != "" && strings.Trim(s, "01_") == "" {
				k = tBitString
			}
			toks = append(toks, token{k, s, p})
			advance(n + 2)
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			n, k := scanNumber(src[i:])
			toks = append(toks, token{k, src[i : i+n], p})
			advance(n)
		case c == '$':
			n := 1
			for i+n < len(src) && src[i+n] >= '0' && src[i+n] <= '9' {
				n++
			}
			if n == 1 {
				// $name only appears inside calibration blocks, which the
				// parser skips; keep it an identifier-like token.
				toks = append(toks, token{tOp, "$", p})
			} else {
				toks = append(toks, token{tPhys, src[i+1 : i+n], p})
			}
			advance(n)
		case c == '#' && strings.HasPrefix(src[i:], "#pragma") || c == 'p' && strings.HasPrefix(src[i:], "pragma") && (i+6 == len(src) || src[i+6] == ' ' || src[i+6] == '\t') && atLineStart(src, i):
			n := strings.IndexByte(src[i:], '\n')
			if n < 0 {
				n = len(src) - i
			}
			toks = append(toks, token{tPragma, strings.TrimSpace(src[i : i+n]), p})
			advance(n)
		case c == '@' && i+1 < len(src) && isIdentStart(rune(src[i+1])) && atLineStart(src, i):
			n := strings.IndexByte(src[i:], '\n')
			if n < 0 {
				n = len(src) - i
			}
			toks = append(toks, token{tAnnotation, strings.TrimSpace(src[i : i+n]), p})
			advance(n)
		default:
			r, size := utf8.DecodeRuneInString(src[i:])
			if isIdentStart(r) {
				n := size
				for i+n < len(src) {
					r2, s2 := utf8.DecodeRuneInString(src[i+n:])
					if !isIdentStart(r2) && !unicode.IsDigit(r2) {
						break
					}
					n += s2
				}
				toks = append(toks, token{tIdent, src[i : i+n], p})
				advance(n)
				continue
			}
			op := src[i : i+size]
			for _, o := range operators {
				if o[0] != c {
					continue
				}
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			toks = append(toks, token{tOp, op, p})
			advance(len(op))
		}
	}
	toks = append(toks, token{tEOF, "", position{line, col}})
	return toks, nil
}

func atLineStart(src string, i int) bool {
	for j := i - 1; j >= 0; j-- {
		switch src[j] {
		case ' ', '\t', '\r':
			continue
		case '\n':
			return true
		}
		return false
	}
	return true
}

func isIdentStart(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || r == 'π' || r == 'τ' || r == 'ℇ'
}

// scanNumber returns the length of the number at the start of s and its
// kind: an integer (decimal, 0x, 0o, 0b, with _ separators), a float, an
// imaginary literal or a duration (a number with a time unit).
func scanNumber(s string) (int, tokKind) {
	n := 0
	digits := func(ok func(byte) bool) {
		for n < len(s) && (ok(s[n]) || s[n] == '_' && n+1 < len(s) && ok(s[n+1])) {
			n++
		}
	}
	dec := func(b byte) bool { return b >= '0' && b <= '9' }
	if len(s) > 2 && s[0] == '0' {
		var ok func(byte) bool
		switch s[1] {
		case 'x', 'X':
			ok = func(b byte) bool { return dec(b) || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F' }
		case 'o':
			ok = func(b byte) bool { return b >= '0' && b <= '7' }
		case 'b', 'B':
			ok = func(b byte) bool { return b == '0' || b == '1' }
		}
		if ok != nil && ok(s[2]) {
			n = 2
			digits(ok)
			return n, tInt
		}
	}
	kind := tInt
	digits(dec)
	if n < len(s) && s[n] == '.' {
		kind = tFloat
		n++
		digits(dec)
	}
	if n < len(s) && (s[n] == 'e' || s[n] == 'E') {
		m := n + 1
		if m < len(s) && (s[m] == '+' || s[m] == '-') {
			m++
		}
		if m < len(s) && dec(s[m]) {
			kind = tFloat
			n = m
			digits(dec)
		}
	}
	rest := s[n:]
	// A unit or "im" counts only when no identifier character follows it.
	for _, u := range numberSuffixes {
		if strings.HasPrefix(rest, u) {
			after := rest[len(u):]
			r, _ := utf8.DecodeRuneInString(after)
			if after == "" || !isIdentStart(r) && !unicode.IsDigit(r) {
				if u == "im" {
					return n + len(u), tImag
				}
				return n + len(u), tDuration
			}
		}
	}
	return n, kind
}
