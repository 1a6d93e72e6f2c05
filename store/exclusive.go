package store

import (
	"sync"
	"sync/atomic"

	"github.com/qjobs/quantum"
)

// inUse makes a store a quantum.ExclusiveStore: one Service at a time.
type inUse struct{ taken atomic.Bool }

// Acquire marks the store in use by one Service; ErrStoreInUse while
// another holds it. The returned release may be called more than once.
func (u *inUse) Acquire() (release func(), err error) {
	if !u.taken.CompareAndSwap(false, true) {
		return nil, quantum.ErrStoreInUse
	}
	var once sync.Once
	return func() { once.Do(func() { u.taken.Store(false) }) }, nil
}
