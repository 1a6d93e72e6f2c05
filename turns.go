package quantum

import (
	"slices"
	"strings"
)

// turns decides the order in which workers look at the queues: users take
// turns, then each user's devices take turns, so that one user's backlog
// cannot starve another user's single job and one busy device cannot
// starve the others. A queue whose head job waits for memory comes first
// and is not passed by any other. The runner's claimMu guards it.
type turns struct {
	lastOwner  string
	lastDevice map[string]string // owner → the device last served
	blocked    *Queue
}

// order returns the queues in the order to try them.
func (t *turns) order(queues []Queue) []Queue {
	if len(queues) <= 1 && t.blocked == nil {
		// Nothing to take turns with (the common case of one user's jobs
		// on one device): forget the others, as below.
		for o := range t.lastDevice {
			if len(queues) == 0 || o != queues[0].Owner {
				delete(t.lastDevice, o)
			}
		}
		return queues
	}
	byOwner := map[string][]string{}
	for _, q := range queues {
		byOwner[q.Owner] = append(byOwner[q.Owner], q.Device)
	}
	// Owners with nothing queued are forgotten, so that the map holds at
	// most one entry per queue.
	for o := range t.lastDevice {
		if _, ok := byOwner[o]; !ok {
			delete(t.lastDevice, o)
		}
	}
	out := make([]Queue, 0, len(queues))
	if t.blocked != nil {
		if !slices.Contains(queues, *t.blocked) {
			t.blocked = nil
		} else {
			out = append(out, *t.blocked)
		}
	}
	owners := make([]string, 0, len(byOwner))
	for o := range byOwner {
		owners = append(owners, o)
	}
	for _, o := range after(owners, t.lastOwner) {
		for _, d := range after(byOwner[o], t.lastDevice[o]) {
			if q := (Queue{Device: d, Owner: o}); t.blocked == nil || q != *t.blocked {
				out = append(out, q)
			}
		}
	}
	return out
}

// after sorts names and rotates them to start with the first one after
// last, so that the one served last comes last.
func after(names []string, last string) []string {
	slices.Sort(names)
	i, _ := slices.BinarySearchFunc(names, last, func(a, b string) int {
		if strings.Compare(a, b) <= 0 {
			return -1
		}
		return 1
	})
	return slices.Concat(names[i:], names[:i])
}

// served notes that q's head job was claimed.
func (t *turns) served(q Queue) {
	t.unblock(q)
	t.lastOwner = q.Owner
	if t.lastDevice == nil {
		t.lastDevice = map[string]string{}
	}
	t.lastDevice[q.Owner] = q.Device
}

// block notes that q's head job waits for memory.
func (t *turns) block(q Queue) { t.blocked = &q }

// unblock forgets that q was blocked (it was served or emptied).
func (t *turns) unblock(q Queue) {
	if t.blocked != nil && *t.blocked == q {
		t.blocked = nil
	}
}
