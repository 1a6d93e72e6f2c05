package postgres

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// Every change of a job's status used to be sent to every node, and most
// were heard by nobody: a node acts on QUEUED (work to claim) and
// CANCELLING (a run to stop), and only its watchers want the rest. Each
// NOTIFY wakes every listening backend, so the rest cost about a fifth of
// the database's work per job with three nodes and no watcher.
//
// So a statement sends every change only while some node follows them
// all, which it learns, in the statement and without a read of any
// table, from advisory locks: a node with watchers holds a shared lock on
// each of followKeys keys on its listening connection, and a statement
// that moves a job to any other status tries for the exclusive lock on
// one key (its backend's), until it commits (moveEffects). If it gets it,
// no node followed when it tried, and a node that comes to follow waits
// for the lock, so for the statement's commit, before it reads; if it
// does not, it sends every change. (Two statements that try one key at
// once both send every change: more than needed, never less.)

// followClass is the first half of the two-part advisory lock keys of
// following ("qwat"; migrateLock is a one-part key: another space).
const followClass = 0x71776174

// followKeys is how many keys the statements spread over.
const followKeys = 64

// followLinger is how long a node keeps following once its last
// watcher has gone: a watcher that comes back soon (a stream that
// reconnects) finds it still following, and resumes where it was.
var followLinger = 30 * time.Second

// follow is the state of FollowAll, shared with the WatchChanges loop
// that holds the locks.
type follow struct {
	mu        sync.Mutex
	n         int                // FollowAll calls not yet released
	idleSince time.Time          // when n last fell to 0
	listening bool               // a WatchChanges loop is up
	holding   bool               // it follows every change, and has told the waiting calls
	wake      context.CancelFunc // ends the loop's wait for a notification; nil when it is not waiting
	waiting   []chan struct{}    // FollowAll calls waiting for the loop to follow
}

// FollowAll has the feed send every change until release is called
// (storage.FollowedFeed).
func (s *Store) FollowAll(ctx context.Context) (func(), error) {
	f := &s.follow
	var once sync.Once
	release := func() { once.Do(f.leave) }
	ch := f.join()
	if ch == nil {
		return release, nil
	}
	select {
	case <-ch:
		return release, nil
	case <-ctx.Done():
		release()
		return nil, ctx.Err()
	}
}

// join counts a follower in and returns what to wait on for the loop to
// follow, or nil when no loop listens (it follows once it does).
func (f *follow) join() chan struct{} {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n++
	if !f.listening || f.holding {
		return nil
	}
	ch := make(chan struct{})
	f.waiting = append(f.waiting, ch)
	if f.wake != nil {
		f.wake()
	}
	return ch
}

func (f *follow) leave() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.n--
	if f.n == 0 {
		f.idleSince = time.Now()
		if f.wake != nil {
			f.wake() // for the loop to time the linger
		}
	}
}

// up and down mark the loop listening or not; down lets every waiting
// FollowAll go: the loop, listening again, follows before it reports that
// changes may have been missed.
func (f *follow) up() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.listening = true
}

func (f *follow) down() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.listening, f.holding, f.wake = false, false, nil
	for _, ch := range f.waiting {
		close(ch)
	}
	f.waiting = nil
}

// wanted says whether the loop should follow, given whether it does (a
// follower, or the linger after the last one), and how long until that
// may change without a call (the linger's end; 0: not before a call).
func (f *follow) wanted(held bool) (bool, time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n > 0 {
		return true, 0
	}
	if !held {
		return false, 0
	}
	left := followLinger - time.Since(f.idleSince)
	return left > 0, max(left, 0)
}

// letGo says whether the loop may give the locks back (nobody follows,
// the linger is over) and, if so, notes that it no longer follows, in one
// step: a FollowAll from then on waits for the loop to follow again.
func (f *follow) letGo() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.n > 0 || time.Since(f.idleSince) < followLinger {
		return false
	}
	f.holding = false
	return true
}

// arm gives the loop's wait its cancel, unless a FollowAll already waits:
// then the loop must not wait (false).
func (f *follow) arm(cancel context.CancelFunc) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.waiting) > 0 {
		return false
	}
	f.wake = cancel
	return true
}

func (f *follow) disarm() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.wake = nil
}

// followed notes whether the loop follows every change; if it does, the
// waiting FollowAll calls go.
func (f *follow) followed(held bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.holding = held
	if !held {
		return
	}
	for _, ch := range f.waiting {
		close(ch)
	}
	f.waiting = nil
}

// lockFollowKeys takes, on the listening connection, the shared locks
// that tell statements to send every change. Each waits for a statement
// that holds its key exclusively to commit.
func lockFollowKeys(ctx context.Context, conn *pgx.Conn) error {
	_, err := conn.Exec(ctx, "SELECT count(pg_advisory_lock_shared($1::int, k)) FROM generate_series(0, $2::int - 1) k",
		followClass, followKeys)
	return err
}

// unlockFollowKeys lets the statements send only what runners act on
// again.
func unlockFollowKeys(ctx context.Context, conn *pgx.Conn) error {
	_, err := conn.Exec(ctx, "SELECT count(pg_advisory_unlock_shared($1::int, k)) FROM generate_series(0, $2::int - 1) k",
		followClass, followKeys)
	return err
}
