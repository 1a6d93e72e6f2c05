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

// insertJob stores a job and its program, unless the controls of its
// device (migration 5) say it is not ONLINE: then it stores nothing and
// answers no row, whichever node changed them.
const insertJob = `
WITH job AS (
	INSERT INTO quantum_jobs (qrn, owner, device_qrn, status, vendor, provider, created_ns, updated_ns,
		queued_ns, lease_ns, memory_need, attempts, node, search, tags, record, idem_key)
	SELECT $1::text, $2::text, $3::text, $4::text, $5::text, $6::text, $7::bigint, $8::bigint, $9::bigint, $10::bigint,
		$11::bigint, $12::integer, $13::text, $14::text[], $15::jsonb, $16::json, NULLIF($19::text, '')
	WHERE NOT EXISTS (SELECT 1 FROM quantum_device_controls WHERE device = $3::text AND status <> 'ONLINE')
	RETURNING qrn, xmin::text::bigint AS xmin
), program AS (
	INSERT INTO quantum_programs (qrn, format, data) SELECT qrn, $17, $18 FROM job
)
SELECT xmin FROM job`

// releaseKey frees an idempotency key whose holder was created at or
// before the cutoff: it expired.
const releaseKey = `UPDATE quantum_jobs SET idem_key = NULL WHERE owner = $1 AND idem_key = $2 AND created_ns <= $3`

// idemKeyIndex is the unique index of idempotency keys: a violation of it
// is a key taken, not a QRN.
const idemKeyIndex = "quantum_jobs_idem_key"

// CreateJob stores the job and its program in one statement; with an
// idempotency key or credits to reserve, in a transaction that first
// frees the key if it expired, and reserves the credits last.
func (s *Store) CreateJob(ctx context.Context, job *storage.JobRecord, program qtype.Program) error {
	r, err := encode(job)
	if err != nil {
		return err
	}
	if n := int64(len(program.Data) + len(program.Format)); n > s.maxValue {
		return tooLarge("program", n, s.maxValue)
	}
	args := r.args(program.Format, program.Data, job.IdempotencyKey)
	var xmin int64
	if job.IdempotencyKey == "" && job.Reserved == 0 {
		err = s.batch.QueryRow(ctx, insertJob, args...).Scan(&xmin) // a generic plan: no status to tell apart
	} else {
		err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			if job.IdempotencyKey != "" {
				cutoff := nanos(job.TimeStamps.CreatedAt.Add(-storage.IdempotencyWindow))
				if _, err := tx.Exec(ctx, releaseKey, job.Owner, job.IdempotencyKey, cutoff); err != nil {
					return err
				}
			}
			if err := tx.QueryRow(ctx, insertJob, args...).Scan(&xmin); err != nil {
				return err
			}
			return reserve(ctx, tx, job)
		})
	}
	var pe *pgconn.PgError
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		// The insert's guard: the device's controls say it is not ONLINE.
		return fmt.Errorf("postgres: %w", storage.ErrDeviceNotOnline)
	case errors.Is(err, qtype.ErrInsufficientCredits):
		return err
	case errors.As(err, &pe) && pe.Code == "23505" && pe.ConstraintName == idemKeyIndex:
		return fmt.Errorf("postgres: %w", storage.ErrDuplicateKey)
	case isUniqueViolation(err):
		return storage.ErrJobExists
	case err != nil:
		return fmt.Errorf("postgres: create a job: %w", err)
	}
	s.hints.put(job.Clone(), uint32(xmin), len(r.record))
	return nil
}

func (s *Store) JobByIdempotencyKey(ctx context.Context, owner, key string, since time.Time) (*storage.JobRecord, error) {
	if key == "" {
		return nil, storage.ErrJobNotFound
	}
	var data []byte
	err := s.pool.QueryRow(ctx, "SELECT record FROM quantum_jobs WHERE owner = $1 AND idem_key = $2 AND created_ns >= $3",
		owner, key, nanos(since)).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, storage.ErrJobNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: find a job by idempotency key: %w", err)
	}
	return decode(data)
}

// args are the values of insertJob's parameters, in order; updateJob
// takes the first sixteen.
func (r *row) args(extra ...any) []any {
	j := r.j
	return append([]any{j.JobQRN, j.Owner, j.DeviceQRN, string(j.Status), j.Vendor, j.Provider,
		nanos(j.TimeStamps.CreatedAt), nanos(j.UpdatedAt), queueNanos(j), leaseNanos(j), j.MemoryNeed,
		j.Attempts, j.Node, r.search, string(r.tags), string(r.record)}, extra...)
}

func (s *Store) GetJob(ctx context.Context, qrn string) (*storage.JobRecord, error) {
	var data []byte
	err := s.pool.QueryRow(ctx, "SELECT record FROM quantum_jobs WHERE qrn = $1", qrn).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, storage.ErrJobNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: get a job: %w", err)
	}
	return decode(data)
}

func (s *Store) GetProgram(ctx context.Context, qrn string) (*qtype.Program, error) {
	var p qtype.Program
	err := s.pool.QueryRow(ctx, "SELECT format, data FROM quantum_programs WHERE qrn = $1", qrn).Scan(&p.Format, &p.Data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, storage.ErrJobNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: get a program: %w", err)
	}
	return &p, nil
}

func (s *Store) GetResult(ctx context.Context, qrn string) (*qtype.Result, error) {
	var data []byte
	err := s.pool.QueryRow(ctx, "SELECT counts FROM quantum_results WHERE qrn = $1", qrn).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, storage.ErrJobNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: get a result: %w", err)
	}
	var r qtype.Result
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("postgres: decode a result: %w", err)
	}
	return &r, nil
}

const updateJob = `
UPDATE quantum_jobs SET status = $4, vendor = $5, provider = $6, updated_ns = $8, queued_ns = $9, lease_ns = $10,
	memory_need = $11, attempts = $12, node = $13, search = $14, tags = $15, record = $16
WHERE qrn = $1 AND owner = $2 AND device_qrn = $3 AND created_ns = $7`

// UpdateJob applies change to the job as this Store last wrote or read
// it (its hint) or, without one, as it reads it now, and writes the
// job back with a compare-and-set on the status expected and on the
// row's version: nothing written in between, by any node, is
// overwritten. Writes of jobs that many callers make at the same time
// go in one statement (see group), with their results. A job changed
// since its hint is read again and the change applied again, at most
// casAttempts times; then, and for a move that settles credits, the row
// is locked in a transaction instead (updateLocked).
func (s *Store) UpdateJob(ctx context.Context, qrn string, expect qtype.JobStatus, change func(*storage.JobRecord), result *qtype.Result) (*storage.JobRecord, error) {
	var counts []byte
	if result != nil {
		var err error
		if counts, err = json.Marshal(result); err != nil {
			return nil, fmt.Errorf("postgres: encode a result: %w", err)
		}
		if int64(len(counts)) > s.maxValue {
			return nil, tooLarge("result", int64(len(counts)), s.maxValue)
		}
	}
	if expect.IsTerminal() {
		return s.updateLocked(ctx, qrn, expect, change, counts)
	}
	for range casAttempts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		h, ok := s.hints.get(qrn)
		if !ok || h.rec.Status != expect {
			var err error
			if h, err = s.readHint(ctx, qrn); err != nil {
				return nil, err
			}
			if h.rec.Status != expect {
				return nil, storage.ErrStatusChanged
			}
		}
		old := h.rec
		j := old.Clone()
		change(j)
		keepIdentity(j, old)
		if _, settles := storage.SettlementOf(old, j); settles {
			break // the account's row is locked after the job's, in one transaction
		}
		r, err := encode(j)
		if err != nil {
			return nil, err
		}
		w := &write{r: r, xmin: h.xmin, expect: expect, counts: counts}
		s.writes.do(w)
		switch {
		case w.err != nil:
			return nil, w.err
		case w.done:
			s.hints.put(j, w.newXmin, len(r.record))
			return j.Clone(), nil
		}
		s.hints.forget(qrn) // changed since: read it again
	}
	return s.updateLocked(ctx, qrn, expect, change, counts)
}

// keepIdentity puts back in j what never changes of a job (old's): what
// the row's place in the indexes depends on, and its reservation.
func keepIdentity(j, old *storage.JobRecord) {
	j.JobQRN, j.Owner, j.DeviceQRN, j.TimeStamps.CreatedAt = old.JobQRN, old.Owner, old.DeviceQRN, old.TimeStamps.CreatedAt
	j.IdempotencyKey, j.RequestHash, j.Reserved = old.IdempotencyKey, old.RequestHash, old.Reserved
}

// updateLocked locks the job's row, applies change if the status is the
// one expected, and writes the job (its result, its settlement) back in
// the same transaction.
func (s *Store) updateLocked(ctx context.Context, qrn string, expect qtype.JobStatus, change func(*storage.JobRecord), counts []byte) (*storage.JobRecord, error) {
	s.hints.forget(qrn)
	var out *storage.JobRecord
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		old, err := lockJob(ctx, tx, qrn)
		if err != nil {
			return err
		}
		if old.Status != expect || expect.IsTerminal() {
			return storage.ErrStatusChanged // a terminal job never changes
		}
		j := old.Clone()
		change(j)
		keepIdentity(j, old)
		if _, err := writeJob(ctx, tx, j); err != nil {
			return err
		}
		if err := settle(ctx, tx, old, j); err != nil {
			return err
		}
		if counts != nil {
			_, err := tx.Exec(ctx, `INSERT INTO quantum_results (qrn, counts) VALUES ($1, $2)
				ON CONFLICT (qrn) DO UPDATE SET counts = excluded.counts`, qrn, string(counts))
			if err != nil {
				return fmt.Errorf("postgres: store a result: %w", err)
			}
		}
		out = j
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// lockJob reads the job and locks its row until the transaction ends.
func lockJob(ctx context.Context, tx pgx.Tx, qrn string) (*storage.JobRecord, error) {
	var data []byte
	err := tx.QueryRow(ctx, "SELECT record FROM quantum_jobs WHERE qrn = $1 FOR UPDATE", qrn).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, storage.ErrJobNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: lock a job: %w", err)
	}
	return decode(data)
}

// writeJob writes a job whose row the transaction has locked, and
// returns the written row.
func writeJob(ctx context.Context, tx pgx.Tx, j *storage.JobRecord) (*row, error) {
	r, err := encode(j)
	if err != nil {
		return nil, err
	}
	tag, err := tx.Exec(ctx, updateJob, r.args()...)
	if err != nil {
		return nil, fmt.Errorf("postgres: write a job: %w", err)
	}
	if tag.RowsAffected() != 1 {
		return nil, fmt.Errorf("postgres: write job %s: its row changed under a lock", j.JobQRN)
	}
	return r, nil
}

// DeleteJob removes the job; its program and result go with it.
func (s *Store) DeleteJob(ctx context.Context, qrn string, expect qtype.JobStatus) error {
	// The status read beside the DELETE is the one before it: a row that
	// changed status while the DELETE waited for its lock is not deleted.
	var deleted, exists bool
	err := s.pool.QueryRow(ctx, `
		WITH gone AS (DELETE FROM quantum_jobs WHERE qrn = $1 AND status = $2 RETURNING qrn)
		SELECT EXISTS (SELECT 1 FROM gone), EXISTS (SELECT 1 FROM quantum_jobs WHERE qrn = $1)`,
		qrn, string(expect)).Scan(&deleted, &exists)
	s.hints.forget(qrn)
	switch {
	case err != nil:
		return fmt.Errorf("postgres: delete a job: %w", err)
	case deleted:
		return nil
	case !exists:
		return storage.ErrJobNotFound
	}
	return storage.ErrStatusChanged
}
