package postgres

import "time"

// SetFeedPing changes how long the feed waits before it checks its
// connection, for a test that the connection survives the check.
func SetFeedPing(d time.Duration) (restore func()) {
	old := feedPing
	feedPing = d
	return func() { feedPing = old }
}
