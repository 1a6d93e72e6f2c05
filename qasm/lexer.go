package qasm

import (
	"slices"
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
		if t.text != "" {
			return t.text // the end of a pragma's line (lexer.end)
		}
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
	// end is the text of the end token, "" for the end of the program:
	// a lexer of one pragma's line ends with the line.
	end string
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

// lexInto appends up to n tokens to toks, as many calls of next would:
// the common tokens, ASCII names, decimal numbers and ASCII operators, it
// reads itself, with no call per token, and any other by next. It stops
// after the end and after a ";" (so that the parser, done with a
// statement, has nothing buffered past it and the compiler may read the
// next one from the source itself: fastGate), and fails as next does, the
// tokens before the error appended.
func (lx *lexer) lexInto(toks *[]token, n int) {
	src, i, line, col := lx.src, lx.i, lx.line, lx.col
	buf := slices.Grow(*toks, n)
	end := len(buf) + n
	// the poller's steps, as next counts them (a token, a newline or a
	// run of blanks each), told it every pollEvery or so and at the end
	steps := 0
	for len(buf) < end {
		var k tokKind
		var size int
		if i < len(src) {
			if steps++; steps >= pollEvery {
				lx.poll.tickN(steps)
				steps = 0
			}
			c := src[i]
			switch byteClass[c] {
			case cNewline:
				line++
				col = 1
				i++
				continue
			case cBlank:
				j, end := i+1, min(len(src), i+pollEvery)
				for j < end && byteClass[src[j]] == cBlank {
					j++
				}
				steps += j - i - 1
				col += int32(j - i)
				i = j
				continue
			case cIdent:
				size = 1
				for i+size < len(src) && byteClass[src[i+size]]-cIdent <= cDigit-cIdent {
					size++
				}
				k = tIdent
				// next reads a name that goes on past ASCII, and a pragma
				if i+size < len(src) && src[i+size] >= utf8.RuneSelf || c == 'p' && size == 6 && src[i:i+size] == "pragma" {
					k = tEOF
				}
			case cDigit:
				// a plain decimal, as scanNumber reads it
				size, k = 1, tInt
				for i+size < len(src) && byteClass[src[i+size]] == cDigit {
					size++
				}
				if i+size < len(src) && src[i+size] == '.' {
					k = tFloat
					for size++; i+size < len(src) && byteClass[src[i+size]] == cDigit; size++ {
					}
				}
				if i+size < len(src) && (byteClass[src[i+size]] == cIdent || src[i+size] >= utf8.RuneSelf) {
					// anything more: a prefix, _, an exponent, a unit
					size, k = scanNumber(src[i:])
					if k == tDuration {
						k = tEOF // next counts the columns of its unit: µs
					}
				}
			case cSingle:
				size, k = 1, tOp
			case cOp:
				size, k = 1, tOp
				if c == '/' && i+1 < len(src) && (src[i+1] == '/' || src[i+1] == '*') {
					k = tEOF // a comment: next skips it
				} else if i+1 < len(src) && secondOfOp[src[i+1]] {
					// the longest operator that starts here
					for _, o := range opsByFirst[c] {
						if strings.HasPrefix(src[i:], o) {
							size = len(o)
							break
						}
					}
				}
			}
		}
		if k == tEOF {
			// Any other token, and the end: next reads it, and can fail
			// (it counts a step for it too).
			lx.poll.tickN(steps)
			steps = 0
			lx.i, lx.line, lx.col = i, line, col
			*toks = buf
			t := lx.next()
			buf = append(*toks, t)
			i, line, col = lx.i, lx.line, lx.col
			if t.kind == tEOF || t.kind == tOp && t.text == ";" {
				break
			}
			continue
		}
		buf = append(buf, token{k, src[i : i+size], position{line, col}})
		col += int32(size)
		i += size
		if k == tOp && src[i-1] == ';' {
			break
		}
	}
	lx.i, lx.line, lx.col = i, line, col
	*toks = buf
	lx.poll.tickN(steps)
}

// next returns the next token: tEOF at the end, as often as it is asked.
// An unclosed comment or string is an error at its start. It reads every
// token the general way; lexInto, which the parser calls, reads the
// common ones faster (the tests compare the two).
func (lx *lexer) next() token {
	src := lx.src
	for lx.i < len(src) {
		lx.poll.tick() // also for each run of blanks and comment skipped
		i := lx.i
		c := src[i]
		switch byteClass[c] {
		case cNewline:
			lx.line++
			lx.col = 1
			lx.i++
			continue
		case cBlank:
			// a run of blanks, pollEvery at most between two ticks
			j, end := i+1, min(len(src), i+pollEvery)
			for j < end && byteClass[src[j]] == cBlank {
				j++
			}
			lx.col += int32(j - i)
			lx.i = j
			lx.poll.tickN(j - i - 1)
			continue
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
	return token{tEOF, lx.end, position{lx.line, lx.col}}
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

// secondOfOp marks the second characters of the longer operators: after
// any other, an operator is one character long.
var secondOfOp = func() (second [256]bool) {
	for _, o := range operators {
		if len(o) > 1 {
			second[o[1]] = true
		}
	}
	return second
}()

// Classes of bytes, for the lexer's common tokens: the first byte of a
// token says which it is, but for cOther (and a "/" that opens a
// comment), which the lexer looks at more closely.
const (
	cOther   uint8 = iota
	cNewline       // \n
	cBlank         // a blank other than a newline
	cIdent         // an ASCII letter or _
	cDigit         // 0 to 9, right after cIdent: identifiers go on with both
	cSingle        // an operator of one character that starts no longer one
	cOp            // a character that starts only operators ("/" comments too)
)

var byteClass = func() (class [256]uint8) {
	class['\n'] = cNewline
	for _, c := range " \t\r\f\v" {
		class[c] = cBlank
	}
	for c := range 256 {
		switch {
		case isASCIIIdentStart(byte(c)):
			class[c] = cIdent
		case c >= '0' && c <= '9':
			class[c] = cDigit
		}
	}
	for _, c := range "()[]{},;:" {
		class[c] = cSingle
	}
	for _, c := range "+-*/%&|^~!<>=" {
		class[c] = cOp
	}
	return class
}()

func isASCIIIdentStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_'
}

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
