package quantum

import (
	"context"
	"time"
)

// BatchClaimer is implemented by a Store that claims several jobs in one
// step (store/postgres does it in one statement, the memory store under
// one lock). When its store is one, the runner claims at once a job for
// each of its free workers that the free memory allows, instead of one
// claim (and one list of the queues) a job.
//
// ClaimJobs claims as successive ClaimJob calls would, one for each
// entry of c.Turns in order, in one atomic step:
//
//   - the k-th entry naming a queue takes the oldest QUEUED job of that
//     queue not taken by an earlier entry and not held by a concurrent
//     claim (of any node), and moves it to RUNNING as ClaimJob does:
//     UpdatedAt c.Now, LeaseUntil c.LeaseUntil, Node c.Node, Attempts
//     one more;
//   - an entry whose queue has no such job takes nothing, and the walk
//     goes on with the next entry;
//   - c.MaxMemory is the memory (MemoryNeed, a negative one counting as
//     0) that the jobs taken may need together. The first job that would
//     take the sum past it stops the walk: it and every job of the
//     entries after it stay QUEUED, and it is returned as Short, a copy
//     as it is, so that it waits at the head of its queue rather than be
//     overtaken (ClaimJob's ErrMemoryShort).
//
// It returns the jobs taken in the order of the entries that took them,
// each with the entry's index and the job's program (so that running it
// needs no further read). Concurrent claims never hand out the same job.
// An error claims nothing. store/storetest checks all of it for every
// store that is a BatchClaimer.
type BatchClaimer interface {
	ClaimJobs(ctx context.Context, c BatchClaim) (*ClaimedJobs, error)
}

// BatchClaim says which jobs ClaimJobs may take.
type BatchClaim struct {
	// Turns is one queue an entry, in the order the jobs are taken; a
	// queue named twice gives two jobs. At most a few hundred.
	Turns      []Queue
	MaxMemory  int64
	Now        time.Time
	LeaseUntil time.Time
	Node       string
}

// ClaimedJobs is what ClaimJobs took.
type ClaimedJobs struct {
	Jobs []ClaimedJob
	// Short is the job that needs more memory than was left, still
	// QUEUED, or nil.
	Short *JobRecord
}

// ClaimedJob is one job that ClaimJobs moved to RUNNING.
type ClaimedJob struct {
	Job     *JobRecord
	Program *Program
	Turn    int // the index in BatchClaim.Turns of the entry that took it
}
