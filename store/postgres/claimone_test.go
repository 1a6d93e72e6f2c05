package postgres

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/qjobs/quantum/internal/pgtest"
	"github.com/qjobs/quantum/storage"
)

// TestClaimOneAsClaimJobs: on random queues (owners, devices, memory
// needs, held and OFFLINE devices, jobs not QUEUED) and random claims of
// one job (the devices served, the queue served first, the owner and
// devices last served, the free memory), claimOne answers what claimJobs
// answers: the same job, or the same short one, or nothing.
func TestClaimOneAsClaimJobs(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, pgtest.DSN(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	rng := rand.New(rand.NewPCG(43, 1))
	owners, devices := []string{"alice", "bob", "carol"}, []string{"d1", "d2", "d3"}
	pick := func(xs []string) string { return xs[rng.IntN(len(xs))] }
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	claimedAny, shortAny := 0, 0
	for scenario := range 200 {
		if _, err := s.pool.Exec(ctx, "TRUNCATE quantum_job_states, quantum_job_requests, quantum_device_controls"); err != nil {
			t.Fatal(err)
		}
		for i := range rng.IntN(14) {
			qrn := fmt.Sprintf("job-%d", i)
			status := "QUEUED"
			if rng.IntN(5) == 0 {
				status = "RUNNING"
			}
			owner, device := pick(owners), pick(devices)
			if _, err := s.pool.Exec(ctx, `INSERT INTO quantum_job_requests (qrn, owner, vendor, provider, created_ns, search, tags, format, data)
				VALUES ($1, $2, 'v', 'p', 0, ARRAY['', $1, $3], '{}', 'qasm2', 'x')`, qrn, owner, device); err != nil {
				t.Fatal(err)
			}
			if _, err := s.pool.Exec(ctx, `INSERT INTO quantum_job_states (qrn, owner, device_qrn, status, created_ns, updated_ns, queued_ns,
					memory_need, attempts, node, record)
				VALUES ($1, $2, $3, $4, 0, 0, $5, $6, 0, '', json_build_object('jobQrn', $1::text, 'Owner', $2::text, 'deviceQrn', $3::text))`,
				qrn, owner, device, status, rng.IntN(6), rng.IntN(100)); err != nil {
				t.Fatal(err)
			}
		}
		for _, d := range devices {
			switch rng.IntN(6) {
			case 0:
				_, err = s.pool.Exec(ctx, "INSERT INTO quantum_device_controls (device, status, held) VALUES ($1, 'ONLINE', true)", d)
			case 1:
				_, err = s.pool.Exec(ctx, "INSERT INTO quantum_device_controls (device, status) VALUES ($1, 'OFFLINE')", d)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		c := storage.BatchClaim{Max: 1, MaxMemory: int64(rng.IntN(120)), Now: at, LeaseUntil: at.Add(time.Hour), Node: "n",
			LastDevice: map[string]string{}}
		for _, d := range devices {
			if rng.IntN(3) > 0 {
				c.Devices = append(c.Devices, d)
			}
		}
		if len(c.Devices) == 0 {
			c.Devices = []string{pick(devices)}
		}
		if rng.IntN(3) == 0 {
			c.First = &storage.Queue{Device: pick(devices), Owner: pick(owners)}
		}
		if rng.IntN(2) == 0 {
			c.LastOwner = pick(owners)
		}
		for _, o := range owners {
			if rng.IntN(2) == 0 {
				c.LastDevice[o] = pick(devices)
			}
		}
		_, args, err := claimStatement(c)
		if err != nil {
			t.Fatal(err)
		}
		full, one := claimAnswer(t, s, claimJobs, args), claimAnswer(t, s, claimOne, args)
		if !slices.Equal(full, one) {
			t.Fatalf("scenario %d, claim %+v (first %+v): claimJobs answers %v, claimOne %v", scenario, c, c.First, full, one)
		}
		if len(full) > 0 && full[0][0] == '0' {
			claimedAny++
		}
		if len(full) > 0 && full[0][0] == '-' {
			shortAny++
		}
	}
	if claimedAny < 50 || shortAny < 10 {
		t.Fatalf("the scenarios claimed %d times and found a short job %d times: too few to tell", claimedAny, shortAny)
	}
}

// errRollback undoes a claim made to see what it answers.
var errRollback = errors.New("rollback")

// claimAnswer runs a claim statement and answers its rows as "slot qrn",
// undoing the claim.
func claimAnswer(t *testing.T, s *Store, stmt string, args []any) []string {
	t.Helper()
	var out []string
	err := pgx.BeginFunc(context.Background(), s.batch, func(tx pgx.Tx) error {
		rows, err := tx.Query(context.Background(), stmt, args...)
		if err != nil {
			return err
		}
		var slot, xmin, controls int64
		var data []byte
		var format, program *string
		_, err = pgx.ForEachRow(rows, []any{&slot, &xmin, &data, &format, &program, &controls}, func() error {
			j, err := decode(data)
			if err != nil {
				return err
			}
			out = append(out, fmt.Sprintf("%d %s", slot, j.JobQRN))
			return nil
		})
		if err != nil {
			return err
		}
		return errRollback
	})
	if !errors.Is(err, errRollback) {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}
