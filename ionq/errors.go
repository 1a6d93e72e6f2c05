package ionq

import "fmt"

// Error is every error Compile returns for a bad program: the JSON path
// of what is wrong (circuit[3].rotation; empty for the program as a
// whole) and the rule it breaks.
type Error struct {
	Path string
	Msg  string
}

func (e *Error) Error() string {
	if e.Path == "" {
		return e.Msg
	}
	return e.Path + ": " + e.Msg
}

func errorf(path, format string, args ...any) *Error {
	return &Error{Path: path, Msg: fmt.Sprintf(format, args...)}
}
