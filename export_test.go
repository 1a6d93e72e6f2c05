package quantum

// WithRetryBaseForTest shortens the waits between retries of a failing
// store call, so that fault tests run quickly.
var WithRetryBaseForTest = withRetryBase

// WatchersForTest counts the watches registered with the Service's
// notifier, and the jobs and owners they are indexed under.
func WatchersForTest(s *Service) (watches, keys int) {
	n := s.notes
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, ws := range n.byJob {
		watches += len(ws)
	}
	for _, ws := range n.byOwner {
		watches += len(ws)
	}
	return watches, len(n.byJob) + len(n.byOwner)
}
