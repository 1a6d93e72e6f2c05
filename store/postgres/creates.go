package postgres

import (
	"context"
	"errors"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

var _ storage.BatchCreator = (*Store)(nil)

// A node's creates go through one group (group.go): those made while a
// batch is out are inserted together, in one statement, when they need
// no transaction of their own. A statement costs about as much to start
// as to run, so a burst of creates pays for few. The batches of one Store
// are sent one after another, and a batch counts each of its jobs against
// its owner's bound after the jobs before it, so that the bound is exact
// among the creates of one Store without its callers taking turns
// (storage.BatchCreator). A caller's context is looked at before its
// create joins a batch; after, the batch's statement is bounded by
// batchTimeout instead, as the grouped writes are.

// createCall is one create in the group.
type createCall struct {
	ctx      context.Context // the caller's: for a create with a transaction of its own
	r        *row
	program  qtype.Program
	statuses []string
	max      int64

	// Set by sendCreates, as insertJob's answer.
	xmin    *int64 // nil: not stored
	active  int64
	offline bool
	err     error
}

// transacted says whether the create needs a transaction of its own: an
// idempotency key to free if it expired, credits to reserve.
func (c *createCall) transacted() bool {
	return c.r.j.IdempotencyKey != "" || c.r.j.Reserved != 0
}

// BatchesCreates says that this Store batches its creates and bounds them
// one after another (storage.BatchCreator).
func (s *Store) BatchesCreates() bool { return true }

// sendCreates is the creates group's send: the creates with transactions
// of their own one at a time, in their callers' contexts; the others
// together, a statement for each set of bounded statuses, or one at a
// time when their statement fails (so that each gets its own error).
func (s *Store) sendCreates(cs []*createCall) {
	bySet := map[string][]*createCall{}
	var order []string
	for _, c := range cs {
		if c.transacted() {
			s.insertOne(c.ctx, c)
			continue
		}
		if len(c.program.Data)+len(c.r.record) > maxBatchedBytes {
			s.insertAlone(c)
			continue
		}
		k := strings.Join(c.statuses, ",")
		if _, ok := bySet[k]; !ok {
			order = append(order, k)
		}
		bySet[k] = append(bySet[k], c)
	}
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	for _, k := range order {
		set := bySet[k]
		if len(set) > 1 && s.insertMany(ctx, set) == nil {
			continue
		}
		for _, c := range set {
			s.insertOne(ctx, c)
		}
	}
}

// maxBatchedBytes bounds the program and record of a create that goes in
// a batch: a larger one goes alone, so that a batch's statement stays
// within 64 MiB (maxBatch of them) whatever the programs' bound.
const maxBatchedBytes = 256 << 10

// insertAlone stores one create with insertJob, bounded as a batch is.
func (s *Store) insertAlone(c *createCall) {
	ctx, cancel := context.WithTimeout(context.Background(), batchTimeout)
	defer cancel()
	s.insertOne(ctx, c)
}

// insertJobs is insertJob for many jobs: their rows ($1 to $22, an array
// each, $22 the bound of each), the statuses bounded ($23). A job is
// stored unless its device is not ONLINE or its owner has, with the jobs
// of the batch before it on ONLINE devices, its bound or more in those
// statuses. It answers, for each input, its row version (NULL: not
// stored), the owner's count before it and whether its device is not
// ONLINE.
const insertJobs = `
WITH u AS (
	SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[],
		$9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::int[], $14::text[], $15::text[], $16::text[],
		$17::text[], $18::text[], $19::text[], $20::text[], $21::text[], $22::bigint[])
	AS u(i, qrn, owner, device_qrn, status, vendor, provider, created_ns, updated_ns, queued_ns, lease_ns, memory_need,
		attempts, node, s_name, s_qrn, s_device, tags, record, format, data, bound)
), guard AS (
	SELECT u.*,
		EXISTS (SELECT 1 FROM quantum_device_controls c WHERE c.device = u.device_qrn AND c.status <> 'ONLINE') AS offline,
		(SELECT coalesce(sum(n), 0) FROM quantum_job_counts k WHERE k.owner = u.owner AND k.status = ANY($23::text[])) AS active
	FROM u
), ranked AS (
	SELECT g.*, g.active + coalesce(count(*) FILTER (WHERE NOT g.offline) OVER (PARTITION BY g.owner ORDER BY g.i
		ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) AS before
	FROM guard g
), request AS (
	INSERT INTO quantum_job_requests (qrn, owner, vendor, provider, created_ns, search, tags, format, data)
	SELECT qrn, owner, vendor, provider, created_ns, ARRAY[s_name, s_qrn, s_device], tags::jsonb, format, data
	FROM ranked WHERE NOT offline AND before < bound
	ORDER BY qrn
	RETURNING qrn
), job AS (
	INSERT INTO quantum_job_states (qrn, owner, device_qrn, status, created_ns, updated_ns, queued_ns, lease_ns, memory_need,
		attempts, node, record)
	SELECT r.qrn, r.owner, r.device_qrn, r.status, r.created_ns, r.updated_ns, r.queued_ns, r.lease_ns, r.memory_need,
		r.attempts, r.node, r.record::json
	FROM ranked r JOIN request q ON q.qrn = r.qrn
	ORDER BY r.qrn
	RETURNING qrn, owner, device_qrn, status, xmin::text::bigint AS xmin
), moved AS (
	SELECT qrn, owner, device_qrn, NULL::text AS old_status, status FROM job
)` + moveEffects + `
SELECT r.i, j.xmin, r.before, r.offline FROM ranked r LEFT JOIN job j ON j.qrn = r.qrn, ` + notifiedCount

// insertMany stores the creates cs (none transacted, one set of bounded
// statuses) with insertJobs. On an error nothing is stored.
func (s *Store) insertMany(ctx context.Context, cs []*createCall) error {
	n := len(cs)
	idx, attempts := make([]int32, n), make([]int32, n)
	qrn, owner, device, status, vendor, provider := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	created, updated, queued, memory, bound := make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
	lease := make([]*int64, n)
	node, sName, sQRN, sDevice, tags, record, format, data := make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	for i, c := range cs {
		j := c.r.j
		idx[i], qrn[i], owner[i], device[i], status[i] = int32(i), j.JobQRN, j.Owner, j.DeviceQRN, string(j.Status)
		vendor[i], provider[i], created[i], updated[i], queued[i] = j.Vendor, j.Provider, nanos(j.TimeStamps.CreatedAt), nanos(j.UpdatedAt), queueNanos(j)
		lease[i], memory[i], attempts[i], node[i] = leaseNanos(j), j.MemoryNeed, int32(j.Attempts), j.Node
		sName[i], sQRN[i], sDevice[i] = c.r.search[0], c.r.search[1], c.r.search[2]
		tags[i], record[i], format[i], data[i], bound[i] = string(c.r.tags), string(c.r.record), c.program.Format, c.program.Data, c.max
	}
	err := retryDeadlock(func() error {
		for _, c := range cs {
			c.xmin, c.err = nil, nil
		}
		rows, err := s.batch.Query(ctx, insertJobs, idx, qrn, owner, device, status, vendor, provider, created, updated, queued,
			lease, memory, attempts, node, sName, sQRN, sDevice, tags, record, format, data, bound, cs[0].statuses)
		if err != nil {
			return err
		}
		var i int32
		var xmin pgtype.Int8
		var before int64
		var offline bool
		_, err = pgx.ForEachRow(rows, []any{&i, &xmin, &before, &offline}, func() error {
			if i < 0 || int(i) >= n {
				return errors.New("an index out of the batch")
			}
			c := cs[i]
			c.active, c.offline = before, offline
			if xmin.Valid {
				x := xmin.Int64
				c.xmin = &x
			}
			return nil
		})
		return err
	})
	if err != nil {
		for _, c := range cs {
			c.xmin = nil
		}
	}
	return err
}
