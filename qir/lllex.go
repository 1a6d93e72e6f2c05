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

type lexer struct {
	src       string
	pos       int
	line, col int
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '$' || c == '-'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func (l *lexer) advance(n int) {
	for range n {
		if l.src[l.pos] == '\n' {
			l.line++
			l.col = 1
		} else {
			l.col++
		}
		l.pos++
	}
}

func (l *lexer) errAt(line, col int, format string, args ...any) *Error {
	return &Error{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// next returns the next token.
func (l *lexer) next() (token, error) {
	// Spaces and comments.
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if c == ' ' || c == '\t' || c == '\n' || c == '\r' {
			l.advance(1)
			continue
		}
		if c == ';' {
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
				l.col++
			}
			continue
		}
		break
	}
	t := token{line: l.line, col: l.col}
	if l.pos >= len(l.src) {
		return t, nil
	}
	c := l.src[l.pos]
	switch {
	case c == '%' || c == '@' || c == '!':
		l.advance(1)
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
		for l.pos < len(l.src) && (isNameByte(l.src[l.pos]) || c == '!' && l.src[l.pos] == '\\') {
			l.advance(1)
		}
		t.text = l.src[start:l.pos]
		if t.text == "" && c != '!' {
			return t, l.errAt(t.line, t.col, "%c without a name", c)
		}
		return t, nil
	case c == '#' && strings.HasPrefix(l.src[l.pos:], "#dbg_"):
		// A debug record of LLVM 19 and later: #dbg_value(…).
		start := l.pos
		for l.pos < len(l.src) && (l.src[l.pos] == '#' || isNameByte(l.src[l.pos])) {
			l.advance(1)
		}
		t.kind, t.text = tWord, l.src[start:l.pos]
		return t, nil
	case c == '#':
		l.advance(1)
		start := l.pos
		for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
			l.advance(1)
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
		l.advance(1)
		t.kind = tCString
		s, err := l.quoted(t)
		t.text = s
		return t, err
	case isDigit(c) || (c == '-' || c == '+') && l.pos+1 < len(l.src) && isDigit(l.src[l.pos+1]):
		return l.number(t)
	case c == '.' && strings.HasPrefix(l.src[l.pos:], "..."):
		l.advance(3)
		t.kind, t.text = tPunct, "..."
		return t, nil
	case strings.IndexByte("=,()[]{}<>*:|", c) >= 0:
		l.advance(1)
		t.kind, t.text = tPunct, string(c)
		return t, nil
	case isNameByte(c):
		start := l.pos
		for l.pos < len(l.src) && isNameByte(l.src[l.pos]) {
			l.advance(1)
		}
		t.kind, t.text = tWord, l.src[start:l.pos]
		return t, nil
	}
	return t, l.errAt(t.line, t.col, "unexpected character %q", rune(c))
}

// quoted reads a "…" string at l.pos, decoding \xx hex escapes and \\.
func (l *lexer) quoted(t token) (string, error) {
	l.advance(1) // the opening quote
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
				return "", l.errAt(l.line, l.col, "bad escape in string: want \\ and two hex digits")
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
		l.advance(1)
	}
	if strings.HasPrefix(l.src[l.pos:], "0x") {
		l.advance(2)
		for l.pos < len(l.src) && (unhex(l.src[l.pos]) >= 0 || strings.IndexByte("KLMHR", l.src[l.pos]) >= 0) {
			l.advance(1)
		}
		t.kind, t.text = tFloat, l.src[start:l.pos]
		return t, nil
	}
	t.kind = tInt
	for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
		l.advance(1)
	}
	if l.pos < len(l.src) && l.src[l.pos] == '.' {
		t.kind = tFloat
		l.advance(1)
		for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
			l.advance(1)
		}
	}
	if l.pos < len(l.src) && (l.src[l.pos] == 'e' || l.src[l.pos] == 'E') {
		t.kind = tFloat
		l.advance(1)
		if l.pos < len(l.src) && (l.src[l.pos] == '-' || l.src[l.pos] == '+') {
			l.advance(1)
		}
		for l.pos < len(l.src) && isDigit(l.src[l.pos]) {
			l.advance(1)
		}
	}
	t.text = l.src[start:l.pos]
	// A name such as %12abc is a local; a bare 12abc is not a number.
	if l.pos < len(l.src) && isNameByte(l.src[l.pos]) && l.src[l.pos] != '.' && l.src[l.pos] != '-' {
		return t, l.errAt(t.line, t.col, "malformed number %q", t.text+string(l.src[l.pos]))
	}
	return t, nil
}
