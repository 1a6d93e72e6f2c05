package sim

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// A process-wide pool of worker goroutines runs the shares of a large
// kernel, so that a circuit of thousands of gates does not start
// thousands of goroutines. The caller works too: it offers the job to
// idle workers without waiting for one, then claims shares itself until
// none are left, so a busy pool (jobs running side by side) only means
// fewer helpers, never a wait or a deadlock.

var pool struct {
	once sync.Once
	jobs chan *parJob
}

// parJob is a loop of shares that any goroutine may claim one by one.
type parJob struct {
	next   atomic.Int64
	shares int64
	run    func(share int)
	done   sync.WaitGroup
}

func (j *parJob) work() {
	for {
		s := j.next.Add(1) - 1
		if s >= j.shares {
			return
		}
		j.run(int(s))
		j.done.Done()
	}
}

// parallelFor runs run(0) … run(shares−1) on the caller and up to
// shares−1 pool workers, and returns when every share has run.
func parallelFor(shares int, run func(share int)) {
	if shares <= 1 {
		if shares == 1 {
			run(0)
		}
		return
	}
	pool.once.Do(func() {
		// Unbuffered: an offer succeeds only while a worker waits.
		pool.jobs = make(chan *parJob)
		for range min(runtime.GOMAXPROCS(0), maxWorkers) - 1 {
			go func() {
				for j := range pool.jobs {
					j.work()
				}
			}()
		}
	})
	j := &parJob{shares: int64(shares), run: run}
	j.done.Add(shares)
offer:
	for range shares - 1 {
		select {
		case pool.jobs <- j:
		default:
			break offer
		}
	}
	j.work()
	j.done.Wait()
}
