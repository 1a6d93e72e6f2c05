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
				counts := make([]atomic.Int32, shares)
				parallelFor(shares, func(s int) { counts[s].Add(1) })
				for s := range counts {
					if n := counts[s].Load(); n != 1 {
						t.Errorf("caller %d, %d shares: share %d ran %d times", caller, shares, s, n)
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
		parallelFor(2, func(s int) { sink.Add(int64(s)) })
	}
}
