// Package inproc holds what the stores that live in one process (memory
// and badger) share, and a store shared by several processes does
// otherwise: the guard that lets one Service at a time use the store,
// and the orders in which they answer Queues and Unfinished.
package inproc

import (
	"sync"
	"sync/atomic"

	"github.com/qjobs/quantum/storage"
)

// Guard makes a store a storage.ExclusiveStore: one Service at a time.
// The zero Guard is free.
type Guard struct{ taken atomic.Bool }

// Acquire marks the store in use by one Service; ErrStoreInUse while
// another holds it. The returned release may be called more than once.
func (g *Guard) Acquire() (release func(), err error) {
	if !g.taken.CompareAndSwap(false, true) {
		return nil, storage.ErrStoreInUse
	}
	var once sync.Once
	return func() { once.Do(func() { g.taken.Store(false) }) }, nil
}
