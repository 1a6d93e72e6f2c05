package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/internal/pgtest"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store/postgres"
)

// databaseAt returns a new database at schema version n, as a build that
// knew n versions left it, and a connection to it.
func databaseAt(t *testing.T, n int) (dsn string, conn *pgx.Conn) {
	t.Helper()
	ctx := context.Background()
	dsn = pgtest.DSN(t)
	if err := postgres.MigrateTo(ctx, dsn, n); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(ctx) })
	return dsn, conn
}

// A database that a build of schema version 5 wrote (one table of jobs
// with its triggers, programs and results apart) migrates to version 6
// keeping every job: records, programs, results, tags, idempotency keys
// and the owners' counts read as before, a queued job is claimed with its
// program, and the jobs move and are deleted with their counts kept.
func TestMigratesVersion5(t *testing.T) {
	ctx := context.Background()
	dsn, conn := databaseAt(t, 5)

	created := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ended := created.Add(time.Minute)
	done := &storage.JobRecord{Job: quantum.Job{JobQRN: "dev-abcd-qjob-done", DeviceQRN: "dev", Name: "Bell pair", Shots: 100,
		Status: quantum.StatusCompleted, Vendor: "qbraid", Provider: "aws", Tags: map[string]any{"team": "red"},
		TimeStamps: qtype.TimeStamps{CreatedAt: created, EndedAt: &ended}}, Owner: "alice", UpdatedAt: ended,
		IdempotencyKey: "k", RequestHash: "h"}
	queued := &storage.JobRecord{Job: quantum.Job{JobQRN: "dev-abcd-qjob-queued", DeviceQRN: "dev", Name: "GHZ", Shots: 10,
		Status: quantum.StatusQueued, Vendor: "qbraid", Provider: "qbraid", Tags: map[string]any{"team": "blue"},
		TimeStamps: qtype.TimeStamps{CreatedAt: created.Add(time.Second)}}, Owner: "alice", UpdatedAt: created.Add(time.Second),
		QueuedAt: created.Add(time.Second), MemoryNeed: 64}
	// The rows as version 5 wrote them; its triggers keep the counts.
	for _, j := range []*storage.JobRecord{done, queued} {
		record, err := json.Marshal(struct {
			*storage.JobRecord
			CreatedAt time.Time  `json:"createdAtExact"`
			EndedAt   *time.Time `json:"endedAtExact,omitempty"`
		}{j, j.TimeStamps.CreatedAt, j.TimeStamps.EndedAt})
		if err != nil {
			t.Fatal(err)
		}
		tags, _ := json.Marshal(j.Tags)
		var key *string
		if j.IdempotencyKey != "" {
			key = &j.IdempotencyKey
		}
		_, err = conn.Exec(ctx, `INSERT INTO quantum_jobs (qrn, owner, device_qrn, status, vendor, provider, created_ns, updated_ns,
			queued_ns, memory_need, attempts, node, search, tags, idem_key, record) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10,
			0, '', ARRAY[lower($11), $1, $3], $12, $13, $14)`,
			j.JobQRN, j.Owner, j.DeviceQRN, string(j.Status), j.Vendor, j.Provider, j.TimeStamps.CreatedAt.UnixNano(),
			j.UpdatedAt.UnixNano(), j.QueuedAt.UnixNano(), j.MemoryNeed, j.Name, tags, key, record)
		if err == nil {
			_, err = conn.Exec(ctx, `INSERT INTO quantum_programs (qrn, format, data) VALUES ($1, 'qasm2', $2)`, j.JobQRN, "program of "+j.Name)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	result, _ := json.Marshal(qtype.Result{Counts: map[string]int{"00": 51, "11": 49}})
	if _, err := conn.Exec(ctx, `INSERT INTO quantum_results (qrn, counts) VALUES ($1, $2)`, done.JobQRN, result); err != nil {
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
	// The old table is gone under its name, so that a node of the old
	// build left running writes nothing.
	if _, err := conn.Exec(ctx, `DELETE FROM quantum_jobs WHERE qrn = $1`, done.JobQRN); err == nil {
		t.Fatal("a delete from the table of version 5 succeeded after the migration")
	}

	// What was stored reads as before.
	j, err := s.GetJob(ctx, done.JobQRN)
	if err != nil || j.Name != "Bell pair" || j.Status != quantum.StatusCompleted || j.Tags["team"] != "red" || j.RequestHash != "h" ||
		!j.TimeStamps.CreatedAt.Equal(created) || j.TimeStamps.EndedAt == nil || !j.TimeStamps.EndedAt.Equal(ended) {
		t.Fatalf("the completed job after the migration: %+v, %v", j, err)
	}
	if p, err := s.GetProgram(ctx, done.JobQRN); err != nil || p.Data != "program of Bell pair" {
		t.Fatalf("its program: %+v, %v", p, err)
	}
	if r, err := s.GetResult(ctx, done.JobQRN); err != nil || r.Counts["00"] != 51 || r.Counts["11"] != 49 {
		t.Fatalf("its result: %+v, %v", r, err)
	}
	if _, err := s.GetResult(ctx, queued.JobQRN); !errors.Is(err, storage.ErrJobNotFound) {
		t.Fatalf("the result of a queued job: %v, want ErrJobNotFound", err)
	}
	if got, err := s.JobByIdempotencyKey(ctx, "alice", "k", created); err != nil || got.JobQRN != done.JobQRN {
		t.Fatalf("lookup by key: %+v, %v", got, err)
	}
	for _, tc := range []struct {
		f    storage.JobFilter
		want []string
	}{
		{storage.JobFilter{}, []string{queued.JobQRN, done.JobQRN}},
		{storage.JobFilter{Statuses: []quantum.JobStatus{quantum.StatusCompleted}}, []string{done.JobQRN}},
		{storage.JobFilter{Provider: "aws"}, []string{done.JobQRN}},
		{storage.JobFilter{Tags: map[string]any{"team": "blue"}}, []string{queued.JobQRN}},
		{storage.JobFilter{Search: "bell"}, []string{done.JobQRN}},
	} {
		tc.f.Owner, tc.f.Limit = "alice", 10
		jobs, total, err := s.ListJobs(ctx, tc.f)
		if err != nil || total != len(tc.want) || len(jobs) != len(tc.want) {
			t.Fatalf("list %+v: %d jobs of %d, %v; want %v", tc.f, len(jobs), total, err, tc.want)
		}
		for i, j := range jobs {
			if j.JobQRN != tc.want[i] {
				t.Fatalf("list %+v: %s at %d, want %v", tc.f, j.JobQRN, i, tc.want)
			}
		}
	}
	if n, err := s.CountJobs(ctx, "alice", []quantum.JobStatus{quantum.StatusQueued, quantum.StatusCompleted}); err != nil || n != 2 {
		t.Fatalf("alice's counts after the migration: %d, %v", n, err)
	}

	// The queued job is claimed with its program, ends, and is deleted;
	// the counts follow.
	claimed, err := s.ClaimJobs(ctx, storage.BatchClaim{Max: 4, Devices: []string{"dev"}, MaxMemory: math.MaxInt64,
		Now: created.Add(time.Hour), LeaseUntil: created.Add(2 * time.Hour), Node: "n"})
	if err != nil || len(claimed.Jobs) != 1 || claimed.Jobs[0].Job.JobQRN != queued.JobQRN || claimed.Jobs[0].Program.Data != "program of GHZ" {
		t.Fatalf("claim after the migration: %+v, %v", claimed, err)
	}
	if _, err := s.UpdateJob(ctx, queued.JobQRN, quantum.StatusRunning, func(r *storage.JobRecord) { r.Status = quantum.StatusCompleted },
		&qtype.Result{Counts: map[string]int{"000": 10}}); err != nil {
		t.Fatal(err)
	}
	if r, err := s.GetResult(ctx, queued.JobQRN); err != nil || r.Counts["000"] != 10 {
		t.Fatalf("the new result: %+v, %v", r, err)
	}
	if err := s.DeleteJob(ctx, done.JobQRN, quantum.StatusCompleted); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetProgram(ctx, done.JobQRN); !errors.Is(err, storage.ErrJobNotFound) {
		t.Fatalf("a deleted job's program: %v, want ErrJobNotFound", err)
	}
	for _, c := range []struct {
		st   quantum.JobStatus
		want int
	}{{quantum.StatusQueued, 0}, {quantum.StatusRunning, 0}, {quantum.StatusCompleted, 1}} {
		if n, err := s.CountJobs(ctx, "alice", []quantum.JobStatus{c.st}); err != nil || n != c.want {
			t.Fatalf("alice's %s jobs at the end: %d, %v; want %d", c.st, n, err, c.want)
		}
	}
}
