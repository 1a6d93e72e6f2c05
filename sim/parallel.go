package sim

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// A process-wide pool of worker goroutines runs the shares of a large
// kernel, so that a circuit of thousands of gates does not start
// thousands of goroutines. The caller works too: it hands the job to the
// workers that are idle, then claims shares itself until none are left,
// so a busy pool (jobs running side by side) only means fewer helpers,
// never a wait for a busy worker or a deadlock.

var pool struct {
	once sync.Once
	jobs chan *parJob
	// idle counts the workers that have no job: waiting on jobs, or on
	// their way there. A caller takes one off the count before it sends,
	// so its send waits at most for that worker to reach the channel. A
	// send that gave up when no worker was at the channel at that instant
	// lost the workers just started (the first kernel of a process, which
	// also takes the state's page faults, ran on one core) and those just
	// back from the last kernel.
	idle atomic.Int64
}

// reserveIdle takes one idle worker off the count, reporting false when
// there is none.
func reserveIdle() bool {
	for {
		n := pool.idle.Load()
		if n <= 0 {
			return false
		}
		if pool.idle.CompareAndSwap(n, n-1) {
			return true
		}
	}
}

// parJob is a loop of shares that any goroutine may claim one by one.
// Each goroutine that joins gets a slot of its own (0 for the first,
// then 1, 2 …, below min(helpers, shares)), for scratch space that must
// not be shared.
type parJob struct {
	next   atomic.Int64
	slots  atomic.Int64
	shares int64
	run    func(slot, share int)
	done   sync.WaitGroup // the shares
	joined sync.WaitGroup // the workers that took the job, until they leave it
}

// jobs recycles parJobs, so that a loop that runs every shot allocates
// nothing: a job goes back only once every worker that took it has left.
var jobs = sync.Pool{New: func() any { return new(parJob) }}

func (j *parJob) work() {
	slot := int(j.slots.Add(1) - 1)
	for {
		s := j.next.Add(1) - 1
		if s >= j.shares {
			return
		}
		j.run(slot, int(s))
		j.done.Done()
	}
}

// parallelFor runs run(slot, 0) … run(slot, shares−1) on the caller and
// up to helpers−1 pool workers, and returns when every share has run.
// Shares are claimed one at a time, so a core that falls behind (another
// job, another process, a host that takes the CPU away) leaves its shares
// to the others instead of holding the whole loop back; slot is the
// claiming goroutine's, below min(helpers, shares).
func parallelFor(shares, helpers int, run func(slot, share int)) {
	if shares <= 1 || helpers <= 1 {
		for s := range shares {
			run(0, s)
		}
		return
	}
	pool.once.Do(func() {
		pool.jobs = make(chan *parJob)
		workers := min(runtime.GOMAXPROCS(0), maxWorkers) - 1
		pool.idle.Store(int64(workers))
		for range workers {
			go func() {
				for j := range pool.jobs {
					j.work()
					// Idle again before the caller can return: its next
					// kernel counts this worker.
					pool.idle.Add(1)
					j.joined.Done()
				}
			}()
		}
	})
	j := jobs.Get().(*parJob)
	j.next.Store(0)
	j.slots.Store(0)
	j.shares, j.run = int64(shares), run
	j.done.Add(shares)
	for range min(helpers, shares) - 1 {
		if !reserveIdle() {
			break
		}
		j.joined.Add(1)
		pool.jobs <- j // the worker reserved is bound to receive it
	}
	j.work()
	j.done.Wait()
	j.joined.Wait()
	j.run = nil
	jobs.Put(j)
}
