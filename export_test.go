package quantum

// WithRetryBaseForTest shortens the waits between retries of a failing
// store call, so that fault tests run quickly.
var WithRetryBaseForTest = withRetryBase
