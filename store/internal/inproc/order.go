package inproc

import (
	"slices"
	"strings"
	"time"

	"github.com/qjobs/quantum/storage"
)

// CompareQueues orders queues by device, then owner: the order in which
// the stores list them (Queues).
func CompareQueues(a, b storage.Queue) int {
	if c := strings.Compare(a.Device, b.Device); c != 0 {
		return c
	}
	return strings.Compare(a.Owner, b.Owner)
}

// ChangeKey orders jobs by their last change, oldest first, then QRN:
// the order in which the stores return unfinished jobs (Unfinished).
type ChangeKey struct {
	At  time.Time
	QRN string
}

// CompareChange is the order of ChangeKeys.
func CompareChange(a, b ChangeKey) int {
	if c := a.At.Compare(b.At); c != 0 {
		return c
	}
	return strings.Compare(a.QRN, b.QRN)
}

// SortByUpdate sorts jobs by their ChangeKeys.
func SortByUpdate(jobs []*storage.JobRecord) {
	slices.SortFunc(jobs, func(a, b *storage.JobRecord) int {
		return CompareChange(ChangeKey{a.UpdatedAt, a.JobQRN}, ChangeKey{b.UpdatedAt, b.JobQRN})
	})
}
