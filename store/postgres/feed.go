package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// changesChannel is the channel the jobs table's trigger notifies.
const changesChannel = "quantum_job_changes"

// feedPing is how long the feed waits for a notification before it
// checks that its connection is alive: a connection that died without a
// word would otherwise keep the node deaf.
var feedPing = 30 * time.Second

// WatchChanges listens (LISTEN) on a connection of its own, outside the
// pool, and calls fn with each job created or changed in status by any
// node, from each statement's NOTIFY at commit (one a statement, see
// parseChanges): every change while some node follows them all
// (FollowAll, follow.go), else those to QUEUED and CANCELLING. It returns
// when ctx ends or the connection fails.
func (s *Store) WatchChanges(ctx context.Context, fn func(storage.Change)) error {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("postgres: connect to listen: %w", err)
	}
	defer func() {
		// Closing the connection ends its session: its locks go with it.
		closing, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = conn.Close(closing)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+changesChannel); err != nil {
		return fmt.Errorf("postgres: listen: %w", err)
	}
	f := &s.follow
	f.up()
	defer f.down()
	held := false
	if err := s.keepFollowing(ctx, conn, &held, func() {}); err != nil {
		return err
	}
	fn(storage.Change{}) // listening: what came before may have been missed
	f.followed(held)
	for {
		want, linger := f.wanted(held)
		wait, cancel := context.WithTimeout(ctx, feedPing)
		if linger > 0 {
			cancel()
			wait, cancel = context.WithTimeout(ctx, min(linger, feedPing))
		}
		var n *pgconn.Notification
		switch {
		case want != held:
			err = context.Canceled // to follow, or to stop
		case f.arm(cancel):
			n, err = conn.WaitForNotification(wait)
			f.disarm()
		default:
			err = context.Canceled // a FollowAll waits
		}
		pinged := errors.Is(wait.Err(), context.DeadlineExceeded)
		cancel()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled):
			if pinged {
				if err := conn.Ping(ctx); err != nil {
					return fmt.Errorf("postgres: the listening connection: %w", err)
				}
			}
		case err != nil:
			return fmt.Errorf("postgres: wait for a notification: %w", err)
		default:
			for _, c := range parseChanges(n.Payload) {
				fn(c)
			}
		}
		if err := s.keepFollowing(ctx, conn, &held, func() { fn(storage.Change{}) }); err != nil {
			return err
		}
		f.followed(held)
	}
}

// keepFollowing takes or gives back the follow locks on the listening
// connection as FollowAll calls want them. When it begins to follow it
// calls begun, before any FollowAll returns: the changes sent to nobody
// meanwhile were missed.
func (s *Store) keepFollowing(ctx context.Context, conn *pgx.Conn, held *bool, begun func()) error {
	want, _ := s.follow.wanted(*held)
	switch {
	case want && !*held:
		if err := lockFollowKeys(ctx, conn); err != nil {
			return fmt.Errorf("postgres: follow every change: %w", err)
		}
		*held = true
		begun()
	case !want && *held:
		if !s.follow.letGo() {
			return nil // a FollowAll came meanwhile
		}
		if err := unlockFollowKeys(ctx, conn); err != nil {
			return fmt.Errorf("postgres: stop following every change: %w", err)
		}
		*held = false
	}
	return nil
}

// parseChanges reads a notification of quantum_job_changes: {"jobs":
// [[qrn, device, owner, status], …]} from the jobs' trigger (a null entry
// stands for a change too long to send: the listener may have missed it,
// so it gets a Change with no job), or {"controls": version}. A payload
// of neither form is none of ours.
func parseChanges(payload string) []storage.Change {
	var n struct {
		Jobs     [][]string `json:"jobs"`
		Controls int64      `json:"controls"`
	}
	if json.Unmarshal([]byte(payload), &n) != nil {
		return nil
	}
	if n.Controls > 0 {
		return []storage.Change{{Controls: true}}
	}
	out := make([]storage.Change, 0, len(n.Jobs))
	for _, j := range n.Jobs {
		if len(j) != 4 || j[0] == "" {
			out = append(out, storage.Change{})
			continue
		}
		out = append(out, storage.Change{JobQRN: j[0], DeviceQRN: j[1], Owner: j[2], Status: qtype.JobStatus(j[3])})
	}
	return out
}
