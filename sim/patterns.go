package sim

import (
	"cmp"
	"context"
	varint "encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
)

// Trajectories grouped by their errors. When every channel of a circuit
// is a mixture of unitaries with fixed probabilities (every Pauli
// channel) and its measurements are terminal, a trajectory is fixed by
// which branch each channel drew, and those draws do not depend on the
// state. So the draws of every shot are made first, each shot's from its
// own variates exactly as a trajectory would, and shots that drew the
// same branches (most draw the identity everywhere when errors are rare)
// share one simulation of that pattern: each still measures its own
// outcome, drawn independently from the pattern's final state. The shots
// are the same independent samples of the density matrix's distribution
// that a trajectory each gives; only the work is shared, as shots share
// the work before their first channel.
//
// Patterns are simulated in order of their first error, from a state
// that follows the error-free circuit up to it: a pattern costs the
// operations from its first error on, a copy of the state, and a pass to
// sample its shots.

// maxErrorsPerShot is the most errors a shot draws on average for which
// shots are grouped: past it most shots draw a pattern of their own, and
// a trajectory each costs less than a simulation and a sampling pass
// each.
const maxErrorsPerShot = 2

// errorEvent is one shot's non-identity draw of one channel.
type errorEvent struct {
	shot   int32
	op     int32 // index in the prepared ops
	branch uint8 // index in the channel's mix
}

// eventBytes is what an event costs while shots are grouped: the event
// and its bytes of a pattern's key; patternBytes what a pattern costs
// besides: its entry, its key's map entry and header.
const (
	eventBytes   = 24
	patternBytes = 128
)

// groupable says whether the shots of c can be grouped by their errors,
// and how many errors a run of shots draws at most (events, to bound what
// it holds).
func groupable(c *Circuit, sh shape, shots int) (ok bool, events int64) {
	if !sh.noise || !sh.terminal {
		return false, 0
	}
	mean := meanErrors(c)
	if mean < 0 || mean > maxErrorsPerShot {
		return false, 0
	}
	return true, maxEvents(mean, shots)
}

// meanErrors is how many errors a shot of c draws on average: the sum of
// its channels' error probabilities; −1 when a channel is not a mixture
// of unitaries.
func meanErrors(c *Circuit) float64 {
	var mean float64
	for i := range c.Ops {
		op := &c.Ops[i]
		if op.Kind != OpNoise {
			continue
		}
		ch := op.Channel()
		if ch.mix == nil {
			return -1
		}
		mean += errorProbability(ch)
	}
	return mean
}

// maxEvents bounds the errors shots draw with mean errors a shot: the
// mean of all shots' and ten of its standard deviations and a margin,
// which a Poisson count passes with a probability far below any hardware
// fault's.
func maxEvents(mean float64, shots int) int64 {
	m := mean * float64(shots)
	return int64(m+10*math.Sqrt(m)) + 1024
}

// patternsNeed bounds what grouping shots holds besides the states: the
// events and their keys (eventBytes each), and a pattern of at most
// min(shots, events) each with its map entry.
func patternsNeed(events int64, shots int) int64 {
	return mulSat(events, eventBytes) + mulSat(min(events, int64(shots)), patternBytes)
}

// errorProbability is the probability that a draw of ch is not the
// identity.
func errorProbability(ch *Channel) float64 {
	var q float64
	for _, b := range ch.mix {
		if b.m != nil {
			q += b.p
		}
	}
	return min(q, 1)
}

// runPatterns runs the shots of the terminal circuit p, whose channels
// are all mixtures, grouped by the branches they draw; s holds the state
// after p's shared prefix. Readout errors are drawn by the caller.
func runPatterns(ctx context.Context, s *State, p *prepared, src *rand.PCG, shots int, budget *workBudget, source []int, lim outcomeLimit, maxEv int64) (map[string]int, error) {
	rng := rand.New(src)
	events, err := drawErrors(ctx, p, rng, shots, maxEv)
	if err != nil {
		return nil, err
	}
	patterns, err := groupShots(ctx, events, shots)
	if err != nil {
		return nil, err
	}
	enter("patterns")
	work, err := s.v.clone(ctx, s.workers)
	if err != nil {
		return nil, err
	}
	if err := budget.charge(passWork(s.n, 1)); err != nil {
		return nil, err
	}
	counts := make(map[string]int)
	cur := p.prefix // s, the error-free state, has run the ops before cur
	for _, pat := range patterns {
		first := len(p.ops)
		if len(pat.events) > 0 {
			first = int(pat.events[0].op)
		}
		if err := s.runGates(ctx, p, cur, first, nil, budget); err != nil {
			return nil, err
		}
		cur = first
		at := s
		if len(pat.events) > 0 {
			if err := budget.charge(passWork(s.n, 1)); err != nil {
				return nil, err
			}
			if err := work.copyFrom(ctx, s.v, s.workers); err != nil {
				return nil, err
			}
			at = &State{n: s.n, v: work, workers: s.workers, norm2: 1}
			if err := at.runGates(ctx, p, first, len(p.ops), pat.events, budget); err != nil {
				return nil, err
			}
		}
		if err := budget.charge(sampleWork(s.n, pat.shots)); err != nil {
			return nil, err
		}
		got, err := sample(ctx, at, src, pat.shots, source, lim)
		if err != nil {
			return nil, err
		}
		for k, n := range got {
			if _, seen := counts[k]; !seen && len(counts) >= lim.max {
				return nil, lim.err()
			}
			counts[k] += n
		}
	}
	return counts, nil
}

// runGates applies the gates of p.ops[from:to] to s, and of its channels
// the branches events (sorted by op) say were drawn; measurements and
// barriers do nothing here.
func (s *State) runGates(ctx context.Context, p *prepared, from, to int, events []errorEvent, budget *workBudget) error {
	for i := from; i < to; i++ {
		op := &p.ops[i]
		switch op.Kind {
		case OpGate:
			if err := budget.charge(passWork(s.n, 1)); err != nil {
				return err
			}
			if err := s.v.apply(ctx, p.kernel(op, s.n), s.n, s.workers); err != nil {
				return err
			}
		case OpNoise:
			for len(events) > 0 && int(events[0].op) < i {
				events = events[1:]
			}
			if len(events) == 0 || int(events[0].op) != i {
				continue // the identity
			}
			if err := budget.charge(passWork(s.n, 1)); err != nil {
				return err
			}
			b := int(events[0].branch)
			m := op.Channel().mix[b].m
			if err := s.v.apply(ctx, p.noiseKernel(op, b, m, s.n), s.n, s.workers); err != nil {
				return err
			}
		}
	}
	return ctx.Err()
}

// drawErrors draws every shot's non-identity branches, channel by
// channel: the shots that draw an error from a channel of error
// probability q are found by geometric gaps between them (one variate an
// error, not one a shot), and each draws its branch among the errors by
// their probabilities. Sorted by shot, then operation.
func drawErrors(ctx context.Context, p *prepared, rng *rand.Rand, shots int, maxEv int64) ([]errorEvent, error) {
	var events []errorEvent
	tick := ticker{ctx: ctx}
	for i := range p.ops {
		op := &p.ops[i]
		if op.Kind != OpNoise {
			continue
		}
		ch := op.Channel()
		q := errorProbability(ch)
		if q <= 0 {
			continue
		}
		logMiss := math.Log1p(-q) // −Inf when every shot errs
		for shot := -1; ; {
			gap := 0
			if q < 1 {
				g := math.Floor(math.Log(1-rng.Float64()) / logMiss)
				if g >= float64(shots) {
					break
				}
				gap = int(g)
			}
			if shot += 1 + gap; shot >= shots {
				break
			}
			if int64(len(events)) >= maxEv {
				return nil, fmt.Errorf("%w: more than %d errors drawn", ErrInvalidCircuit, maxEv)
			}
			if err := tick.tick(); err != nil {
				return nil, err
			}
			events = append(events, errorEvent{shot: int32(shot), op: int32(i), branch: uint8(drawError(ch, q, rng))})
		}
	}
	slices.SortFunc(events, func(a, b errorEvent) int {
		return cmp.Or(cmp.Compare(a.shot, b.shot), cmp.Compare(a.op, b.op))
	})
	return events, nil
}

// drawError draws a branch of ch other than the identity, each with its
// probability given that one is drawn (q in all).
func drawError(ch *Channel, q float64, rng *rand.Rand) int {
	u := rng.Float64() * q
	last := 0
	for i, b := range ch.mix {
		if b.m == nil {
			continue
		}
		if u < b.p {
			return i
		}
		u -= b.p
		last = i
	}
	return last // rounding left u past the last sum
}

// pattern is the errors some shots drew, and how many shots.
type pattern struct {
	events []errorEvent
	shots  int
}

// groupShots groups the shots by their errors: the error-free shots, then
// each distinct set of errors, ordered by the operation of their first
// error (then by their errors) so that the error-free state walks forward
// once.
func groupShots(ctx context.Context, events []errorEvent, shots int) ([]pattern, error) {
	byKey := map[string]int{}
	var out []pattern
	erring := 0
	var key []byte
	tick := ticker{ctx: ctx}
	for len(events) > 0 {
		if err := tick.tick(); err != nil {
			return nil, err
		}
		n := 1
		for n < len(events) && events[n].shot == events[0].shot {
			n++
		}
		key = key[:0]
		for _, e := range events[:n] {
			key = varint.AppendUvarint(key, uint64(e.op))
			key = append(key, e.branch)
		}
		if i, ok := byKey[string(key)]; ok {
			out[i].shots++
		} else {
			byKey[string(key)] = len(out)
			out = append(out, pattern{events: events[:n], shots: 1})
		}
		erring++
		events = events[n:]
	}
	slices.SortFunc(out, func(a, b pattern) int {
		for i := range min(len(a.events), len(b.events)) {
			x, y := a.events[i], b.events[i]
			if c := cmp.Or(cmp.Compare(x.op, y.op), cmp.Compare(x.branch, y.branch)); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(a.events), len(b.events))
	})
	if erring < shots {
		out = append(out, pattern{shots: shots - erring}) // runs last: the state is then the error-free end
	}
	return out, nil
}
