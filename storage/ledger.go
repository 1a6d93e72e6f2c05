package storage

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/qjobs/quantum/qtype"
)

// A ledger keeps each user's credits as whole micro-credits in int64, not
// as float64 credits: costs have six decimals, and only integers add up
// exactly, so that a balance is always the sum of its entries, to the
// last micro-credit, however many jobs it has paid for. The API shows
// credits as numbers (float64), converted at the edge.

// MicroCredits is how many micro-credits make one credit.
const MicroCredits = 1_000_000

// MaxCredits bounds a grant and a balance, in credits: 10^9 ($10
// million), that is 10^15 micro-credits, below 2^53, so that every amount
// a ledger holds converts exactly to and from the float64 credits the API
// shows, and no sum a ledger makes (a balance plus a grant, a balance
// minus a charge) comes near int64's bounds.
const MaxCredits = 1_000_000_000

const maxMicro = MaxCredits * MicroCredits

// ToMicroCredits converts credits to micro-credits, rounded to the
// nearest; ok is false for NaN, an infinity, or an amount beyond
// ±MaxCredits.
func ToMicroCredits(credits float64) (micro int64, ok bool) {
	m := math.Round(credits * MicroCredits)
	if math.IsNaN(m) || m > maxMicro || m < -maxMicro {
		return 0, false
	}
	return int64(m), true
}

// FromMicroCredits converts micro-credits to credits.
func FromMicroCredits(micro int64) float64 { return float64(micro) / MicroCredits }

// CreditKind says what an entry of a ledger records.
type CreditKind string

// The kinds of entries.
const (
	// CreditGranted: credits added to the balance.
	CreditGranted CreditKind = "grant"
	// CreditReserved: a job's estimated cost held from the balance when
	// the job was stored.
	CreditReserved CreditKind = "reserve"
	// CreditSettled: a job ended; what it held is released and its cost
	// (COMPLETED) or nothing (FAILED, CANCELLED) is taken from the balance.
	CreditSettled CreditKind = "settle"
)

// CreditEntry is one line of a user's ledger.
type CreditEntry struct {
	Owner string
	// N numbers the owner's entries 1, 2, 3… in the order they were
	// recorded.
	N    int64
	Kind CreditKind
	// Amount is what the entry adds to the balance and Held what it adds
	// to the part of it reserved, in micro-credits: a grant adds to the
	// balance, a reservation holds some of it, a settlement releases what
	// its job held (Held < 0) and takes the job's charge (Amount <= 0).
	Amount, Held int64
	// Job is the QRN of the job a reservation or settlement is for.
	Job string
	// GrantID is a grant's idempotency ID ("" for none); Note what the
	// granter said of it.
	GrantID, Note string
	At            time.Time
}

// CreditAccount is one user's credits as a ledger keeps them, in
// micro-credits. An owner never granted anything has the zero account.
type CreditAccount struct {
	// Balance is the sum of the entries' Amount; Reserved the sum of
	// their Held: what unfinished jobs hold of the balance.
	Balance, Reserved int64
	// Entries is how many entries the owner has (the N of the last).
	Entries int64
}

// Available is the balance not reserved: what a new job may reserve.
func (a CreditAccount) Available() int64 { return a.Balance - a.Reserved }

// CreditGrant is a grant of credits to one user.
type CreditGrant struct {
	Owner string
	// Amount is in micro-credits: 1 to MaxCredits·MicroCredits.
	Amount int64
	// ID, when set, makes the grant happen once: a ledger that holds a
	// grant with this ID for the owner records nothing more.
	ID   string
	Note string
	At   time.Time
}

// CreditLedger is implemented by a Store that keeps users' credits
// (store.Memory, store/badger and store/postgres all do); WithCredits
// needs one. Besides these methods, the ledger moves with the jobs, in
// the same atomic step as the job's own change:
//
//   - CreateJob of a job whose Reserved is above 0 records its
//     ReservationOf, and, when the owner's balance not reserved is less
//     than Reserved, stores nothing and returns an error wrapping
//     ErrInsufficientCredits;
//   - UpdateJob whose change moves a job with Reserved above 0 from a
//     status that is not terminal to one that is records the
//     SettlementOf the move. A terminal status never changes, so a job
//     is settled once, whatever retries, crashes and takeovers happen.
//
// Each entry is applied with CreditAccount.Record, whose rules every
// store shares. DeleteJob settles nothing: the Service deletes only jobs
// that have ended, which are settled already. store/storetest checks all
// of it.
type CreditLedger interface {
	// GrantCredits records g for g.Owner and returns the account after
	// it. A grant whose ID the owner already has records nothing:
	// recorded is false, and the account is returned as it is. A grant
	// that would take the balance past MaxCredits records nothing and
	// returns an error wrapping ErrCreditLimit.
	GrantCredits(ctx context.Context, g CreditGrant) (a CreditAccount, recorded bool, err error)
	// Credits returns the owner's account.
	Credits(ctx context.Context, owner string) (CreditAccount, error)
	// CreditEntries returns up to limit of the owner's entries, oldest
	// first, from the one numbered offset+1.
	CreditEntries(ctx context.Context, owner string, offset, limit int) ([]CreditEntry, error)
}

// ReservationOf is the entry that storing job records: it holds
// job.Reserved. ok is false for a job that reserves nothing.
func ReservationOf(job *JobRecord) (e CreditEntry, ok bool) {
	if job.Reserved <= 0 {
		return CreditEntry{}, false
	}
	return CreditEntry{Owner: job.Owner, Kind: CreditReserved, Held: job.Reserved, Job: job.JobQRN, At: job.UpdatedAt}, true
}

// SettlementOf is the entry that a change of a job from old to now
// records: when it moves a job that reserved credits from a status that
// is not terminal to one that is, it releases the reservation and
// charges the job's cost (COMPLETED; rounded to the micro-credit) or
// nothing (FAILED, CANCELLED). ok is false for every other change.
func SettlementOf(old, now *JobRecord) (e CreditEntry, ok bool) {
	if old.Reserved <= 0 || old.Status.IsTerminal() || !now.Status.IsTerminal() {
		return CreditEntry{}, false
	}
	var charge int64
	if now.Status == qtype.StatusCompleted {
		// A cost beyond what a ledger holds is cut by Record; a negative
		// or unreadable one (a device's own pricing) charges nothing.
		if c, ok := ToMicroCredits(now.Cost); ok && c > 0 {
			charge = c
		} else if !ok && now.Cost > 0 {
			charge = maxMicro
		}
	}
	return CreditEntry{Owner: old.Owner, Kind: CreditSettled, Amount: -charge, Held: -old.Reserved, Job: old.JobQRN, At: now.UpdatedAt}, true
}

// Entry is the entry that recording g makes.
func (g CreditGrant) Entry() CreditEntry {
	return CreditEntry{Owner: g.Owner, Kind: CreditGranted, Amount: g.Amount, GrantID: g.ID, Note: g.Note, At: g.At}
}

// Record applies e to the account and gives it its number (e.N). It
// changes nothing and returns an error for a reservation that the
// balance not reserved cannot cover (ErrInsufficientCredits) and for a
// grant that is not positive or would take the balance past MaxCredits
// (ErrCreditLimit). A settlement is never refused: the balance goes below
// zero when a job cost more than it reserved and the rest of the balance
// (a per-minute device's job that ran past its estimated minute), but its
// charge is cut so that the balance never goes below −MaxCredits.
func (a *CreditAccount) Record(e *CreditEntry) error {
	switch e.Kind {
	case CreditReserved:
		if e.Held <= 0 || e.Held > a.Available() {
			return fmt.Errorf("%w: %d micro-credits to reserve, %d not reserved", ErrInsufficientCredits, e.Held, a.Available())
		}
	case CreditGranted:
		if e.Amount <= 0 || e.Amount > maxMicro-a.Balance {
			return fmt.Errorf("%w: a grant of %d micro-credits to a balance of %d", ErrCreditLimit, e.Amount, a.Balance)
		}
	case CreditSettled:
		e.Amount = max(e.Amount, -(a.Balance + maxMicro))
	default:
		return fmt.Errorf("credit entry of unknown kind %q", e.Kind)
	}
	a.Balance += e.Amount
	a.Reserved += e.Held
	a.Entries++
	e.N = a.Entries
	return nil
}

// Errors of a CreditLedger.
var (
	// ErrInsufficientCredits is a ledger's refusal of a reservation that
	// the owner's balance not reserved cannot cover: qtype's, which
	// CreateJob's answer and the Service's *Error match.
	ErrInsufficientCredits = qtype.ErrInsufficientCredits
	// ErrCreditLimit is GrantCredits' answer (wrapped) for a grant that
	// would take the balance past MaxCredits.
	ErrCreditLimit = errors.New("the grant would take the balance past MaxCredits")
)
