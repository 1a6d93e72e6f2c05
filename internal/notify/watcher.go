package notify

import (
	"sync"

	"github.com/qjobs/quantum/storage"
)

// Pending is a change not yet read by its watcher: the job as stored
// after it, or nil when the watcher must read the job itself.
type Pending struct {
	QRN string
	Rec *storage.JobRecord
	Seq uint64
}

// Bounds on the changes a watcher holds unread: past them it forgets
// them and reads afresh (one job) or resets (all jobs).
const (
	jobWatchQueue   = 64
	ownerWatchQueue = 1024
)

// Watcher is what the Notifier knows of one watch: the job it follows
// (or the owner whose jobs it follows), and the changes it has not read.
type Watcher struct {
	qrn   string // the job watched; "" for all of owner's jobs
	owner string
	ready chan struct{}

	mu    sync.Mutex
	queue []Pending
	lost  bool // changes may have been missed: read the job again, or reset
	seq   uint64
}

// NewWatcher returns the watcher of one of owner's jobs, or of all of them
// when qrn is "".
func NewWatcher(owner, qrn string) *Watcher {
	w := &Watcher{qrn: qrn, owner: owner, ready: make(chan struct{}, 1)}
	if qrn != "" {
		w.queue = make([]Pending, 0, 4) // room for a job's few changes
	}
	return w
}

// Ready is signalled when Take may have changes.
func (w *Watcher) Ready() <-chan struct{} { return w.ready }

func (w *Watcher) push(p Pending) {
	w.mu.Lock()
	defer w.mu.Unlock()
	limit := jobWatchQueue
	if w.qrn == "" {
		limit = ownerWatchQueue
	}
	if len(w.queue) >= limit {
		w.queue, w.lost = nil, true
	} else {
		w.queue = append(w.queue, p)
	}
	w.signal()
}

// Lose drops the changes not read: the watch reads its jobs afresh.
func (w *Watcher) Lose() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.queue, w.lost = nil, true
	w.signal()
}

// Resumed puts the changes a resume found before those since, and says
// whether some could not be found.
func (w *Watcher) Resumed(changed []Pending, all bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !all {
		w.lost = true
	}
	w.queue = append(changed, w.queue...)
	w.signal()
}

// signal marks the watch ready; w.mu is held.
func (w *Watcher) signal() {
	select {
	case w.ready <- struct{}{}:
	default:
	}
}

// Take returns the changes not yet read, and whether some were lost.
func (w *Watcher) Take() ([]Pending, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	queue, lost := w.queue, w.lost
	w.queue, w.lost = nil, false
	return queue, lost
}

// GiveBack lets the watch use the room of a queue Take returned, read.
func (w *Watcher) GiveBack(queue []Pending) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.queue == nil {
		clear(queue)
		w.queue = queue[:0]
	}
}
