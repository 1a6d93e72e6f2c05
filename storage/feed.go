package storage

import (
	"context"

	"github.com/qjobs/quantum/qtype"
)

// ChangeFeed is implemented by a Store that several Services share, each
// one a node: it tells every node about the status changes that any of
// them makes. A job queued on one node then wakes the idle workers of all
// at once, and a cancel received by one node stops the job on the node
// that runs it.
type ChangeFeed interface {
	// WatchChanges calls fn with every change of a job's status in the
	// store, made by any node, until ctx ends or the feed fails, and
	// returns what stopped it. Once it listens it calls fn with a zero
	// Change, meaning that changes before it may have been missed, so the
	// caller looks at the store again. fn is called on the goroutine that
	// called WatchChanges, and should return quickly.
	WatchChanges(ctx context.Context, fn func(Change)) error
}

// Change is a job's move to a new status (or its creation), or a change
// of the controls, as a ChangeFeed reports it.
type Change struct {
	JobQRN    string
	DeviceQRN string
	Owner     string
	Status    qtype.JobStatus
	// Controls says that the store's controls changed (ControlStore): the
	// other fields are empty.
	Controls bool
}

// FollowedFeed is a ChangeFeed that spares the nodes the changes that
// nobody follows. While no node follows them all (FollowAll), it sends
// only the changes a runner acts on: jobs moved to QUEUED (work to claim)
// and to CANCELLING (a run to stop), and the controls'. A node that has
// watchers of jobs (Service.WatchJob, WatchJobs, Wait) follows them all.
type FollowedFeed interface {
	ChangeFeed
	// FollowAll has the feed send every change until release is called
	// (once; a second call does nothing). When it returns, every change
	// that a read made after it does not see is sure to be sent to this
	// store's WatchChanges. When WatchChanges is not listening it returns
	// at once: WatchChanges follows them all before it reports, with its
	// zero Change, that changes may have been missed; it reports a zero
	// Change too whenever it begins to follow them all while it listens,
	// before FollowAll returns. It answers ctx's error if ctx ends first.
	FollowAll(ctx context.Context) (release func(), err error)
}
