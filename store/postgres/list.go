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
// one round trip. Every filter but search has an index beside the owner's
// (status, provider and vendor compound ones; tags a GIN index); search
// reads the owner's jobs that the other filters leave.
func (s *Store) ListJobs(ctx context.Context, f storage.JobFilter) ([]*storage.JobRecord, int, error) {
	where, args, ok := filterSQL(f)
	if !ok {
		return nil, 0, nil // a tag value no job can have
	}
	n := len(args)
	pageArgs := append(args[:n:n], int64(max(f.Offset, 0)), int64(max(f.Limit, 0)))
	page := fmt.Sprintf("SELECT record FROM quantum_jobs WHERE %s ORDER BY created_ns DESC, qrn DESC OFFSET $%d LIMIT $%d", where, n+1, n+2)
	count := "SELECT count(*) FROM quantum_jobs WHERE " + where
	if f.Vendor == "" && f.Provider == "" && f.Search == "" && len(f.Tags) == 0 {
		// The owner's counts per status answer at once.
		statuses := statusNames(f.Statuses)
		if len(statuses) == 0 {
			statuses = statusNames(qtype.JobStatuses())
		}
		count, args = countByStatus, []any{f.Owner, statuses}
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

// filterSQL is the WHERE clause of a filter and its arguments; ok is false
// when the filter asks for a tag value that no job can hold.
func filterSQL(f storage.JobFilter) (where string, args []any, ok bool) {
	conds := []string{}
	arg := func(v any) string {
		args = append(args, v)
		return fmt.Sprintf("$%d", len(args))
	}
	conds = append(conds, "owner = "+arg(f.Owner))
	switch statuses := statusNames(f.Statuses); len(statuses) {
	case 0:
	case 1: // an equality, which the planner matches to the status index's order
		conds = append(conds, "status = "+arg(statuses[0]))
	default:
		conds = append(conds, "status = ANY("+arg(statuses)+")")
	}
	if f.Vendor != "" {
		conds = append(conds, "vendor = "+arg(f.Vendor))
	}
	if f.Provider != "" {
		conds = append(conds, "provider = "+arg(f.Provider))
	}
	if f.Search != "" {
		// strpos on the lower-cased fields: Go's case folding, not the
		// database's locale's.
		p := arg(strings.ToLower(f.Search))
		conds = append(conds, fmt.Sprintf("(strpos(search[1], %[1]s) > 0 OR strpos(search[2], %[1]s) > 0 OR strpos(search[3], %[1]s) > 0)", p))
	}
	if len(f.Tags) > 0 {
		want := map[string]any{}
		for k, v := range f.Tags {
			tv, ok := qtype.TagValue(v)
			if !ok {
				return "", nil, false
			}
			want[k] = tv
		}
		data, err := json.Marshal(want)
		if err != nil {
			return "", nil, false
		}
		conds = append(conds, "tags @> "+arg(string(data))+"::jsonb")
	}
	return strings.Join(conds, " AND "), args, true
}
