package postgres_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qjobs/quantum/internal/pgtest"
	"github.com/qjobs/quantum/storage"
	"github.com/qjobs/quantum/store/postgres"
)

// BenchmarkClaimAmongMany claims one job at a time from a queue of many,
// with as many more jobs stored: what a claim costs as the tables grow,
// which it should hardly feel (each of its reads goes through an index).
func BenchmarkClaimAmongMany(b *testing.B) {
	for _, queued := range []int{1_000, 30_000} {
		b.Run(fmt.Sprintf("queued=%d", queued), func(b *testing.B) {
			ctx := context.Background()
			dsn := pgtest.DSN(b)
			s, err := postgres.Open(ctx, dsn)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				b.Fatal(err)
			}
			defer conn.Close(ctx)
			total := queued + b.N
			// Stored directly, as many creates would have stored them; the
			// statistics as autovacuum would have gathered them.
			_, err = conn.Exec(ctx, fmt.Sprintf(`
				INSERT INTO quantum_job_requests (qrn, owner, vendor, provider, created_ns, search, tags, format, data)
				SELECT 'dev-abcd-qjob-' || i, 'alice', 'qbraid', 'qbraid', i, ARRAY['', 'dev-abcd-qjob-' || i, 'dev'], '{}', 'qasm2', 'x'
				FROM generate_series(1, %[1]d) i;
				INSERT INTO quantum_job_states (qrn, owner, device_qrn, status, created_ns, updated_ns, queued_ns, memory_need, attempts, node, record)
				SELECT 'dev-abcd-qjob-' || i, 'alice', 'dev', 'QUEUED', i, i, i, 0, 0, '',
					('{"jobQrn":"dev-abcd-qjob-' || i || '","deviceQrn":"dev","status":"QUEUED","Owner":"alice",'
					|| '"UpdatedAt":"2026-01-01T00:00:00Z","createdAtExact":"2026-01-01T00:00:00Z"}')::json
				FROM generate_series(1, %[1]d) i;
				INSERT INTO quantum_job_counts (owner, status, n) VALUES ('alice', 'QUEUED', %[1]d);
				ANALYZE quantum_job_requests; ANALYZE quantum_job_states`, total))
			if err != nil {
				b.Fatal(err)
			}
			at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			c := storage.BatchClaim{Max: 1, Devices: []string{"dev"}, MaxMemory: math.MaxInt64, Now: at, LeaseUntil: at.Add(time.Hour), Node: "n"}
			b.ResetTimer()
			for range b.N {
				got, err := s.ClaimJobs(ctx, c)
				if err != nil || len(got.Jobs) != 1 {
					b.Fatalf("claimed %+v, %v", got, err)
				}
			}
		})
	}
}
