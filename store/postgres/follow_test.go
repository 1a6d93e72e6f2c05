package postgres_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/internal/pgtest"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store/postgres"
)

// feedOf runs s's WatchChanges until the test ends (when it must answer
// context.Canceled) and returns what reads its next change.
func feedOf(t *testing.T, s *postgres.Store) func() storage.Change {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	changes := make(chan storage.Change, 64)
	done := make(chan error, 1)
	go func() { done <- s.WatchChanges(ctx, func(c storage.Change) { changes <- c }) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; !errors.Is(err, context.Canceled) {
			t.Errorf("WatchChanges after cancel: %v", err)
		}
	})
	return func() storage.Change {
		t.Helper()
		select {
		case c := <-changes:
			return c
		case err := <-done:
			t.Fatalf("the feed stopped: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatal("no change within 10 s")
		}
		return storage.Change{}
	}
}

// followLocks counts the follow locks held (granted) and waited for.
func followLocks(t *testing.T, conn *pgx.Conn) (held, waiting int) {
	t.Helper()
	err := conn.QueryRow(context.Background(), `SELECT count(*) FILTER (WHERE granted), count(*) FILTER (WHERE NOT granted)
		FROM pg_locks WHERE locktype = 'advisory' AND classid = 1903649140 AND mode = 'ShareLock'`).Scan(&held, &waiting)
	if err != nil {
		t.Fatal(err)
	}
	return held, waiting
}

// TestFollowAll: while no node follows every change, the feed sends only
// the moves to QUEUED and CANCELLING; from the return of FollowAll (which
// first reports that changes were missed) it sends every one, and some
// time after the last release it sends only those two again.
func TestFollowAll(t *testing.T) {
	t.Cleanup(postgres.SetFollowLinger(0)) // after the feed stops (cleanups run last first)
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	a, b := openAt(t, dsn), openAt(t, dsn) // a listens, b writes, as two nodes
	conn := connect(t, dsn)
	next := feedOf(t, a)
	if c := next(); c != (storage.Change{}) {
		t.Fatalf("first change = %+v, want the zero Change", c)
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	create := func(qrn string) {
		t.Helper()
		j := &storage.JobRecord{Job: quantum.Job{JobQRN: qrn, DeviceQRN: "dev", Status: quantum.StatusInitializing,
			TimeStamps: qtype.TimeStamps{CreatedAt: at}}, Owner: "alice", UpdatedAt: at}
		if err := b.CreateJob(ctx, j, quantum.Program{Format: "qasm2", Data: "x"}); err != nil {
			t.Fatal(err)
		}
	}
	move := func(qrn string, from, to quantum.JobStatus) {
		t.Helper()
		if _, err := b.UpdateJob(ctx, qrn, from, func(r *storage.JobRecord) { r.Status = to }, nil); err != nil {
			t.Fatal(err)
		}
	}
	expect := func(qrn string, status quantum.JobStatus) {
		t.Helper()
		want := storage.Change{JobQRN: qrn, DeviceQRN: "dev", Owner: "alice", Status: status}
		if c := next(); c != want {
			t.Fatalf("got %+v, want %+v", c, want)
		}
	}
	// Notifications come in the order of their commits: a change that
	// comes before another's was not sent.
	sparing := func(qrn string) {
		t.Helper()
		create(qrn)
		move(qrn, quantum.StatusInitializing, quantum.StatusQueued)
		expect(qrn, quantum.StatusQueued) // not its INITIALIZING
		move(qrn, quantum.StatusQueued, quantum.StatusRunning)
		move(qrn, quantum.StatusRunning, quantum.StatusCancelling)
		expect(qrn, quantum.StatusCancelling) // not its RUNNING
	}
	sparing("dev-abcd-qjob-1")

	unfollow, err := a.FollowAll(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if c := next(); c != (storage.Change{}) {
		t.Fatalf("after FollowAll: %+v, want the zero Change: changes were missed", c)
	}
	if held, _ := followLocks(t, conn); held != 64 {
		t.Fatalf("%d follow locks held once FollowAll returned, want 64", held)
	}
	const second = "dev-abcd-qjob-2"
	create(second)
	expect(second, quantum.StatusInitializing)
	move(second, quantum.StatusInitializing, quantum.StatusQueued)
	expect(second, quantum.StatusQueued)
	move(second, quantum.StatusQueued, quantum.StatusRunning)
	expect(second, quantum.StatusRunning)
	move(second, quantum.StatusRunning, quantum.StatusCompleted)
	expect(second, quantum.StatusCompleted)
	again, err := a.FollowAll(ctx) // a second follower: nothing more to do
	if err != nil {
		t.Fatal(err)
	}
	again()
	again() // a second release of one follow does nothing
	if held, _ := followLocks(t, conn); held != 64 {
		t.Fatalf("%d follow locks held with a follower left, want 64", held)
	}

	unfollow()
	waitFor(t, "the follow locks given back", func() bool { held, _ := followLocks(t, conn); return held == 0 })
	sparing("dev-abcd-qjob-3")
}

// TestFollowAllWaitsForStatements: FollowAll returns only once a
// statement that, before it, decided to spare its changes has committed,
// so that a read after it sees what was not sent.
func TestFollowAllWaitsForStatements(t *testing.T) {
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	a := openAt(t, dsn)
	// A statement's transaction holding one of the keys, as one that
	// moved a job to RUNNING holds it until it commits.
	returned, watcher, commit := followBehindStatement(t, ctx, a, dsn)
	select {
	case err := <-returned:
		t.Fatalf("FollowAll returned (%v) while a statement that spared its changes had not committed", err)
	default:
	}
	commit()
	select {
	case err := <-returned:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("FollowAll did not return once the statement committed")
	}
	if held, _ := followLocks(t, watcher); held != 64 {
		t.Fatalf("%d follow locks held, want 64", held)
	}
}

// followBehindStatement runs a's feed, holds one of the follow keys as a
// statement that spared its changes would, and calls a.FollowAll(ctx),
// whose answer comes on returned, once the listening connection waits
// for that key. watcher is a connection of the test's; commit ends the
// statement.
func followBehindStatement(t *testing.T, ctx context.Context, a *postgres.Store, dsn string) (returned chan error, watcher *pgx.Conn, commit func()) {
	t.Helper()
	next := feedOf(t, a)
	next() // listening
	commit = holdLock(t, connect(t, dsn), 1903649140, 17)
	returned = make(chan error, 1)
	go func() {
		_, err := a.FollowAll(ctx)
		returned <- err
	}()
	watcher = connect(t, dsn)
	waitFor(t, "the listening connection to wait for the key", func() bool { _, waiting := followLocks(t, watcher); return waiting == 1 })
	return returned, watcher, commit
}

// TestFollowAllEndsWithItsContext: a FollowAll whose context ends while
// it waits answers the context's error, and counts for nothing after.
func TestFollowAllEndsWithItsContext(t *testing.T) {
	t.Cleanup(postgres.SetFollowLinger(0)) // after the feed stops (cleanups run last first)
	ctx := context.Background()
	dsn := pgtest.DSN(t)
	a := openAt(t, dsn)
	short, cancel := context.WithCancel(ctx)
	returned, watcher, commit := followBehindStatement(t, short, a, dsn)
	cancel()
	if err := <-returned; err != context.Canceled {
		t.Fatalf("FollowAll with its context cancelled: %v", err)
	}
	commit()
	// The loop took the locks for the call that left, and gives them
	// back: nobody follows.
	waitFor(t, "the follow locks given back", func() bool { held, _ := followLocks(t, watcher); return held == 0 })
}
