package postgres

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// The ledger's tables are quantum_credit_accounts and
// quantum_credit_entries (migration 3). Every transaction that changes a
// job and an account locks the account last, after the job's row and
// its counts: the same order everywhere, so that they never deadlock.

var _ storage.CreditLedger = (*Store)(nil)

// reserveCredits records the reservation of a job being stored ($1 its
// owner, $2 the micro-credits it holds, $3 the entry's kind, $4 its QRN,
// $5 the time). The UPDATE holds the amount only while the balance not
// reserved covers it, the rule of storage.CreditAccount.Record, checked
// by the database on the row it locks: creates on any number of nodes
// cannot overdraw the account between a read and a write. No row: the
// account cannot cover it (or there is none).
const reserveCredits = `
WITH account AS (
	UPDATE quantum_credit_accounts SET reserved = reserved + $2, entries = entries + 1
	WHERE owner = $1 AND balance - reserved >= $2
	RETURNING owner, entries
)
INSERT INTO quantum_credit_entries (owner, n, kind, amount, held, job_qrn, note, at_ns)
SELECT owner, entries, $3, 0, $2, $4, '', $5 FROM account`

// reserve records, in the transaction that stores j, its reservation.
func reserve(ctx context.Context, tx pgx.Tx, j *storage.JobRecord) error {
	e, ok := storage.ReservationOf(j)
	if !ok {
		return nil
	}
	tag, err := tx.Exec(ctx, reserveCredits, e.Owner, e.Held, string(e.Kind), e.Job, nanos(e.At))
	if err != nil {
		return fmt.Errorf("postgres: reserve credits: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("postgres: job %s: %w", j.JobQRN, qtype.ErrInsufficientCredits)
	}
	return nil
}

// settle records, in the transaction that changes a job from old to now
// (which holds the job's row), its settlement.
func settle(ctx context.Context, tx pgx.Tx, old, now *storage.JobRecord) error {
	e, ok := storage.SettlementOf(old, now)
	if !ok {
		return nil
	}
	a, err := lockAccount(ctx, tx, e.Owner)
	if err == nil {
		_, err = record(ctx, tx, a, e)
	}
	return err
}

// lockAccount reads the owner's account and locks its row until the
// transaction ends, making the row first if the owner has none (a
// concurrent maker waits for the first, then finds it).
func lockAccount(ctx context.Context, tx pgx.Tx, owner string) (storage.CreditAccount, error) {
	if len(owner) > maxKey {
		return storage.CreditAccount{}, tooLarge("owner", int64(len(owner)), maxKey)
	}
	var a storage.CreditAccount
	_, err := tx.Exec(ctx, `INSERT INTO quantum_credit_accounts (owner, balance, reserved, entries) VALUES ($1, 0, 0, 0)
		ON CONFLICT (owner) DO NOTHING`, owner)
	if err == nil {
		err = tx.QueryRow(ctx, "SELECT balance, reserved, entries FROM quantum_credit_accounts WHERE owner = $1 FOR UPDATE",
			owner).Scan(&a.Balance, &a.Reserved, &a.Entries)
	}
	if err != nil {
		return a, fmt.Errorf("postgres: lock an account of credits: %w", err)
	}
	return a, nil
}

// record applies e to the account a, whose row the transaction holds,
// writes both, and returns the account after.
func record(ctx context.Context, tx pgx.Tx, a storage.CreditAccount, e storage.CreditEntry) (storage.CreditAccount, error) {
	if err := a.Record(&e); err != nil {
		return a, fmt.Errorf("postgres: %w", err)
	}
	if _, err := tx.Exec(ctx, "UPDATE quantum_credit_accounts SET balance = $2, reserved = $3, entries = $4 WHERE owner = $1",
		e.Owner, a.Balance, a.Reserved, a.Entries); err != nil {
		return a, fmt.Errorf("postgres: write an account of credits: %w", err)
	}
	_, err := tx.Exec(ctx, `INSERT INTO quantum_credit_entries (owner, n, kind, amount, held, job_qrn, grant_id, note, at_ns)
		VALUES ($1, $2, $3, $4, $5, NULLIF($6, ''), NULLIF($7, ''), $8, $9)`,
		e.Owner, e.N, string(e.Kind), e.Amount, e.Held, e.Job, e.GrantID, e.Note, nanos(e.At))
	if err != nil {
		return a, fmt.Errorf("postgres: write a credit entry: %w", err)
	}
	return a, nil
}

func (s *Store) GrantCredits(ctx context.Context, g storage.CreditGrant) (storage.CreditAccount, bool, error) {
	if len(g.ID) > maxKey {
		return storage.CreditAccount{}, false, tooLarge("grant ID", int64(len(g.ID)), maxKey)
	}
	var a storage.CreditAccount
	var recorded bool
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		if a, err = lockAccount(ctx, tx, g.Owner); err != nil {
			return err
		}
		if g.ID != "" {
			// Under the account's lock, a grant with the ID committed
			// before is seen: of two at once, the second finds the first.
			var seen bool
			if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM quantum_credit_entries WHERE owner = $1 AND grant_id = $2)",
				g.Owner, g.ID).Scan(&seen); err != nil {
				return fmt.Errorf("postgres: look up a grant: %w", err)
			}
			if seen {
				return nil
			}
		}
		a, err = record(ctx, tx, a, g.Entry())
		recorded = err == nil
		return err
	})
	if err != nil {
		return storage.CreditAccount{}, false, err
	}
	return a, recorded, nil
}

func (s *Store) Credits(ctx context.Context, owner string) (storage.CreditAccount, error) {
	var a storage.CreditAccount
	err := s.pool.QueryRow(ctx, "SELECT balance, reserved, entries FROM quantum_credit_accounts WHERE owner = $1",
		owner).Scan(&a.Balance, &a.Reserved, &a.Entries)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return a, fmt.Errorf("postgres: read an account of credits: %w", err)
	}
	return a, nil
}

func (s *Store) CreditEntries(ctx context.Context, owner string, offset, limit int) ([]storage.CreditEntry, error) {
	if limit <= 0 || offset < 0 {
		return nil, nil
	}
	rows, err := s.pool.Query(ctx, `SELECT n, kind, amount, held, coalesce(job_qrn, ''), coalesce(grant_id, ''), note, at_ns
		FROM quantum_credit_entries WHERE owner = $1 AND n > $2 ORDER BY n LIMIT $3`, owner, offset, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: list credit entries: %w", err)
	}
	var out []storage.CreditEntry
	for rows.Next() {
		e := storage.CreditEntry{Owner: owner}
		var kind string
		var at int64
		if err := rows.Scan(&e.N, &kind, &e.Amount, &e.Held, &e.Job, &e.GrantID, &e.Note, &at); err != nil {
			rows.Close()
			return nil, fmt.Errorf("postgres: read a credit entry: %w", err)
		}
		e.Kind = storage.CreditKind(kind)
		if at != math.MinInt64 { // nanos' zero time
			e.At = time.Unix(0, at).UTC()
		}
		out = append(out, e)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("postgres: list credit entries: %w", err)
	}
	return out, nil
}
