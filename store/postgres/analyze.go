package postgres

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
)

// growth has the job tables analyzed while they are young and grow fast.
//
// The batched statements run on generic plans, made once a connection
// from the planner's statistics of the day. Made while the tables are
// empty or never analyzed, they scan a table where an index finds the few
// rows wanted: cheap at first, then a read of every job at each claim as
// the table grows. Autovacuum analyzes a table only after a tenth of it
// has changed and at most once a minute, so a fresh database runs on its
// first plans for a while. An ANALYZE invalidates every cached plan that
// reads the table, in every session, so the next execution plans again
// for what the table has become.
//
// So each node counts the jobs it inserts, and when they reach the rows
// the planner last saw (at least minGrowth), it analyzes the job tables
// in the background, one ANALYZE at a time, unless the planner already
// sees them or another node is analyzing them. Past maxAnalyzed rows the
// plans no longer change with size and autovacuum's own pace is enough.
type growth struct {
	// analyze runs ANALYZE, given the rows seen at the last analysis and
	// the jobs inserted since, and answers the rows the planner now sees.
	analyze func(ctx context.Context, seen, inserted int64) (float64, error)

	inserted atomic.Int64 // jobs inserted by this node since the last analysis
	seen     atomic.Int64 // rows the planner saw at the last analysis
	running  atomic.Bool

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

const (
	// minGrowth is the fewest jobs inserted between two analyses.
	minGrowth = 128
	// maxAnalyzed is the size past which this node leaves the tables to
	// autovacuum.
	maxAnalyzed = 1 << 17
	// analyzeTimeout bounds one ANALYZE.
	analyzeTimeout = time.Minute
)

func newGrowth(seen float64, analyze func(ctx context.Context, seen, inserted int64) (float64, error)) *growth {
	g := &growth{analyze: analyze}
	g.seen.Store(int64(max(seen, 0)))
	g.ctx, g.cancel = context.WithCancel(context.Background())
	return g
}

// add notes n jobs inserted and starts an analysis when they are
// enough.
func (g *growth) add(n int) {
	seen := g.seen.Load()
	if seen >= maxAnalyzed {
		return
	}
	inserted := g.inserted.Add(int64(n))
	if inserted < max(seen, minGrowth) || !g.running.CompareAndSwap(false, true) {
		return
	}
	g.wg.Add(1)
	go func() {
		defer g.wg.Done()
		defer g.running.Store(false)
		ctx, cancel := context.WithTimeout(g.ctx, analyzeTimeout)
		defer cancel()
		rows, err := g.analyze(ctx, seen, inserted)
		g.inserted.Store(0)
		if err != nil {
			// Tried again after twice the inserts; a role that does not
			// own the tables, whose ANALYZE PostgreSQL skips with a
			// warning, leaves the plans to autovacuum in the same way.
			rows = float64(2 * max(seen, minGrowth))
		}
		g.seen.Store(int64(max(rows, float64(seen))))
	}()
}

// stop cancels an analysis under way and waits for it.
func (g *growth) stop() {
	g.cancel()
	g.wg.Wait()
}

// analyzeJobs analyzes the job tables, unless another node has since
// seen, inserted and more (its growth analyzed them), and answers the
// rows the planner now sees in quantum_job_states.
func (s *Store) analyzeJobs(ctx context.Context, seen, inserted int64) (float64, error) {
	if rows, err := s.jobRows(ctx); err != nil || rows >= float64(seen+inserted) {
		return rows, err
	}
	// One node at a time: the others, finding the lock taken, leave it to
	// that one (and look again after as many more inserts).
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var mine bool
		if err := tx.QueryRow(ctx, "SELECT pg_try_advisory_xact_lock($1, 0)", analyzeClass).Scan(&mine); err != nil || !mine {
			return err
		}
		_, err := tx.Exec(ctx, "ANALYZE quantum_job_states, quantum_job_requests")
		return err
	})
	if err != nil {
		return 0, err
	}
	return s.jobRows(ctx)
}

// analyzeClass is the first half of the advisory lock key under which a
// node analyzes the job tables ("qanl").
const analyzeClass = 0x71616e6c

// jobRows is the planner's count of rows in quantum_job_states: -1 for a
// table never analyzed.
func (s *Store) jobRows(ctx context.Context) (float64, error) {
	var n float64
	err := s.pool.QueryRow(ctx, "SELECT reltuples FROM pg_class WHERE oid = 'quantum_job_states'::regclass").Scan(&n)
	return n, err
}
