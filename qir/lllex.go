package qir

import (
	"fmt"
	"strings"
)

// The lexer of LLVM IR text. It reads the whole of the language's token
// syntax, so that the parser can say "unsupported" about a construct it
// understands rather than fail on characters it cannot split.

type tokKind uint8

const (
	tEOF     tokKind = iota
	tWord            // keywords, types, predicates: define, i64, ptr, eq, x
	tLocal           // %name, %7, %"quoted"; text is the name
	tGlobal          // @name; text is the name
	tAttrRef         // #7; text is the number
	tMeta            // !name or !7; text is the name (also "" for a lone !)
	tString          // "…" with escapes decoded
	tCString         // c"…" with escapes decoded
	tInt             // an integer literal, text as written
	tFloat           // a float literal, decimal or hex
	tPunct           // one of = , ( ) [ ] { } < > * : | and ...
)

type token struct {
	kind      tokKind
	text      string
	line, col int
	// pos is the token's byte offset in the source.
	pos int
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of file"
	case tLocal:
		return "%" + t.text
	case tGlobal:
		return "@" + t.text
	case tAttrRef:
		return "#" + t.text
	case tMeta:
		return "!" + t.text
	case tString:
		return fmt.Sprintf("%q", t.text)
	case tCString:
		return fmt.Sprintf("c%q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}

// lexer reads tokens from src. A column counts bytes from the start of
// its line, so it is the offset from lineStart: only a newline needs
// bookkeeping, not every byte.
type lexer struct {
	src       string
	pos       int
	line      int
	lineStart int // the offset of the current line's first byte
}

// nameBytes marks the bytes of a name: letters, digits and _ . $ -.
var nameBytes = func() (t [256]bool) {
	for c := range 256 {
		t[c] = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '$' || c == '-'
	}
	return t
}()

func isNameByte(c byte) bool { return nameBytes[c] }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// col is the column of l.pos.
func (l *lexer) col() int { return l.pos - l.lineStart + 1 }

// advance moves past n bytes that may hold newlines.
func (l *lexer) advance(n int) {
	for range n {
		if l.src[l.pos] == '\n' {
			l.line++
			l.lineStart = l.pos + 1
		}
		l.pos++
	}
}

// skipNames moves past the name bytes at l.pos (never a newline).
func (l *lexer) skipNames() {
	for l.pos < len(l.src) && nameBytes[l.src[l.pos]] {
		l.pos++
	}
}

func (l *lexer) errAt(line, col int, format string, args ...any) *Error {
	return &Error{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// skipSpace moves past spaces and comments.
func (l *lexer) skipSpace() {
	for l.pos < len(l.src) {
		switch l.src[l.pos] {
		case ' ', '\t', '\r':
			l.pos++
		case '\n':
			l.pos++
			l.line++
			l.lineStart = l.pos
		case ';':
			if i := strings.IndexByte(l.src[l.pos:], '\n'); i >= 0 {
				l.pos += i
			} else {
				l.pos = len(l.src)
			}
		default:
			return
		}
	}
}

// next returns the next token.
func (l *lexer) next() (token, error) {
	l.skipSpace()
	t := token{line: l.line, col: l.col(), pos: l.pos}
	if l.pos >= len(l.src) {
		return t, nil
	}
	c := l.src[l.pos]
	switch {
	case c == '%' || c == '@' || c == '!':
		l.pos++
		switch c {
		case '%':
			t.kind = tLocal
		case '@':
			t.kind = tGlobal
		default:
			t.kind = tMeta
		}
		if l.pos < len(l.src) && l.src[l.pos] == '"' && c != '!' {
			s, err := l.quoted(t)
			t.text = s
			return t, err
		}
		start := l.pos
		for l.pos < len(l.src) && (nameBytes[l.src[l.pos]] || c == '!' && l.src[l.pos] == '\\') {
			l.pos++
		}
		t.text = l.src[start:l.pos]
		if t.text == "" && c != '!' {
			return t, l.errAt(t.line, t.col, "%c without a name", c)
		}
		return t, nil
	case c == '#' && strings.HasPrefix(l.src[l.pos:], "#dbg_"):
		// A debug record of LLVM 19 and later: #dbg_value(…).
		start := l.pos
		for l.pos < len(l.src) && (l.src[l.pos] == '#' || nameBytes[l.src[l.pos]]) {
			l.pos++
		}
		t.kind, t.text = tWord, l.src[start:l.pos]
		return t, nil
	case c == '#':
		l.pos++
		start := l.pos
		for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
			l.pos++
		}
		if start == l.pos {
			return t, l.errAt(t.line, t.col, "# without a number")
		}
		t.kind, t.text = tAttrRef, l.src[start:l.pos]
		return t, nil
	case c == '"':
		t.kind = tString
		s, err := l.quoted(t)
		t.text = s
		return t, err
	case c == 'c' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '"':
		l.pos++
		t.kind = tCString
		s, err := l.quoted(t)
		t.text = s
		return t, err
	case isDigit(c) || (c == '-' || c == '+') && l.pos+1 < len(l.src) && isDigit(l.src[l.pos+1]):
		return l.number(t)
	case c == '.' && strings.HasPrefix(l.src[l.pos:], "..."):
		l.pos += 3
		t.kind, t.text = tPunct, "..."
		return t, nil
	case strings.IndexByte("=,()[]{}<>*:|", c) >= 0:
		// A substring of the source, not string(c), which would allocate.
		t.kind, t.text = tPunct, l.src[l.pos:l.pos+1]
		l.pos++
		return t, nil
	case nameBytes[c]:
		start := l.pos
		l.skipNames()
		t.kind, t.text = tWord, l.src[start:l.pos]
		return t, nil
	}
	return t, l.errAt(t.line, t.col, "unexpected character %q", rune(c))
}

// quoted reads a "…" string at l.pos, decoding \xx hex escapes and \\.
func (l *lexer) quoted(t token) (string, error) {
	l.pos++ // the opening quote
	// Most strings have no escape: they are a substring of the source.
	if i := strings.IndexAny(l.src[l.pos:], "\"\\"); i >= 0 && l.src[l.pos+i] == '"' {
		s := l.src[l.pos : l.pos+i]
		l.advance(i + 1)
		return s, nil
	}
	var b strings.Builder
	for {
		if l.pos >= len(l.src) {
			return "", l.errAt(t.line, t.col, "string not closed")
		}
		c := l.src[l.pos]
		switch {
		case c == '"':
			l.advance(1)
			return b.String(), nil
		case c == '\\' && l.pos+1 < len(l.src) && l.src[l.pos+1] == '\\':
			b.WriteByte('\\')
			l.advance(2)
		case c == '\\':
			if l.pos+2 >= len(l.src) || unhex(l.src[l.pos+1]) < 0 || unhex(l.src[l.pos+2]) < 0 {
				return "", l.errAt(l.line, l.col(), "bad escape in string: want \\ and two hex digits")
			}
			b.WriteByte(byte(unhex(l.src[l.pos+1])<<4 | unhex(l.src[l.pos+2])))
			l.advance(3)
		default:
			b.WriteByte(c)
			l.advance(1)
		}
	}
}

func unhex(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// number reads an integer, a decimal float or a hex float (0x…, 0xK…,
// 0xH…). A run of digits followed by a colon is a label; the parser sees
// the tInt and the ':' and knows.
func (l *lexer) number(t token) (token, error) {
	start := l.pos
	if c := l.src[l.pos]; c == '-' || c == '+' {
		l.pos++
	}
	if strings.HasPrefix(l.src[l.pos:], "0x") {
		l.pos += 2
		for l.pos < len(l.src) && (unhex(l.src[l.pos]) >= 0 || strings.IndexByte("KLMHR", l.src[l.pos]) >= 0) {
			l.pos++
		}
		t.kind, t.text = tFloat, l.src[start:l.pos]
		return t, nil
	}
	t.kind = tInt
	for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
		l.pos++
	}
	if l.pos < len(l.src) && l.src[l.pos] == '.' {
		t.kind = tFloat
		l.pos++
		for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
			l.pos++
		}
	}
	if l.pos < len(l.src) && (l.src[l.pos] == 'e' || l.src[l.pos] == 'E') {
		t.kind = tFloat
		l.pos++
		if l.pos < len(l.src) && (l.src[l.pos] == '-' || l.src[l.pos] == '+') {
			l.pos++
		}
		for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
			l.pos++
		}
	}
	t.text = l.src[start:l.pos]
	// A name such as %12abc is a local; a bare 12abc is not a number.
	if l.pos < len(l.src) && isNameByte(l.src[l.pos]) && l.src[l.pos] != '.' && l.src[l.pos] != '-' {
		return t, l.errAt(t.line, t.col, "malformed number %q", t.text+string(l.src[l.pos]))
	}
	return t, nil
}
