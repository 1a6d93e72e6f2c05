package badger_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store/badger"
	"github.com/qjobs/quantum/store/storetest"
)

var ctx = context.Background()

func openBadger(t *testing.T, opts ...badger.Option) *badger.Store {
	t.Helper()
	b, err := badger.Open(t.TempDir(), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = b.Close() })
	return b
}

func TestBadgerOnDisk(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storage.Store {
		return openBadger(t, badger.WithSyncWrites(false), badger.WithMaxValueBytes(4<<20))
	})
}

func TestBadgerInMemory(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storage.Store {
		return openBadger(t, badger.WithInMemory(), badger.WithMaxValueBytes(4<<20))
	})
}

func TestBadgerKeepsJobsAcrossReopen(t *testing.T) {
	dir := t.TempDir()
	b, err := badger.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	job := &storage.JobRecord{Job: quantum.Job{JobQRN: "qbraid:qbraid:sim:qir-sv-abcd-qjob-000000000000000000000001", DeviceQRN: "qbraid:qbraid:sim:qir-sv",
		Status: quantum.StatusQueued, Tags: map[string]any{"n": int64(3)}, Vendor: "qbraid"}, Owner: "alice"}
	if err := b.CreateJob(ctx, job, quantum.Program{Format: "qasm2", Data: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatalf("second Close: %v", err)
	}
	b, err = badger.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err := b.GetJob(ctx, job.JobQRN)
	if err != nil || got.Tags["n"] != int64(3) || got.Owner != "alice" {
		t.Fatalf("after reopen: %+v, %v", got, err)
	}
	if n, _ := b.CountQueued(ctx, job.DeviceQRN); n != 1 {
		t.Fatalf("queue after reopen: %d", n)
	}
	// The list totals are counted again from the index keys.
	for _, f := range []storage.JobFilter{{}, {Statuses: []quantum.JobStatus{quantum.StatusQueued}}, {Vendor: "qbraid"}} {
		f.Owner, f.Limit = "alice", 10
		if page, total, err := b.ListJobs(ctx, f); err != nil || total != 1 || len(page) != 1 {
			t.Fatalf("list %+v after reopen: %d of %d, %v", f, len(page), total, err)
		}
	}
}

// The key index is on disk: after a reopen a key still points at its
// job and still refuses a second job.
func TestBadgerKeepsKeysAcrossReopen(t *testing.T) {
	dir := t.TempDir()
	b, err := badger.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	keyed := func(n int) *storage.JobRecord {
		return &storage.JobRecord{Job: quantum.Job{JobQRN: fmt.Sprintf("qbraid:qbraid:sim:qir-sv-abcd-qjob-%024x", n), DeviceQRN: "qbraid:qbraid:sim:qir-sv",
			Status: quantum.StatusInitializing, Vendor: "qbraid", TimeStamps: qtype.TimeStamps{CreatedAt: at}},
			Owner: "alice", UpdatedAt: at, IdempotencyKey: "k", RequestHash: "h"}
	}
	if err := b.CreateJob(ctx, keyed(1), quantum.Program{Format: "qasm2", Data: "x"}); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	b, err = badger.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	got, err := b.JobByIdempotencyKey(ctx, "alice", "k", at)
	if err != nil || got.JobQRN != keyed(1).JobQRN || got.RequestHash != "h" {
		t.Fatalf("lookup after reopen: %+v, %v", got, err)
	}
	if err := b.CreateJob(ctx, keyed(2), quantum.Program{Format: "qasm2", Data: "x"}); !errors.Is(err, storage.ErrDuplicateKey) {
		t.Fatalf("a second job with the key after reopen: %v, want ErrDuplicateKey", err)
	}
}

func TestBadgerRefusesNewerSchema(t *testing.T) {
	dir := t.TempDir()
	b, err := badger.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SetSchemaVersionForTest(badger.SchemaVersion + 1); err != nil {
		t.Fatal(err)
	}
	b.Close()
	if _, err := badger.Open(dir); err == nil || !strings.Contains(err.Error(), "schema version") {
		t.Fatalf("open of a newer schema: %v", err)
	}
}

// TestBadgerSlowApply runs the conformance suite with a pause between
// each commit and the change it makes to the state in memory, so that
// other changes commit in between: the state must still end exact.
func TestBadgerSlowApply(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storage.Store {
		b := openBadger(t, badger.WithInMemory(), badger.WithMaxValueBytes(4<<20))
		var n atomic.Uint64
		b.SetFaultHookForTest(func(method string) {
			if method == "apply" {
				time.Sleep(time.Duration(n.Add(7919)%200) * time.Microsecond)
			}
		})
		return b
	})
}
