package badger

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	badgerdb "github.com/dgraph-io/badger/v4"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// The ledger's keys (schema version 3):
//
//	a/<owner>          the owner's account: balance, reserved, entries
//	e/<owner>/<n>      entry n (20 digits, so that keys sort by n)
//	g/<owner>/<id>     the number of the grant with that idempotency ID
//
// A transaction that records an entry reads a/<owner> and writes it: of
// two that change one owner's account at once, badger commits one and
// the other conflicts and is retried on the account as it now is. So
// reservations by many goroutines at once cannot overdraw it.

var _ storage.CreditLedger = (*Store)(nil)

func accountKey(owner string) []byte  { return []byte("a/" + seg(owner)) }
func entryPrefix(owner string) string { return "e/" + seg(owner) + "/" }
func entryKey(owner string, n int64) []byte {
	return fmt.Appendf(nil, "%s%020d", entryPrefix(owner), n)
}
func grantKey(owner, id string) []byte { return []byte("g/" + seg(owner) + "/" + seg(id)) }

// storedAccount and storedEntry are an account and an entry as stored.
type storedAccount struct {
	Balance  int64 `json:"balance"`
	Reserved int64 `json:"reserved"`
	Entries  int64 `json:"entries"`
}

type storedEntry struct {
	Kind    storage.CreditKind `json:"kind"`
	Amount  int64              `json:"amount,omitempty"`
	Held    int64              `json:"held,omitempty"`
	Job     string             `json:"job,omitempty"`
	GrantID string             `json:"grantId,omitempty"`
	Note    string             `json:"note,omitempty"`
	At      time.Time          `json:"at"`
}

// getAccount reads the owner's account in txn: the zero account if the
// owner has none.
func getAccount(txn *badgerdb.Txn, owner string) (storage.CreditAccount, error) {
	item, err := txn.Get(accountKey(owner))
	if errors.Is(err, badgerdb.ErrKeyNotFound) {
		return storage.CreditAccount{}, nil
	}
	if err != nil {
		return storage.CreditAccount{}, err
	}
	var a storedAccount
	if err := item.Value(func(v []byte) error { return json.Unmarshal(v, &a) }); err != nil {
		return storage.CreditAccount{}, fmt.Errorf("store: decode the credits of an owner: %w", err)
	}
	return storage.CreditAccount(a), nil
}

// recordCredits applies e to its owner's account in txn and writes both; the
// account's refusal changes nothing.
func recordCredits(txn *badgerdb.Txn, e storage.CreditEntry) (storage.CreditAccount, error) {
	a, err := getAccount(txn, e.Owner)
	if err != nil {
		return a, err
	}
	if err := a.Record(&e); err != nil {
		return a, fmt.Errorf("store: %w", err)
	}
	data, err := json.Marshal(storedAccount(a))
	if err != nil {
		return a, err
	}
	if err := txn.Set(accountKey(e.Owner), data); err != nil {
		return a, err
	}
	entry, err := json.Marshal(storedEntry{Kind: e.Kind, Amount: e.Amount, Held: e.Held, Job: e.Job,
		GrantID: e.GrantID, Note: e.Note, At: e.At})
	if err != nil {
		return a, err
	}
	if err := txn.Set(entryKey(e.Owner, e.N), entry); err != nil {
		return a, err
	}
	if e.GrantID != "" {
		return a, txn.Set(grantKey(e.Owner, e.GrantID), fmt.Appendf(nil, "%d", e.N))
	}
	return a, nil
}

// reserve records, in the transaction that stores j, its reservation.
func reserve(txn *badgerdb.Txn, j *storage.JobRecord) error {
	if e, ok := storage.ReservationOf(j); ok {
		_, err := recordCredits(txn, e)
		return err
	}
	return nil
}

// settle records, in the transaction that changes a job from old to
// now, its settlement.
func settle(txn *badgerdb.Txn, old *record, now *storage.JobRecord) error {
	before := &storage.JobRecord{Job: qtype.Job{JobQRN: old.JobQRN, Status: old.Status}, Owner: old.Owner, Reserved: old.Reserved}
	if e, ok := storage.SettlementOf(before, now); ok {
		_, err := recordCredits(txn, e)
		return err
	}
	return nil
}

func (b *Store) GrantCredits(ctx context.Context, g storage.CreditGrant) (storage.CreditAccount, bool, error) {
	if err := ctx.Err(); err != nil {
		return storage.CreditAccount{}, false, err
	}
	var a storage.CreditAccount
	var recorded bool
	err := b.update(func(txn *badgerdb.Txn) error {
		b.fault("GrantCredits")
		recorded = false
		if g.ID != "" {
			_, err := txn.Get(grantKey(g.Owner, g.ID))
			if err == nil {
				a, err = getAccount(txn, g.Owner)
				return err
			}
			if !errors.Is(err, badgerdb.ErrKeyNotFound) {
				return err
			}
		}
		var err error
		a, err = recordCredits(txn, g.Entry())
		recorded = err == nil
		return err
	})
	if err != nil {
		return storage.CreditAccount{}, false, err
	}
	return a, recorded, nil
}

func (b *Store) Credits(ctx context.Context, owner string) (storage.CreditAccount, error) {
	var a storage.CreditAccount
	err := b.db.View(func(txn *badgerdb.Txn) error {
		b.fault("Credits")
		var err error
		a, err = getAccount(txn, owner)
		return err
	})
	return a, err
}

func (b *Store) CreditEntries(ctx context.Context, owner string, offset, limit int) ([]storage.CreditEntry, error) {
	if limit <= 0 || offset < 0 {
		return nil, nil
	}
	var out []storage.CreditEntry
	err := b.db.View(func(txn *badgerdb.Txn) error {
		b.fault("CreditEntries")
		prefix := []byte(entryPrefix(owner))
		opts := badgerdb.DefaultIteratorOptions
		opts.Prefix = prefix
		it := txn.NewIterator(opts)
		defer it.Close()
		for it.Seek(entryKey(owner, int64(offset)+1)); it.ValidForPrefix(prefix) && len(out) < limit; it.Next() {
			var s storedEntry
			if err := it.Item().Value(func(v []byte) error { return json.Unmarshal(v, &s) }); err != nil {
				return fmt.Errorf("store: decode a credit entry: %w", err)
			}
			n, err := strconv.ParseInt(string(it.Item().Key()[len(prefix):]), 10, 64)
			if err != nil {
				return fmt.Errorf("store: a credit entry's key: %w", err)
			}
			out = append(out, storage.CreditEntry{Owner: owner, N: n, Kind: s.Kind,
				Amount: s.Amount, Held: s.Held, Job: s.Job, GrantID: s.GrantID, Note: s.Note, At: s.At})
		}
		return nil
	})
	return out, err
}
