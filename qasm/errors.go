package qasm

import "fmt"

// Error is every error Compile returns for a bad program: where it is and
// what was expected there. Line and Col count from 1; only an internal
// error (a bug in this package, never a bad program) has 0:0.
//
// The one error of CompileContext that is not an *Error is the context's
// own (ctx.Err()): the program was not at fault.
type Error struct {
	Line, Col int
	Msg       string
}

func (e *Error) Error() string { return fmt.Sprintf("%d:%d: %s", e.Line, e.Col, e.Msg) }

// position is a place in the source.
type position struct{ Line, Col int32 } // int32 keeps a token to 32 bytes

func errorf(p position, format string, args ...any) *Error {
	return &Error{Line: int(p.Line), Col: int(p.Col), Msg: fmt.Sprintf(format, args...)}
}

// bail carries an *Error up through the recursive descent of the parser
// and the lowering; Compile turns it back into a return value. Only values
// of this type (and stopped) are recovered as errors.
type bail struct{ err *Error }

func fail(p position, format string, args ...any) {
	panic(bail{errorf(p, format, args...)})
}

// stopped carries the context's error up the same way when the caller
// gives up on a compile.
type stopped struct{ err error }
