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
