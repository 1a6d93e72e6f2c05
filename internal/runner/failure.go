package runner

import (
	"errors"

	"github.com/qjobs/quantum/qtype"
	"go.uber.org/zap"
)

// failure is a run's error with the class of failure it is.
type failure struct {
	reason string
	err    error
}

func (f *failure) Error() string { return f.err.Error() }

func (f *failure) Unwrap() error { return f.err }

func failed(reason string, err error) error { return &failure{reason: reason, err: err} }

// failReason is the class of a run's error: a backend's unless said.
func failReason(err error) string {
	var f *failure
	if errors.As(err, &f) {
		return f.reason
	}
	return qtype.FailBackend
}

// failMessage is the statusMsg of a job that failed with err.
func failMessage(err error) string {
	var qe *qtype.Error
	if errors.As(err, &qe) {
		return qe.Message
	}
	msg := err.Error()
	if msg == "" {
		msg = "execution failed"
	}
	return msg
}

func logJobFailure(l *zap.Logger, qrn string, err error) {
	l.Info("job failed", zap.String("job", qrn), zap.Error(err))
}
