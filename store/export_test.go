package store

// SetFaultHookForTest makes every method of m call hook with its name from
// inside its critical section.
func (m *Memory) SetFaultHookForTest(hook func(method string)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.hook = hook
}
