package store

import (
	"strconv"

	"github.com/dgraph-io/badger/v4"
)

// SetSchemaVersionForTest writes another schema version, as a newer build
// would.
func (b *Badger) SetSchemaVersionForTest(v int) error {
	return b.update(func(txn *badger.Txn) error { return txn.Set([]byte("v"), []byte(strconv.Itoa(v))) })
}

// SetFaultHookForTest makes every method of m call hook with its name from
// inside its critical section.
func (m *Memory) SetFaultHookForTest(hook func(method string)) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.hook = hook
}

// SetFaultHookForTest makes every method of b call hook with its name from
// inside its critical sections (transactions and the lock of the counts).
func (b *Badger) SetFaultHookForTest(hook func(method string)) {
	b.countsMu.Lock()
	defer b.countsMu.Unlock()
	b.hook = hook
}
