package metrics

import (
	"sync"
	"sync/atomic"
)

// children keeps the series a vector has handed out, by their label
// values, so that a hot path finds its series with one map read: a vector's
// WithLabelValues hashes the values and takes a read lock each call, and
// a request's two series and a job's store calls were about 3% of the
// server's CPU under bench/load. The label values of these series are few
// (route patterns, statuses, store methods), so the map is copied on each
// new key and read without a lock.
type children[K comparable, V any] struct {
	m  atomic.Pointer[map[K]V]
	mu sync.Mutex // serialises the copies
}

// get is k's series, made by add the first time.
func (c *children[K, V]) get(k K, add func() V) V {
	if m := c.m.Load(); m != nil {
		if v, ok := (*m)[k]; ok {
			return v
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := c.m.Load()
	if old != nil {
		if v, ok := (*old)[k]; ok {
			return v
		}
	}
	next := make(map[K]V, 1)
	if old != nil {
		next = make(map[K]V, len(*old)+1)
		for k, v := range *old {
			next[k] = v
		}
	}
	v := add()
	next[k] = v
	c.m.Store(&next)
	return v
}
