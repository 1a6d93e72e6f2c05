package quantum

import (
	"errors"
	"fmt"
	"strings"
)

// Error codes. httpadapter maps each to an HTTP status in one table.
const (
	EINVALIDJOBSTATE    = "INVALID_JOB_STATE"
	ECANCELNOTSUPPORTED = "CANCEL_NOT_SUPPORTED"
	ENOVALIDAUTH        = "NO_VALID_AUTHENTICATION"
	EINVALIDAPIKEY      = "INVALID_API_KEY"
	EFORBIDDEN          = "FORBIDDEN"
	ENOTFOUND           = "NOT_FOUND"
	EMETHODNOTALLOWED   = "METHOD_NOT_ALLOWED"
	ERESULTNOTREADY     = "RESULT_NOT_READY"
	EJOBNOTFINAL        = "JOB_NOT_FINAL"
	EPAYLOADTOOLARGE    = "PAYLOAD_TOO_LARGE"
	EVALIDATION         = "VALIDATION_ERROR"
	EINTERNAL           = "INTERNAL_ERROR"
)

// Error is the only error type the Service returns to its callers: a
// machine code, a message for people, and for validation errors the fields
// at fault.
type Error struct {
	Code    string
	Message string
	Details []FieldError
}

// FieldError names a body field, query parameter or path parameter and the
// rule it broke.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// ErrorCode returns the code of err: "" for nil, the code of an *Error in
// its chain, else EINTERNAL.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// Errorf returns an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// validation collects field errors so that one answer names them all.
type validation []FieldError

func (v *validation) add(field, format string, args ...any) {
	*v = append(*v, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

func (v validation) err() error {
	if len(v) == 0 {
		return nil
	}
	msgs := make([]string, len(v))
	for i, f := range v {
		msgs[i] = f.Field + ": " + f.Message
	}
	return &Error{Code: EVALIDATION, Message: strings.Join(msgs, "; "), Details: v}
}

// invalid is a validation error on one field.
func invalid(field, format string, args ...any) *Error {
	var v validation
	v.add(field, format, args...)
	return v.err().(*Error)
}
