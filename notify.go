package quantum

import (
	"crypto/rand"
	"encoding/hex"
	"slices"
	"sync"
)

// notifier tells this process's watchers (Wait, event streams) about job
// changes as they happen: the ones this Service makes, which it sees with
// the job as stored, and, through a store's ChangeFeed, the ones other
// nodes make, which it sees by QRN only (the watcher reads the job
// again).
//
// It keeps no state per job: only the watchers, indexed by job and by
// owner, and a ring of the last changes for the resume of an owner's
// stream. Idle watchers cost a small struct each and nothing grows with
// time.
type notifier struct {
	mu      sync.Mutex
	byJob   map[string]map[*Watch]struct{}
	byOwner map[string]map[*Watch]struct{}
	seq     uint64
	epoch   string // names this notifier's sequence: it starts again with the process
	ring    [ringSize]ringEntry
	closed  bool // the Service is closing: watches end
}

// ringSize is how many recent changes an owner's stream can resume from.
const ringSize = 4096

type ringEntry struct {
	seq   uint64
	owner string
	qrn   string
}

func newNotifier() *notifier {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return &notifier{
		byJob:   map[string]map[*Watch]struct{}{},
		byOwner: map[string]map[*Watch]struct{}{},
		epoch:   hex.EncodeToString(b[:]),
	}
}

// publish tells the watchers of a job and of its owner that it changed.
// rec is the job as stored after the change, or nil when only the QRN is
// known (a change made by another node); watchers must not modify it.
func (n *notifier) publish(qrn, owner string, rec *JobRecord) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.seq++
	n.ring[n.seq%ringSize] = ringEntry{seq: n.seq, owner: owner, qrn: qrn}
	p := pending{qrn: qrn, rec: rec, seq: n.seq}
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

// watching reports whether anyone watches the job or its owner, so that
// a change nobody follows costs no copy.
func (n *notifier) watching(qrn, owner string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.byJob[qrn]) > 0 || len(n.byOwner[owner]) > 0
}

// missed tells every watcher that changes may have been missed (the
// change feed was down): each reads its jobs again.
func (n *notifier) missed() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.loseAll()
}

// shutdown ends every watch: their next Next answers SERVICE_BUSY, as
// does every new watch.
func (n *notifier) shutdown() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.closed = true
	n.loseAll()
}

func (n *notifier) isClosed() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.closed
}

// loseAll wakes every watcher to read afresh; n.mu is held.
func (n *notifier) loseAll() {
	for _, ws := range n.byJob {
		for w := range ws {
			w.lose()
		}
	}
	for _, ws := range n.byOwner {
		for w := range ws {
			w.lose()
		}
	}
}

// indexOf is the index a watch is filed in, and its key there; n.mu is
// held.
func (n *notifier) indexOf(w *Watch) (map[string]map[*Watch]struct{}, string) {
	if w.qrn != "" {
		return n.byJob, w.qrn
	}
	return n.byOwner, w.owner
}

func (n *notifier) add(w *Watch) {
	n.mu.Lock()
	defer n.mu.Unlock()
	idx, key := n.indexOf(w)
	if idx[key] == nil {
		idx[key] = map[*Watch]struct{}{}
	}
	idx[key][w] = struct{}{}
	w.seq = n.seq
}

func (n *notifier) remove(w *Watch) {
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
func (n *notifier) since(owner string, seq uint64) ([]pending, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if seq > n.seq || n.seq-seq > ringSize {
		return nil, false
	}
	var changed []pending
	seen := map[string]bool{}
	for s := n.seq; s > seq; s-- {
		e := n.ring[s%ringSize]
		if e.seq != s {
			return nil, false
		}
		if (e.owner == owner || e.owner == "") && !seen[e.qrn] {
			seen[e.qrn] = true
			changed = append(changed, pending{qrn: e.qrn, seq: s})
		}
	}
	slices.Reverse(changed)
	return changed, true
}
