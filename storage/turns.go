package storage

import (
	"slices"
	"strings"
)

// Turns decides the order in which workers look at the queues: users take
// turns, then each user's devices take turns, so that one user's backlog
// cannot starve another user's single job and one busy device cannot
// starve the others. A queue whose head job waits for memory comes first
// and is not passed by any other. It is the order of a batch claim's plan
// (BatchClaim.Plan), and of the engine's claims one at a time. Its user
// guards it.
type Turns struct {
	LastOwner  string
	LastDevice map[string]string // owner → the device last served
	Blocked    *Queue
}

// Order returns the queues in the order to try them.
func (t *Turns) Order(queues []Queue) []Queue {
	if len(queues) <= 1 && t.Blocked == nil {
		// Nothing to take turns with (the common case of one user's jobs
		// on one device): forget the others, as below.
		for o := range t.LastDevice {
			if len(queues) == 0 || o != queues[0].Owner {
				delete(t.LastDevice, o)
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
	for o := range t.LastDevice {
		if _, ok := byOwner[o]; !ok {
			delete(t.LastDevice, o)
		}
	}
	out := make([]Queue, 0, len(queues))
	if t.Blocked != nil {
		if !slices.Contains(queues, *t.Blocked) {
			t.Blocked = nil
		} else {
			out = append(out, *t.Blocked)
		}
	}
	owners := make([]string, 0, len(byOwner))
	for o := range byOwner {
		owners = append(owners, o)
	}
	for _, o := range after(owners, t.LastOwner) {
		for _, d := range after(byOwner[o], t.LastDevice[o]) {
			if q := (Queue{Device: d, Owner: o}); t.Blocked == nil || q != *t.Blocked {
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

// Served notes that q's head job was claimed.
func (t *Turns) Served(q Queue) {
	t.Unblock(q)
	t.LastOwner = q.Owner
	if t.LastDevice == nil {
		t.LastDevice = map[string]string{}
	}
	t.LastDevice[q.Owner] = q.Device
}

// Block notes that q's head job waits for memory.
func (t *Turns) Block(q Queue) { t.Blocked = &q }

// Unblock forgets that q was blocked (it was served or emptied).
func (t *Turns) Unblock(q Queue) {
	if t.Blocked != nil && *t.Blocked == q {
		t.Blocked = nil
	}
}
