package badger

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	badgerdb "github.com/dgraph-io/badger/v4"
	"github.com/qjobs/quantum/storage"
	"go.uber.org/zap"
)

// A program or a result (a blob) is stored under p/<qrn> or r/<qrn> as
// its JSON when it is at most inlineMax bytes. A larger one is cut into
// chunks, written in transactions of their own before the transaction
// that stores the job's change, under
//
//	c/<kind>/<id>/<n>/<qrn>   kind p or r, id 16 hex digits, n 6 digits
//
// and p/<qrn> or r/<qrn> holds a manifest: a NUL byte (JSON never starts
// with one) then {"id","chunks","size"}. The manifest is written in the
// job's transaction, so the blob appears with the change, atomically;
// chunks of a change that did not commit are deleted at once, or, after a
// crash, when the store next opens. Badger's transactions and values are
// bounded (in memory, a value is at most 1 MiB and a transaction about
// 9.6 MiB); chunks keep each within them, whatever the blob's size.
const inlineMax = 256 << 10

type manifest struct {
	ID     string `json:"id"`
	Chunks int    `json:"chunks"`
	Size   int64  `json:"size"`
}

// chunkSize is how large a chunk is, and chunksPerTxn how many one
// transaction writes: on disk, chunks of 4 MiB go to the value log and
// take a few bytes of a transaction each; in memory a value must stay
// under badger's 1 MiB and all of it counts in the transaction.
func (b *Store) chunkSize() int {
	if b.cfg.inMemory {
		return 512 << 10
	}
	return 4 << 20
}

const chunksPerTxn = 8

func chunkKey(kind, id string, n int, qrn string) []byte {
	return fmt.Appendf(nil, "c/%s/%s/%06d/%s", kind, id, n, qrn)
}

func chunkPrefix(kind, id string) string { return "c/" + kind + "/" + id + "/" }

// stage readies data to be stored as the kind blob of the job qrn: it
// returns the value for <kind>/<qrn>, having written the chunks, if any,
// and the function that deletes those chunks should the change not
// commit.
func (b *Store) stage(kind, qrn string, data []byte) (value []byte, drop func(), err error) {
	if len(data) <= inlineMax {
		return data, func() {}, nil
	}
	var raw [8]byte
	_, _ = rand.Read(raw[:])
	m := manifest{ID: hex.EncodeToString(raw[:]), Size: int64(len(data))}
	size := b.chunkSize()
	m.Chunks = (len(data) + size - 1) / size
	drop = func() {
		if err := b.dropChunks(kind, qrn, m); err != nil {
			b.log.Warn("store: could not delete the chunks of a change that did not commit; they go when the store next opens",
				zap.String("job", qrn), zap.Error(err))
		}
	}
	for first := 0; first < m.Chunks; first += chunksPerTxn {
		err := b.update(func(txn *badgerdb.Txn) error {
			for n := first; n < min(first+chunksPerTxn, m.Chunks); n++ {
				if err := txn.Set(chunkKey(kind, m.ID, n, qrn), data[n*size:min((n+1)*size, len(data))]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			drop()
			return nil, nil, err
		}
	}
	mj, _ := json.Marshal(m)
	return append([]byte{0}, mj...), drop, nil
}

// dropChunks deletes the chunks of m, in transactions of their own.
func (b *Store) dropChunks(kind, qrn string, m manifest) error {
	for first := 0; first < m.Chunks; first += 1024 {
		err := b.update(func(txn *badgerdb.Txn) error {
			for n := first; n < min(first+1024, m.Chunks); n++ {
				if err := txn.Delete(chunkKey(kind, m.ID, n, qrn)); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func parseManifest(v []byte) (manifest, bool) {
	var m manifest
	if len(v) == 0 || v[0] != 0 || json.Unmarshal(v[1:], &m) != nil {
		return m, false
	}
	return m, true
}

// setBlob stores value (from stage) as the kind blob of qrn, in txn,
// deleting the chunks of the blob it replaces.
func setBlob(txn *badgerdb.Txn, kind, qrn string, value []byte) error {
	if err := deleteBlob(txn, kind, qrn, value); err != nil {
		return err
	}
	return txn.Set([]byte(kind+"/"+qrn), value)
}

// deleteBlob deletes the kind blob of qrn, in txn, unless its manifest is
// keep's.
func deleteBlob(txn *badgerdb.Txn, kind, qrn string, keep []byte) error {
	item, err := txn.Get([]byte(kind + "/" + qrn))
	if errors.Is(err, badgerdb.ErrKeyNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	old, err := item.ValueCopy(nil)
	if err != nil {
		return err
	}
	m, ok := parseManifest(old)
	if k, _ := parseManifest(keep); ok && m.ID != k.ID {
		for n := range m.Chunks {
			if err := txn.Delete(chunkKey(kind, m.ID, n, qrn)); err != nil {
				return err
			}
		}
	}
	return txn.Delete([]byte(kind + "/" + qrn))
}

// getBlob reads the kind blob of qrn; ErrJobNotFound if there is none.
func getBlob(txn *badgerdb.Txn, kind, qrn string) ([]byte, error) {
	item, err := txn.Get([]byte(kind + "/" + qrn))
	if errors.Is(err, badgerdb.ErrKeyNotFound) {
		return nil, storage.ErrJobNotFound
	}
	if err != nil {
		return nil, err
	}
	v, err := item.ValueCopy(nil)
	if err != nil {
		return nil, err
	}
	m, ok := parseManifest(v)
	if !ok {
		return v, nil
	}
	data := make([]byte, 0, m.Size)
	prefix := chunkPrefix(kind, m.ID)
	opts := badgerdb.DefaultIteratorOptions
	opts.Prefix = []byte(prefix)
	it := txn.NewIterator(opts)
	defer it.Close()
	n := 0
	for it.Seek([]byte(prefix)); it.ValidForPrefix([]byte(prefix)); it.Next() {
		if err := it.Item().Value(func(v []byte) error {
			data = append(data, v...)
			return nil
		}); err != nil {
			return nil, err
		}
		n++
	}
	if n != m.Chunks || int64(len(data)) != m.Size {
		return nil, fmt.Errorf("store: the %s of job %s lacks chunks: %d of %d, %d of %d bytes", kindName(kind), qrn, n, m.Chunks, len(data), m.Size)
	}
	return data, nil
}

func kindName(kind string) string {
	if kind == "p" {
		return "program"
	}
	return "result"
}
