package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/qjobs/quantum/store/postgres"
)

func openAt(t *testing.T, dsn string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// connect is a connection of the test's own to the database at dsn.
func connect(t *testing.T, dsn string) *pgx.Conn {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close(context.Background()) })
	return conn
}

// plannerRows is the planner's count of rows in quantum_job_states.
func plannerRows(t *testing.T, conn *pgx.Conn) float64 {
	t.Helper()
	var n float64
	if err := conn.QueryRow(context.Background(), "SELECT reltuples FROM pg_class WHERE oid = 'quantum_job_states'::regclass").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// holdLock takes the advisory lock (class, key) in a transaction on
// conn, as a statement or a node of the store would, until the returned
// function commits it.
func holdLock(t *testing.T, conn *pgx.Conn, class, key int) (release func()) {
	t.Helper()
	ctx := context.Background()
	tx, err := conn.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got bool
	if err := tx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock($1, $2)", class, key).Scan(&got); err != nil || !got {
		t.Fatalf("lock (%d, %d): %v, %v", class, key, got, err)
	}
	return func() {
		t.Helper()
		if err := tx.Commit(ctx); err != nil {
			t.Fatal(err)
		}
	}
}
