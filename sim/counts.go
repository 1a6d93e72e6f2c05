package sim

import (
	"context"
	"fmt"
	"math"
	"slices"
)

// Counting: the counts of a run are keyed by bit strings, one byte per
// classical bit, so a wide register and many shots can make the result
// itself the largest thing a run allocates (4096 bits × a million distinct
// outcomes is 4 GB of keys). The number of distinct outcomes is bounded by
// Options.MaxResultBytes while counting, before a new key is allocated.

// keys says which classical bits key the counts of a run.
type keys struct {
	from, to  int // bits [from, to) key the counts, bit from rightmost
	numClbits int // the classical bits a shot holds
	// measureAll: the circuit measures nothing, and Run measures every
	// qubit at its end into bits of its own after the circuit's (see
	// finalMeasurements); those bits alone key the counts.
	measureAll bool
}

func keysOf(c *Circuit, opts Options) keys {
	if !c.hasMeasure() {
		n := c.NumClbits + c.NumQubits
		return keys{from: c.NumClbits, to: n, numClbits: n, measureAll: true}
	}
	k := keys{to: c.NumClbits, numClbits: c.NumClbits}
	if opts.ResultBits > 0 {
		k.to = min(opts.ResultBits, c.NumClbits)
	}
	return k
}

// width is the length of a key: its bits, one byte each.
func (k keys) width() int { return k.to - k.from }

// hasMeasure reports whether the circuit measures anything.
func (c *Circuit) hasMeasure() bool {
	return slices.ContainsFunc(c.Ops, func(op Op) bool { return op.Kind == OpMeasure })
}

// finalMeasurements are the operations Run appends to a circuit that
// measures nothing: every qubit measured at the end into a new classical
// bit after the circuit's own.
func finalMeasurements(c *Circuit) []Op {
	ops := make([]Op, c.NumQubits)
	for q := range ops {
		ops[q] = MeasureOp(q, c.NumClbits+q)
	}
	return ops
}

// countKey writes the key of the classical bits into key, the first
// rightmost.
func countKey(key []byte, clbits []bool) {
	for b, v := range clbits {
		key[len(key)-1-b] = '0'
		if v {
			key[len(key)-1-b] = '1'
		}
	}
}

// outcomeLimit is how many distinct outcomes the counts may hold.
type outcomeLimit struct {
	max   int   // distinct outcomes
	width int   // bits of a key
	bytes int64 // MaxResultBytes
}

// newOutcomeLimit returns the limit for keys of width bits under maxBytes
// (0 or less: DefaultMaxResultBytes), or an error wrapping
// ErrResultTooLarge when not even one key fits.
func newOutcomeLimit(width int, maxBytes int64) (outcomeLimit, error) {
	if maxBytes <= 0 {
		maxBytes = DefaultMaxResultBytes
	}
	l := outcomeLimit{max: math.MaxInt, width: width, bytes: maxBytes}
	if width == 0 {
		return l, nil // one outcome, the empty key
	}
	if int64(width) > maxBytes {
		return l, fmt.Errorf("%w: one outcome of %d bits exceeds MaxResultBytes (%s)", ErrResultTooLarge, width, byteSize(maxBytes))
	}
	l.max = int(min(maxBytes/int64(width), math.MaxInt))
	return l, nil
}

func (l outcomeLimit) err() error {
	return fmt.Errorf("%w: more than %d distinct outcomes of %d bits (MaxResultBytes is %s)", ErrResultTooLarge, l.max, l.width, byteSize(l.bytes))
}

// tally counts the outcomes of shots run one by one. A map lookup with
// string(key) does not copy key but an assignment does, even to an outcome
// counted before: so the map holds each outcome's index into n, and a shot
// whose outcome was seen before allocates nothing.
type tally struct {
	index map[string]int
	n     []int
	lim   outcomeLimit
}

func newTally(lim outcomeLimit) *tally { return &tally{index: make(map[string]int), lim: lim} }

// add counts one shot of the outcome key, or fails with ErrResultTooLarge
// when it is a new outcome past the limit.
func (t *tally) add(key []byte) error {
	if i, ok := t.index[string(key)]; ok {
		t.n[i]++
		return nil
	}
	if len(t.n) >= t.lim.max {
		return t.lim.err()
	}
	t.index[string(key)] = len(t.n)
	t.n = append(t.n, 1)
	return nil
}

// counts returns the counts by key.
func (t *tally) counts(ctx context.Context) (map[string]int, error) {
	enter("count")
	tick := ticker{ctx: ctx}
	counts := make(map[string]int, len(t.index))
	for k, i := range t.index {
		if err := tick.tick(); err != nil {
			return nil, err
		}
		counts[k] = t.n[i]
	}
	return counts, nil
}
