package storage

import (
	"context"
	"maps"
	"slices"
	"time"

	"github.com/qjobs/quantum/qtype"
)

// BatchClaimer is implemented by a Store that claims several jobs in one
// step (store/postgres does it in one statement, the memory store under
// one lock). When its store is one, the runner claims at once a job for
// each of its free workers that the free memory allows, in the order its
// successive claims would take them, instead of a list of the queues and
// a claim for each job.
//
// ClaimJobs claims as the successive ClaimJob calls that c.Plan(Q) lists
// would, in one atomic step, where Q is the queues (Queues) of c.Devices
// that hold QUEUED jobs at the time of the claim:
//
//   - the k-th entry of the plan that names a queue takes the oldest
//     QUEUED job of that queue not taken by an earlier entry and not held
//     by a concurrent claim (of any node), and moves it to RUNNING as
//     ClaimJob does: UpdatedAt c.Now, LeaseUntil c.LeaseUntil, Node
//     c.Node, Attempts one more;
//   - an entry whose queue has no such job takes nothing, and the walk
//     goes on with the next entry;
//   - c.MaxMemory is the memory (MemoryNeed, a negative one counting as
//     0) that the jobs taken may need together. The first job that would
//     take the sum past it stops the walk: it and every job of the
//     entries after it stay QUEUED, and it is returned as Short, a copy
//     as it is, so that it waits at the head of its queue rather than be
//     overtaken (ClaimJob's ErrMemoryShort).
//
// It returns the jobs taken in the order of the plan's entries that took
// them, each with the entry's index and the job's program (so that
// running it needs no further read). Concurrent claims never hand out the
// same job. An error claims nothing. store/storetest checks all of it
// for every store that is a BatchClaimer.
type BatchClaimer interface {
	ClaimJobs(ctx context.Context, c BatchClaim) (*ClaimedJobs, error)
}

// BatchClaim says which jobs ClaimJobs may take, and in which order.
type BatchClaim struct {
	// Max is the most jobs to take (at most a few hundred).
	Max int
	// Devices are the devices whose queues may be served; the jobs of
	// others wait.
	Devices []string
	// The order of the turns (see Plan): First, if not nil, is served
	// first; then users take turns in the order of their IDs, starting
	// after LastOwner, and each user's devices take turns in the order
	// of their QRNs, starting after LastDevice[user].
	First      *Queue
	LastOwner  string
	LastDevice map[string]string

	MaxMemory  int64
	Now        time.Time
	LeaseUntil time.Time
	Node       string
}

// Plan returns the queues that c.Max successive claims serve, in order,
// when queues (of c.Devices) hold QUEUED jobs, as many as they are named:
// First, if it is one of them, then the queue of the user next after
// the last one served (cyclically, in the order of their IDs), of that
// user's device next after the one last served to them. It is the
// runner's order of turns, taken Max times.
func (c BatchClaim) Plan(queues []Queue) []Queue {
	queues = slices.DeleteFunc(slices.Clone(queues), func(q Queue) bool { return !slices.Contains(c.Devices, q.Device) })
	t := Turns{LastOwner: c.LastOwner, LastDevice: maps.Clone(c.LastDevice)}
	if c.First != nil {
		q := *c.First
		t.Blocked = &q
	}
	var out []Queue
	if len(queues) > 0 {
		out = make([]Queue, 0, min(max(c.Max, 0), 64)) // a turn a claim
	}
	for range c.Max {
		order := t.Order(queues)
		if len(order) == 0 {
			break
		}
		out = append(out, order[0])
		t.Served(order[0])
	}
	return out
}

// ClaimedJobs is what ClaimJobs took.
type ClaimedJobs struct {
	Jobs []ClaimedJob
	// Short is the job that needs more memory than was left, still
	// QUEUED, or nil.
	Short *JobRecord
	// ControlsVersion is, for a store that is a ControlStore, the version
	// of its controls when the claim was made (when it claimed a job);
	// else 0. A claim leaves in the queue the jobs of devices that its
	// controls hold or that are OFFLINE or UNAVAILABLE.
	ControlsVersion int64
}

// ClaimedJob is one job that ClaimJobs moved to RUNNING.
type ClaimedJob struct {
	Job     *JobRecord
	Program *qtype.Program
	Turn    int // the index in the plan of the entry that took it
}
