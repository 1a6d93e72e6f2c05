package quil

import "fmt"

// Error is every error Compile returns for a bad program: where it is and
// what is wrong there. Line and Col count from 1.
type Error struct {
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

func errorf(line, col int32, format string, args ...any) *Error {
	return &Error{Line: int(line), Col: int(col), Msg: fmt.Sprintf(format, args...)}
}

// bail carries an *Error up through the compiler; Compile turns it back
// into a return value. Only values of this type (and stopped) are
// recovered.
type bail struct{ err *Error }

// stopped carries the context's error up the same way.
type stopped struct{ err error }
