package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SetFeedPing changes how long the feed waits before it checks its
// connection, for a test that the connection survives the check.
func SetFeedPing(d time.Duration) (restore func()) {
	old := feedPing
	feedPing = d
	return func() { feedPing = old }
}

// MigrateTo brings the database at dsn to schema version n only, as a
// build that knew n versions left it, for a test of the later steps.
func MigrateTo(ctx context.Context, dsn string, n int) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		return err
	}
	defer pool.Close()
	return apply(ctx, pool, ms[:n])
}

// WithTracer makes every connection of the store (the pool's and the
// change feed's) report its statements to t, for tests that count round
// trips.
func WithTracer(t any) Option {
	return func(c *config) { c.tracer = t.(pgx.QueryTracer) }
}

// ParseChanges reads a notification's payload, as WatchChanges does.
var ParseChanges = parseChanges

// WaitAnalyzed waits for an analysis of the job tables that the creates
// so far started.
func (s *Store) WaitAnalyzed() { s.growth.wg.Wait() }

// SetFollowLinger changes how long a store keeps following every change
// once its last follower has gone.
func SetFollowLinger(d time.Duration) (restore func()) {
	old := followLinger
	followLinger = d
	return func() { followLinger = old }
}

// LockFollowKeys has conn's session follow every change, as a node's
// listening connection does.
func LockFollowKeys(ctx context.Context, conn *pgx.Conn) error { return lockFollowKeys(ctx, conn) }
