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
