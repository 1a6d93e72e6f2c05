// Package notify tells a Service's watchers (Wait, event streams) about
// job changes as they happen: the ones the Service makes, which it sees
// with the job as stored, and, through a store's change feed, the ones
// other nodes make, which it sees by QRN only.
package notify

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/qjobs/quantum/storage"
)

// Notifier tells this process's watchers (Wait, event streams) about job
// changes as they happen: the ones this Service makes, which it sees with
// the job as stored, and, through a store's ChangeFeed, the ones other
// nodes make, which it sees by QRN only (the watcher reads the job
// again).
//
// It keeps no state per job: only the watchers, indexed by job and by
// owner, and a ring of the last changes for the resume of an owner's
// stream. Idle watchers cost a small struct each and nothing grows with
// time.
type Notifier struct {
	mu      sync.Mutex
	byJob   map[string]map[*Watcher]struct{}
	byOwner map[string]map[*Watcher]struct{}
	seq     uint64
	epoch   string // names this notifier's sequence: it starts again with the process
	ring    [ringSize]ringEntry
	closed  bool // the Service is closing: watches end
	// lost is the last change published before changes were last missed
	// (Missed), when missed is set: a resume from it or before cannot
	// know them all.
	lost   uint64
	missed bool
}

// ringSize is how many recent changes an owner's stream can resume from.
const ringSize = 4096

type ringEntry struct {
	seq   uint64
	owner string
	qrn   string
}

// New returns a Notifier with no watchers.
func New() *Notifier {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &Notifier{
		byJob:   map[string]map[*Watcher]struct{}{},
		byOwner: map[string]map[*Watcher]struct{}{},
		epoch:   hex.EncodeToString(b[:]),
	}
}

// Publish tells the watchers of a job and of its owner that it changed.
// rec is the job as stored after the change, or nil when only the QRN is
// known (a change made by another node); watchers must not modify it.
func (n *Notifier) Publish(qrn, owner string, rec *storage.JobRecord) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.seq++
	n.ring[n.seq%ringSize] = ringEntry{seq: n.seq, owner: owner, qrn: qrn}
	p := Pending{QRN: qrn, Rec: rec, Seq: n.seq}
	for w := range n.byJob[qrn] {
		w.push(p)
	}
	if owner != "" {
		for w := range n.byOwner[owner] {
			w.push(p)
		}
	} else {
		// A change whose owner is unknown may be any owner's.
		for _, ws := range n.byOwner {
			for w := range ws {
				w.push(p)
			}
		}
	}
}

// Watching reports whether anyone watches the job or its owner, so that
// a change nobody follows costs no copy.
func (n *Notifier) Watching(qrn, owner string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.byJob[qrn]) > 0 || len(n.byOwner[owner]) > 0
}

// Missed tells every watcher that changes may have been missed (the
// change feed was down, or sent only some): each reads its jobs again,
// and a resume from before now starts with a reset.
func (n *Notifier) Missed() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.lost, n.missed = n.seq, true
	n.loseAll()
}

// Shutdown ends every watch: their next Next answers SERVICE_BUSY, as
// does every new watch.
func (n *Notifier) Shutdown() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = true
	n.loseAll()
}

// IsClosed reports whether Shutdown was called.
func (n *Notifier) IsClosed() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.closed
}

// loseAll wakes every watcher to read afresh; n.mu is held.
func (n *Notifier) loseAll() {
	for _, ws := range n.byJob {
		for w := range ws {
			w.Lose()
		}
	}
	for _, ws := range n.byOwner {
		for w := range ws {
			w.Lose()
		}
	}
}

// indexOf is the index a watch is filed in, and its key there; n.mu is
// held.
func (n *Notifier) indexOf(w *Watcher) (map[string]map[*Watcher]struct{}, string) {
	if w.qrn != "" {
		return n.byJob, w.qrn
	}
	return n.byOwner, w.owner
}

// Add files a watcher: it gets every change published from now on.
func (n *Notifier) Add(w *Watcher) {
	n.mu.Lock()
	defer n.mu.Unlock()
	idx, key := n.indexOf(w)
	if idx[key] == nil {
		idx[key] = map[*Watcher]struct{}{}
	}
	idx[key][w] = struct{}{}
	w.seq = n.seq
}

// Remove stops telling a watcher about changes.
func (n *Notifier) Remove(w *Watcher) {
	n.mu.Lock()
	defer n.mu.Unlock()
	idx, key := n.indexOf(w)
	delete(idx[key], w)
	if len(idx[key]) == 0 {
		delete(idx, key) // no map left behind per job once nobody watches
	}
}

// since returns the last change of each of the owner's jobs that changed
// after seq, oldest first, and whether the ring still held every change
// after seq.
func (n *Notifier) since(owner string, seq uint64) ([]Pending, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if seq > n.seq || n.seq-seq > ringSize || n.missed && seq <= n.lost {
		return nil, false
	}
	var changed []Pending
	seen := map[string]bool{}
	for s := n.seq; s > seq; s-- {
		e := n.ring[s%ringSize]
		if e.seq != s {
			return nil, false
		}
		if (e.owner == owner || e.owner == "") && !seen[e.qrn] {
			seen[e.qrn] = true
			changed = append(changed, Pending{QRN: e.qrn, Seq: s})
		}
	}
	slices.Reverse(changed)
	return changed, true
}

// Resume returns the changes of the owner's jobs after the event lastID
// of an all-jobs watch, oldest first, and whether it knows them all.
func (n *Notifier) Resume(owner, lastID string) ([]Pending, bool) {
	epoch, seqText, ok := strings.Cut(lastID, ".")
	seq, err := strconv.ParseUint(seqText, 36, 64)
	if !ok || err != nil || epoch != n.epoch {
		return nil, false
	}
	return n.since(owner, seq)
}

// Current is the sequence number of the last change published.
func (n *Notifier) Current() uint64 {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.seq
}

// EventID names the change of sequence number seq for a resume.
func (n *Notifier) EventID(seq uint64) string {
	return n.epoch + "." + strconv.FormatUint(seq, 36)
}

// Size counts the watchers and the jobs and owners they are filed under:
// nothing is left behind once they are removed.
func (n *Notifier) Size() (watchers, keys int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, ws := range n.byJob {
		watchers += len(ws)
	}
	for _, ws := range n.byOwner {
		watchers += len(ws)
	}
	return watchers, len(n.byJob) + len(n.byOwner)
}
