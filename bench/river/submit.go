package main

import (
	"context"
	"sync"
	"sync/atomic"
)

// submit is the clients of both shapes: clients goroutines, each creating
// one job at a time, until n jobs are created in all. create is given the
// client's number c, its count of jobs so far i (so that client c's i-th
// job goes to node (c+i) mod nodes, as in BenchmarkNodes) and the job's
// number k, 0 to n−1. The first error stops every client and is returned.
func submit(ctx context.Context, n, clients int, create func(ctx context.Context, c, i, k int) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		wg   sync.WaitGroup
		next atomic.Int64
	)
	for c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				k := int(next.Add(1) - 1)
				if k >= n || ctx.Err() != nil {
					return
				}
				if err := create(ctx, c, i, k); err != nil {
					cancel(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	return context.Cause(ctx)
}
