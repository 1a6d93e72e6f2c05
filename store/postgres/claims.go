package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/jackc/pgx/v5"

	"github.com/qjobs/quantum"
)

var _ quantum.BatchClaimer = (*Store)(nil)

// claimJobs claims for every entry of a batch claim in one statement.
// $1 the entries' indexes, $2 and $3 their queues (device, owner); $4 the
// memory the jobs may need together; $5 to $7 the claim's time, lease
// and node; $8 what the claim changes of the record, as JSON members.
//
// Each queue named locks (FOR UPDATE SKIP LOCKED, through the queue
// index) as many of its oldest jobs as it has entries, and its k-th job
// goes to its k-th entry. The jobs are taken in the entries' order while
// the running sum of their memory needs stays within $4: the first job
// past it (short) stops the walk, since the sums only grow. The taken
// jobs move to RUNNING; their record gets the changed members appended
// (a JSON object's last member of a name is the one a decoder keeps; the
// next write from Go rewrites the record whole). Their programs come
// back with them, and short's record alone, with index -1.
const claimJobs = `
WITH t AS (
	SELECT t.i, t.device, t.owner, row_number() OVER (PARTITION BY t.device, t.owner ORDER BY t.i) AS k
	FROM unnest($1::int[], $2::text[], $3::text[]) AS t(i, device, owner)
), q AS (
	SELECT device, owner, count(*) AS n FROM t GROUP BY device, owner
), locked AS (
	SELECT q.device, q.owner, l.qrn, l.memory_need, l.queued_ns
	FROM q CROSS JOIN LATERAL (
		SELECT qrn, memory_need, queued_ns FROM quantum_jobs
		WHERE device_qrn = q.device AND owner = q.owner AND status = 'QUEUED'
		ORDER BY queued_ns, qrn LIMIT q.n FOR UPDATE SKIP LOCKED) l
), placed AS (
	SELECT t.i, r.qrn, sum(greatest(r.memory_need, 0)) OVER (ORDER BY t.i) AS used
	FROM t JOIN (
		SELECT device, owner, qrn, memory_need,
			row_number() OVER (PARTITION BY device, owner ORDER BY queued_ns, qrn) AS k
		FROM locked) r ON r.device = t.device AND r.owner = t.owner AND r.k = t.k
), short AS (
	SELECT qrn FROM placed WHERE used > $4 ORDER BY i LIMIT 1
), claimed AS (
	UPDATE quantum_jobs j SET status = 'RUNNING', updated_ns = $5, lease_ns = $6, attempts = j.attempts + 1, node = $7,
		record = (left(j.record::text, -1) || $8 || ',"Attempts":' || (j.attempts + 1) || '}')::json
	FROM placed p WHERE j.qrn = p.qrn AND p.used <= $4
	RETURNING p.i, j.qrn, j.xmin::text::bigint AS xmin, j.record
)
SELECT c.i, c.xmin, c.record, p.format, p.data FROM claimed c JOIN quantum_programs p ON p.qrn = c.qrn
UNION ALL
SELECT -1, 0::bigint, j.record, NULL::text, NULL::text FROM short s JOIN quantum_jobs j ON j.qrn = s.qrn`

// ClaimJobs claims for all of c.Turns in one statement (claimJobs).
func (s *Store) ClaimJobs(ctx context.Context, c quantum.BatchClaim) (*quantum.ClaimedJobs, error) {
	out := &quantum.ClaimedJobs{}
	if len(c.Turns) == 0 {
		return out, nil
	}
	n := len(c.Turns)
	idx, devices, owners := make([]int32, n), make([]string, n), make([]string, n)
	for i, t := range c.Turns {
		idx[i], devices[i], owners[i] = int32(i), t.Device, t.Owner
	}
	members, err := claimMembers(c)
	if err != nil {
		return nil, err
	}
	var lease *int64
	if !c.LeaseUntil.IsZero() {
		l := nanos(c.LeaseUntil)
		lease = &l
	}
	rows, err := s.pool.Query(ctx, claimJobs, idx, devices, owners, c.MaxMemory, nanos(c.Now), lease, c.Node, members)
	if err != nil {
		return nil, fmt.Errorf("postgres: claim jobs: %w", err)
	}
	var i int32
	var xmin int64
	var data []byte
	var format, program *string
	_, err = pgx.ForEachRow(rows, []any{&i, &xmin, &data, &format, &program}, func() error {
		j, err := decode(data)
		if err != nil {
			return err
		}
		if i < 0 {
			out.Short = j
			return nil
		}
		if int(i) >= n || format == nil || program == nil {
			return fmt.Errorf("postgres: claim jobs: a row out of the batch")
		}
		s.hints.put(j, uint32(xmin), len(data))
		out.Jobs = append(out.Jobs, quantum.ClaimedJob{Job: j, Program: &quantum.Program{Format: *format, Data: *program}, Turn: int(i)})
		return nil
	})
	if err != nil {
		for _, cj := range out.Jobs {
			s.hints.forget(cj.Job.JobQRN)
		}
		return nil, fmt.Errorf("postgres: claim jobs: %w", err)
	}
	sortClaimed(out.Jobs)
	return out, nil
}

// claimMembers is what a claim changes of a job's record, as the JSON
// members to append to it (Attempts, which grows by one, is the
// statement's).
func claimMembers(c quantum.BatchClaim) (string, error) {
	var b []byte
	for _, m := range []struct {
		name string
		v    any
	}{{"status", quantum.StatusRunning}, {"UpdatedAt", c.Now}, {"LeaseUntil", c.LeaseUntil}, {"Node", c.Node}} {
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

func sortClaimed(jobs []quantum.ClaimedJob) {
	slices.SortFunc(jobs, func(a, b quantum.ClaimedJob) int { return a.Turn - b.Turn })
}
