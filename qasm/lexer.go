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

// isOp is is for an op that is not a constant, where t.text == op would
// be a call: most ops are one character, compared here without one.
func (t *token) isOp(op string) bool {
	if t.kind != tOp || len(t.text) != len(op) || t.text[0] != op[0] {
		return false
	}
	return len(op) == 1 || t.text == op
}

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

// lexer splits src into tokens, one at a time as the parser asks for
// them, so that the tokens of a statement the parser is done with can be
// dropped: a program's tokens never all exist at once. It never fails on
// an unknown character: that becomes a one-character operator token that
// the parser then rejects with its position.
type lexer struct {
	src       string
	i         int
	line, col int32
	poll      *poller
}

func newLexer(src string, poll *poller) *lexer {
	lx := &lexer{src: src, line: 1, col: 1, poll: poll}
	if strings.HasPrefix(src, "\ufeff") {
		lx.i = len("\ufeff") // a byte-order mark from an editor
	}
	return lx
}

func (lx *lexer) advance(n int) {
	for _, r := range lx.src[lx.i : lx.i+n] {
		if r == '\n' {
			lx.line++
			lx.col = 1
		} else {
			lx.col++
		}
	}
	lx.i += n
}

// next returns the next token: tEOF at the end, as often as it is asked.
// An unclosed comment or string is an error at its start.
func (lx *lexer) next() token {
	src := lx.src
	for lx.i < len(src) {
		lx.poll.tick() // also for each run of blanks and comment skipped
		i := lx.i
		c := src[i]
		switch {
		case c == '\n':
			lx.line++
			lx.col = 1
			lx.i++
			continue
		case c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v':
			// a run of blanks, pollEvery at most between two ticks
			j, end := i+1, min(len(src), i+pollEvery)
			for j < end && (src[j] == ' ' || src[j] == '\t' || src[j] == '\r' || src[j] == '\f' || src[j] == '\v') {
				j++
			}
			lx.col += int32(j - i)
			lx.i = j
			lx.poll.tickN(j - i - 1)
			continue
		case isASCIIIdentStart(c):
			// the common token: an ASCII identifier, scanned a byte at a
			// time; one that goes on past ASCII is scanned as runes below
			n := 1
			for i+n < len(src) && isASCIIIdent(src[i+n]) {
				n++
			}
			if i+n == len(src) || src[i+n] < utf8.RuneSelf {
				if c == 'p' && n == 6 && src[i:i+n] == "pragma" && atLineStart(src, i) {
					break // a pragma line, below
				}
				p := position{lx.line, lx.col}
				lx.col += int32(n)
				lx.i += n
				return token{tIdent, src[i : i+n], p}
			}
		case c >= '0' && c <= '9':
			n, k := scanNumber(src[i:])
			p := position{lx.line, lx.col}
			if k == tDuration {
				lx.advance(n) // its unit may be µs
			} else {
				lx.col += int32(n)
				lx.i += n
			}
			return token{k, src[i : i+n], p}
		case c < utf8.RuneSelf && singleOps[c]:
			p := position{lx.line, lx.col}
			lx.col++
			lx.i++
			return token{tOp, src[i : i+1], p}
		}
		switch {
		case strings.HasPrefix(src[i:], "//"):
			n := strings.IndexByte(src[i:], '\n')
			if n < 0 {
				n = len(src) - i
			}
			lx.advance(n)
			continue
		case strings.HasPrefix(src[i:], "/*"):
			start := position{lx.line, lx.col}
			n := strings.Index(src[i+2:], "*/")
			if n < 0 {
				fail(start, "comment opened here is never closed with \"*/\"")
			}
			lx.advance(n + 4)
			continue
		}
		p := position{lx.line, lx.col}
		switch {
		case c == '"' || c == '\'':
			n := strings.IndexByte(src[i+1:], c)
			if n < 0 || strings.IndexByte(src[i+1:i+1+n], '\n') >= 0 {
				fail(p, "string opened here is not closed on the same line")
			}
			s := src[i+1 : i+1+n]
			k := tString
			if s != "" && strings.Trim(s, "01_") == "" {
				k = tBitString
			}
			lx.advance(n + 2)
			return token{k, s, p}
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(src) && src[i+1] >= '0' && src[i+1] <= '9':
			n, k := scanNumber(src[i:])
			lx.advance(n)
			return token{k, src[i : i+n], p}
		case c == '$':
			n := 1
			for i+n < len(src) && src[i+n] >= '0' && src[i+n] <= '9' {
				n++
			}
			lx.advance(n)
			if n == 1 {
				// $name only appears inside calibration blocks, which the
				// parser skips; keep it an identifier-like token.
				return token{tOp, "$", p}
			}
			return token{tPhys, src[i+1 : i+n], p}
		case c == '#' && strings.HasPrefix(src[i:], "#pragma") || c == 'p' && strings.HasPrefix(src[i:], "pragma") && (i+6 == len(src) || src[i+6] == ' ' || src[i+6] == '\t') && atLineStart(src, i):
			n := strings.IndexByte(src[i:], '\n')
			if n < 0 {
				n = len(src) - i
			}
			lx.advance(n)
			return token{tPragma, strings.TrimSpace(src[i : i+n]), p}
		case c == '@' && i+1 < len(src) && isIdentStart(rune(src[i+1])) && atLineStart(src, i):
			n := strings.IndexByte(src[i:], '\n')
			if n < 0 {
				n = len(src) - i
			}
			lx.advance(n)
			return token{tAnnotation, strings.TrimSpace(src[i : i+n]), p}
		}
		if c < utf8.RuneSelf && !isASCIIIdentStart(c) {
			// an ASCII operator: the longest of those that start with c
			op := src[i : i+1]
			for _, o := range opsByFirst[c] {
				if strings.HasPrefix(src[i:], o) {
					op = o
					break
				}
			}
			lx.col += int32(len(op))
			lx.i += len(op)
			return token{tOp, op, p}
		}
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
			lx.advance(n)
			return token{tIdent, src[i : i+n], p}
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
		lx.advance(len(op))
		return token{tOp, op, p}
	}
	return token{tEOF, "", position{lx.line, lx.col}}
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

// opsByFirst lists the operators by their first character, longest
// first.
var opsByFirst = func() (by [utf8.RuneSelf][]string) {
	for _, o := range operators {
		by[o[0]] = append(by[o[0]], o)
	}
	return by
}()

// singleOps are the operators of one character that start no longer one.
var singleOps = [utf8.RuneSelf]bool{'(': true, ')': true, '[': true, ']': true, '{': true, '}': true, ',': true, ';': true, ':': true}

func isASCIIIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

func isASCIIIdent(c byte) bool { return isASCIIIdentStart(c) || c >= '0' && c <= '9' }

func isIdentStart(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || r == 'π' || r == 'τ' || r == 'ℇ'
}

// scanNumber returns the length of the number at the start of s and its
// kind: an integer (decimal, 0x, 0o, 0b, with _ separators), a float, an
// imaginary literal or a duration (a number with a time unit).
func scanNumber(s string) (int, tokKind) {
	if len(s) > 2 && s[0] == '0' {
		var class byte
		switch s[1] {
		case 'x', 'X':
			class = 'x'
		case 'o':
			class = 'o'
		case 'b', 'B':
			class = 'b'
		}
		if class != 0 && digitOf(class, s[2]) {
			return digitsEnd(s, 2, class), tInt
		}
	}
	kind := tInt
	n := digitsEnd(s, 0, 'd')
	if n < len(s) && s[n] == '.' {
		kind = tFloat
		n = digitsEnd(s, n+1, 'd')
	}
	if n < len(s) && (s[n] == 'e' || s[n] == 'E') {
		m := n + 1
		if m < len(s) && (s[m] == '+' || s[m] == '-') {
			m++
		}
		if m < len(s) && digitOf('d', s[m]) {
			kind = tFloat
			n = digitsEnd(s, m, 'd')
		}
	}
	rest := s[n:]
	if rest == "" || rest[0] < utf8.RuneSelf && !isASCIIIdentStart(rest[0]) {
		return n, kind // no suffix can follow
	}
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

// digitOf reports whether b is a digit of the class: 'd' decimal, 'x'
// hexadecimal, 'o' octal, 'b' binary.
func digitOf(class, b byte) bool {
	switch class {
	case 'x':
		return b >= '0' && b <= '9' || b >= 'a' && b <= 'f' || b >= 'A' && b <= 'F'
	case 'o':
		return b >= '0' && b <= '7'
	case 'b':
		return b == '0' || b == '1'
	}
	return b >= '0' && b <= '9'
}

// digitsEnd is where the digits of the class from n end, single _
// separators between digits included.
func digitsEnd(s string, n int, class byte) int {
	for n < len(s) && (digitOf(class, s[n]) || s[n] == '_' && n+1 < len(s) && digitOf(class, s[n+1])) {
		n++
	}
	return n
}
