// Package gate bounds how many callers do something at once: the
// Service's creates compile their programs through one.
package gate

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/qjobs/quantum/qtype"
)

// Gate bounds how many callers do something at once (compile, for
// creates). Callers past the bound wait a little, then are turned away:
// a flood must not queue without bound, since every waiter holds its
// request's memory.
type Gate struct {
	slotCh  chan struct{}
	Wait    time.Duration // how long a caller waits for a slot
	waiting atomic.Int64
}

// New returns a Gate of slots slots, whose callers wait up to wait for
// one.
func New(slots int, wait time.Duration) *Gate {
	return &Gate{slotCh: make(chan struct{}, max(slots, 0)), Wait: wait}
}

// Slots is how many callers the gate lets through at once.
func (g *Gate) Slots() int { return cap(g.slotCh) }

// maxWaitersPerSlot bounds the creates waiting for a slot: past it a
// create is turned away at once. It is generous: bursts of cheap creates
// (dozens of clients at once) pass through a slot in microseconds each and
// must not be refused; the wait's time limit is what turns a flood of
// expensive ones away.
const maxWaitersPerSlot = 64

// BusyRetry is the Retry-After of a create turned away by the gate.
const BusyRetry = time.Second

// TryEnter takes a slot if one is free now, and returns the function that
// gives it back.
func (g *Gate) TryEnter() (func(), bool) {
	select {
	case g.slotCh <- struct{}{}:
		return func() { <-g.slotCh }, true
	default:
		return nil, false
	}
}

// Enter takes a slot and returns the function that gives it back, or
// SERVICE_BUSY when none came free in time, or ctx's error.
func (g *Gate) Enter(ctx context.Context) (func(), error) {
	leave := func() { <-g.slotCh }
	select {
	case g.slotCh <- struct{}{}:
		return leave, nil
	default:
	}
	busy := &qtype.Error{Code: qtype.EBUSY, Message: "the service is busy checking other programs; retry shortly", RetryAfter: BusyRetry}
	if g.waiting.Add(1) > int64(maxWaitersPerSlot*g.Slots()) {
		g.waiting.Add(-1)
		return nil, busy
	}
	defer g.waiting.Add(-1)
	t := time.NewTimer(g.Wait)
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
