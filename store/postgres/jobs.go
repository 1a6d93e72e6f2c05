package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"reflect"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// insertJob stores a job (its request and its row) with its program,
// unless the controls of its device (migration 5) say it is not ONLINE,
// whichever node changed them, or its owner has $21 or more jobs in the
// statuses $20 (CreateJobBounded; none and the largest bigint for
// CreateJob). It answers one row: the job's row version (NULL: not
// stored), the owner's count and whether the device is not ONLINE.
const insertJob = `
WITH guard AS (
	SELECT (SELECT coalesce(sum(n), 0) FROM quantum_job_counts WHERE owner = $2::text AND status = ANY($20::text[])) AS active,
		EXISTS (SELECT 1 FROM quantum_device_controls WHERE device = $3::text AND status <> 'ONLINE') AS offline
), request AS (
	INSERT INTO quantum_job_requests (qrn, owner, vendor, provider, created_ns, search, tags, idem_key, format, data)
	SELECT $1::text, $2::text, $5::text, $6::text, $7::bigint, $14::text[], $15::jsonb, NULLIF($19::text, ''), $17::text, $18::text
	FROM guard WHERE NOT offline AND active < $21::bigint
	RETURNING qrn
), job AS (
	INSERT INTO quantum_job_states (qrn, owner, device_qrn, status, created_ns, updated_ns, queued_ns, lease_ns, memory_need,
		attempts, node, record)
	SELECT qrn, $2::text, $3::text, $4::text, $7::bigint, $8::bigint, $9::bigint, $10::bigint, $11::bigint, $12::integer,
		$13::text, $16::json
	FROM request
	RETURNING qrn, owner, device_qrn, status, xmin::text::bigint AS xmin
), moved AS (
	SELECT qrn, owner, device_qrn, NULL::text AS old_status, status FROM job
)` + moveEffects + `
SELECT (SELECT xmin FROM job), active, offline FROM guard, ` + notifiedCount

// releaseKey frees an idempotency key whose holder was created at or
// before the cutoff: it expired.
const releaseKey = `UPDATE quantum_job_requests SET idem_key = NULL WHERE owner = $1 AND idem_key = $2 AND created_ns <= $3`

// idemKeyIndex is the unique index of idempotency keys: a violation of it
// is a key taken, not a QRN.
const idemKeyIndex = "quantum_job_requests_idem_key"

// CreateJob stores the job and its program in one statement; with an
// idempotency key or credits to reserve, in a transaction that first
// frees the key if it expired, and reserves the credits last.
func (s *Store) CreateJob(ctx context.Context, job *storage.JobRecord, program qtype.Program) error {
	return s.create(ctx, job, program, nil, math.MaxInt64)
}

var _ storage.BoundedCreator = (*Store)(nil)

// CreateJobBounded is CreateJob with the owner's count of jobs in
// statuses checked in the insert's statement (storage.BoundedCreator).
func (s *Store) CreateJobBounded(ctx context.Context, job *storage.JobRecord, program qtype.Program, statuses []qtype.JobStatus, max int) error {
	return s.create(ctx, job, program, statusNames(statuses), int64(max))
}

// errNotInserted rolls back a create's transaction whose insert stored
// nothing.
var errNotInserted = errors.New("not inserted")

func (s *Store) create(ctx context.Context, job *storage.JobRecord, program qtype.Program, statuses []string, max int64) error {
	r, err := encode(job)
	if err != nil {
		return err
	}
	if n := int64(len(program.Data) + len(program.Format)); n > s.maxValue {
		return tooLarge("program", n, s.maxValue)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if statuses == nil {
		statuses = []string{}
	}
	c := &createCall{ctx: ctx, r: r, program: program, statuses: statuses, max: max}
	s.creates.do(c) // with the creates made at the same time (creates.go)
	xmin, active, offline, err := c.xmin, c.active, c.offline, c.err
	var pe *pgconn.PgError
	switch {
	case (err == nil || errors.Is(err, errNotInserted)) && xmin == nil && offline:
		// The insert's guard: the device's controls say it is not ONLINE.
		return fmt.Errorf("postgres: %w", storage.ErrDeviceNotOnline)
	case (err == nil || errors.Is(err, errNotInserted)) && xmin == nil:
		return &storage.ActiveError{Count: int(active)}
	case errors.Is(err, qtype.ErrInsufficientCredits):
		return err
	case errors.As(err, &pe) && pe.Code == "23505" && pe.ConstraintName == idemKeyIndex:
		return fmt.Errorf("postgres: %w", storage.ErrDuplicateKey)
	case isUniqueViolation(err):
		return storage.ErrJobExists
	case err != nil:
		return fmt.Errorf("postgres: create a job: %w", err)
	}
	s.hints.put(job.Clone(), uint32(*xmin), len(r.record))
	s.growth.add(1)
	return nil
}

// insertOne stores one create with insertJob: alone, or with an
// idempotency key or credits to reserve in a transaction that first frees
// the key if it expired, and reserves the credits last.
func (s *Store) insertOne(ctx context.Context, c *createCall) {
	job := c.r.j
	args := c.r.args(c.program.Format, c.program.Data, job.IdempotencyKey, c.statuses, c.max)
	c.xmin, c.err = nil, nil
	if !c.transacted() {
		c.err = s.batch.QueryRow(ctx, insertJob, args...).Scan(&c.xmin, &c.active, &c.offline) // a generic plan: no status to tell apart
		return
	}
	c.err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if job.IdempotencyKey != "" {
			cutoff := nanos(job.TimeStamps.CreatedAt.Add(-storage.IdempotencyWindow))
			if _, err := tx.Exec(ctx, releaseKey, job.Owner, job.IdempotencyKey, cutoff); err != nil {
				return err
			}
		}
		if err := tx.QueryRow(ctx, insertJob, args...).Scan(&c.xmin, &c.active, &c.offline); err != nil {
			return err
		}
		if c.xmin == nil {
			return errNotInserted
		}
		return reserve(ctx, tx, job)
	})
}

func (s *Store) JobByIdempotencyKey(ctx context.Context, owner, key string, since time.Time) (*storage.JobRecord, error) {
	if key == "" {
		return nil, storage.ErrJobNotFound
	}
	var data []byte
	err := s.pool.QueryRow(ctx, `SELECT j.record FROM quantum_job_requests r JOIN quantum_job_states j ON j.qrn = r.qrn
		WHERE r.owner = $1 AND r.idem_key = $2 AND r.created_ns >= $3`, owner, key, nanos(since)).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, storage.ErrJobNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: find a job by idempotency key: %w", err)
	}
	return decode(data)
}

// args are the values of insertJob's parameters, in order.
func (r *row) args(extra ...any) []any {
	j := r.j
	return append([]any{j.JobQRN, j.Owner, j.DeviceQRN, string(j.Status), j.Vendor, j.Provider,
		nanos(j.TimeStamps.CreatedAt), nanos(j.UpdatedAt), queueNanos(j), leaseNanos(j), j.MemoryNeed,
		j.Attempts, j.Node, r.search, string(r.tags), string(r.record)}, extra...)
}

func (s *Store) GetJob(ctx context.Context, qrn string) (*storage.JobRecord, error) {
	var data []byte
	err := s.pool.QueryRow(ctx, "SELECT record FROM quantum_job_states WHERE qrn = $1", qrn).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, storage.ErrJobNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: get a job: %w", err)
	}
	return decode(data)
}

func (s *Store) GetProgram(ctx context.Context, qrn string) (*qtype.Program, error) {
	var format, data *string
	err := s.pool.QueryRow(ctx, "SELECT format, data FROM quantum_job_requests WHERE qrn = $1", qrn).Scan(&format, &data)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && (format == nil || data == nil) {
		return nil, storage.ErrJobNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: get a program: %w", err)
	}
	return &qtype.Program{Format: *format, Data: *data}, nil
}

func (s *Store) GetResult(ctx context.Context, qrn string) (*qtype.Result, error) {
	var data []byte
	err := s.pool.QueryRow(ctx, "SELECT result FROM quantum_job_states WHERE qrn = $1", qrn).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) || err == nil && data == nil {
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

// updateJob writes a job's row whose lock the transaction holds, and its
// result ($10, NULL: the one it has, if any); $11 is the status the row
// had, for the counts and the notification of a move.
const updateJob = `
WITH moved AS (
	UPDATE quantum_job_states SET status = $2, updated_ns = $3, queued_ns = $4, lease_ns = $5, memory_need = $6, attempts = $7,
		node = $8, record = $9::json, result = coalesce($10::json, result)
	WHERE qrn = $1
	RETURNING qrn, owner, device_qrn, $11::text AS old_status, status
)` + moveEffects + `
SELECT count(*) FROM moved, ` + notifiedCount

// updateRequest writes what a job's request holds of its record: a
// change of name, tags, vendor or provider (never made by the service
// itself, but the Store's contract allows it).
const updateRequest = `UPDATE quantum_job_requests SET vendor = $2, provider = $3, search = $4, tags = $5::jsonb WHERE qrn = $1`

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
		if _, settles := storage.SettlementOf(old, j); settles || !sameRequest(old, j) {
			break // the account's row (the request's) is written with the job's, in one transaction
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
// one expected, and writes the job (its result, its request, its
// settlement) back in the same transaction.
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
		r, err := encode(j)
		if err != nil {
			return err
		}
		if err := writeJob(ctx, tx, r, old.Status, counts); err != nil {
			return err
		}
		if !sameRequest(old, j) {
			if _, err := tx.Exec(ctx, updateRequest, j.JobQRN, j.Vendor, j.Provider, r.search, string(r.tags)); err != nil {
				return fmt.Errorf("postgres: write a job's request: %w", err)
			}
		}
		if err := settle(ctx, tx, old, j); err != nil {
			return err
		}
		out = j
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// sameRequest reports whether b keeps what quantum_job_requests holds of
// a's record, so that a move of the job writes its row alone.
func sameRequest(a, b *storage.JobRecord) bool {
	return a.Name == b.Name && a.Vendor == b.Vendor && a.Provider == b.Provider && reflect.DeepEqual(orEmpty(a.Tags), orEmpty(b.Tags))
}

// lockJob reads the job and locks its row until the transaction ends.
func lockJob(ctx context.Context, tx pgx.Tx, qrn string) (*storage.JobRecord, error) {
	var data []byte
	err := tx.QueryRow(ctx, "SELECT record FROM quantum_job_states WHERE qrn = $1 FOR UPDATE", qrn).Scan(&data)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, storage.ErrJobNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("postgres: lock a job: %w", err)
	}
	return decode(data)
}

// writeJob writes a job's row, which the transaction has locked in
// status from, and its result (nil: none).
func writeJob(ctx context.Context, tx pgx.Tx, r *row, from qtype.JobStatus, counts []byte) error {
	j := r.j
	var result *string
	if counts != nil {
		c := string(counts)
		result = &c
	}
	var n int
	err := tx.QueryRow(ctx, updateJob, j.JobQRN, string(j.Status), nanos(j.UpdatedAt), queueNanos(j), leaseNanos(j),
		j.MemoryNeed, j.Attempts, j.Node, string(r.record), result, string(from)).Scan(&n)
	if err != nil {
		return fmt.Errorf("postgres: write a job: %w", err)
	}
	if n != 1 {
		return fmt.Errorf("postgres: write job %s: its row changed under a lock", j.JobQRN)
	}
	return nil
}

// DeleteJob removes the job, its request and program with it.
func (s *Store) DeleteJob(ctx context.Context, qrn string, expect qtype.JobStatus) error {
	// The status read beside the DELETE is the one before it: a row that
	// changed status while the DELETE waited for its lock is not deleted.
	var deleted, exists bool
	err := s.pool.QueryRow(ctx, `
		WITH gone AS (DELETE FROM quantum_job_states WHERE qrn = $1 AND status = $2 RETURNING qrn, owner, status),
		request AS (DELETE FROM quantum_job_requests WHERE qrn IN (SELECT qrn FROM gone)),
		counted AS (
			INSERT INTO quantum_job_counts (owner, status, shard, n)
			SELECT owner, status, (pg_backend_pid() % 16)::smallint, -1 FROM gone
			ON CONFLICT (owner, status, shard) DO UPDATE SET n = quantum_job_counts.n + excluded.n)
		SELECT EXISTS (SELECT 1 FROM gone), EXISTS (SELECT 1 FROM quantum_job_states WHERE qrn = $1)`,
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
