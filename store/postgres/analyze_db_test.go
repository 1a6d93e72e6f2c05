package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/internal/pgtest"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store/postgres"
)

// TestAnalyzesAsTheTablesGrow: on a fresh database, the creates of one
// store have the job tables analyzed as they grow, so that the plans the
// batched statements cache are made again for tables of their size, not
// kept from when they were empty; another store does not analyze them
// again for jobs the planner already counts.
func TestAnalyzesAsTheTablesGrow(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	s, conn := openAt(t, dsn), connect(t, dsn)
	seen := func() float64 { t.Helper(); return plannerRows(t, conn) }
	if n := seen(); n > 0 {
		t.Fatalf("a fresh database's job table is seen with %v rows", n)
	}
	other := openAt(t, dsn) // opened on the empty tables, as s was
	const jobs = 300
	createJobs(t, s, 0, jobs)
	s.WaitAnalyzed()
	if n := seen(); n < jobs/2 {
		t.Errorf("after %d creates the planner sees %v rows in the job table, want at least %d", jobs, n, jobs/2)
	}

	// Another node that inserts fewer than the planner sees leaves the
	// tables as they are: one analysis of a growth is enough.
	analyses := func() int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, "SELECT analyze_count FROM pg_stat_user_tables WHERE relname = 'quantum_job_states'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := analyses()
	createJobs(t, other, jobs, jobs+jobs/2)
	other.WaitAnalyzed()
	if after := analyses(); after != before {
		t.Errorf("another node's %d creates analyzed the tables %d more times, want none", jobs/2, after-before)
	}
}

// createJobs creates jobs from to to-1 on s.
func createJobs(t *testing.T, s *postgres.Store, from, to int) {
	t.Helper()
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := from; i < to; i++ {
		j := &storage.JobRecord{Job: quantum.Job{JobQRN: fmt.Sprintf("dev-abcd-qjob-%d", i), DeviceQRN: "dev",
			Status: quantum.StatusInitializing, TimeStamps: qtype.TimeStamps{CreatedAt: at}}, Owner: "alice", UpdatedAt: at}
		if err := s.CreateJob(context.Background(), j, qtype.Program{Format: "qasm2", Data: "x"}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAnalyzesOneNodeAtATime: a node that finds another analyzing the
// job tables (the lock taken) leaves it to that one, and analyzes them
// itself after as many more inserts.
func TestAnalyzesOneNodeAtATime(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	s, conn := openAt(t, dsn), connect(t, dsn)
	seen := func() float64 { t.Helper(); return plannerRows(t, conn) }
	// Only this test's nodes analyze the table.
	if _, err := conn.Exec(ctx, "ALTER TABLE quantum_job_states SET (autovacuum_enabled = false)"); err != nil {
		t.Fatal(err)
	}
	analyzing := holdLock(t, connect(t, dsn), 1902210668, 0) // another node
	createJobs(t, s, 0, 200)
	s.WaitAnalyzed()
	analyzing()
	if n := seen(); n > 0 {
		t.Fatalf("the planner sees %v rows: analyzed while another node held the lock", n)
	}
	createJobs(t, s, 200, 400)
	s.WaitAnalyzed()
	if n := seen(); n < 200 {
		t.Fatalf("the planner sees %v rows after 400 creates, want at least 200", n)
	}
}
