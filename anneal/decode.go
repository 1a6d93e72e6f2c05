package anneal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// PathError is a problem refused: the JSON path of what is at fault,
// relative to the problem ("problem_type", `linear["x1"]`,
// `quadratic["[\"a\", \"b\"]"]`; "" for the problem as a whole), and the
// rule it breaks.
type PathError struct {
	Path string
	Rule string
}

func (e *PathError) Error() string {
	if e.Path == "" {
		return e.Rule
	}
	return e.Path + ": " + e.Rule
}

// Decode reads a problem as the public client serializes it (the format
// "problem"): {"problem_type": "qubo" | "ising", "linear"?: {name: c},
// "quadratic"?: {"[\"u\", \"v\"]": c}}. A quadratic key is itself JSON, an
// array of two names, and is read as JSON (names may hold commas, quotes,
// spaces). Other keys of the object are ignored, as the API ignores fields
// it does not know; null is absent.
func Decode(data []byte) (*Problem, error) {
	if !utf8.Valid(data) {
		return nil, &PathError{Rule: "must be valid UTF-8"}
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, &PathError{Rule: notJSON(data, syntax)}
		}
		return nil, &PathError{Rule: `must be a JSON object: {"problem_type": "qubo" or "ising", "linear": {…}, "quadratic": {…}}`}
	}
	if top == nil {
		return nil, &PathError{Rule: `must be a JSON object: {"problem_type": "qubo" or "ising", "linear": {…}, "quadratic": {…}}`}
	}
	var b builder
	kind, err := problemType(top["problem_type"])
	if err != nil {
		return nil, err
	}
	if err := b.start(kind); err != nil {
		return nil, err
	}
	if err := readLinear(&b, top["linear"]); err != nil {
		return nil, err
	}
	if err := readQuadratic(&b, top["quadratic"]); err != nil {
		return nil, err
	}
	return b.finish()
}

// notJSON says where text that is not JSON goes wrong, by line and
// column; NaN and Infinity, which Python's json.dumps writes for such
// floats, are named.
func notJSON(data []byte, e *json.SyntaxError) string {
	at := min(int(e.Offset), len(data))
	line, col := 1, 1
	for _, c := range data[:max(at-1, 0)] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	rule := fmt.Sprintf("is not JSON: %s (line %d, column %d)", e.Error(), line, col)
	rest := data[max(at-1, 0):]
	for _, word := range []string{"NaN", "Infinity", "-Infinity"} {
		if bytes.HasPrefix(rest, []byte(word)) {
			return rule + "; coefficients must be finite numbers (" + word + " is not one, nor JSON)"
		}
	}
	return rule
}

func problemType(raw json.RawMessage) (Kind, error) {
	const rule = `is required: "qubo" or "ising"`
	if len(raw) == 0 || string(raw) == "null" {
		return 0, &PathError{Path: "problem_type", Rule: rule}
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return 0, &PathError{Path: "problem_type", Rule: `must be "qubo" or "ising" (a string)`}
	}
	switch s {
	case "qubo":
		return QUBO, nil
	case "ising":
		return Ising, nil
	}
	return 0, &PathError{Path: "problem_type", Rule: fmt.Sprintf(`must be "qubo" or "ising" (got %s)`, excerpt([]byte(quoteJSON(s))))}
}

func readLinear(b *builder, raw json.RawMessage) error {
	var name []byte
	return members(raw, "linear", func(key []byte, _ int, value []byte) string {
		name = unescapeKey(name[:0], key)
		c, rule := number(value)
		if rule == "" {
			rule = b.linear(name, c)
		}
		return rule
	})
}

func readQuadratic(b *builder, raw json.RawMessage) error {
	b.src = raw
	var text, buf []byte
	return members(raw, "quadratic", func(key []byte, at int, value []byte) string {
		text = unescapeKey(text[:0], key)
		var u, v []byte
		var ok bool
		buf, u, v, ok = pairNames(buf[:0], text)
		if !ok {
			return `must be a JSON array of two variable names, as json.dumps writes a pair: "[\"u\", \"v\"]"`
		}
		c, rule := number(value)
		if rule == "" {
			rule = b.quadratic(u, v, c, at, len(key))
		}
		return rule
	})
}

// members calls fn with each member of the JSON object raw (text
// encoding/json has checked): its key as written (a JSON string with its
// quotes), where that key starts in raw, and its value's text. A rule fn
// answers is the error, at the member's path. Absent or null is an empty
// object.
func members(raw json.RawMessage, name string, fn func(key []byte, at int, value []byte) string) error {
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	i := skipSpace(raw, 0)
	if raw[i] != '{' {
		what := "names to numbers"
		if name == "quadratic" {
			what = `pairs ("[\"u\", \"v\"]") to numbers`
		}
		return &PathError{Path: name, Rule: "must be an object of variable " + what}
	}
	i = skipSpace(raw, i+1)
	for i < len(raw) && raw[i] != '}' {
		start := i
		end, _ := stringEnd(raw, i)
		key := raw[start:end]
		i = skipSpace(raw, end)
		i = skipSpace(raw, i+1) // the colon
		valueStart := i
		i = valueEnd(raw, i)
		if rule := fn(key, start, raw[valueStart:i]); rule != "" {
			return &PathError{Path: name + "[" + string(key) + "]", Rule: rule}
		}
		i = skipSpace(raw, i)
		if i < len(raw) && raw[i] == ',' {
			i = skipSpace(raw, i+1)
		}
	}
	return nil
}

// unescapeKey appends a key's text (a JSON string, quotes included) to dst.
func unescapeKey(dst, key []byte) []byte {
	body := key[1 : len(key)-1]
	if bytes.IndexByte(body, '\\') < 0 {
		return append(dst, body...)
	}
	return unescape(dst, body)
}

// number reads a coefficient: a JSON number that a float64 holds.
func number(value []byte) (float64, string) {
	if len(value) == 0 || value[0] != '-' && (value[0] < '0' || value[0] > '9') {
		return 0, fmt.Sprintf("must be a finite number (got %s)", excerpt(value))
	}
	f, err := strconv.ParseFloat(string(value), 64)
	if err != nil || !isFinite(f) {
		return 0, fmt.Sprintf("must be a finite number: %s is past the largest a float64 holds", excerpt(value))
	}
	return f, ""
}

// excerpt is the start of a value for an error message.
func excerpt(value []byte) string {
	const most = 40
	if len(value) <= most {
		return string(value)
	}
	cut := most
	for cut > 0 && !utf8.RuneStart(value[cut]) {
		cut--
	}
	return string(value[:cut]) + "…"
}
