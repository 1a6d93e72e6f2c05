package quantum

import "github.com/qjobs/quantum/qtype"

// The nouns the Service shares with its stores and backends live in
// package qtype, which stores and backends import without the Service;
// here they keep the names an embedder knows.
type (
	Job        = qtype.Job
	JobStatus  = qtype.JobStatus
	Program    = qtype.Program
	JobProgram = qtype.JobProgram
	Device     = qtype.Device
	Pricing    = qtype.Pricing
	Error      = qtype.Error
	FieldError = qtype.FieldError
	Backend    = qtype.Backend
	Task       = qtype.Task
	Resources  = qtype.Resources
	RunResult  = qtype.RunResult
	Observer   = qtype.Observer
)

// The job statuses (qtype's): a job moves INITIALIZING → QUEUED →
// RUNNING → COMPLETED or FAILED (this service validates a job in full at
// create, so none waits VALIDATING); a cancel moves any unfinished
// job to CANCELLING, then CANCELLED once its work has stopped. COMPLETED,
// FAILED and CANCELLED are terminal: they never change again.
const (
	StatusInitializing = qtype.StatusInitializing
	StatusQueued       = qtype.StatusQueued
	StatusValidating   = qtype.StatusValidating
	StatusRunning      = qtype.StatusRunning
	StatusCancelling   = qtype.StatusCancelling
	StatusCancelled    = qtype.StatusCancelled
	StatusCompleted    = qtype.StatusCompleted
	StatusFailed       = qtype.StatusFailed
	StatusUnknown      = qtype.StatusUnknown
	StatusHold         = qtype.StatusHold
)

// The codes of an *Error (qtype's; each is described there), which
// package httpadapter maps to HTTP statuses.
const (
	EINVALIDJOBSTATE     = qtype.EINVALIDJOBSTATE
	ECANCELNOTSUPPORTED  = qtype.ECANCELNOTSUPPORTED
	ENOVALIDAUTH         = qtype.ENOVALIDAUTH
	EINVALIDAPIKEY       = qtype.EINVALIDAPIKEY
	EFORBIDDEN           = qtype.EFORBIDDEN
	ENOTFOUND            = qtype.ENOTFOUND
	EMETHODNOTALLOWED    = qtype.EMETHODNOTALLOWED
	ERESULTNOTREADY      = qtype.ERESULTNOTREADY
	EJOBNOTFINAL         = qtype.EJOBNOTFINAL
	EPAYLOADTOOLARGE     = qtype.EPAYLOADTOOLARGE
	EUNSUPPORTEDMEDIA    = qtype.EUNSUPPORTEDMEDIA
	EVALIDATION          = qtype.EVALIDATION
	ETOOMANYJOBS         = qtype.ETOOMANYJOBS
	ERATELIMITED         = qtype.ERATELIMITED
	EBUSY                = qtype.EBUSY
	ECANCELED            = qtype.ECANCELED
	EINTERNAL            = qtype.EINTERNAL
	EINSUFFICIENTCREDITS = qtype.EINSUFFICIENTCREDITS
	ECONFLICT            = qtype.ECONFLICT
)

// A device's statuses and types (qtype's).
const (
	DeviceOnline      = qtype.DeviceOnline
	DeviceOffline     = qtype.DeviceOffline
	DeviceRetired     = qtype.DeviceRetired
	DeviceUnavailable = qtype.DeviceUnavailable
	DeviceQPU         = qtype.DeviceQPU
	DeviceSimulator   = qtype.DeviceSimulator
)

// ErrInsufficientCredits is CreateJob's answer (wrapped) for a job whose
// estimated cost the balance not reserved cannot cover; errors.Is matches
// it with the *Error of code EINSUFFICIENTCREDITS too, in process or from
// package client.
var ErrInsufficientCredits = qtype.ErrInsufficientCredits

// ErrorCode returns the code of err: "" for nil, the code of an *Error in
// its chain, ECANCELED for a context's error, else EINTERNAL.
func ErrorCode(err error) string { return qtype.ErrorCode(err) }
