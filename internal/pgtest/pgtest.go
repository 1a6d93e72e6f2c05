// Package pgtest gives tests a real PostgreSQL database: a throwaway
// server that it starts from the installed binaries (internal/pgserver),
// once per test process, or the server that QUANTUM_TEST_POSTGRES_DSN
// names. Tests of code on PostgreSQL run against the real thing, never a
// mock.
//
// Without PostgreSQL's server binaries a test that asks for a database is
// skipped with a message that says how to install them; under CI=true it
// fails instead, since a skipped database test there hides a broken
// setup.
package pgtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/qjobs/quantum/internal/pgserver"
	"github.com/qjobs/quantum/internal/testenv"
)

// EnvDSN names an existing server to use instead of starting one. Its
// user must be allowed to create databases.
const EnvDSN = "QUANTUM_TEST_POSTGRES_DSN"

var (
	once    sync.Once
	shared  *pgserver.Server
	initErr error
)

// DSN returns the connection string (a postgres:// URL) of a new, empty
// database for this test. The database is dropped when the test ends.
func DSN(t testing.TB) string {
	t.Helper()
	once.Do(func() { shared, initErr = start() })
	if initErr != nil {
		if errors.Is(initErr, pgserver.ErrNoBinaries) {
			testenv.Skip(t, initErr.Error())
			return ""
		}
		t.Fatal(initErr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	name, dsn, err := shared.CreateDB(ctx, "quantum_test")
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = shared.DropDB(ctx, name)
	})
	return dsn
}

// Main runs the package's tests, then stops the server if it started one:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
func Main(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.Stop()
	}
	os.Exit(code)
}

// start finds the server to use: EnvDSN's, or one of its own.
func start() (*pgserver.Server, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		s, err := pgserver.Use(ctx, dsn)
		if err != nil {
			return nil, fmt.Errorf("pgtest: %s: %w", EnvDSN, err)
		}
		return s, nil
	}
	s, err := pgserver.Start(ctx)
	if errors.Is(err, pgserver.ErrNoBinaries) {
		return nil, fmt.Errorf("pgtest: %w: install them, or set %s to a server where the user may create databases", err, EnvDSN)
	}
	return s, err
}
