package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qjobs/quantum/storage"
)

var _ storage.ControlStore = (*Store)(nil)

// The controls of the control API live in three tables (migration 5):
// each device's, their version, and the API keys it adds. A change takes
// the version's one row (so changes apply one at a time, in the order of
// their versions), writes, and notifies the job changes' channel with
// {"controls": version} at commit: every node's feed then reads them
// again. The claims read the device controls too: a held device's jobs,
// and those of a device OFFLINE or UNAVAILABLE, are never claimed, by any
// node, from the moment the change commits.

// Controls reads every device's controls with their version, in one
// statement (one snapshot).
func (s *Store) Controls(ctx context.Context) (storage.Controls, error) {
	rows, err := s.pool.Query(ctx, `
		SELECT v.version, c.device, c.status, c.status_msg, c.next_available, c.avg_queue_time,
			c.latency_ns, c.held, c.failures, c.fail_message
		FROM quantum_controls_version v LEFT JOIN quantum_device_controls c ON true`)
	if err != nil {
		return storage.Controls{}, fmt.Errorf("postgres: read the controls: %w", err)
	}
	out := storage.Controls{Devices: map[string]storage.DeviceControl{}}
	var (
		device, status, failMessage, statusMsg, next *string
		latency                                      *int64
		held                                         *bool
		failures, avg                                *int32
	)
	_, err = pgx.ForEachRow(rows, []any{&out.Version, &device, &status, &statusMsg, &next, &avg, &latency, &held, &failures, &failMessage}, func() error {
		if device == nil {
			return nil // no device has controls
		}
		d := storage.DeviceControl{Device: *device, Status: *status, StatusMsg: copyOf(statusMsg), NextAvailable: copyOf(next),
			Latency: time.Duration(*latency), Held: *held, Failures: int(*failures), FailMessage: *failMessage}
		if avg != nil {
			n := int(*avg)
			d.AvgQueueTime = &n
		}
		out.Devices[d.Device] = d
		return nil
	})
	if err != nil {
		return storage.Controls{}, fmt.Errorf("postgres: read the controls: %w", err)
	}
	return out, nil
}

// UpdateControl applies change to the device's controls in a transaction
// that takes the version's row first.
func (s *Store) UpdateControl(ctx context.Context, device string, change func(*storage.DeviceControl)) (storage.DeviceControl, error) {
	var out storage.DeviceControl
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		version, err := s.bumpVersion(ctx, tx)
		if err != nil {
			return err
		}
		c := storage.DeviceControl{Device: device}
		var latency int64
		var avg *int32
		var failures int32
		err = tx.QueryRow(ctx, `
			SELECT status, status_msg, next_available, avg_queue_time, latency_ns, held, failures, fail_message
			FROM quantum_device_controls WHERE device = $1`, device).
			Scan(&c.Status, &c.StatusMsg, &c.NextAvailable, &avg, &latency, &c.Held, &failures, &c.FailMessage)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return err
		default:
			c.Latency, c.Failures = time.Duration(latency), int(failures)
			if avg != nil {
				n := int(*avg)
				c.AvgQueueTime = &n
			}
		}
		change(&c)
		c.Device = device
		_, err = tx.Exec(ctx, `
			INSERT INTO quantum_device_controls (device, status, status_msg, next_available, avg_queue_time, latency_ns, held, failures, fail_message)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
			ON CONFLICT (device) DO UPDATE SET status = excluded.status, status_msg = excluded.status_msg,
				next_available = excluded.next_available, avg_queue_time = excluded.avg_queue_time,
				latency_ns = excluded.latency_ns, held = excluded.held, failures = excluded.failures,
				fail_message = excluded.fail_message`,
			device, c.Status, c.StatusMsg, c.NextAvailable, c.AvgQueueTime, int64(c.Latency), c.Held, c.Failures, c.FailMessage)
		if err != nil {
			return err
		}
		out = c
		return notifyControls(ctx, tx, version)
	})
	if err != nil {
		return storage.DeviceControl{}, fmt.Errorf("postgres: update a device's controls: %w", err)
	}
	return out, nil
}

// TakeFailure counts down one of the device's failures in a transaction
// that changes the version only when it takes one.
func (s *Store) TakeFailure(ctx context.Context, device string) (string, bool, error) {
	var msg string
	var ok bool
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `
			UPDATE quantum_device_controls SET failures = failures - 1
			WHERE device = $1 AND failures > 0 RETURNING fail_message`, device).Scan(&msg)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		}
		if err != nil {
			return err
		}
		ok = true
		version, err := s.bumpVersion(ctx, tx)
		if err != nil {
			return err
		}
		return notifyControls(ctx, tx, version)
	})
	if err != nil {
		return "", false, fmt.Errorf("postgres: take an injected failure: %w", err)
	}
	return msg, ok, nil
}

// ResetControls removes every device's controls.
func (s *Store) ResetControls(ctx context.Context) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		version, err := s.bumpVersion(ctx, tx)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM quantum_device_controls`); err != nil {
			return err
		}
		return notifyControls(ctx, tx, version)
	})
	if err != nil {
		return fmt.Errorf("postgres: reset the controls: %w", err)
	}
	return nil
}

// bumpVersion takes the version's row and adds one to it.
func (s *Store) bumpVersion(ctx context.Context, tx pgx.Tx) (int64, error) {
	var v int64
	if err := tx.QueryRow(ctx, `UPDATE quantum_controls_version SET version = version + 1 RETURNING version`).Scan(&v); err != nil {
		return 0, err
	}
	return v, nil
}

// notifyControls tells every node's feed, at commit, that the controls
// changed.
func notifyControls(ctx context.Context, tx pgx.Tx, version int64) error {
	_, err := tx.Exec(ctx, `SELECT pg_notify($1, $2)`, changesChannel, `{"controls":`+strconv.FormatInt(version, 10)+`}`)
	return err
}

// AddAPIKey stores a key's hash and user.
func (s *Store) AddAPIKey(ctx context.Context, k storage.APIKey) error {
	tag, err := s.pool.Exec(ctx, `
		INSERT INTO quantum_api_keys (hash, user_id, org_user_id, org_id, name, created_ns)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (hash) DO NOTHING`,
		k.Hash[:], k.UserID, k.OrganizationUserID, k.OrganizationID, k.Name, nanos(k.CreatedAt))
	if err != nil {
		return fmt.Errorf("postgres: store an API key: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return storage.ErrKeyExists
	}
	return nil
}

// APIKeyByHash reads a key by its hash.
func (s *Store) APIKeyByHash(ctx context.Context, hash [32]byte) (storage.APIKey, error) {
	return s.apiKey(ctx, `WHERE hash = $1`, hash[:])
}

// APIKeyByUser reads a key of the user.
func (s *Store) APIKeyByUser(ctx context.Context, userID string) (storage.APIKey, error) {
	return s.apiKey(ctx, `WHERE user_id = $1 ORDER BY created_ns LIMIT 1`, userID)
}

func (s *Store) apiKey(ctx context.Context, where string, arg any) (storage.APIKey, error) {
	var k storage.APIKey
	var hash []byte
	var created int64
	err := s.pool.QueryRow(ctx, `SELECT hash, user_id, org_user_id, org_id, name, created_ns FROM quantum_api_keys `+where, arg).
		Scan(&hash, &k.UserID, &k.OrganizationUserID, &k.OrganizationID, &k.Name, &created)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return storage.APIKey{}, storage.ErrKeyNotFound
	case err != nil:
		return storage.APIKey{}, fmt.Errorf("postgres: read an API key: %w", err)
	}
	copy(k.Hash[:], hash)
	k.CreatedAt = time.Unix(0, created).UTC()
	return k, nil
}

// copyOf is a pointer to a copy of *p, or nil: what a row's scan wrote
// is not kept past the row.
func copyOf(p *string) *string {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}
