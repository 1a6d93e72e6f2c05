package postgres

import (
	"sync"
	"sync/atomic"
	"testing"
)

// TestGroupSendsEachCallOnce: of calls made at once from many goroutines,
// each is sent in exactly one batch of at most max, and returns only once
// its batch has been sent; batches are never sent two at a time.
func TestGroupSendsEachCallOnce(t *testing.T) {
	const callers, calls, max = 16, 500, 8
	type item struct {
		sent atomic.Int32
	}
	var sending, batches, biggest atomic.Int32
	g := &group[item]{max: max, send: func(vs []*item) {
		if sending.Add(1) != 1 {
			t.Error("two batches sent at once")
		}
		defer sending.Add(-1)
		if len(vs) == 0 || len(vs) > max {
			t.Errorf("a batch of %d", len(vs))
		}
		batches.Add(1)
		for n := biggest.Load(); int32(len(vs)) > n && !biggest.CompareAndSwap(n, int32(len(vs))); n = biggest.Load() {
		}
		for _, v := range vs {
			v.sent.Add(1)
		}
	}}
	var wg sync.WaitGroup
	for range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range calls {
				v := &item{}
				g.do(v)
				if n := v.sent.Load(); n != 1 {
					t.Errorf("a call returned after being sent %d times", n)
					return
				}
			}
		}()
	}
	wg.Wait()
	t.Logf("%d calls in %d batches, the largest %d", callers*calls, batches.Load(), biggest.Load())
	if g.busy || len(g.pending) != 0 {
		t.Fatalf("after every call: busy %v, %d pending", g.busy, len(g.pending))
	}
}
