package sim

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Every share runs exactly once, with callers side by side competing for
// the pool's workers.
func TestParallelForRunsEveryShareOnce(t *testing.T) {
	var wg sync.WaitGroup
	for caller := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for shares := range 10 {
				for _, helpers := range []int{1, 2, 3, 64} {
					counts := make([]atomic.Int32, shares)
					var bySlot [64]atomic.Int32 // a slot runs one share at a time
					parallelFor(shares, helpers, func(slot, s int) {
						if slot >= min(helpers, shares) {
							t.Errorf("%d shares, %d helpers: slot %d", shares, helpers, slot)
							return
						}
						if bySlot[slot].Add(1) != 1 {
							t.Errorf("%d shares, %d helpers: slot %d used by two goroutines at once", shares, helpers, slot)
						}
						counts[s].Add(1)
						bySlot[slot].Add(-1)
					})
					for s := range counts {
						if n := counts[s].Load(); n != 1 {
							t.Errorf("caller %d, %d shares, %d helpers: share %d ran %d times", caller, shares, helpers, s, n)
						}
					}
				}
			}
		}()
	}
	wg.Wait()
}

// restartPool stops the pool's workers and lets the next parallelFor
// start new ones, with GOMAXPROCS set to procs meanwhile.
func restartPool(procs int) {
	runtime.GOMAXPROCS(procs)
	if pool.jobs != nil {
		close(pool.jobs) // the workers leave their loop
	}
	pool.jobs = nil
	pool.once = sync.Once{}
	pool.idle.Store(0)
}

// The workers of a pool just started, and those just back from a loop,
// take the next loop: no share of it waits for one of them in vain. Each
// loop's two shares meet (a share waits for the other's slot), so a loop
// the caller ran alone would fail here. The first loop is the one that
// used to run alone: the workers had not reached the channel yet, and a
// process's first kernel, which takes its state's page faults, ran on one
// core.
func TestPoolWorkersJoinEveryLoop(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { restartPool(procs) })
	restartPool(2)
	for loop := range 200 {
		var seen [2]atomic.Bool
		var missed atomic.Bool
		parallelFor(2, 2, func(slot, _ int) {
			seen[slot].Store(true)
			deadline := time.Now().Add(10 * time.Second)
			for !seen[1-slot].Load() {
				if time.Now().After(deadline) {
					missed.Store(true)
					return
				}
				runtime.Gosched()
			}
		})
		if missed.Load() {
			t.Fatalf("loop %d: one goroutine ran both shares; the pool's worker never joined", loop)
		}
	}
}

// A run of gates starts no goroutine per gate: after the pool has started,
// applying many kernels leaves the goroutine count where it was.
func BenchmarkParallelFor(b *testing.B) {
	var sink atomic.Int64
	for b.Loop() {
		parallelFor(2, 2, func(_, s int) { sink.Add(int64(s)) })
	}
}
