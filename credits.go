package quantum

import (
	"context"
	"errors"
	"math"
	"strconv"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// WithCredits turns credits on (default off). Every user then has a
// balance, kept by the store (which must be a CreditLedger, or New
// fails): a job whose estimatedCost is above 0 reserves it when it is
// stored, and is refused with INSUFFICIENT_CREDITS (HTTP 402) when the
// balance not reserved is less; when it ends, the reservation is
// replaced by its cost (COMPLETED) or released (FAILED, CANCELLED). A
// free job is never refused. Credits come from GrantCredits. With
// credits off nothing is reserved, charged or refused, and
// CreditsBalance still answers what the user has.
func WithCredits(on bool) Option { return func(s *Service) { s.credits = on } }

// CreditsBalance is a user's credits as GET /billing/credits/balance
// answers them.
type CreditsBalance struct {
	// QbraidCredits is the balance not reserved by unfinished jobs.
	QbraidCredits float64 `json:"qbraidCredits"`
	// AwsCredits is always 0, AutoRecharge always "off".
	AwsCredits     float64 `json:"awsCredits"`
	AutoRecharge   string  `json:"autoRecharge"`
	OrganizationID string  `json:"organizationId"`
	UserID         string  `json:"userId"`
}

// Bounds of what a grant carries into the ledger.
const (
	maxGrantIDLen   = 255
	maxGrantNoteLen = 1024
)

// CreditsBalance answers the user's balance. organizationID "" means the
// user's own; any other organization is NOT_FOUND.
func (s *Service) CreditsBalance(ctx context.Context, u User, organizationID string) (*CreditsBalance, error) {
	if organizationID != "" && organizationID != u.OrganizationID {
		return nil, qtype.Errorf(ENOTFOUND, "User is not a member of this organization.")
	}
	b := &CreditsBalance{AutoRecharge: "off", OrganizationID: u.OrganizationID, UserID: u.ID}
	if s.ledger == nil {
		return b, nil
	}
	a, err := s.ledger.Credits(ctx, u.ID)
	if err != nil {
		return nil, s.internal(ctx, err, "read credits")
	}
	b.QbraidCredits = storage.FromMicroCredits(a.Available())
	return b, nil
}

// GrantCredits adds amount credits to the user's balance, with a note
// for the ledger, and returns the balance after it. amount must be above
// 0 (at least one micro-credit) and at most MaxCredits, and the balance
// after it at most MaxCredits; else VALIDATION_ERROR on amount, and
// nothing is recorded. It works with credits on or off, on a store that
// is a CreditLedger.
func (s *Service) GrantCredits(ctx context.Context, u User, amount float64, note string) (*CreditsBalance, error) {
	if _, err := s.grant(ctx, u, amount, note, ""); err != nil {
		return nil, err
	}
	return s.CreditsBalance(ctx, u, "")
}

// GrantCreditsOnce is GrantCredits that happens once per user and id:
// when the ledger holds a grant with id for the user already, it records
// nothing and granted is false. A program that grants at start-up (the
// example server) grants with it, so that a restart on the same store
// does not grant again. id is 1 to 255 bytes of text.
func (s *Service) GrantCreditsOnce(ctx context.Context, u User, amount float64, note, id string) (granted bool, err error) {
	if id == "" {
		return false, qtype.Invalid("id", "is required")
	}
	return s.grant(ctx, u, amount, note, id)
}

func (s *Service) grant(ctx context.Context, u User, amount float64, note, id string) (bool, error) {
	var v qtype.Validation
	micro, ok := storage.ToMicroCredits(amount)
	switch {
	case math.IsNaN(amount) || math.IsInf(amount, 0):
		v.Add("amount", "must be a finite number of credits")
	case amount <= 0:
		v.Add("amount", "must be more than 0")
	case !ok || micro > storage.MaxCredits*storage.MicroCredits:
		v.Add("amount", "must be at most %d credits", storage.MaxCredits)
	case micro == 0:
		v.Add("amount", "must be at least 0.000001 credits (one micro-credit)")
	}
	if checkText(&v, "note", note) && len(note) > maxGrantNoteLen {
		v.Add("note", "must be at most %d bytes", maxGrantNoteLen)
	}
	if checkText(&v, "id", id) && len(id) > maxGrantIDLen {
		v.Add("id", "must be at most %d bytes", maxGrantIDLen)
	}
	if u.ID == "" {
		v.Add("user", "must be a user of the Service (AddAPIKey)")
	}
	if err := v.Err(); err != nil {
		return false, err
	}
	if s.ledger == nil {
		return false, errNoLedger()
	}
	a, granted, err := s.ledger.GrantCredits(ctx, storage.CreditGrant{Owner: u.ID, Amount: micro, ID: id, Note: note, At: s.now().UTC()})
	if errors.Is(err, storage.ErrCreditLimit) {
		if a, err = s.ledger.Credits(ctx, u.ID); err != nil {
			return false, s.internal(ctx, err, "read credits")
		}
		return false, qtype.Invalid("amount", "would take the balance of %s credits past the most an account holds, %d credits",
			formatCredits(a.Balance), storage.MaxCredits)
	}
	if err != nil {
		return false, s.internal(ctx, err, "grant credits")
	}
	return granted, nil
}

func errNoLedger() *Error {
	return qtype.Errorf(EINTERNAL, "the Service's store keeps no credits: it is not a storage.CreditLedger")
}

// toReserve is what a job of the estimated cost reserves: nothing with
// credits off or for a free job. A cost that no balance can cover is
// refused at once. Reading the balance here turns most refusals away
// before the compile; the store's check, in the step that stores the
// job, is the one that counts.
func (s *Service) toReserve(ctx context.Context, u User, estimate float64) (int64, error) {
	if !s.credits || !(estimate > 0) {
		return 0, nil
	}
	micro, ok := storage.ToMicroCredits(estimate)
	if !ok {
		micro = math.MaxInt64
	}
	if micro <= 0 {
		return 0, nil // below a micro-credit: free
	}
	a, err := s.ledger.Credits(ctx, u.ID)
	if err != nil {
		return 0, s.internal(ctx, err, "read credits")
	}
	if micro > a.Available() {
		return 0, insufficient(estimate, a)
	}
	return micro, nil
}

// refused is the answer to a create whose reservation the store refused.
func (s *Service) refused(ctx context.Context, u User, estimate float64) error {
	a, err := s.ledger.Credits(ctx, u.ID)
	if err != nil {
		return s.internal(ctx, err, "read credits")
	}
	return insufficient(estimate, a)
}

func insufficient(estimate float64, a storage.CreditAccount) *Error {
	return qtype.Errorf(EINSUFFICIENTCREDITS, "insufficient credits: the job's estimated cost is %s credits and the balance not reserved is %s credits",
		strconv.FormatFloat(estimate, 'f', -1, 64), formatCredits(a.Available()))
}

// formatCredits writes micro-credits as credits, without trailing zeros.
func formatCredits(micro int64) string {
	return strconv.FormatFloat(storage.FromMicroCredits(micro), 'f', -1, 64)
}
