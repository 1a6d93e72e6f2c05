package postgres

import (
	"context"
	"errors"
	"testing"
)

// TestGrowthAnalyzesAtEachDoubling: the tables are analyzed once the jobs
// this node inserted reach the rows the planner last saw (at least
// minGrowth), after a failed analysis once twice as many are inserted,
// and never again once they pass maxAnalyzed.
func TestGrowthAnalyzesAtEachDoubling(t *testing.T) {
	var calls int
	var rows float64
	var fail error
	g := newGrowth(-1, func(context.Context, int64, int64) (float64, error) {
		calls++
		return rows, fail
	})
	defer g.stop()
	step := func(n, wantCalls int) {
		t.Helper()
		g.add(n)
		g.wg.Wait()
		if calls != wantCalls {
			t.Fatalf("after %d more inserts: %d analyses, want %d", n, calls, wantCalls)
		}
	}
	step(minGrowth-1, 0)
	rows = 1000
	step(1, 1) // minGrowth inserted since the start
	step(999, 1)
	rows = 2100
	step(1, 2) // as many as the planner saw
	fail = errors.New("refused")
	step(2099, 2)
	step(1, 3) // failed: the next one after twice as many
	fail = nil
	step(2*2100-1, 3)
	rows = maxAnalyzed
	step(1, 4)
	step(10*maxAnalyzed, 4) // past maxAnalyzed: autovacuum's
}
