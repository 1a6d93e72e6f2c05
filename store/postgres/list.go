package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// ListJobs reads one page newest first and counts the matches, both in
// one round trip. Every filter but search has an index beside the owner's:
// status the owner-and-status index of the jobs' rows; provider and vendor
// compound ones of their requests, tags a GIN index there; search reads
// the owner's requests that the other filters leave.
func (s *Store) ListJobs(ctx context.Context, f storage.JobFilter) ([]*storage.JobRecord, int, error) {
	q, ok := filterSQL(f)
	if !ok {
		return nil, 0, nil // a tag value no job can have
	}
	n := len(q.args)
	pageArgs := append(q.args[:n:n], int64(max(f.Offset, 0)), int64(max(f.Limit, 0)))
	var page, count string
	args := q.args
	switch {
	case !q.requests:
		// By status alone: the jobs' rows answer, in their index's order.
		page = fmt.Sprintf("SELECT j.record FROM quantum_job_states j WHERE %s ORDER BY j.created_ns DESC, j.qrn DESC OFFSET $%d LIMIT $%d",
			q.where, n+1, n+2)
	default:
		// The requests in their owner's order, each with its job's row.
		page = fmt.Sprintf(`SELECT j.record FROM quantum_job_requests r JOIN quantum_job_states j ON j.qrn = r.qrn
			WHERE %s ORDER BY r.created_ns DESC, r.qrn DESC OFFSET $%d LIMIT $%d`, q.where, n+1, n+2)
	}
	switch {
	case !q.filtered:
		// The owner's counts per status answer at once.
		statuses := statusNames(f.Statuses)
		if len(statuses) == 0 {
			statuses = statusNames(qtype.JobStatuses())
		}
		count, args = countByStatus, []any{f.Owner, statuses}
	case q.statuses:
		count = "SELECT count(*) FROM quantum_job_requests r JOIN quantum_job_states j ON j.qrn = r.qrn WHERE " + q.where
	default:
		count = "SELECT count(*) FROM quantum_job_requests r WHERE " + q.where
	}

	var b pgx.Batch
	var total int
	var jobs []*storage.JobRecord
	b.Queue(count, args...).QueryRow(func(r pgx.Row) error { return r.Scan(&total) })
	b.Queue(page, pageArgs...).Query(func(rows pgx.Rows) error {
		var err error
		jobs, err = collectJobs(rows)
		return err
	})
	if err := s.pool.SendBatch(ctx, &b).Close(); err != nil {
		return nil, 0, fmt.Errorf("postgres: list jobs: %w", err)
	}
	// The count and the page are read a moment apart: keep the page
	// within the total, as the contract's bounds say.
	start, end := f.PageBounds(total)
	return jobs[:min(len(jobs), end-start)], total, nil
}

// listQuery is a filter as SQL: its WHERE clause over the job's row (j)
// and, when requests is true, its request (r), and the clause's
// arguments.
type listQuery struct {
	where    string
	args     []any
	requests bool // the clause names r: the query joins the requests
	statuses bool // the clause names statuses
	filtered bool // the clause filters on more than the owner and statuses
}

// filterSQL is the WHERE clause of a filter; ok is false when the filter
// asks for a tag value that no job can hold.
func filterSQL(f storage.JobFilter) (q listQuery, ok bool) {
	var conds []string
	arg := func(v any) string {
		q.args = append(q.args, v)
		return fmt.Sprintf("$%d", len(q.args))
	}
	statuses := statusNames(f.Statuses)
	q.statuses = len(statuses) > 0
	q.filtered = f.Vendor != "" || f.Provider != "" || f.Search != "" || len(f.Tags) > 0
	q.requests = q.filtered || !q.statuses
	if q.requests {
		conds = append(conds, "r.owner = "+arg(f.Owner))
	} else {
		conds = append(conds, "j.owner = "+arg(f.Owner))
	}
	switch len(statuses) {
	case 0:
	case 1: // an equality, which the planner matches to the status index's order
		conds = append(conds, "j.status = "+arg(statuses[0]))
	default:
		conds = append(conds, "j.status = ANY("+arg(statuses)+")")
	}
	if f.Vendor != "" {
		conds = append(conds, "r.vendor = "+arg(f.Vendor))
	}
	if f.Provider != "" {
		conds = append(conds, "r.provider = "+arg(f.Provider))
	}
	if f.Search != "" {
		// strpos on the lower-cased fields: Go's case folding, not the
		// database's locale's.
		p := arg(strings.ToLower(f.Search))
		conds = append(conds, fmt.Sprintf("(strpos(r.search[1], %[1]s) > 0 OR strpos(r.search[2], %[1]s) > 0 OR strpos(r.search[3], %[1]s) > 0)", p))
	}
	if len(f.Tags) > 0 {
		want := map[string]any{}
		for k, v := range f.Tags {
			tv, ok := qtype.TagValue(v)
			if !ok {
				return listQuery{}, false
			}
			want[k] = tv
		}
		data, err := json.Marshal(want)
		if err != nil {
			return listQuery{}, false
		}
		conds = append(conds, "r.tags @> "+arg(string(data))+"::jsonb")
	}
	q.where = strings.Join(conds, " AND ")
	return q, true
}
