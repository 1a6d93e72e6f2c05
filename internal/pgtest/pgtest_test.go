package pgtest_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/qjobs/quantum/internal/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// Each DSN is a database of its own: what one test writes, another never
// sees.
func TestDatabasesAreSeparate(t *testing.T) {
	ctx := context.Background()
	a, b := pgtest.DSN(t), pgtest.DSN(t)
	if a == b {
		t.Fatalf("two calls gave one database: %s", a)
	}
	connA, err := pgx.Connect(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	defer connA.Close(ctx)
	connB, err := pgx.Connect(ctx, b)
	if err != nil {
		t.Fatal(err)
	}
	defer connB.Close(ctx)
	if _, err := connA.Exec(ctx, "CREATE TABLE only_in_a (n int); INSERT INTO only_in_a VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	var n int
	if err := connA.QueryRow(ctx, "SELECT n FROM only_in_a").Scan(&n); err != nil || n != 42 {
		t.Fatalf("read back = %d, %v", n, err)
	}
	var exists bool
	if err := connB.QueryRow(ctx, "SELECT to_regclass('only_in_a') IS NOT NULL").Scan(&exists); err != nil || exists {
		t.Fatalf("the table is visible in the other database (%v, %v)", exists, err)
	}
}
