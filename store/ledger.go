package store

import (
	"context"
	"slices"

	"github.com/qjobs/quantum/storage"
)

var _ storage.CreditLedger = (*Memory)(nil)

// ledger is one owner's credits: the account, every entry in order, and
// the IDs of the grants recorded.
type ledger struct {
	account storage.CreditAccount
	entries []storage.CreditEntry
	grants  map[string]bool
}

// record applies e to its owner's account and keeps it, or changes
// nothing and returns the account's refusal. The caller holds m.mu and
// has checked the rest of its change first: nothing after it may fail.
func (m *Memory) record(e storage.CreditEntry) error {
	l := m.ledgers[e.Owner]
	var a storage.CreditAccount
	if l != nil {
		a = l.account
	}
	if err := a.Record(&e); err != nil {
		return err
	}
	if l == nil {
		l = &ledger{grants: map[string]bool{}}
		m.ledgers[e.Owner] = l
	}
	l.account = a
	l.entries = append(l.entries, e)
	if e.GrantID != "" {
		l.grants[e.GrantID] = true
	}
	return nil
}

// reserve records the reservation of a job being stored, if it makes one.
func (m *Memory) reserve(j *storage.JobRecord) error {
	if e, ok := storage.ReservationOf(j); ok {
		return m.record(e)
	}
	return nil
}

// settle records the settlement of a change of a job from old to now,
// if it makes one.
func (m *Memory) settle(old, now *storage.JobRecord) error {
	if e, ok := storage.SettlementOf(old, now); ok {
		return m.record(e)
	}
	return nil
}

func (m *Memory) GrantCredits(ctx context.Context, g storage.CreditGrant) (storage.CreditAccount, bool, error) {
	if err := ctx.Err(); err != nil {
		return storage.CreditAccount{}, false, err
	}
	defer m.lock()()
	m.fault("GrantCredits")
	if l := m.ledgers[g.Owner]; l != nil && g.ID != "" && l.grants[g.ID] {
		return l.account, false, nil
	}
	if err := m.record(g.Entry()); err != nil {
		return storage.CreditAccount{}, false, err
	}
	return m.ledgers[g.Owner].account, true, nil
}

func (m *Memory) Credits(ctx context.Context, owner string) (storage.CreditAccount, error) {
	defer m.lock()()
	m.fault("Credits")
	if l := m.ledgers[owner]; l != nil {
		return l.account, nil
	}
	return storage.CreditAccount{}, nil
}

func (m *Memory) CreditEntries(ctx context.Context, owner string, offset, limit int) ([]storage.CreditEntry, error) {
	defer m.lock()()
	m.fault("CreditEntries")
	l := m.ledgers[owner]
	if l == nil {
		return nil, nil
	}
	start, end := storage.JobFilter{Offset: offset, Limit: limit}.PageBounds(len(l.entries))
	return slices.Clone(l.entries[start:end]), nil
}
