package postgres

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qjobs/quantum"
	"github.com/qjobs/quantum/internal/pgtest"
	"github.com/qjobs/quantum/qtype"
	"github.com/qjobs/quantum/storage"
)

// BenchmarkList1M reads the first page (50 jobs) of an owner who has
// 1,000,000 jobs, with the total, alone and with each kind of filter.
// The jobs are written with COPY, as CreateJob would write them.
func BenchmarkList1M(b *testing.B) {
	const total = 1_000_000
	ctx := context.Background()
	s, err := Open(ctx, pgtest.DSN(b))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	start := time.Now()
	providers := []string{"qbraid", "aws", "ionq"}
	job := func(i int) *storage.JobRecord {
		at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Second)
		status := quantum.StatusCompleted
		switch {
		case i%100 == 7:
			status = quantum.StatusFailed
		case i%10_000 == 3:
			status = quantum.StatusQueued
		}
		p := providers[i%3]
		return &storage.JobRecord{Job: quantum.Job{
			Name: fmt.Sprintf("experiment %d", i), Shots: 100, DeviceQRN: p + ":" + p + ":sim:sv",
			Tags: map[string]any{"batch": int64(i % 1000), "team": []string{"red", "blue"}[i%2]}, RuntimeOptions: map[string]any{},
			JobQRN: fmt.Sprintf("%s:%s:sim:sv-abcd-qjob-%024x", p, p, i), Vendor: p, Provider: p, Status: status,
			ExperimentType: "gate_model", TimeStamps: qtype.TimeStamps{CreatedAt: at, EndedAt: &at}, Metadata: map[string]any{},
		}, Owner: "owner-1m", UpdatedAt: at}
	}
	// Each table is loaded by one COPY (one transaction): the counts are
	// made once at the end, as the statements that write jobs would.
	for _, table := range []struct {
		name string
		cols []string
		vals func(r *row) []any
	}{
		{"quantum_job_requests", []string{"qrn", "owner", "vendor", "provider", "created_ns", "search", "tags", "format", "data"},
			func(r *row) []any {
				j := r.j
				return []any{j.JobQRN, j.Owner, j.Vendor, j.Provider, nanos(j.TimeStamps.CreatedAt), r.search, string(r.tags), "qasm2", "x"}
			}},
		{"quantum_job_states", []string{"qrn", "owner", "device_qrn", "status", "created_ns", "updated_ns", "queued_ns", "lease_ns",
			"memory_need", "attempts", "node", "record"},
			func(r *row) []any {
				j := r.j
				return []any{j.JobQRN, j.Owner, j.DeviceQRN, string(j.Status), nanos(j.TimeStamps.CreatedAt), nanos(j.UpdatedAt),
					queueNanos(j), leaseNanos(j), j.MemoryNeed, j.Attempts, j.Node, string(r.record)}
			}},
	} {
		i := 0
		src := pgx.CopyFromFunc(func() ([]any, error) {
			if i == total {
				return nil, nil
			}
			r, err := encode(job(i))
			i++
			if err != nil {
				return nil, err
			}
			return table.vals(r), nil
		})
		if _, err := s.pool.CopyFrom(ctx, pgx.Identifier{table.name}, table.cols, src); err != nil {
			b.Fatal(err)
		}
	}
	_, err = s.pool.Exec(ctx, `INSERT INTO quantum_job_counts (owner, status, n) SELECT owner, status, count(*) FROM quantum_job_states GROUP BY owner, status`)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := s.pool.Exec(ctx, "VACUUM ANALYZE quantum_job_states, quantum_job_requests"); err != nil {
		b.Fatal(err)
	}
	b.Logf("loaded %d jobs in %v", total, time.Since(start).Round(time.Second))

	for _, tc := range []struct {
		name string
		f    storage.JobFilter
	}{
		{"none", storage.JobFilter{}},
		{"status=COMPLETED", storage.JobFilter{Statuses: []quantum.JobStatus{quantum.StatusCompleted}}},
		{"status=QUEUED(100)", storage.JobFilter{Statuses: []quantum.JobStatus{quantum.StatusQueued}}},
		{"provider=aws", storage.JobFilter{Provider: "aws"}},
		{"tag=batch:7", storage.JobFilter{Tags: map[string]any{"batch": 7}}},
		{"search=experiment 99999", storage.JobFilter{Search: "experiment 99999"}},
		{"page 1000", storage.JobFilter{Offset: 50 * 999}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			f := tc.f
			f.Owner, f.Limit = "owner-1m", 50
			for b.Loop() {
				jobs, n, err := s.ListJobs(ctx, f)
				if err != nil || len(jobs) == 0 || n == 0 {
					b.Fatalf("%d jobs of %d: %v", len(jobs), n, err)
				}
			}
		})
	}
}
