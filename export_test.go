package quantum

import (
	"github.com/qjobs/quantum/internal/runner"
)

// WithRetryBaseForTest shortens the waits between retries of a failing
// store call, so that fault tests run quickly.
var WithRetryBaseForTest = withRetryBase

// WatchersForTest counts the watches registered with the Service's
// notifier, and the jobs and owners they are indexed under.
func WatchersForTest(s *Service) (watches, keys int) { return s.notes.Size() }

// SetMaxBatchResultBytesForTest sets the bound on a batch's outcome keys
// and returns the function that restores it.
func SetMaxBatchResultBytesForTest(n int64) func() { return runner.SetMaxBatchResultBytes(n) }
