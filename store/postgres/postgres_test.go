package postgres_test

import (
	"context"
	"crypto/rand"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/internal/pgtest"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store/postgres"
	"github.com/qjobs/quantum/store/storetest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

func open(t testing.TB, opts ...postgres.Option) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), pgtest.DSN(t), opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) storage.Store { return open(t, postgres.WithMaxValueBytes(1<<20)) })
}

// The feed announces a new job and each change of status, from another
// pool (another node), also after its connection has idled through
// several liveness checks.
func TestChangeFeed(t *testing.T) {
	t.Cleanup(postgres.SetFeedPing(50 * time.Millisecond)) // after the feed stops (cleanups run last first)
	dsn := pgtest.DSN(t)
	a, b := openAt(t, dsn), openAt(t, dsn)
	unfollow, err := a.FollowAll(context.Background()) // every change (follow_test.go has the rest)
	if err != nil {
		t.Fatal(err)
	}
	defer unfollow()
	next := feedOf(t, a) // and WatchChanges answers context.Canceled once cancelled
	if c := next(); c != (storage.Change{}) {
		t.Fatalf("first change = %+v, want the zero Change that says the feed listens", c)
	}
	time.Sleep(300 * time.Millisecond) // idle through several pings: the point of the test

	j := &storage.JobRecord{Job: quantum.Job{JobQRN: "dev-abcd-qjob-1", DeviceQRN: "dev", Status: quantum.StatusInitializing,
		TimeStamps: qtype.TimeStamps{CreatedAt: time.Now()}}, Owner: "alice", UpdatedAt: time.Now()}
	if err := b.CreateJob(context.Background(), j, quantum.Program{Format: "qasm2", Data: "x"}); err != nil {
		t.Fatal(err)
	}
	want := storage.Change{JobQRN: j.JobQRN, DeviceQRN: "dev", Owner: "alice", Status: quantum.StatusInitializing}
	if c := next(); c != want {
		t.Fatalf("after create: %+v, want %+v", c, want)
	}
	// A change that keeps the status is no news; one that moves it is.
	if _, err := b.UpdateJob(context.Background(), j.JobQRN, quantum.StatusInitializing, func(r *storage.JobRecord) { r.Name = "renamed" }, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := b.UpdateJob(context.Background(), j.JobQRN, quantum.StatusInitializing, func(r *storage.JobRecord) { r.Status = quantum.StatusValidating }, nil); err != nil {
		t.Fatal(err)
	}
	want.Status = quantum.StatusValidating
	if c := next(); c != want {
		t.Fatalf("after a move: %+v, want %+v", c, want)
	}
}

// A database that a build of schema version 1 wrote, with a job in it,
// migrates to idempotency keys: the old job reads and changes as before
// and holds no key, and keyed creates work beside it.
func TestMigratesVersion1(t *testing.T) {
	ctx := context.Background()
	dsn, conn := databaseAt(t, 1)
	const old = "dev-abcd-qjob-old"
	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	// The row and record as version 1 wrote them: no idem_key column, no
	// key in the record.
	_, err := conn.Exec(ctx, `INSERT INTO quantum_jobs (qrn, owner, device_qrn, status, vendor, provider, created_ns, updated_ns,
		queued_ns, memory_need, attempts, node, search, tags, record) VALUES ($1, 'alice', 'dev', 'QUEUED', 'qbraid', 'qbraid',
		$2, $2, $2, 0, 0, '', ARRAY['', $1, 'dev'], '{}', $3)`, old, created.UnixNano(),
		`{"jobQrn":"`+old+`","deviceQrn":"dev","status":"QUEUED","vendor":"qbraid","provider":"qbraid","tags":{},"Owner":"alice",`+
			`"UpdatedAt":"2026-01-01T00:00:00Z","createdAtExact":"2026-01-01T00:00:00Z"}`)
	if err == nil {
		_, err = conn.Exec(ctx, `INSERT INTO quantum_programs (qrn, format, data) VALUES ($1, 'qasm2', 'x')`, old)
	}
	if err != nil {
		t.Fatal(err)
	}

	s, err := postgres.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	var version int
	if err := conn.QueryRow(ctx, "SELECT max(version) FROM quantum_schema_migrations").Scan(&version); err != nil || version != postgres.SchemaVersion() {
		t.Fatalf("schema version after Open: %d, %v; want %d", version, err, postgres.SchemaVersion())
	}
	j, err := s.GetJob(ctx, old)
	if err != nil || j.Owner != "alice" || j.IdempotencyKey != "" || j.RequestHash != "" || !j.TimeStamps.CreatedAt.Equal(created) {
		t.Fatalf("the old job after the migration: %+v, %v", j, err)
	}
	if n, err := s.CountQueued(ctx, "dev"); err != nil || n != 1 {
		t.Fatalf("queue after the migration: %d, %v", n, err)
	}
	if _, err := s.UpdateJob(ctx, old, quantum.StatusQueued, func(r *storage.JobRecord) { r.Name = "renamed" }, nil); err != nil {
		t.Fatal(err)
	}

	keyed := &storage.JobRecord{Job: quantum.Job{JobQRN: "dev-abcd-qjob-new", DeviceQRN: "dev", Status: quantum.StatusInitializing,
		TimeStamps: qtype.TimeStamps{CreatedAt: created}}, Owner: "alice", UpdatedAt: created, IdempotencyKey: "k", RequestHash: "h"}
	if err := s.CreateJob(ctx, keyed, quantum.Program{Format: "qasm2", Data: "x"}); err != nil {
		t.Fatal(err)
	}
	dup := *keyed
	dup.JobQRN = "dev-abcd-qjob-dup"
	if err := s.CreateJob(ctx, &dup, quantum.Program{Format: "qasm2", Data: "x"}); !errors.Is(err, storage.ErrDuplicateKey) {
		t.Fatalf("a second job with the key: %v, want ErrDuplicateKey", err)
	}
	if got, err := s.JobByIdempotencyKey(ctx, "alice", "k", created); err != nil || got.JobQRN != keyed.JobQRN {
		t.Fatalf("lookup: %+v, %v", got, err)
	}
}

// An idempotency key longer than the index holds is refused as too large,
// not as a database error.
func TestIdempotencyKeyTooLarge(t *testing.T) {
	s := open(t)
	var key strings.Builder
	for key.Len() < 8192 {
		key.WriteString(rand.Text()) // random: PostgreSQL compresses what repeats
	}
	j := &storage.JobRecord{Job: quantum.Job{JobQRN: "dev-abcd-qjob-1", DeviceQRN: "dev", Status: quantum.StatusInitializing,
		TimeStamps: qtype.TimeStamps{CreatedAt: time.Now()}}, Owner: "alice", UpdatedAt: time.Now(), IdempotencyKey: key.String()}
	if err := s.CreateJob(context.Background(), j, quantum.Program{Format: "qasm2", Data: "x"}); !errors.Is(err, storage.ErrTooLarge) {
		t.Fatalf("an 8 KiB key: %v, want ErrTooLarge", err)
	}
}
