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
// its status and row version (xmin), with the results of those written
// in the same statement: a result is stored with its job's move or not at
// all. It returns the index of each input written and the row's new
// version. A row that two inputs name is written once.
//
// Its locks follow the order of claimJobs: the job rows first, sorted by
// QRN (jobs, in full before the first row is written: the UPDATE joins
// their count), then the owners' counts, at the end (migration 4).
const casWrites = `
WITH u AS (
	SELECT * FROM unnest($1::int[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[],
		$8::bigint[], $9::bigint[], $10::bigint[], $11::bigint[], $12::int[], $13::text[],
		$14::text[], $15::text[], $16::text[], $17::text[], $18::text[], $19::text[])
	AS u(i, qrn, xmin, expect, status, vendor, provider, updated_ns, queued_ns, lease_ns, memory_need, attempts, node,
		s1, s2, s3, tags, record, counts)
), jobs AS (
	SELECT qrn FROM quantum_jobs WHERE qrn IN (SELECT qrn FROM u) ORDER BY qrn FOR UPDATE
), moved AS (
	UPDATE quantum_jobs j SET status = u.status, vendor = u.vendor, provider = u.provider, updated_ns = u.updated_ns,
		queued_ns = u.queued_ns, lease_ns = u.lease_ns, memory_need = u.memory_need, attempts = u.attempts,
		node = u.node, search = ARRAY[u.s1, u.s2, u.s3], tags = u.tags::jsonb, record = u.record::json
	FROM u, (SELECT count(*) FROM jobs) k
	WHERE j.qrn = u.qrn AND j.status = u.expect AND j.xmin::text::bigint = u.xmin
	RETURNING u.i, j.xmin::text::bigint AS xmin
), results AS (
	INSERT INTO quantum_results (qrn, counts)
	SELECT u.qrn, u.counts::json FROM u JOIN moved ON moved.i = u.i WHERE u.counts IS NOT NULL
	ON CONFLICT (qrn) DO UPDATE SET counts = excluded.counts
)
SELECT i, xmin FROM moved`

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
	var qrn, expect, status, vendor, provider, node, s1, s2, s3, tags, record = make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n)
	updated, queued, memory := make([]int64, n), make([]int64, n), make([]int64, n)
	lease, counts := make([]*int64, n), make([]*string, n)
	for i, w := range ws {
		j := w.r.j
		idx[i], qrn[i], xmins[i], expect[i] = int32(i), j.JobQRN, int64(w.xmin), string(w.expect)
		status[i], vendor[i], provider[i] = string(j.Status), j.Vendor, j.Provider
		updated[i], queued[i], lease[i], memory[i] = nanos(j.UpdatedAt), queueNanos(j), leaseNanos(j), j.MemoryNeed
		attempts[i], node[i] = int32(j.Attempts), j.Node
		s1[i], s2[i], s3[i] = w.r.search[0], w.r.search[1], w.r.search[2]
		tags[i], record[i] = string(w.r.tags), string(w.r.record)
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
		rows, err := s.batch.Query(ctx, casWrites, idx, qrn, xmins, expect, status, vendor, provider, updated, queued, lease,
			memory, attempts, node, s1, s2, s3, tags, record, counts)
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
	err := s.pool.QueryRow(ctx, "SELECT xmin::text::bigint, record FROM quantum_jobs WHERE qrn = $1", qrn).Scan(&x, &data)
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
