package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

var _ storage.BatchClaimer = (*Store)(nil)

// claimJobs claims the jobs of a batch claim's plan in one statement.
// $1 the devices served; $2 and $3 the queue served first (device,
// owner; ” for none); $4 the owner served last, $5 and $6 the device
// last served to each owner; $7 the most jobs to take; $8 the memory the
// jobs may need together; $9 to $11 the claim's time, lease and node;
// $12 what the claim changes of the record, as JSON members, and $13 the
// same without UpdatedAt, for a job whose last change is later than the
// claim's time (it was queued after the claim read the clock), which
// keeps its own: a job's changes never go back in time.
//
// The queues are found as Queues finds them (a skip through the queue
// index). Each gets its place in the turns, as BatchClaim.Plan gives
// them: its owner's rank ro among the no owners (those after the last
// served first, by ID) and its rank rd among the nd devices of its owner
// (those after the owner's last served first). Owner turn t (0, 1, …) is
// entry off + ro + t·no of the plan (off is 1 when a queue is served
// first, which is entry 0), and it serves the device of rank t mod nd: so
// a queue's j-th job goes to entry off + ro + (rd + j·nd)·no. Each queue
// locks (FOR UPDATE SKIP LOCKED, through the queue index) as many of its
// oldest jobs as it has entries before $7, and the jobs are taken in the
// entries' order while the running sum of their memory needs stays
// within $8: the first job past it (short) stops the walk, since the sums
// only grow. The taken jobs move to RUNNING; their record gets the
// changed members appended (of a JSON object's members of one name, a
// decoder keeps the last; the next write from Go rewrites the record
// whole). Their programs come back with them, and short's record alone,
// with entry -1.
//
// A device held, OFFLINE or UNAVAILABLE by its controls (migration 5)
// is left out of open: no node claims its jobs from the moment the change
// commits. The claimed jobs come with the controls' version, which the
// node compares with what it has read.
//
// Its plan is generic, made once for each connection (the batch pool), so
// it must not depend on how many jobs a claim takes or the tables hold:
// the claimed rows are updated through qrn = ANY (an array the planner
// takes for a few keys, so always the primary key), and their programs
// and short's record are read by subqueries on the primary key. A join
// of the plan's estimate of placed (thousands of rows) with the tables
// became a hash join over a scan of every job at each claim: 10 ms a
// claim with 30,000 jobs queued (BenchmarkClaimAmongMany). (A plan made
// while the tables are empty still scans the jobs to update them, cheaply
// while they are few; the store analyzes the tables as they grow
// (analyze.go), which has every session plan again.)
//
// Locks are taken in one order everywhere, so that statements moving
// many jobs cannot deadlock: job rows (a claim's never wait: SKIP
// LOCKED), then the owners' counts, sorted, at the end of the statement
// (moveEffects), then credit accounts.
const claimJobs = "\nWITH RECURSIVE " + queueCTEs + `, first AS (` + claimPlanCTEs

// queueCTEs find the queues a claim may serve: qs, every (device, owner)
// with a QUEUED job, by a skip scan of the queue index; open, those of
// the devices served ($1) that no control holds.
const queueCTEs = `qs AS (
	(SELECT device_qrn, owner FROM quantum_job_states WHERE status = 'QUEUED' ORDER BY device_qrn, owner LIMIT 1)
	UNION ALL
	SELECT n.device_qrn, n.owner FROM qs, LATERAL (
		SELECT device_qrn, owner FROM quantum_job_states
		WHERE status = 'QUEUED' AND (device_qrn, owner) > (qs.device_qrn, qs.owner)
		ORDER BY device_qrn, owner LIMIT 1) n
), open AS (
	SELECT device_qrn AS device, owner FROM qs WHERE device_qrn = ANY($1::text[])
		AND NOT EXISTS (SELECT 1 FROM quantum_device_controls dc
			WHERE dc.device = qs.device_qrn AND (dc.held OR dc.status IN ('OFFLINE', 'UNAVAILABLE')))
)`

// claimPlanCTEs are the rest of claimJobs after queueCTEs: the plan of
// the turns, the claim, its effects and its answer.
const claimPlanCTEs = `
	SELECT device, owner FROM open WHERE device = $2 AND owner = $3
), last AS (
	SELECT l.owner, l.device FROM unnest($5::text[], $6::text[]) AS l(owner, device)
	WHERE NOT EXISTS (SELECT 1 FROM first f WHERE f.owner = l.owner)
	UNION ALL
	SELECT owner, device FROM first
), ranked AS (
	SELECT o.device, o.owner,
		dense_rank() OVER (ORDER BY o.owner <= coalesce((SELECT owner FROM first), $4::text), o.owner) - 1 AS ro,
		row_number() OVER (PARTITION BY o.owner ORDER BY o.device <= coalesce(l.device, ''), o.device) - 1 AS rd,
		count(*) OVER (PARTITION BY o.owner) AS nd,
		(SELECT count(DISTINCT owner) FROM open) AS no,
		(SELECT count(*) FROM first) AS off,
		EXISTS (SELECT 1 FROM first f WHERE f.device = o.device AND f.owner = o.owner) AS is_first
	FROM open o LEFT JOIN last l ON l.owner = o.owner
), capped AS (
	SELECT *, CASE WHEN turns > rd THEN (turns - rd + nd - 1) / nd ELSE 0 END + CASE WHEN is_first THEN 1 ELSE 0 END AS cap
	FROM (SELECT *, CASE WHEN $7 - off - ro > 0 THEN ($7 - off - ro + no - 1) / no ELSE 0 END AS turns FROM ranked) r
), locked AS (
	SELECT c.device, c.owner, c.ro, c.rd, c.nd, c.no, c.off, c.is_first, l.qrn, l.memory_need, l.queued_ns
	FROM capped c CROSS JOIN LATERAL (
		SELECT qrn, memory_need, queued_ns FROM quantum_job_states
		WHERE device_qrn = c.device AND owner = c.owner AND status = 'QUEUED'
		ORDER BY queued_ns, qrn LIMIT c.cap FOR UPDATE SKIP LOCKED) l
), placed AS (
	SELECT slot, qrn, owner, sum(greatest(memory_need, 0)) OVER (ORDER BY slot) AS used
	FROM (
		SELECT qrn, owner, memory_need, CASE WHEN is_first AND j = 0 THEN 0
			ELSE off + ro + (rd + (j - CASE WHEN is_first THEN 1 ELSE 0 END) * nd) * no END AS slot
		FROM (SELECT *, row_number() OVER (PARTITION BY device, owner ORDER BY queued_ns, qrn) - 1 AS j FROM locked) x
	) s
	WHERE slot < $7
), short AS (
	SELECT qrn FROM placed WHERE used > $8 ORDER BY slot LIMIT 1
), claimed AS (
	UPDATE quantum_job_states j SET status = 'RUNNING', updated_ns = greatest(j.updated_ns, $9), lease_ns = $10, attempts = j.attempts + 1, node = $11,
		record = (left(j.record::text, -1) || CASE WHEN j.updated_ns > $9 THEN $13 ELSE $12 END || ',"Attempts":' || (j.attempts + 1) || '}')::json
	WHERE j.qrn = ANY (ARRAY(SELECT qrn FROM placed WHERE used <= $8))
	RETURNING j.qrn, j.xmin::text::bigint AS xmin, j.record, j.owner, j.device_qrn
), moved AS (
	SELECT qrn, owner, device_qrn, 'QUEUED'::text AS old_status, 'RUNNING'::text AS status FROM claimed
)` + moveEffects + `
SELECT p.slot, c.xmin, c.record,
	(SELECT r.format FROM quantum_job_requests r WHERE r.qrn = c.qrn),
	(SELECT r.data FROM quantum_job_requests r WHERE r.qrn = c.qrn),
	(SELECT version FROM quantum_controls_version)
FROM claimed c JOIN placed p ON p.qrn = c.qrn, ` + notifiedCount + `
UNION ALL
SELECT -1, 0::bigint, (SELECT j.record FROM quantum_job_states j WHERE j.qrn = s.qrn), NULL::text, NULL::text, 0::bigint FROM short s`

// ClaimJobs claims the jobs of c's plan in one statement (claimJobs).
func (s *Store) ClaimJobs(ctx context.Context, c storage.BatchClaim) (*storage.ClaimedJobs, error) {
	out := &storage.ClaimedJobs{}
	if c.Max <= 0 || len(c.Devices) == 0 {
		return out, nil
	}
	stmt, args, err := claimStatement(c)
	if err != nil {
		return nil, err
	}
	var slot, xmin, controls int64
	var data []byte
	var format, program *string
	err = retryDeadlock(func() error {
		out = &storage.ClaimedJobs{}
		rows, err := s.batch.Query(ctx, stmt, args...)
		if err != nil {
			return err
		}
		_, err = pgx.ForEachRow(rows, []any{&slot, &xmin, &data, &format, &program, &controls}, func() error {
			j, err := decode(data)
			if err != nil {
				return err
			}
			if slot < 0 {
				out.Short = j
				return nil
			}
			if format == nil || program == nil {
				return fmt.Errorf("postgres: claim jobs: job %s came without its program", j.JobQRN)
			}
			s.hints.put(j, uint32(xmin), len(data))
			out.ControlsVersion = max(out.ControlsVersion, controls)
			out.Jobs = append(out.Jobs, storage.ClaimedJob{Job: j, Program: &qtype.Program{Format: *format, Data: *program}, Turn: int(slot)})
			return nil
		})
		return err
	})
	if err != nil {
		for _, cj := range out.Jobs {
			s.hints.forget(cj.Job.JobQRN)
		}
		return nil, fmt.Errorf("postgres: claim jobs: %w", err)
	}
	slices.SortFunc(out.Jobs, func(a, b storage.ClaimedJob) int { return a.Turn - b.Turn })
	return out, nil
}

// claimStatement is the statement that makes claim c, claimOne for one
// job, and its parameters.
func claimStatement(c storage.BatchClaim) (string, []any, error) {
	var firstDevice, firstOwner string
	if c.First != nil {
		firstDevice, firstOwner = c.First.Device, c.First.Owner
	}
	lastOwners, lastDevices := make([]string, 0, len(c.LastDevice)), make([]string, 0, len(c.LastDevice))
	for o, d := range c.LastDevice {
		lastOwners, lastDevices = append(lastOwners, o), append(lastDevices, d)
	}
	members, err := claimMembers(c, true)
	if err != nil {
		return "", nil, err
	}
	kept, err := claimMembers(c, false)
	if err != nil {
		return "", nil, err
	}
	var lease *int64
	if !c.LeaseUntil.IsZero() {
		l := nanos(c.LeaseUntil)
		lease = &l
	}
	stmt, n := claimJobs, min(c.Max, maxBatch)
	if n == 1 {
		stmt = claimOne
	}
	return stmt, []any{c.Devices, firstDevice, firstOwner, c.LastOwner, lastOwners, lastDevices,
		n, c.MaxMemory, nanos(c.Now), lease, c.Node, members, kept}, nil
}

// claimMembers is what a claim changes of a job's record, as the JSON
// members to append to it (Attempts, which grows by one, is the
// statement's), UpdatedAt among them if updated.
func claimMembers(c storage.BatchClaim, updated bool) (string, error) {
	var b []byte
	for _, m := range []struct {
		name string
		v    any
	}{{"status", qtype.StatusRunning}, {"UpdatedAt", c.Now}, {"LeaseUntil", c.LeaseUntil}, {"Node", c.Node}} {
		if m.name == "UpdatedAt" && !updated {
			continue
		}
		v, err := json.Marshal(m.v)
		if err != nil {
			return "", fmt.Errorf("postgres: encode a claim: %w", err)
		}
		b = append(b, ',')
		b = strconv.AppendQuote(b, m.name)
		b = append(b, ':')
		b = append(b, v...)
	}
	return string(b), nil
}
