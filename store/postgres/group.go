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
	batch := g.join(c)
	if batch == nil {
		select {
		case <-c.done:
			return
		case <-c.lead:
		}
		batch = g.take()
	}
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
	g.handOn()
}

// join adds c to the pending calls. When nobody is sending, the caller
// becomes the sender and gets the batch to send, its own call among
// them (pending was empty); else nil, and c waits to be done, or to lead
// the next batch.
func (g *group[T]) join(c *call[T]) []*call[T] {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.pending = append(g.pending, c)
	if g.busy {
		return nil
	}
	return g.takeLocked()
}

// take returns the batch a caller told to lead sends: its own call is the
// first pending one.
func (g *group[T]) take() []*call[T] {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.takeLocked()
}

// takeLocked makes the caller the sender and takes the next batch (g.mu
// held).
func (g *group[T]) takeLocked() []*call[T] {
	g.busy = true
	n := min(len(g.pending), g.max)
	batch := g.pending[:n:n]
	g.pending = g.pending[n:]
	return batch
}

// handOn ends a sender's turn: the next batch is sent by the first of its
// own callers.
func (g *group[T]) handOn() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if len(g.pending) == 0 {
		g.busy = false
		return
	}
	close(g.pending[0].lead)
}
