package quantum

import (
	"context"
	"sync"
)

// lowestFailure calls fn for 0 to n-1 on up to lanes goroutines and
// returns the lowest index whose call failed, with its error, as a loop
// would: once i has failed, no index past it starts, and those before it
// all finish.
func lowestFailure(ctx context.Context, n, lanes int, fn func(i int) error) (int, error) {
	if lanes <= 1 || n <= 1 {
		// One lane is a loop: no goroutine to start for the common
		// single program.
		for i := range n {
			if err := ctx.Err(); err != nil {
				return 0, err
			}
			if err := fn(i); err != nil {
				return i, err
			}
		}
		return n, ctx.Err()
	}
	w := &firstFailure{failed: n}
	var wg sync.WaitGroup
	for range max(lanes, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i, ok := w.take(ctx)
				if !ok {
					return
				}
				if err := fn(i); err != nil {
					w.fail(i, err)
				}
			}
		}()
	}
	wg.Wait()
	if w.failure == nil && ctx.Err() != nil {
		return 0, ctx.Err()
	}
	return w.failed, w.failure
}

// firstFailure hands out the indices of a batch's elements in order, and
// keeps the first that failed: once one has, no later one is handed out.
type firstFailure struct {
	mu      sync.Mutex
	next    int
	failed  int // the first index that failed, or the batch's length
	failure error
}

func (w *firstFailure) take(ctx context.Context) (int, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.next >= w.failed || ctx.Err() != nil {
		return 0, false
	}
	w.next++
	return w.next - 1, true
}

func (w *firstFailure) fail(i int, err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if i < w.failed {
		w.failed, w.failure = i, err
	}
}
