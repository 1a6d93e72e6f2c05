package quantum_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/quantumtest"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store"
)

// noLedger is a Store that keeps no credits.
type noLedger struct{ storage.Store }

func TestCreditsNeedALedger(t *testing.T) {
	_, err := quantum.New(noLedger{store.NewMemory()}, quantum.WithCredits(true))
	if err == nil || !strings.Contains(err.Error(), "WithCredits(true): the store keeps no credits") {
		t.Fatalf("New with credits on a store without a ledger: %v", err)
	}
	svc, u := quantumtest.NewServiceOn(t, noLedger{store.NewMemory()}) // credits off: fine
	b, err := svc.CreditsBalance(context.Background(), u, "")
	if err != nil || b.QbraidCredits != 0 {
		t.Fatalf("balance without a ledger: %+v, %v", b, err)
	}
	if _, err := svc.GrantCredits(context.Background(), u, 1, ""); quantum.ErrorCode(err) != quantum.EINTERNAL ||
		!strings.Contains(err.Error(), "keeps no credits") {
		t.Fatalf("a grant without a ledger: %v", err)
	}
}

// TestGrantRefused: a grant that is not a positive number of credits, or
// that would take the balance past MaxCredits, is a VALIDATION_ERROR
// naming the field and the rule, and records nothing.
func TestGrantRefused(t *testing.T) {
	st := store.NewMemory()
	svc, u := quantumtest.NewServiceOn(t, st, quantum.WithCredits(true))
	ctx := context.Background()
	if _, err := svc.GrantCredits(ctx, u, storage.MaxCredits-1, ""); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name          string
		amount        float64
		note, id      string
		field, reason string
	}{
		{"negative", -5, "", "", "amount", "must be more than 0"},
		{"zero", 0, "", "", "amount", "must be more than 0"},
		{"NaN", math.NaN(), "", "", "amount", "must be a finite number of credits"},
		{"infinite", math.Inf(1), "", "", "amount", "must be a finite number of credits"},
		{"past MaxCredits", storage.MaxCredits + 1, "", "", "amount", "must be at most 1000000000 credits"},
		{"far past MaxCredits", 1e300, "", "", "amount", "must be at most 1000000000 credits"},
		{"below a micro-credit", 4e-7, "", "", "amount", "must be at least 0.000001 credits (one micro-credit)"},
		{"overflowing the balance", 1.5, "", "", "amount",
			"would take the balance of 999999999 credits past the most an account holds, 1000000000 credits"},
		{"a note that is not text", 1, "\xff", "", "note", "must be valid UTF-8 without NUL characters"},
		{"a note too long", 1, strings.Repeat("n", 1025), "", "note", "must be at most 1024 bytes"},
		{"an ID too long", 1, "", strings.Repeat("i", 256), "id", "must be at most 255 bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			if tc.id != "" {
				_, err = svc.GrantCreditsOnce(ctx, u, tc.amount, tc.note, tc.id)
			} else {
				_, err = svc.GrantCredits(ctx, u, tc.amount, tc.note)
			}
			var qe *quantum.Error
			if !errors.As(err, &qe) || qe.Code != quantum.EVALIDATION || len(qe.Details) != 1 ||
				qe.Details[0] != (quantum.FieldError{Field: tc.field, Message: tc.reason}) {
				t.Fatalf("err = %#v, want VALIDATION_ERROR on %s: %s", err, tc.field, tc.reason)
			}
			if a, _ := st.Credits(ctx, u.ID); a != (storage.CreditAccount{Balance: (storage.MaxCredits - 1) * storage.MicroCredits, Entries: 1}) {
				t.Fatalf("a refused grant changed the account: %+v", a)
			}
		})
	}
	if _, err := svc.GrantCreditsOnce(ctx, u, 1, "", ""); quantum.ErrorCode(err) != quantum.EVALIDATION || !strings.Contains(err.Error(), "id: is required") {
		t.Fatalf("GrantCreditsOnce without an ID: %v", err)
	}
}

// TestGrantOnce: grants with one ID, however many and however
// concurrent, are recorded once.
func TestGrantOnce(t *testing.T) {
	st := store.NewMemory()
	svc, u := quantumtest.NewServiceOn(t, st)
	ctx := context.Background()
	var granted sync.Map
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ok, err := svc.GrantCreditsOnce(ctx, u, 25, "start-up", "start-up 25")
			if err != nil {
				t.Error(err)
			}
			granted.Store(i, ok)
		}()
	}
	wg.Wait()
	n := 0
	granted.Range(func(_, ok any) bool {
		if ok.(bool) {
			n++
		}
		return true
	})
	b, err := svc.CreditsBalance(ctx, u, "")
	if n != 1 || err != nil || b.QbraidCredits != 25 {
		t.Fatalf("%d of 8 grants with one ID recorded; balance %+v, %v", n, b, err)
	}
	if b, err := svc.GrantCredits(ctx, u, 0.5, "top-up"); err != nil || b.QbraidCredits != 25.5 {
		t.Fatalf("a grant without ID: %+v, %v", b, err)
	}
}
