package qir

import (
	"errors"
	"fmt"
)

// Error is a program the package refuses: one that does not read, uses
// what the service does not implement, or breaks a limit. It says where:
// a line and column for LLVM text, a function for bitcode (which has no
// lines).
type Error struct {
	Line, Col int    // 1-based; 0 when unknown
	Func      string // the function it is in, without @; "" when none
	Msg       string
	err       error // what it wraps, for errors.Is
}

func (e *Error) Unwrap() error { return e.err }

func (e *Error) Error() string {
	switch {
	case e.Line > 0 && e.Col > 0:
		return fmt.Sprintf("line %d:%d: %s", e.Line, e.Col, e.Msg)
	case e.Line > 0:
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	case e.Func != "":
		return fmt.Sprintf("in function @%s: %s", e.Func, e.Msg)
	}
	return e.Msg
}

// errorf makes an Error without a place.
func errorf(format string, args ...any) *Error {
	return &Error{Msg: fmt.Sprintf(format, args...)}
}

// ErrStepLimit is returned (wrapped) when a shot runs more instructions
// than Options.MaxSteps allows. A run that does more work than
// sim.Options.MaxWork allows fails with sim.ErrWorkLimit.
var ErrStepLimit = errors.New("step limit exceeded")
