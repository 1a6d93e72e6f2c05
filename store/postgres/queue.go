package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

func (s *Store) CountQueued(ctx context.Context, deviceQRN string) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, "SELECT count(*) FROM quantum_job_states WHERE device_qrn = $1 AND status = 'QUEUED'", deviceQRN).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("postgres: count queued jobs: %w", err)
	}
	return n, nil
}

// CountJobs sums the owner's counts per status, which a trigger keeps.
func (s *Store) CountJobs(ctx context.Context, owner string, statuses []qtype.JobStatus) (int, error) {
	var n int
	err := s.batch.QueryRow(ctx, countByStatus, owner, statusNames(statuses)).Scan(&n) // by primary key: a generic plan
	if err != nil {
		return 0, fmt.Errorf("postgres: count jobs: %w", err)
	}
	return n, nil
}

const countByStatus = "SELECT coalesce(sum(n), 0) FROM quantum_job_counts WHERE owner = $1 AND status = ANY($2)"

func statusNames(statuses []qtype.JobStatus) []string {
	out := make([]string, 0, len(statuses))
	for _, st := range statuses {
		if !slices.Contains(out, string(st)) {
			out = append(out, string(st))
		}
	}
	return out
}

// QueuePosition counts the device's QUEUED jobs up to this one, in queue
// order (queued_ns, then QRN), through the device's queue index.
func (s *Store) QueuePosition(ctx context.Context, qrn string) (int, error) {
	var pos *int
	err := s.pool.QueryRow(ctx, `
		SELECT CASE WHEN j.status <> 'QUEUED' THEN 0 ELSE (
			SELECT count(*) FROM quantum_job_states q
			WHERE q.device_qrn = j.device_qrn AND q.status = 'QUEUED' AND (q.queued_ns, q.qrn) <= (j.queued_ns, j.qrn))
		END
		FROM quantum_job_states j WHERE j.qrn = $1`, qrn).Scan(&pos)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, storage.ErrJobNotFound
	}
	if err != nil {
		return 0, fmt.Errorf("postgres: queue position: %w", err)
	}
	return *pos, nil
}

// Queues finds the distinct (device, owner) pairs of QUEUED jobs by
// skipping through the queue index, one probe per queue, however many
// jobs wait in each.
func (s *Store) Queues(ctx context.Context) ([]storage.Queue, error) {
	rows, err := s.pool.Query(ctx, `
		WITH RECURSIVE q AS (
			(SELECT device_qrn, owner FROM quantum_job_states WHERE status = 'QUEUED' ORDER BY device_qrn, owner LIMIT 1)
			UNION ALL
			SELECT n.device_qrn, n.owner FROM q, LATERAL (
				SELECT device_qrn, owner FROM quantum_job_states
				WHERE status = 'QUEUED' AND (device_qrn, owner) > (q.device_qrn, q.owner)
				ORDER BY device_qrn, owner LIMIT 1) n
		)
		SELECT device_qrn, owner FROM q`)
	if err != nil {
		return nil, fmt.Errorf("postgres: list queues: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (storage.Queue, error) {
		var q storage.Queue
		err := r.Scan(&q.Device, &q.Owner)
		return q, err
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: list queues: %w", err)
	}
	return out, nil
}

// ClaimJob locks the queue's oldest job that no other claim holds (FOR
// UPDATE SKIP LOCKED, so that nodes claiming at once take different
// jobs), and moves it to RUNNING in the same transaction.
func (s *Store) ClaimJob(ctx context.Context, c storage.Claim) (*storage.JobRecord, error) {
	var out *storage.JobRecord
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var data []byte
		err := tx.QueryRow(ctx, `
			SELECT record FROM quantum_job_states
			WHERE device_qrn = $1 AND owner = $2 AND status = 'QUEUED'
				AND NOT EXISTS (SELECT 1 FROM quantum_device_controls dc
					WHERE dc.device = $1 AND (dc.held OR dc.status IN ('OFFLINE', 'UNAVAILABLE')))
			ORDER BY queued_ns, qrn LIMIT 1 FOR UPDATE SKIP LOCKED`, c.Device, c.Owner).Scan(&data)
		if errors.Is(err, pgx.ErrNoRows) {
			return storage.ErrNoJob
		}
		if err != nil {
			return fmt.Errorf("postgres: claim a job: %w", err)
		}
		j, err := decode(data)
		if err != nil {
			return err
		}
		if j.MemoryNeed > c.MaxMemory {
			out = j
			return storage.ErrMemoryShort
		}
		// c.Now was read before this claim found the job, which may have
		// been queued since: a job's changes never go back in time
		// (watchers order them by UpdatedAt).
		now := c.Now
		if j.UpdatedAt.After(now) {
			now = j.UpdatedAt
		}
		j.Status, j.UpdatedAt, j.LeaseUntil, j.Node = qtype.StatusRunning, now, c.LeaseUntil, c.Node
		j.Attempts++
		r, err := encode(j)
		if err != nil {
			return err
		}
		if err := writeJob(ctx, tx, r, qtype.StatusQueued, nil); err != nil {
			return err
		}
		out = j
		return nil
	})
	if err != nil && !errors.Is(err, storage.ErrMemoryShort) {
		out = nil
	}
	return out, err
}

// Unfinished reads through the index of unfinished jobs by last change.
func (s *Store) Unfinished(ctx context.Context, statuses []qtype.JobStatus, before time.Time, limit int) ([]*storage.JobRecord, error) {
	if limit <= 0 || len(statuses) == 0 {
		return nil, nil
	}
	var cutoff *int64
	if !before.IsZero() {
		n := nanos(before)
		cutoff = &n
	}
	rows, err := s.pool.Query(ctx, `
		SELECT record FROM quantum_job_states
		WHERE status = ANY($1) AND ($2::bigint IS NULL OR updated_ns < $2)
		ORDER BY updated_ns, qrn LIMIT $3`, statusNames(statuses), cutoff, limit)
	if err != nil {
		return nil, fmt.Errorf("postgres: read unfinished jobs: %w", err)
	}
	return collectJobs(rows)
}

// collectJobs decodes rows whose first column is the record.
func collectJobs(rows pgx.Rows) ([]*storage.JobRecord, error) {
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (*storage.JobRecord, error) {
		var data []byte
		if err := r.Scan(&data); err != nil {
			return nil, err
		}
		return decode(data)
	})
	if err != nil {
		return nil, fmt.Errorf("postgres: read jobs: %w", err)
	}
	return out, nil
}
