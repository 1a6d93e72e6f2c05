package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one step of the schema: version n is the file
// migrations/000n_*.sql.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations lists the embedded steps in order; their versions run 1, 2,
// 3… without a gap.
func migrations() ([]migration, error) {
	entries, err := fs.ReadDir(migrationFiles, "migrations")
	if err != nil {
		return nil, err
	}
	var out []migration
	for _, e := range entries {
		prefix, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(prefix)
		if !ok || err != nil {
			return nil, fmt.Errorf("postgres: migration %s: the name must start with its version", e.Name())
		}
		data, err := migrationFiles.ReadFile(path.Join("migrations", e.Name()))
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(data)})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	for i, m := range out {
		if m.version != i+1 {
			return nil, fmt.Errorf("postgres: migration %s: want version %d", m.name, i+1)
		}
	}
	return out, nil
}

// SchemaVersion is the version of the schema this build writes.
func SchemaVersion() int {
	ms, err := migrations()
	if err != nil {
		panic(err) // the embedded files are part of the build
	}
	return len(ms)
}

// ErrSchemaTooNew is Open's answer for a database whose schema a newer
// build wrote: this one would misread it.
var ErrSchemaTooNew = errors.New("the database's schema is newer than this build knows")

// migrateLock is the advisory lock under which nodes migrate, one at a
// time: the first to start applies the steps, the others find them done.
const migrateLock = int64(0x7175616e74756d) // "quantum"

// migrate brings the schema to the latest version, or refuses a newer
// one. It holds a session advisory lock on one connection for the whole
// run, and applies each step in a transaction with its version row.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	return apply(ctx, pool, ms)
}

// apply brings the schema to the last of ms, the steps a build knows.
func apply(ctx context.Context, pool *pgxpool.Pool, ms []migration) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("postgres: connect: %w", err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SELECT pg_advisory_lock($1)", migrateLock); err != nil {
		return fmt.Errorf("postgres: lock the schema for migration: %w", err)
	}
	defer func() {
		// A connection that failed closes, and its lock goes with it.
		_, _ = conn.Exec(context.WithoutCancel(ctx), "SELECT pg_advisory_unlock($1)", migrateLock)
	}()
	_, err = conn.Exec(ctx, `CREATE TABLE IF NOT EXISTS quantum_schema_migrations (
		version    integer PRIMARY KEY,
		name       text NOT NULL,
		applied_at timestamptz NOT NULL DEFAULT now())`)
	if err != nil {
		return fmt.Errorf("postgres: create the migrations table: %w", err)
	}
	var current int
	if err := conn.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM quantum_schema_migrations").Scan(&current); err != nil {
		return fmt.Errorf("postgres: read the schema version: %w", err)
	}
	if current > len(ms) {
		return fmt.Errorf("postgres: %w: the database is at version %d, this build at %d; run a build of this module that knows version %d",
			ErrSchemaTooNew, current, len(ms), current)
	}
	for _, m := range ms[current:] {
		err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO quantum_schema_migrations (version, name) VALUES ($1, $2)", m.version, m.name)
			return err
		})
		if err != nil {
			return fmt.Errorf("postgres: apply migration %s: %w", m.name, err)
		}
	}
	return nil
}
