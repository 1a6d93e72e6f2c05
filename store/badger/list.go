package badger

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"

	badgerdb "github.com/dgraph-io/badger/v4"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// listIndex is the index a list walks: one prefix, or several (one per
// status) merged, and how many keys they hold.
type listIndex struct {
	prefixes []string
	size     int
	rest     storage.JobFilter // what the index does not answer
}

// filters reports whether f tests anything besides the owner.
func filters(f storage.JobFilter) bool {
	return len(f.Statuses) > 0 || f.Vendor != "" || f.Provider != "" || f.Search != "" || len(f.Tags) > 0
}

// chooseIndex picks the index that holds the fewest keys among those the
// filter names, and what remains to test.
func (b *Store) chooseIndex(txn *badgerdb.Txn, f storage.JobFilter) (listIndex, bool) {
	best := listIndex{prefixes: []string{ownerPrefix(f.Owner)}, rest: f}
	named := false // best is an index the filter names
	better := func(n int) bool { return n < best.size || n == best.size && !named }
	func() {
		b.mu.Lock()
		defer b.mu.Unlock()
		best.size = b.counts[best.prefixes[0]]
		consider := func(prefixes []string, rest storage.JobFilter) {
			n := 0
			for _, p := range prefixes {
				n += b.counts[p]
			}
			if better(n) {
				best, named = listIndex{prefixes: prefixes, size: n, rest: rest}, true
			}
		}
		if len(f.Statuses) > 0 {
			var ps []string
			for i, st := range f.Statuses {
				if !slices.Contains(f.Statuses[:i], st) {
					ps = append(ps, statusPrefix(f.Owner, st))
				}
			}
			rest := f
			rest.Statuses = nil
			consider(ps, rest)
		}
		if f.Vendor != "" {
			rest := f
			rest.Vendor = ""
			consider([]string{vendorPrefix(f.Owner, f.Vendor)}, rest)
		}
		if f.Provider != "" {
			rest := f
			rest.Provider = ""
			consider([]string{providerPrefix(f.Owner, f.Provider)}, rest)
		}
	}()
	// Tags have no count in memory: count their keys, no further than
	// it takes to know whether the tag's index is the best.
	for _, k := range slices.Sorted(maps.Keys(f.Tags)) {
		tv, ok := tagSeg(f.Tags[k])
		if !ok {
			return listIndex{}, false // a value no job holds
		}
		p := tagPrefix(f.Owner, k, tv)
		n := 0
		_ = iterateKeys(txn, p, func([]byte) bool {
			n++
			return n <= best.size
		})
		if better(n) {
			rest := f
			rest.Tags = maps.Clone(f.Tags)
			delete(rest.Tags, k)
			best, named = listIndex{prefixes: []string{p}, size: n, rest: rest}, true
		}
	}
	return best, true
}

func (b *Store) ListJobs(ctx context.Context, f storage.JobFilter) ([]*storage.JobRecord, int, error) {
	if err := ctx.Err(); err != nil {
		return nil, 0, err
	}
	var page []*storage.JobRecord
	total := 0
	err := b.db.View(func(txn *badgerdb.Txn) error {
		b.fault("ListJobs")
		ix, ok := b.chooseIndex(txn, f)
		if !ok {
			return nil
		}
		test := filters(ix.rest)
		if test && ix.size > b.cfg.scanLimit {
			return b.scanLimit(fmt.Sprint(ix.size))
		}
		// The page is the matches numbered [first, last).
		first, last := f.PageBounds(int(^uint(0) >> 1))
		if !test {
			total = ix.size
			first, last = f.PageBounds(total)
			if first == last {
				return nil
			}
		}
		w := newWalk(txn, ix.prefixes)
		defer w.close()
		n, read := 0, 0
		key := []byte("j/")
		for {
			tail, ok := w.next()
			if !ok {
				break
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			b.fault("ListJobs")
			inPage := n >= first && n < last
			if !test && !inPage {
				if n >= last {
					break
				}
				n++
				continue
			}
			if test { // only reads to test a filter count: a page is the caller's to size
				if read++; read > b.cfg.scanLimit {
					return b.scanLimit(fmt.Sprint("more than ", b.cfg.scanLimit))
				}
			}
			key = append(key[:2], tail[tailLen:]...)
			item, err := txn.Get(key)
			if err != nil {
				return fmt.Errorf("store: job %s of an index: %w", tail[tailLen:], err)
			}
			matched := false
			if err := item.Value(func(v []byte) error {
				if test {
					ok, err := matchesStored(v, ix.rest)
					if err != nil || !ok {
						return err
					}
				}
				matched = true
				if !inPage {
					return nil
				}
				var r record
				if err := decode(v, &r); err != nil {
					return err
				}
				page = append(page, r.job())
				return nil
			}); err != nil {
				return err
			}
			if matched {
				n++
			}
		}
		if test {
			total = n
		}
		return nil
	})
	if err != nil {
		return nil, 0, err
	}
	return page, total, nil
}

// view is the part of a stored job that filters test: decoding only it
// skips the options and metadata, and every tag's value stays raw.
type view struct {
	Name      string                     `json:"name"`
	DeviceQRN string                     `json:"deviceQrn"`
	JobQRN    string                     `json:"jobQrn"`
	Vendor    string                     `json:"vendor"`
	Provider  string                     `json:"provider"`
	Status    qtype.JobStatus            `json:"status"`
	Owner     string                     `json:"owner"`
	Tags      map[string]json.RawMessage `json:"tags"`
}

// matchesStored reports whether the stored job data passes f.
func matchesStored(data []byte, f storage.JobFilter) (bool, error) {
	var v view
	if err := json.Unmarshal(data, &v); err != nil {
		return false, err
	}
	j := &storage.JobRecord{Job: qtype.Job{Name: v.Name, DeviceQRN: v.DeviceQRN, JobQRN: v.JobQRN, Vendor: v.Vendor,
		Provider: v.Provider, Status: v.Status}, Owner: v.Owner}
	if len(f.Tags) > 0 {
		j.Tags = make(map[string]any, len(f.Tags))
		for k := range f.Tags {
			if raw, ok := v.Tags[k]; ok {
				j.Tags[k] = rawTag(raw)
			}
		}
	}
	return f.Matches(j), nil
}

// rawTag is a tag's JSON value as a string, a boolean or a json.Number,
// as the full decoding would compare it; nil for any other.
func rawTag(raw json.RawMessage) any {
	if len(raw) == 0 {
		return nil
	}
	switch c := raw[0]; {
	case c == '"':
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	case c == 't' || c == 'f':
		return c == 't'
	case c == '-' || c >= '0' && c <= '9':
		return json.Number(raw)
	}
	return nil
}

// scanLimit is the error for a list that would read n jobs to test its
// filter, more than the scan limit: counts only, never the filter's values.
func (b *Store) scanLimit(n string) error {
	return fmt.Errorf("store: this filter is answered by reading %s jobs, more than the %d one list may read; "+
		"narrow it with a status, a vendor, a provider or a tag: %w", n, b.cfg.scanLimit, storage.ErrScanLimit)
}

// walk reads the keys under one or more prefixes, merged, newest first:
// it yields each key's tail, <created>/<qrn>, valid until the next call.
type walk struct {
	its      []*badgerdb.Iterator
	prefixes [][]byte
	last     *badgerdb.Iterator // to advance at the next call
}

func newWalk(txn *badgerdb.Txn, prefixes []string) *walk {
	w := &walk{}
	for _, p := range prefixes {
		opts := badgerdb.DefaultIteratorOptions
		opts.PrefetchValues, opts.Reverse, opts.Prefix = false, true, []byte(p)
		it := txn.NewIterator(opts)
		it.Seek([]byte(p + "\xff"))
		w.its = append(w.its, it)
		w.prefixes = append(w.prefixes, []byte(p))
	}
	return w
}

func (w *walk) next() ([]byte, bool) {
	if w.last != nil {
		w.last.Next()
		w.last = nil
	}
	var tail []byte
	for i, it := range w.its {
		if !it.ValidForPrefix(w.prefixes[i]) {
			continue
		}
		if t := it.Item().Key()[len(w.prefixes[i]):]; w.last == nil || bytes.Compare(t, tail) > 0 {
			w.last, tail = it, t
		}
	}
	return tail, w.last != nil
}

func (w *walk) close() {
	for _, it := range w.its {
		it.Close()
	}
}
