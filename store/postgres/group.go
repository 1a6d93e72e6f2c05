package postgres

import "sync"

// group gathers calls made at the same time into one statement, as a
// database's group commit does: a call finds either nobody sending, and
// sends its own at once (a batch of one: no wait is ever added), or a
// batch on its way, and joins the next, which the first caller to find
// its batch done sends. Under load, a batch holds the calls that came
// while the one before it was out; each is one round trip for all.
type group[T any] struct {
	max  int        // calls in one batch at most
	send func([]*T) // sends a batch and completes each call in it

	mu      sync.Mutex
	pending []*call[T]
	busy    bool // a caller is sending
}

type call[T any] struct {
	v    *T
	done chan struct{} // closed when v is complete
	lead chan struct{} // closed when this caller is to send the next batch
}

// do hands v to a batch and returns once send has completed it.
func (g *group[T]) do(v *T) {
	c := &call[T]{v: v, done: make(chan struct{}), lead: make(chan struct{})}
	g.mu.Lock()
	g.pending = append(g.pending, c)
	if g.busy {
		g.mu.Unlock()
		select {
		case <-c.done:
			return
		case <-c.lead:
		}
		g.mu.Lock()
	}
	g.busy = true
	n := min(len(g.pending), g.max) // c is among them: pending was empty when nobody was sending
	batch := g.pending[:n:n]
	g.pending = g.pending[n:]
	g.mu.Unlock()
	vs := make([]*T, len(batch))
	for i, b := range batch {
		vs[i] = b.v
	}
	g.send(vs) // never panics: the callers' own code runs outside it
	for _, b := range batch {
		if b != c {
			close(b.done)
		}
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.pending) == 0 {
		g.busy = false
		return
	}
	// The next batch is sent by the first of its own callers.
	close(g.pending[0].lead)
}
