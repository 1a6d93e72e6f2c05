package analog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/qjobs/quantum/qtype"
)

// A program's JSON is read as generic values, each with the path that
// names it in errors (program.data.register.sites[3][1]), so that every
// rule broken is reported where the user wrote it.

// node is a JSON value and its path.
type node struct {
	v    any // map[string]any, []any, json.Number, string, bool or nil
	path string
}

// problems collects a program's errors, at most maxProblems of them.
type problems struct{ v qtype.Validation }

// maxProblems bounds the errors one answer lists: a program with a
// thousand bad values is told about the first ones.
const maxProblems = 20

func (p *problems) add(path, format string, args ...any) {
	if len(p.v) < maxProblems {
		p.v.Add(path, format, args...)
	}
}

func (p *problems) ok() bool { return len(p.v) == 0 }

func (p *problems) err() error { return p.v.Err() }

// parseJSON reads data (one JSON value) as the node at path.
func parseJSON(data, path string) (node, error) {
	dec := json.NewDecoder(strings.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return node{}, qtype.Invalid(path, "is not JSON: %v", err)
	}
	if dec.More() {
		return node{}, qtype.Invalid(path, "holds more than one JSON value")
	}
	return node{v: v, path: path}, nil
}

// kind names a JSON value's type in errors.
func kind(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "null"
}

// field is the member key of an object node; ok is false when n is not
// an object or has no such member (or it is null).
func (n node) field(key string) (node, bool) {
	m, isObj := n.v.(map[string]any)
	if !isObj {
		return node{}, false
	}
	v, ok := m[key]
	if !ok || v == nil {
		return node{path: n.path + "." + key}, false
	}
	return node{v: v, path: n.path + "." + key}, true
}

// need is field, reporting a missing member.
func (n node) need(key string, p *problems) (node, bool) {
	f, ok := n.field(key)
	if !ok {
		p.add(n.path+"."+key, "is required")
	}
	return f, ok
}

// object reports n if it is not an object.
func (n node) object(p *problems) bool {
	if _, ok := n.v.(map[string]any); !ok {
		p.add(n.path, "must be an object, not %s", kind(n.v))
		return false
	}
	return true
}

// list is n's elements, reporting n if it is not an array.
func (n node) list(p *problems) ([]node, bool) {
	a, ok := n.v.([]any)
	if !ok {
		p.add(n.path, "must be an array, not %s", kind(n.v))
		return nil, false
	}
	out := make([]node, len(a))
	for i, v := range a {
		out[i] = node{v: v, path: fmt.Sprintf("%s[%d]", n.path, i)}
	}
	return out, true
}

// number is n as a finite number: a JSON number, or a string holding a
// decimal (as the public client writes them: "5E-8",
// "0.0000028867513459481293"). Pulser's numbers are JSON numbers only
// (decimalStrings false).
func (n node) number(p *problems, decimalStrings bool) (float64, bool) {
	var text string
	switch x := n.v.(type) {
	case json.Number:
		text = string(x)
	case string:
		if !decimalStrings {
			p.add(n.path, "must be a number, not a string")
			return 0, false
		}
		text = strings.TrimSpace(x)
	default:
		p.add(n.path, "must be a number, not %s", kind(n.v))
		return 0, false
	}
	f, err := strconv.ParseFloat(text, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		p.add(n.path, "must be a finite decimal number, got %q", text)
		return 0, false
	}
	return f, true
}

// numbers are the elements of an array node as numbers.
func (n node) numbers(p *problems, decimalStrings bool) ([]float64, bool) {
	items, ok := n.list(p)
	if !ok {
		return nil, false
	}
	out := make([]float64, len(items))
	all := true
	for i, it := range items {
		f, ok := it.number(p, decimalStrings)
		out[i], all = f, all && ok
	}
	return out, all
}

// str is n as a string.
func (n node) str(p *problems) (string, bool) {
	s, ok := n.v.(string)
	if !ok {
		p.add(n.path, "must be a string, not %s", kind(n.v))
	}
	return s, ok
}

// compactJSON is a value's JSON text, to quote in an error.
func compactJSON(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if enc.Encode(v) != nil {
		return "?"
	}
	s := strings.TrimSpace(b.String())
	if len(s) > 60 {
		s = s[:57] + "…"
	}
	return s
}
