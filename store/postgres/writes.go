package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// maxBatch bounds the jobs one batched statement writes or claims.
const maxBatch = 256

// batchTimeout bounds one batched statement: it runs for several callers
// at once, so no one caller's context may cut it short.
const batchTimeout = 30 * time.Second

// casAttempts is how many times UpdateJob tries a compare-and-set on a
// row version before it locks the row instead.
const casAttempts = 3

// write is one job's compare-and-set in a batch: its new row, if the row
// is still at version xmin and in status expect, and its result.
type write struct {
	r      *row
	xmin   uint32
	expect qtype.JobStatus
	counts []byte // nil: no result

	// Set by sendWrites.
	done    bool   // written; false: the row changed since xmin
	newXmin uint32 // the row's version after the write
	err     error
}

// casWrites writes many jobs in one statement, each a compare-and-set on
// its status and row version (xmin), with the results of those written:
// a result is stored with its job's move or not at all. It returns the
// index of each input written and the row's new version. A row that two
// inputs name is written once. What a job's request holds
// (quantum_job_requests) is not written here: UpdateJob sends a change of
// it through updateLocked.
//
// Its locks follow the order of claimJobs: the job rows first, sorted by
// QRN (jobs, in full before the first row is written: the UPDATE joins
// their count), then the owners' counts (moveEffects).
const casWrites = `
WITH u AS (
	SELECT * FROM unnest($1::int[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::bigint[], $7::bigint[],
		$8::bigint[], $9::bigint[], $10::int[], $11::text[], $12::text[], $13::text[])
	AS u(i, qrn, xmin, expect, status, updated_ns, queued_ns, lease_ns, memory_need, attempts, node, record, result)
), jobs AS (
	SELECT qrn FROM quantum_job_states WHERE qrn IN (SELECT qrn FROM u) ORDER BY qrn FOR UPDATE
), moved AS (
	UPDATE quantum_job_states j SET status = u.status, updated_ns = u.updated_ns, queued_ns = u.queued_ns, lease_ns = u.lease_ns,
		memory_need = u.memory_need, attempts = u.attempts, node = u.node, record = u.record::json,
		result = coalesce(u.result::json, j.result)
	FROM u, (SELECT count(*) FROM jobs) k
	WHERE j.qrn = u.qrn AND j.status = u.expect AND j.xmin::text::bigint = u.xmin
	RETURNING u.i, j.xmin::text::bigint AS xmin, j.qrn, j.owner, j.device_qrn, u.expect AS old_status, j.status
)` + moveEffects + `
SELECT i, xmin FROM moved, ` + notifiedCount

// retryDeadlock runs fn again, up to three times in all, while
// PostgreSQL ends it as one side of a deadlock (which rolls it back).
func retryDeadlock(fn func() error) error {
	var err error
	for range 3 {
		var pe *pgconn.PgError
		if err = fn(); !errors.As(err, &pe) || pe.Code != "40P01" {
			return err
		}
	}
	return err
}

// sendWrites is the writes group's send.
func (s *Store) sendWrites(ws []*write) {
	n := len(ws)
	idx, xmins, attempts := make([]int32, n), make([]int64, n), make([]int32, n)
	qrn, expect, status, node, record := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	updated, queued, memory := make([]int64, n), make([]int64, n), make([]int64, n)
	lease, counts := make([]*int64, n), make([]*string, n)
	for i, w := range ws {
		j := w.r.j
		idx[i], qrn[i], xmins[i], expect[i] = int32(i), j.JobQRN, int64(w.xmin), string(w.expect)
		status[i], updated[i], queued[i], lease[i], memory[i] = string(j.Status), nanos(j.UpdatedAt), queueNanos(j), leaseNanos(j), j.MemoryNeed
		attempts[i], node[i], record[i] = int32(j.Attempts), j.Node, string(w.r.record)
		if w.counts != nil {
			c := string(w.counts)
			counts[i] = &c
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	err := retryDeadlock(func() error {
		for _, w := range ws {
			w.done = false
		}
		rows, err := s.moves.Query(ctx, casWrites, idx, qrn, xmins, expect, status, updated, queued, lease,
			memory, attempts, node, record, counts)
		if err != nil {
			return err
		}
		var i int32
		var x int64
		_, err = pgx.ForEachRow(rows, []any{&i, &x}, func() error {
			if i < 0 || int(i) >= n {
				return errors.New("an index out of the batch")
			}
			ws[i].done, ws[i].newXmin = true, uint32(x)
			return nil
		})
		return err
	})
	if err != nil {
		// The statement is one transaction: nothing of it was written.
		for _, w := range ws {
			w.done, w.err = false, fmt.Errorf("postgres: write jobs: %w", err)
		}
	}
}

// readHint reads the job and its row version, and remembers them.
func (s *Store) readHint(ctx context.Context, qrn string) (hint, error) {
	var data []byte
	var x int64
	err := s.pool.QueryRow(ctx, "SELECT xmin::text::bigint, record FROM quantum_job_states WHERE qrn = $1", qrn).Scan(&x, &data)
	if errors.Is(err, pgx.ErrNoRows) {
		s.hints.forget(qrn)
		return hint{}, storage.ErrJobNotFound
	}
	if err != nil {
		return hint{}, fmt.Errorf("postgres: get a job: %w", err)
	}
	j, err := decode(data)
	if err != nil {
		return hint{}, err
	}
	s.hints.put(j, uint32(x), len(data))
	return hint{xmin: uint32(x), rec: j}, nil
}
