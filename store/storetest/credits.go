package storetest

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// The credit ledger's conformance: every Store of this module is a
// storage.CreditLedger, and moves a job's credits in the same atomic step
// as the job.

const micro = storage.MicroCredits

// ledgerOf is the store as a ledger; a store that keeps no credits fails.
func ledgerOf(t *testing.T, s storage.Store) storage.CreditLedger {
	t.Helper()
	l, ok := s.(storage.CreditLedger)
	if !ok {
		t.Fatalf("%T is not a storage.CreditLedger", s)
	}
	return l
}

func grant(t *testing.T, l storage.CreditLedger, owner string, credits int64, id string) storage.CreditAccount {
	t.Helper()
	a, recorded, err := l.GrantCredits(ctx, storage.CreditGrant{Owner: owner, Amount: credits * micro, ID: id, Note: "test grant", At: epoch})
	if err != nil || !recorded {
		t.Fatalf("GrantCredits(%s, %d credits, id %q): recorded %v, %v", owner, credits, id, recorded, err)
	}
	return a
}

func account(t *testing.T, l storage.CreditLedger, owner string) storage.CreditAccount {
	t.Helper()
	a, err := l.Credits(ctx, owner)
	if err != nil {
		t.Fatalf("Credits(%s): %v", owner, err)
	}
	return a
}

func wantAccount(t *testing.T, l storage.CreditLedger, owner string, want storage.CreditAccount) {
	t.Helper()
	if got := account(t, l, owner); got != want {
		t.Fatalf("account of %s = %+v, want %+v", owner, got, want)
	}
}

// entries reads all of the owner's entries, a few at a time.
func entries(t *testing.T, l storage.CreditLedger, owner string) []storage.CreditEntry {
	t.Helper()
	var all []storage.CreditEntry
	for {
		page, err := l.CreditEntries(ctx, owner, len(all), 7)
		if err != nil {
			t.Fatalf("CreditEntries(%s, %d, 7): %v", owner, len(all), err)
		}
		all = append(all, page...)
		if len(page) < 7 {
			return all
		}
	}
}

// paid is a new job of owner that reserves credits.
func paid(owner string, minute int, reserved int64) *storage.JobRecord {
	j := newJob(owner, deviceB, minute)
	j.EstimatedCost = storage.FromMicroCredits(reserved)
	j.Reserved = reserved
	return j
}

// end moves a job from one status to a terminal one, with cost.
func end(t *testing.T, s storage.Store, qrn string, from, to qtype.JobStatus, cost float64) *storage.JobRecord {
	t.Helper()
	j, err := s.UpdateJob(ctx, qrn, from, func(j *storage.JobRecord) {
		j.Status, j.Cost, j.UpdatedAt = to, cost, epoch.Add(time.Minute)
		j.Reserved = 1 // not the change's to make
	}, nil)
	if err != nil {
		t.Fatalf("UpdateJob(%s, %s → %s): %v", qrn, from, to, err)
	}
	return j
}

// checkSums checks the ledger's invariants for owner: the entries are
// numbered 1, 2, 3…; the balance is the sum of their Amount and the part
// reserved the sum of their Held, exactly; and it is what the owner's
// unfinished jobs reserved.
func checkSums(t *testing.T, s storage.Store, owner string) {
	t.Helper()
	l := ledgerOf(t, s)
	a := account(t, l, owner)
	var balance, held int64
	es := entries(t, l, owner)
	for i, e := range es {
		if e.N != int64(i+1) || e.Owner != owner {
			t.Fatalf("entry %d of %s: N %d, owner %q", i+1, owner, e.N, e.Owner)
		}
		balance += e.Amount
		held += e.Held
	}
	if int64(len(es)) != a.Entries || balance != a.Balance || held != a.Reserved {
		t.Fatalf("%s: %d entries summing to balance %d, reserved %d; the account says %+v", owner, len(es), balance, held, a)
	}
	jobs, _, err := s.ListJobs(ctx, storage.JobFilter{Owner: owner, Statuses: qtype.StatusGroups()["pending"], Limit: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	var pending int64
	for _, j := range jobs {
		pending += j.Reserved
	}
	if pending != a.Reserved {
		t.Fatalf("%s: unfinished jobs reserve %d, the account %d", owner, pending, a.Reserved)
	}
}

func testCreditGrants(t *testing.T, s storage.Store) {
	l := ledgerOf(t, s)
	wantAccount(t, l, "alice", storage.CreditAccount{})
	if es, err := l.CreditEntries(ctx, "alice", 0, 10); err != nil || len(es) != 0 {
		t.Fatalf("entries of an owner never granted: %v, %v", es, err)
	}
	grant(t, l, "alice", 10, "")
	grant(t, l, "alice", 5, "start-up")
	for _, owner := range []string{"alice", "alice"} { // the ID again: nothing
		a, recorded, err := l.GrantCredits(ctx, storage.CreditGrant{Owner: owner, Amount: 7 * micro, ID: "start-up", At: epoch})
		if err != nil || recorded || a != (storage.CreditAccount{Balance: 15 * micro, Entries: 2}) {
			t.Fatalf("a repeated grant: %+v, recorded %v, %v", a, recorded, err)
		}
	}
	grant(t, l, "bob", 7, "start-up") // IDs are the owner's
	wantAccount(t, l, "bob", storage.CreditAccount{Balance: 7 * micro, Entries: 1})

	// Grants that would take the balance past MaxCredits, or that are not
	// positive, record nothing.
	for _, amount := range []int64{storage.MaxCredits * micro, storage.MaxCredits*micro - 15*micro + 1, 0, -micro} {
		_, recorded, err := l.GrantCredits(ctx, storage.CreditGrant{Owner: "alice", Amount: amount, At: epoch})
		if !errors.Is(err, storage.ErrCreditLimit) || recorded {
			t.Fatalf("a grant of %d micro-credits to 15 credits: recorded %v, %v; want ErrCreditLimit", amount, recorded, err)
		}
	}
	a := grant(t, l, "alice", storage.MaxCredits-15, "") // exactly to the bound
	if a != (storage.CreditAccount{Balance: storage.MaxCredits * micro, Entries: 3}) {
		t.Fatalf("a grant to the bound: %+v", a)
	}
	want := []storage.CreditEntry{
		{Owner: "alice", N: 1, Kind: storage.CreditGranted, Amount: 10 * micro, Note: "test grant", At: epoch},
		{Owner: "alice", N: 2, Kind: storage.CreditGranted, Amount: 5 * micro, GrantID: "start-up", Note: "test grant", At: epoch},
		{Owner: "alice", N: 3, Kind: storage.CreditGranted, Amount: (storage.MaxCredits - 15) * micro, Note: "test grant", At: epoch},
	}
	got := entries(t, l, "alice")
	if len(got) != len(want) {
		t.Fatalf("entries %+v, want %+v", got, want)
	}
	for i := range want {
		if !got[i].At.Equal(want[i].At) {
			t.Fatalf("entry %d at %v, want %v", i+1, got[i].At, want[i].At)
		}
		got[i].At = want[i].At
		if got[i] != want[i] {
			t.Fatalf("entry %d = %+v, want %+v", i+1, got[i], want[i])
		}
	}
	for _, tc := range []struct{ offset, limit, want int }{{1, 1, 1}, {2, 5, 1}, {3, 5, 0}, {100, 5, 0}, {0, 0, 0}} {
		page, err := l.CreditEntries(ctx, "alice", tc.offset, tc.limit)
		if err != nil || len(page) != tc.want || (tc.want > 0 && page[0].N != int64(tc.offset+1)) {
			t.Fatalf("CreditEntries(alice, %d, %d) = %+v, %v; want %d from N %d", tc.offset, tc.limit, page, err, tc.want, tc.offset+1)
		}
	}
}

func testCreditReservations(t *testing.T, s storage.Store) {
	l := ledgerOf(t, s)
	grant(t, l, "alice", 10, "")
	j := create(t, s, paid("alice", 0, 6*micro))
	if got := mustGet(t, s, j.JobQRN); got.Reserved != 6*micro {
		t.Fatalf("stored job reserves %d, want %d", got.Reserved, 6*micro)
	}
	create(t, s, newJob("alice", deviceA, 1)) // free: no entry
	wantAccount(t, l, "alice", storage.CreditAccount{Balance: 10 * micro, Reserved: 6 * micro, Entries: 2})
	e := entries(t, l, "alice")[1]
	if e.Kind != storage.CreditReserved || e.Held != 6*micro || e.Amount != 0 || e.Job != j.JobQRN || e.N != 2 {
		t.Fatalf("the reservation's entry: %+v", e)
	}

	// Short by one micro-credit: nothing stored, nothing reserved, the
	// idempotency key not taken. An owner with no account is short too.
	for _, short := range []*storage.JobRecord{paid("alice", 2, 4*micro+1), paid("carol", 2, 1)} {
		short.IdempotencyKey, short.RequestHash = "k-"+short.Owner, "h"
		before := account(t, l, short.Owner)
		if err := s.CreateJob(ctx, short, program); !errors.Is(err, qtype.ErrInsufficientCredits) {
			t.Fatalf("a job the balance does not cover: %v, want ErrInsufficientCredits", err)
		}
		if _, err := s.GetJob(ctx, short.JobQRN); !errors.Is(err, storage.ErrJobNotFound) {
			t.Fatalf("the refused job was stored: %v", err)
		}
		if _, err := s.GetProgram(ctx, short.JobQRN); !errors.Is(err, storage.ErrJobNotFound) {
			t.Fatalf("the refused job's program was stored: %v", err)
		}
		if k := holder(t, s, short.Owner, short.IdempotencyKey, epoch); k != "" {
			t.Fatalf("the refused job holds its idempotency key")
		}
		wantAccount(t, l, short.Owner, before)
	}
	if n, _ := s.CountJobs(ctx, "alice", qtype.StatusGroups()["pending"]); n != 2 {
		t.Fatalf("alice has %d unfinished jobs, want 2", n)
	}
	create(t, s, paid("alice", 3, 4*micro)) // exactly what is left
	wantAccount(t, l, "alice", storage.CreditAccount{Balance: 10 * micro, Reserved: 10 * micro, Entries: 3})
	checkSums(t, s, "alice")
}

func testCreditSettlements(t *testing.T, s storage.Store) {
	for i, tc := range []struct {
		name    string
		from    qtype.JobStatus
		to      qtype.JobStatus
		cost    float64
		balance int64 // after, from 10 credits
	}{
		{"completed", qtype.StatusRunning, qtype.StatusCompleted, 2.5, 10*micro - 2_500_000},
		{"completed, cost rounded to the micro-credit", qtype.StatusRunning, qtype.StatusCompleted, 1.2345674, 10*micro - 1_234_567},
		{"completed over the estimate and the balance", qtype.StatusRunning, qtype.StatusCompleted, 15, -5 * micro},
		{"completed free", qtype.StatusRunning, qtype.StatusCompleted, 0, 10 * micro},
		{"failed", qtype.StatusRunning, qtype.StatusFailed, 3, 10 * micro}, // a FAILED job's cost is not charged
		{"cancelled while running", qtype.StatusCancelling, qtype.StatusCancelled, 0, 10 * micro},
		{"cancelled while queued", qtype.StatusQueued, qtype.StatusCancelled, 0, 10 * micro},
		{"failed before it ran", qtype.StatusInitializing, qtype.StatusFailed, 0, 10 * micro},
	} {
		t.Run(tc.name, func(t *testing.T) {
			l := ledgerOf(t, s)
			owner := fmt.Sprintf("settle-%d", i)
			grant(t, l, owner, 10, "")
			j := create(t, s, paid(owner, 0, 4*micro))
			if tc.from != qtype.StatusInitializing {
				move(t, s, j.JobQRN, qtype.StatusInitializing, tc.from, epoch)
			}
			wantAccount(t, l, owner, storage.CreditAccount{Balance: 10 * micro, Reserved: 4 * micro, Entries: 2})
			got := end(t, s, j.JobQRN, tc.from, tc.to, tc.cost)
			if got.Reserved != 4*micro {
				t.Fatalf("the job's Reserved changed to %d", got.Reserved)
			}
			wantAccount(t, l, owner, storage.CreditAccount{Balance: tc.balance, Entries: 3})
			e := entries(t, l, owner)[2]
			if e.Kind != storage.CreditSettled || e.Held != -4*micro || e.Amount != tc.balance-10*micro || e.Job != j.JobQRN {
				t.Fatalf("the settlement's entry: %+v", e)
			}
			// Settled once: a terminal job never changes, and deleting it
			// records nothing.
			if _, err := s.UpdateJob(ctx, j.JobQRN, tc.to, func(j *storage.JobRecord) { j.Status = qtype.StatusFailed }, nil); !errors.Is(err, storage.ErrStatusChanged) {
				t.Fatalf("a terminal job changed: %v", err)
			}
			if err := s.DeleteJob(ctx, j.JobQRN, tc.to); err != nil {
				t.Fatal(err)
			}
			wantAccount(t, l, owner, storage.CreditAccount{Balance: tc.balance, Entries: 3})
			checkSums(t, s, owner)
		})
	}
	// Changes between unfinished statuses (a claim, a requeue) and a job
	// that reserved nothing settle nothing.
	l := ledgerOf(t, s)
	grant(t, l, "dave", 10, "")
	j := create(t, s, paid("dave", 0, 4*micro))
	queue(t, s, j, epoch)
	if _, err := s.ClaimJob(ctx, claimOf(deviceB, "dave")); err != nil {
		t.Fatal(err)
	}
	move(t, s, j.JobQRN, qtype.StatusRunning, qtype.StatusQueued, epoch)
	free := create(t, s, newJob("dave", deviceA, 1))
	end(t, s, free.JobQRN, qtype.StatusInitializing, qtype.StatusCompleted, 3)
	wantAccount(t, l, "dave", storage.CreditAccount{Balance: 10 * micro, Reserved: 4 * micro, Entries: 2})
	checkSums(t, s, "dave")
}

// testCreditSettledOnce races the ends of one job (a worker's COMPLETED,
// a cancel, a FAILED) as retries, crashes and takeovers may: the job is
// settled exactly once.
func testCreditSettledOnce(t *testing.T, s storage.Store) {
	l := ledgerOf(t, s)
	grant(t, l, "alice", 1000, "")
	for round := range 20 {
		j := create(t, s, paid("alice", round, 2*micro))
		move(t, s, j.JobQRN, qtype.StatusInitializing, qtype.StatusRunning, epoch)
		var wg sync.WaitGroup
		for i := range 9 {
			to := []qtype.JobStatus{qtype.StatusCompleted, qtype.StatusCancelling, qtype.StatusFailed}[i%3]
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := s.UpdateJob(ctx, j.JobQRN, qtype.StatusRunning, func(j *storage.JobRecord) { j.Status, j.Cost = to, 1 }, nil)
				if err != nil && !errors.Is(err, storage.ErrStatusChanged) {
					t.Error(err)
				}
				if to == qtype.StatusCancelling {
					_, err := s.UpdateJob(ctx, j.JobQRN, qtype.StatusCancelling, func(j *storage.JobRecord) { j.Status = qtype.StatusCancelled }, nil)
					if err != nil && !errors.Is(err, storage.ErrStatusChanged) {
						t.Error(err)
					}
				}
			}()
		}
		wg.Wait()
		settled := 0
		for _, e := range entries(t, l, "alice") {
			if e.Job == j.JobQRN && e.Kind == storage.CreditSettled {
				settled++
			}
		}
		if got := mustGet(t, s, j.JobQRN); !got.Status.IsTerminal() || settled != 1 {
			t.Fatalf("round %d: the job ended %s, settled %d times", round, got.Status, settled)
		}
	}
	if a := account(t, l, "alice"); a.Reserved != 0 || a.Entries != 41 {
		t.Fatalf("after 20 jobs ended: %+v, want nothing reserved and 41 entries", a)
	}
	checkSums(t, s, "alice")
}

// testCreditConcurrentReservations: many creates at once for one owner
// reserve no more than the balance: exactly as many as it covers succeed.
func testCreditConcurrentReservations(t *testing.T, s storage.Store) {
	l := ledgerOf(t, s)
	grant(t, l, "alice", 10, "")
	var stored, refused atomic.Int32
	var wg sync.WaitGroup
	for i := range 40 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := s.CreateJob(ctx, paid("alice", i, micro), program)
			switch {
			case err == nil:
				stored.Add(1)
			case errors.Is(err, qtype.ErrInsufficientCredits):
				refused.Add(1)
			default:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if stored.Load() != 10 || refused.Load() != 30 {
		t.Fatalf("%d stored, %d refused; want 10 and 30", stored.Load(), refused.Load())
	}
	wantAccount(t, l, "alice", storage.CreditAccount{Balance: 10 * micro, Reserved: 10 * micro, Entries: 11})
	if n, _ := s.CountJobs(ctx, "alice", qtype.StatusGroups()["pending"]); n != 10 {
		t.Fatalf("%d jobs stored, want 10", n)
	}
	// Their ends and new grants, at once too, keep the sums exact.
	jobs, _, err := s.ListJobs(ctx, storage.JobFilter{Owner: "alice", Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for i, j := range jobs {
		wg.Add(2)
		go func() {
			defer wg.Done()
			to := []qtype.JobStatus{qtype.StatusCompleted, qtype.StatusFailed}[i%2]
			if _, err := s.UpdateJob(ctx, j.JobQRN, qtype.StatusInitializing, func(j *storage.JobRecord) { j.Status, j.Cost = to, 0.75 }, nil); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			if _, _, err := l.GrantCredits(ctx, storage.CreditGrant{Owner: "alice", Amount: micro, ID: fmt.Sprint(i % 4), At: epoch}); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	// 10 + 4 granted (four IDs), 5 × 0.75 charged.
	wantAccount(t, l, "alice", storage.CreditAccount{Balance: 14*micro - 3_750_000, Entries: 25})
	checkSums(t, s, "alice")
}
