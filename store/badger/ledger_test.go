package badger_test

import (
	"errors"
	"testing"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store/badger"
)

// A database of schema version 2 (no ledger) opens as version 3, and the
// ledger, a job's reservation with it, lasts across a reopen: the job
// reserved before it is settled after.
func TestBadgerLedgerAcrossReopen(t *testing.T) {
	dir := t.TempDir()
	open := func() *badger.Store {
		t.Helper()
		b, err := badger.Open(dir, badger.WithSyncWrites(false))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	b := open()
	if err := b.SetSchemaVersionForTest(2); err != nil {
		t.Fatal(err)
	}
	j := job("alice", 1)
	j.Reserved = 3 * storage.MicroCredits
	if err := b.CreateJob(ctx, j, quantum.Program{Format: "qasm2", Data: "x"}); !errors.Is(err, quantum.ErrInsufficientCredits) {
		t.Fatalf("a reservation without credits: %v", err)
	}
	b.Close()

	b = open()
	if v, err := b.SchemaVersionForTest(); err != nil || v != "3" {
		t.Fatalf("schema version after opening version 2: %q, %v; want 3", v, err)
	}
	if _, _, err := b.GrantCredits(ctx, storage.CreditGrant{Owner: "alice", Amount: 10 * storage.MicroCredits, ID: "once"}); err != nil {
		t.Fatal(err)
	}
	if err := b.CreateJob(ctx, j, quantum.Program{Format: "qasm2", Data: "x"}); err != nil {
		t.Fatal(err)
	}
	b.Close()

	b = open()
	defer b.Close()
	if _, recorded, err := b.GrantCredits(ctx, storage.CreditGrant{Owner: "alice", Amount: 10 * storage.MicroCredits, ID: "once"}); err != nil || recorded {
		t.Fatalf("the grant's ID after reopen: recorded %v, %v", recorded, err)
	}
	if _, err := b.UpdateJob(ctx, j.JobQRN, quantum.StatusInitializing, func(j *storage.JobRecord) {
		j.Status, j.Cost = quantum.StatusCompleted, 1.5
	}, nil); err != nil {
		t.Fatal(err)
	}
	a, err := b.Credits(ctx, "alice")
	if want := (storage.CreditAccount{Balance: 8_500_000, Entries: 3}); err != nil || a != want {
		t.Fatalf("account after reopen and settlement: %+v, %v; want %+v", a, err, want)
	}
}
