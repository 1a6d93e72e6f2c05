package quantum

import (
	"context"
	"sync/atomic"
	"time"
)

// gate bounds how many callers do something at once (compile, for
// creates). Callers past the bound wait a little, then are turned away:
// a flood must not queue without bound, since every waiter holds its
// request's memory.
type gate struct {
	slotCh  chan struct{}
	wait    time.Duration
	waiting atomic.Int64
}

func newGate(slots int, wait time.Duration) *gate {
	return &gate{slotCh: make(chan struct{}, max(slots, 0)), wait: wait}
}

func (g *gate) slots() int { return cap(g.slotCh) }

// maxWaitersPerSlot bounds the creates waiting for a slot: past it a
// create is turned away at once. It is generous: bursts of cheap creates
// (dozens of clients at once) pass through a slot in microseconds each and
// must not be refused; the wait's time limit is what turns a flood of
// expensive ones away.
const maxWaitersPerSlot = 64

// busyRetry is the Retry-After of a create turned away by the gate.
const busyRetry = time.Second

// tryEnter takes a slot if one is free now, and returns the function that
// gives it back.
func (g *gate) tryEnter() (func(), bool) {
	select {
	case g.slotCh <- struct{}{}:
		return func() { <-g.slotCh }, true
	default:
		return nil, false
	}
}

// enter takes a slot and returns the function that gives it back, or
// SERVICE_BUSY when none came free in time, or ctx's error.
func (g *gate) enter(ctx context.Context) (func(), error) {
	leave := func() { <-g.slotCh }
	select {
	case g.slotCh <- struct{}{}:
		return leave, nil
	default:
	}
	busy := &Error{Code: EBUSY, Message: "the service is busy checking other programs; retry shortly", RetryAfter: busyRetry}
	if g.waiting.Add(1) > int64(maxWaitersPerSlot*g.slots()) {
		g.waiting.Add(-1)
		return nil, busy
	}
	defer g.waiting.Add(-1)
	t := time.NewTimer(g.wait)
	defer t.Stop()
	select {
	case g.slotCh <- struct{}{}:
		return leave, nil
	case <-t.C:
		return nil, busy
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
