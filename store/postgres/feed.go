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
// node, from the trigger's NOTIFY at commit. It returns when ctx ends or
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
		var c struct {
			QRN      string `json:"qrn"`
			Device   string `json:"device"`
			Owner    string `json:"owner"`
			Status   string `json:"status"`
			Controls int64  `json:"controls"`
		}
		if json.Unmarshal([]byte(n.Payload), &c) != nil {
			continue // not one of ours
		}
		if c.Controls > 0 {
			fn(storage.Change{Controls: true})
			continue
		}
		if c.QRN == "" {
			continue
		}
		fn(storage.Change{JobQRN: c.QRN, DeviceQRN: c.Device, Owner: c.Owner, Status: qtype.JobStatus(c.Status)})
	}
}
