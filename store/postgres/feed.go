package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

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
// node, from the trigger's NOTIFY at commit (one a statement, see
// parseChanges). It returns when ctx ends or
// the connection fails.
func (s *Store) WatchChanges(ctx context.Context, fn func(storage.Change)) error {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return fmt.Errorf("postgres: connect to listen: %w", err)
	}
	defer func() {
		closing, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = conn.Close(closing)
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+changesChannel); err != nil {
		return fmt.Errorf("postgres: listen: %w", err)
	}
	fn(storage.Change{}) // listening: what came before may have been missed
	for {
		wait, cancel := context.WithTimeout(ctx, feedPing)
		n, err := conn.WaitForNotification(wait)
		cancel()
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case errors.Is(err, context.DeadlineExceeded):
			if err := conn.Ping(ctx); err != nil {
				return fmt.Errorf("postgres: the listening connection: %w", err)
			}
			continue
		case err != nil:
			return fmt.Errorf("postgres: wait for a notification: %w", err)
		}
		for _, c := range parseChanges(n.Payload) {
			fn(c)
		}
	}
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
