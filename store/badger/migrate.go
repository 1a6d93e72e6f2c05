package badger

import (
	"errors"
	"fmt"
	"strconv"

	badgerdb "github.com/dgraph-io/badger/v4"
	"github.com/qjobs/quantum/qtype"
	"go.uber.org/zap"
)

// checkSchema reads the schema version: it writes SchemaVersion in a new
// database, migrates an older one, and refuses a newer one (or one it
// cannot read).
func (b *Store) checkSchema() error {
	var version []byte
	var data bool // the database holds jobs
	err := b.db.View(func(txn *badgerdb.Txn) error {
		item, err := txn.Get([]byte("v"))
		switch {
		case errors.Is(err, badgerdb.ErrKeyNotFound):
		case err != nil:
			return err
		default:
			if version, err = item.ValueCopy(nil); err != nil {
				return err
			}
		}
		return iterateKeys(txn, "j/", func([]byte) bool {
			data = true
			return false
		})
	})
	if err != nil {
		return err
	}
	n := 1 // a database with jobs and no version predates versions: 1
	switch {
	case version == nil && !data:
		n = SchemaVersion
	case version != nil:
		var err error
		if n, err = strconv.Atoi(string(version)); err != nil || n < 1 || n > SchemaVersion {
			return fmt.Errorf("store: this database was written with schema version %q; this build reads versions 1 to %d and will not touch it", version, SchemaVersion)
		}
	}
	if n == 1 {
		if err := b.migrateV1(); err != nil {
			return fmt.Errorf("store: migrate schema version 1 to 2: %w", err)
		}
		n = 2
	}
	if n == 2 {
		n = 3 // the ledger's keys: a database of version 2 has none
	}
	if string(version) == strconv.Itoa(n) {
		return nil
	}
	return b.update(func(txn *badgerdb.Txn) error { return txn.Set([]byte("v"), []byte(strconv.Itoa(n))) })
}

// migrationBatch is how many jobs one step of a migration rewrites.
const migrationBatch = 1000

// migrateV1 brings the index keys of version 1 to version 2: it adds the
// provider and tag indexes, and moves the keys whose segments version 1
// wrote raw and version 2 escapes (a '/', a NUL or more than maxSeg bytes
// in an owner, vendor, status or device). It goes through the jobs in
// batches, each written at once; a migration cut short is done again from
// the start at the next open (each step is idempotent), and the version
// becomes 2 only at the end.
func (b *Store) migrateV1() error {
	after, done := "", 0
	for {
		var recs []*record
		err := b.db.View(func(txn *badgerdb.Txn) error {
			opts := badgerdb.DefaultIteratorOptions
			opts.Prefix = []byte("j/")
			it := txn.NewIterator(opts)
			defer it.Close()
			for it.Seek([]byte("j/" + after)); it.ValidForPrefix([]byte("j/")) && len(recs) < migrationBatch; it.Next() {
				qrn := string(it.Item().Key()[2:])
				if qrn == after && after != "" {
					continue
				}
				var r record
				if err := it.Item().Value(func(v []byte) error { return decode(v, &r) }); err != nil {
					return fmt.Errorf("job %s: %w", qrn, err)
				}
				recs = append(recs, &r)
				after = qrn
			}
			return nil
		})
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			break
		}
		wb := b.db.NewWriteBatch()
		for _, r := range recs {
			old, keys := r.indexKeysV1(), r.indexKeys()
			for _, k := range missing(old, keys) {
				if err := wb.Delete([]byte(k)); err != nil {
					wb.Cancel()
					return clean(err)
				}
			}
			for _, k := range missing(keys, old) {
				if err := wb.Set([]byte(k), nil); err != nil {
					wb.Cancel()
					return clean(err)
				}
			}
		}
		if err := wb.Flush(); err != nil {
			return clean(err)
		}
		done += len(recs)
		b.log.Info("store: migrating the database to schema version 2", zap.Int("jobs", done))
	}
	return nil
}

// indexKeysV1 are the index keys schema version 1 wrote for r: segments
// raw, no provider or tag index.
func (r *record) indexKeysV1() []string {
	created := ts(r.CreatedAt) + "/" + r.JobQRN
	keys := []string{
		"o/" + r.Owner + "/" + created,
		"s/" + r.Owner + "/" + string(r.Status) + "/" + created,
		"w/" + r.Owner + "/" + r.Vendor + "/" + created,
		"u/" + string(r.Status) + "/" + ts(r.UpdatedAt) + "/" + r.JobQRN,
	}
	if r.Status == qtype.StatusQueued {
		keys = append(keys, "q/"+r.DeviceQRN+"/"+r.queueKey())
	}
	return keys
}

// dropOrphanChunks deletes the chunks that no manifest names: those a
// change staged and a crash kept from committing or deleting.
func (b *Store) dropOrphanChunks() error {
	type blob struct{ kind, id, qrn string }
	chunks := map[blob][]string{}
	err := b.db.View(func(txn *badgerdb.Txn) error {
		return iterateKeys(txn, "c/", func(k []byte) bool {
			key := string(k)
			// c/<kind>/<id>/<n>/<qrn>: kind 1 byte, id 16, n 6
			if len(key) < 29 {
				chunks[blob{}] = append(chunks[blob{}], key)
				return true
			}
			bl := blob{kind: key[2:3], id: key[4:20], qrn: key[28:]}
			chunks[bl] = append(chunks[bl], key)
			return true
		})
	})
	if err != nil || len(chunks) == 0 {
		return err
	}
	wb := b.db.NewWriteBatch()
	dropped := 0
	for bl, keys := range chunks {
		keep := false
		if bl.qrn != "" {
			if err := b.db.View(func(txn *badgerdb.Txn) error {
				item, err := txn.Get([]byte(bl.kind + "/" + bl.qrn))
				if errors.Is(err, badgerdb.ErrKeyNotFound) {
					return nil
				}
				if err != nil {
					return err
				}
				return item.Value(func(v []byte) error {
					m, ok := parseManifest(v)
					keep = ok && m.ID == bl.id
					return nil
				})
			}); err != nil {
				wb.Cancel()
				return err
			}
		}
		if keep {
			continue
		}
		for _, k := range keys {
			if err := wb.Delete([]byte(k)); err != nil {
				wb.Cancel()
				return clean(err)
			}
		}
		dropped++
	}
	if err := wb.Flush(); err != nil {
		return clean(err)
	}
	if dropped > 0 {
		b.log.Info("store: deleted the chunks of changes that did not commit", zap.Int("blobs", dropped))
	}
	return nil
}
