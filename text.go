package quantum

import (
	"strings"
	"unicode/utf8"

	"github.com/qjobs/quantum/qtype"
)

// Every string a client sends is stored and echoed back, in JSON and in
// logs: it must be valid UTF-8 (JSON decoders elsewhere would mangle or
// refuse it) and hold no NUL (C libraries, terminals and some databases
// cut a string there).

const textRule = "must be valid UTF-8 without NUL characters"

// validText reports whether s is valid UTF-8 without NUL.
func validText(s string) bool {
	return utf8.ValidString(s) && !strings.ContainsRune(s, 0)
}

// checkText records field as invalid unless s is valid text, and reports
// whether it was.
func checkText(v *qtype.Validation, field, s string) bool {
	if validText(s) {
		return true
	}
	v.Add(field, textRule)
	return false
}

// checkTextIn checks every key and every string inside a decoded JSON
// object (maps and slices nested to any depth, walked with a stack of our
// own rather than by recursion), naming the first bad one under field.
func checkTextIn(v *qtype.Validation, field string, m map[string]any) {
	type item struct {
		path string
		val  any
	}
	stack := []item{{field, m}}
	for len(stack) > 0 {
		it := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		switch x := it.val.(type) {
		case string:
			if !validText(x) {
				v.Add(it.path, textRule)
				return
			}
		case map[string]any:
			for k, e := range x {
				if !validText(k) {
					v.Add(it.path, "keys "+textRule)
					return
				}
				stack = append(stack, item{it.path + "." + k, e})
			}
		case []any:
			for _, e := range x {
				stack = append(stack, item{it.path, e})
			}
		}
	}
}
