package quil

import (
	"fmt"
	"strconv"
	"strings"
)

// tokKind is what a token is.
type tokKind uint8

const (
	tEOL    tokKind = iota // the end of an instruction: a newline, a ';' or the end
	tIdent                 // a name: X, DECLARE, ro, JUMP-WHEN, pi
	tInt                   // 12, 0x1f, 0b101
	tReal                  // 1.5, 2e-3
	tImag                  // 2.5i, 3i
	tVar                   // %theta (text without the %)
	tLabel                 // @loop (text without the @)
	tString                // "text" (text without the quotes)
	tPunct                 // ( ) [ ] , : + - * / ^
)

// token is one token of a line; text is a slice of the source.
type token struct {
	kind tokKind
	text string
	col  int32
	num  float64 // tInt, tReal, tImag
	ival int64   // tInt
}

// line is one line of the source, split into the instructions its
// semicolons separate: indented says it belongs to the definition above
// it (a DEFGATE's body).
type line struct {
	no       int32
	indented bool
	toks     []token // the whole line's tokens, tEOL between instructions and at the end
}

// lexer reads the source a line at a time, reusing its token slice.
type lexer struct {
	src  string
	pos  int
	no   int32
	toks []token
}

// nextText returns the next line's text, not yet read into tokens.
func (lx *lexer) nextText() (string, bool) {
	if lx.pos >= len(lx.src) {
		return "", false
	}
	end := strings.IndexByte(lx.src[lx.pos:], '\n')
	var text string
	if end < 0 {
		text = lx.src[lx.pos:]
		lx.pos = len(lx.src)
	} else {
		text = lx.src[lx.pos : lx.pos+end]
		lx.pos += end + 1
	}
	lx.no++
	return strings.TrimSuffix(text, "\r"), true
}

// lineOf reads the text nextText returned into tokens; false for a blank
// line or a comment.
func (lx *lexer) lineOf(text string) (line, bool) {
	toks := lx.tokenize(text)
	if len(toks) == 1 {
		return line{}, false
	}
	return line{no: lx.no, indented: text[0] == ' ' || text[0] == '\t', toks: toks}, true
}

// isIdentStart and isIdentPart follow Quil's identifiers: a letter or an
// underscore, then letters, digits, underscores and hyphens, not ending in
// a hyphen.
func isIdentStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isIdentPart(c byte) bool  { return isIdentStart(c) || '0' <= c && c <= '9' || c == '-' }
func isDigit(c byte) bool      { return '0' <= c && c <= '9' }

func (lx *lexer) tokenize(s string) []token {
	toks := lx.toks[:0]
	i := 0
	for i < len(s) {
		c := s[i]
		col := int32(i + 1)
		switch {
		case c == ' ' || c == '\t':
			i++
		case c == '#':
			i = len(s)
		case c == ';':
			toks = append(toks, token{kind: tEOL, col: col})
			i++
		case isIdentStart(c):
			j := i + 1
			for j < len(s) && isIdentPart(s[j]) {
				j++
			}
			for j > i+1 && s[j-1] == '-' {
				j-- // a trailing hyphen is the minus that follows
			}
			toks = append(toks, token{kind: tIdent, text: s[i:j], col: col})
			i = j
		case isDigit(c) || c == '.' && i+1 < len(s) && isDigit(s[i+1]):
			t, j := number(s, i)
			t.col = col
			toks = append(toks, t)
			i = j
		case c == '%' || c == '@':
			j := i + 1
			for j < len(s) && isIdentPart(s[j]) {
				j++
			}
			for j > i+1 && s[j-1] == '-' {
				j-- // as for names: %a-%b is a difference
			}
			kind := tVar
			if c == '@' {
				kind = tLabel
			}
			if j == i+1 {
				panic(bail{errorf(lx.no, col, "expected a name after %q", c)})
			}
			toks = append(toks, token{kind: kind, text: s[i+1 : j], col: col})
			i = j
		case c == '"':
			j := strings.IndexByte(s[i+1:], '"')
			if j < 0 {
				panic(bail{errorf(lx.no, col, "a string that does not end on its line")})
			}
			toks = append(toks, token{kind: tString, text: s[i+1 : i+1+j], col: col})
			i += j + 2
		case strings.IndexByte("()[],:+-*/^", c) >= 0:
			toks = append(toks, token{kind: tPunct, text: s[i : i+1], col: col})
			i++
		default:
			panic(bail{errorf(lx.no, col, "unexpected character %q", rune(c))})
		}
	}
	toks = append(toks, token{kind: tEOL, col: int32(len(s) + 1)})
	lx.toks = toks // reused by the next line
	return toks
}

// number reads an integer (decimal, 0x, 0o, 0b, with underscores), a real
// (1.5, .5, 2e-3) or an imaginary (2i, 1.5i) at s[i].
func number(s string, i int) (token, int) {
	j := i
	if s[j] == '0' && j+1 < len(s) && strings.IndexByte("xXoObB", s[j+1]) >= 0 {
		base := 16
		switch s[j+1] {
		case 'o', 'O':
			base = 8
		case 'b', 'B':
			base = 2
		}
		j += 2
		k := j
		for k < len(s) && (isDigit(s[k]) || s[k] == '_' || strings.IndexByte("abcdefABCDEF", s[k]) >= 0) {
			k++
		}
		v, err := strconv.ParseInt(strings.ReplaceAll(s[j:k], "_", ""), base, 64)
		if err != nil {
			return token{kind: tReal, text: s[i:k], num: 0}, k // the parser says what is wrong
		}
		return token{kind: tInt, text: s[i:k], ival: v, num: float64(v)}, k
	}
	real := false
	for j < len(s) && (isDigit(s[j]) || s[j] == '_') {
		j++
	}
	if j < len(s) && s[j] == '.' {
		real = true
		j++
		for j < len(s) && isDigit(s[j]) {
			j++
		}
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		k := j + 1
		if k < len(s) && (s[k] == '+' || s[k] == '-') {
			k++
		}
		if k < len(s) && isDigit(s[k]) {
			real = true
			for k < len(s) && isDigit(s[k]) {
				k++
			}
			j = k
		}
	}
	text := strings.ReplaceAll(s[i:j], "_", "")
	if j < len(s) && s[j] == 'i' && (j+1 == len(s) || !isIdentPart(s[j+1])) {
		v, _ := strconv.ParseFloat(text, 64)
		return token{kind: tImag, text: s[i : j+1], num: v}, j + 1
	}
	if !real {
		if v, err := strconv.ParseInt(text, 10, 64); err == nil {
			return token{kind: tInt, text: s[i:j], ival: v, num: float64(v)}, j
		}
	}
	v, _ := strconv.ParseFloat(text, 64)
	return token{kind: tReal, text: s[i:j], num: v}, j
}

// describe names a token for a message.
func (t token) describe() string {
	switch t.kind {
	case tEOL:
		return "the end of the instruction"
	case tVar:
		return "%" + t.text
	case tLabel:
		return "@" + t.text
	case tString:
		return fmt.Sprintf("%q", t.text)
	}
	return fmt.Sprintf("%q", t.text)
}
