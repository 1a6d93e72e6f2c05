package sim

import (
	"sync"
	"sync/atomic"
	"testing"
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

// A run of gates starts no goroutine per gate: after the pool has started,
// applying many kernels leaves the goroutine count where it was.
func BenchmarkParallelFor(b *testing.B) {
	var sink atomic.Int64
	for b.Loop() {
		parallelFor(2, 2, func(_, s int) { sink.Add(int64(s)) })
	}
}
