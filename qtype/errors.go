package qtype

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
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
	EUNSUPPORTEDMEDIA   = "UNSUPPORTED_MEDIA_TYPE"
	EVALIDATION         = "VALIDATION_ERROR"
	// ETOOMANYJOBS: the user has as many unfinished jobs as the service
	// allows (WithMaxActiveJobsPerUser); retry once some have finished.
	ETOOMANYJOBS = "TOO_MANY_ACTIVE_JOBS"
	// ERATELIMITED: the caller sent requests faster than the rate its
	// server allows each user (httpadapter.WithRateLimit); nothing was
	// done, so the request can be repeated as it is after RetryAfter.
	ERATELIMITED = "RATE_LIMITED"
	// EBUSY: the service cannot take the request now (every compile slot
	// stayed busy, or it is shutting down); nothing was stored, so the
	// request can be retried as it is.
	EBUSY = "SERVICE_BUSY"
	// ECANCELED: the caller's context ended (the client went away) before
	// the request was done. Nothing is answered to anyone and nothing is
	// logged as an error.
	ECANCELED = "REQUEST_CANCELLED"
	EINTERNAL = "INTERNAL_ERROR"
	// EINSUFFICIENTCREDITS: the job's estimated cost is more than the
	// balance not reserved (WithCredits); nothing was stored. errors.Is
	// matches it with ErrInsufficientCredits.
	EINSUFFICIENTCREDITS = "INSUFFICIENT_CREDITS"
	// ECONFLICT: what the request would create exists already (an API key
	// the control API is asked to add); nothing was changed.
	ECONFLICT = "CONFLICT"
)

// Error is the only error type the Service returns to its callers: a
// machine code, a message for people, and for Validation errors the fields
// at fault.
type Error struct {
	Code    string
	Message string
	Details []FieldError
	// RetryAfter, when above zero, is how long the caller should wait
	// before trying again (HTTP's Retry-After): set on ETOOMANYJOBS,
	// ERATELIMITED and EBUSY.
	RetryAfter time.Duration
}

// FieldError names a body field, query parameter or path parameter and the
// rule it broke.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Is makes errors.Is(err, ErrInsufficientCredits) true of the Service's
// refusal for credits, in process or as package client reads it back.
func (e *Error) Is(target error) bool {
	return target == ErrInsufficientCredits && e.Code == EINSUFFICIENTCREDITS
}

// ErrorCode returns the code of err: "" for nil, the code of an *Error in
// its chain, ECANCELED for a context's error, else EINTERNAL.
func ErrorCode(err error) string {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) {
		return e.Code
	}
	if IsContextErr(err) {
		return ECANCELED
	}
	return EINTERNAL
}

func IsContextErr(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}

// Errorf returns an *Error with a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Validation collects field errors so that one answer names them all.
type Validation []FieldError

func (v *Validation) Add(field, format string, args ...any) {
	*v = append(*v, FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
}

func (v Validation) Err() error {
	if len(v) == 0 {
		return nil
	}
	msgs := make([]string, len(v))
	for i, f := range v {
		msgs[i] = f.Field + ": " + f.Message
	}
	return &Error{Code: EVALIDATION, Message: strings.Join(msgs, "; "), Details: v}
}

// invalid is a Validation error on one field.
func Invalid(field, format string, args ...any) *Error {
	var v Validation
	v.Add(field, format, args...)
	return v.Err().(*Error)
}

// ErrInsufficientCredits is CreateJob's answer (wrapped) for a job whose
// reservation the owner's balance not reserved cannot cover, and a
// credit ledger's (storage.ErrInsufficientCredits is this one). errors.Is
// also matches it with a Service's *Error of code EINSUFFICIENTCREDITS, in
// process or from package client.
var ErrInsufficientCredits = errors.New("the balance not reserved does not cover the job's estimated cost")
