package postgres

import (
	"sync"

	"github.com/qjobs/quantum/storage"
)

// hints remembers, for jobs this Store wrote or read lately, the record
// as it was and the row version (xmin, the transaction that wrote it)
// that held it. It is never an answer: a read always asks the database.
// It is a guess that lets UpdateJob skip reading the job before writing
// it: the write is a compare-and-set on that row version as well as on
// the status, so a job changed meanwhile by anyone (another node, a
// takeover, a cancel) fails the write, and UpdateJob reads it afresh. So
// no node can act on a stale hint, which is why a per-process copy is
// allowed here at all. (xmin is 32 bits: a row would have to be written
// again by the same transaction ID, four billion transactions later,
// for a stale version to pass as the current one. Freezing keeps it.)
type hints struct {
	mu sync.Mutex
	m  map[string]hint
}

type hint struct {
	xmin uint32
	rec  *storage.JobRecord // never changed once stored: callers clone it
}

// maxHints bounds the jobs remembered; maxHintRecord the record size of
// one (a job with large tags or metadata is read again instead).
const (
	maxHints      = 8192
	maxHintRecord = 64 << 10
)

func (h *hints) get(qrn string) (hint, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	x, ok := h.m[qrn]
	return x, ok
}

// put remembers rec at row version xmin; a job that ended is forgotten,
// since it never changes again.
func (h *hints) put(rec *storage.JobRecord, xmin uint32, size int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if rec.Status.IsTerminal() || size > maxHintRecord {
		delete(h.m, rec.JobQRN)
		return
	}
	if h.m == nil {
		h.m = map[string]hint{}
	}
	if len(h.m) >= maxHints {
		n := 0
		for k := range h.m { // forget an arbitrary eighth
			delete(h.m, k)
			if n++; n >= maxHints/8 {
				break
			}
		}
	}
	h.m[rec.JobQRN] = hint{xmin: xmin, rec: rec}
}

func (h *hints) forget(qrn string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.m, qrn)
}
