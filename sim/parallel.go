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
		// Unbuffered: an offer succeeds only while a worker waits.
		pool.jobs = make(chan *parJob)
		for range min(runtime.GOMAXPROCS(0), maxWorkers) - 1 {
			go func() {
				for j := range pool.jobs {
					j.work()
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
offer:
	for range min(helpers, shares) - 1 {
		j.joined.Add(1)
		select {
		case pool.jobs <- j:
		default:
			j.joined.Done()
			break offer
		}
	}
	j.work()
	j.done.Wait()
	j.joined.Wait()
	j.run = nil
	jobs.Put(j)
}
