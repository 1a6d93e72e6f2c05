package badger

import (
	"encoding/json"
	"strconv"

	badgerdb "github.com/dgraph-io/badger/v4"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/storage"
)

// SetSchemaVersionForTest writes another schema version, as a newer build
// would.
func (b *Store) SetSchemaVersionForTest(v int) error {
	return b.update(func(txn *badgerdb.Txn) error { return txn.Set([]byte("v"), []byte(strconv.Itoa(v))) })
}

// SetFaultHookForTest makes every method of b call hook with its name from
// inside its critical sections (transactions and the lock of the state in
// memory).
func (b *Store) SetFaultHookForTest(hook func(method string)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.hook = hook
}

// V1Job is a job to write in a database of schema version 1.
type V1Job struct {
	Job     *storage.JobRecord
	Program quantum.Program
	Result  map[string]int // nil for none
}

// WriteV1ForTest writes a database of schema version 1 in dir, with the
// keys the build that wrote version 1 wrote: v = 1, j/ p/ r/ as JSON, and
// the index keys o/ s/ w/ u/ q/ with raw segments.
func WriteV1ForTest(dir string, jobs []V1Job) error {
	db, err := badgerdb.Open(badgerdb.DefaultOptions(dir).WithLogger(nil))
	if err != nil {
		return err
	}
	defer db.Close()
	return db.Update(func(txn *badgerdb.Txn) error {
		if err := txn.Set([]byte("v"), []byte("1")); err != nil {
			return err
		}
		for _, j := range jobs {
			r := toRecord(j.Job)
			data, _ := json.Marshal(r)
			p, _ := json.Marshal(j.Program)
			sets := map[string][]byte{"j/" + r.JobQRN: data, "p/" + r.JobQRN: p}
			if j.Result != nil {
				sets["r/"+r.JobQRN], _ = json.Marshal(j.Result)
			}
			for _, k := range r.indexKeysV1() {
				sets[k] = nil
			}
			for k, v := range sets {
				if err := txn.Set([]byte(k), v); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

// KeysForTest lists the keys of b with prefix.
func (b *Store) KeysForTest(prefix string) []string {
	var out []string
	_ = b.db.View(func(txn *badgerdb.Txn) error {
		return iterateKeys(txn, prefix, func(k []byte) bool {
			out = append(out, string(k))
			return true
		})
	})
	return out
}

// SchemaVersionForTest reads the schema version the database records.
func (b *Store) SchemaVersionForTest() (string, error) {
	var v []byte
	err := b.db.View(func(txn *badgerdb.Txn) error {
		item, err := txn.Get([]byte("v"))
		if err == nil {
			v, err = item.ValueCopy(nil)
		}
		return err
	})
	return string(v), err
}
