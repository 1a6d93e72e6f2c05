package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
)

// Options configure Run.
type Options struct {
	Shots int // at least 1
	// Seed makes the counts reproducible; nil means a fresh random seed,
	// reported in Result.Seed.
	Seed   *uint64
	Limits Limits
	// MaxSteps bounds the operations one shot may execute (a while loop
	// that never ends fails instead of hanging); 0 means DefaultMaxSteps.
	MaxSteps int
	// Workers is how many goroutines a gate on a large state may use;
	// 0 means GOMAXPROCS.
	Workers int
	// Precision of the state: Double (the default) or Single, which
	// halves memory and traffic for errors around 1e-6.
	Precision Precision
	// ResultBits, when above 0, keys the counts by classical bits
	// 0..ResultBits−1 only: a front end's scratch bits stay out of the
	// results. It does not apply to a circuit without measurements.
	ResultBits int
	// FusionWidth is the widest block of gates merged into one before
	// simulation (see DefaultFusionWidth); 0 means the default and a
	// negative value turns fusion off.
	FusionWidth int
}

// Result is what Run returns.
type Result struct {
	// Counts maps each measured bit string to how often it occurred. Keys
	// have one character per classical bit, bit 0 rightmost. A circuit
	// without any measurement is measured on every qubit at its end, qubit 0
	// rightmost. The counts add up to the shots.
	Counts map[string]int
	Seed   uint64 // the seed used
	// PerShot is true when the circuit ran once per shot (mid-circuit
	// measurement, reset or classical control), false when the shots were
	// sampled from one final state.
	PerShot bool
}

// preparedOp is an Op with its kernel built.
type preparedOp struct {
	Op
	kernel *kernel
}

type prepared struct {
	ops []preparedOp
	// terminal is true when no operation depends on a measurement or
	// acts on a qubit after measuring it: the shots can be sampled.
	terminal bool
	// prefix is the number of leading operations that are plain
	// unconditional gates (or barriers): the part every shot shares.
	prefix int
	// head is what to apply once, fused: for a terminal circuit every gate
	// (its measurements only sample the result), else the prefix.
	head []*kernel
}

// fusion widths; see DefaultFusionWidth.
type fusion struct{ width, diagWidth int }

func (o Options) fusion() fusion {
	switch {
	case o.FusionWidth < 0:
		return fusion{}
	case o.FusionWidth == 0:
		return fusion{DefaultFusionWidth, DefaultDiagonalFusionWidth}
	}
	return fusion{o.FusionWidth, max(o.FusionWidth, DefaultDiagonalFusionWidth)}
}

// prepare analyses c and builds what running it needs. With perShot, or
// when the circuit is not terminal, the head is the shared prefix and every
// later gate gets its own kernel for the per-shot loop.
func prepare(c *Circuit, f fusion, perShot bool) *prepared {
	p := &prepared{ops: make([]preparedOp, len(c.Ops)), terminal: true, prefix: -1}
	measured := make(map[int]bool)
	for i, op := range c.Ops {
		p.ops[i].Op = op
		plain := op.If == nil && (op.Kind == OpGate || op.Kind == OpBarrier)
		if !plain && p.prefix < 0 {
			p.prefix = i
		}
		switch {
		case op.If != nil, op.Kind == OpReset, op.Kind == OpJump, op.Kind == OpSetBits, op.Kind == OpCompute:
			p.terminal = false
		case op.Kind == OpMeasure:
			measured[op.Qubit] = true
		case op.Kind == OpGate:
			for _, q := range op.Gate.Targets {
				p.terminal = p.terminal && !measured[q]
			}
			for _, ctl := range op.Gate.Controls {
				p.terminal = p.terminal && !measured[ctl.Qubit]
			}
		}
	}
	if p.prefix < 0 {
		p.prefix = len(c.Ops)
	}
	// The shared prefix runs once; no jump may lead back into it.
	for _, op := range c.Ops {
		if op.Kind == OpJump {
			p.prefix = min(p.prefix, op.Target)
		}
	}
	head := p.ops
	if perShot || !p.terminal {
		head = p.ops[:p.prefix]
		for i := p.prefix; i < len(p.ops); i++ {
			if p.ops[i].Kind == OpGate {
				p.ops[i].kernel = newKernel(&p.ops[i].Gate)
			}
		}
	}
	// Fuse between barriers: a barrier keeps gates from merging across it.
	var run []*Gate
	flush := func() {
		for _, g := range fuseGates(run, f.width, f.diagWidth) {
			p.head = append(p.head, newKernel(g))
		}
		run = run[:0]
	}
	for i := range head {
		switch head[i].Kind {
		case OpGate:
			run = append(run, &head[i].Gate)
		case OpBarrier:
			flush()
		}
	}
	flush()
	return p
}

// hasMeasure reports whether the circuit measures anything.
func (c *Circuit) hasMeasure() bool {
	return slices.ContainsFunc(c.Ops, func(op Op) bool { return op.Kind == OpMeasure })
}

// Run executes the circuit for opts.Shots shots and returns the counts.
//
// It validates the circuit and checks its size against opts.Limits before
// allocating the state. ctx is checked between operations and between shots;
// a cancelled context stops the run and returns ctx's error.
func Run(ctx context.Context, c *Circuit, opts Options) (*Result, error) {
	if opts.Shots < 1 {
		return nil, fmt.Errorf("%w: shots must be at least 1, got %d", ErrInvalidCircuit, opts.Shots)
	}
	if err := opts.Limits.CheckPrecision(c.NumQubits, opts.Precision); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	seed := rand.Uint64()
	if opts.Seed != nil {
		seed = *opts.Seed
	}
	rng := newRand(seed)
	keyFrom, keyTo := 0, c.NumClbits
	if opts.ResultBits > 0 {
		keyTo = min(opts.ResultBits, c.NumClbits)
	}
	if !c.hasMeasure() {
		c, keyFrom = measureAll(c)
		keyTo = c.NumClbits
	}
	p := prepare(c, opts.fusion(), false)

	s, err := NewStatePrecision(c.NumQubits, opts.Precision, opts.Limits)
	if err != nil {
		return nil, err
	}
	if opts.Workers > 0 {
		s.SetWorkers(opts.Workers)
	}
	res := &Result{Seed: seed, PerShot: !p.terminal}
	if p.terminal {
		if err := s.applyAll(ctx, p.head); err != nil {
			return nil, err
		}
		res.Counts = sample(s, c, rng, opts.Shots, keyFrom, keyTo)
		return res, nil
	}
	res.Counts, err = runShots(ctx, s, c, p, rng, opts, keyFrom, keyTo)
	if err != nil {
		return nil, err
	}
	return res, nil
}

func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
}

// measureAll returns c with every qubit measured at its end into n new
// classical bits after c's own, and the index of the first of them: the
// counts are keyed by those bits alone.
func measureAll(c *Circuit) (*Circuit, int) {
	m := &Circuit{NumQubits: c.NumQubits, NumClbits: c.NumClbits + c.NumQubits, Ops: slices.Clip(c.Ops)}
	for q := range c.NumQubits {
		m.Measure(q, c.NumClbits+q)
	}
	return m, c.NumClbits
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

// runShots runs the circuit once per shot. The leading gates every shot
// shares are applied once; each shot starts from a copy of that state.
func runShots(ctx context.Context, s *State, c *Circuit, p *prepared, rng *rand.Rand, opts Options, keyFrom, keyTo int) (map[string]int, error) {
	if err := s.applyAll(ctx, p.head); err != nil {
		return nil, err
	}
	shared := s.Clone()
	counts := make(map[string]int)
	clbits := make([]bool, c.NumClbits)
	key := make([]byte, keyTo-keyFrom)
	for shot := range opts.Shots {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if shot > 0 {
			s.v.copyFrom(shared.v)
			clear(clbits)
		}
		if err := s.run(ctx, p, p.prefix, clbits, rng, opts.MaxSteps); err != nil {
			return nil, err
		}
		countKey(key, clbits[keyFrom:keyTo])
		counts[string(key)]++
	}
	return counts, nil
}

// Simulate returns the exact final state of a circuit whose measurements
// are all terminal: its gates applied in order, its measurements left out
// (they would only sample this state). A circuit with mid-circuit
// measurement, reset or classical control has no single final state; run it
// with [State.Execute] shot by shot instead.
func Simulate(ctx context.Context, c *Circuit, lim Limits) (*State, error) {
	return SimulateWith(ctx, c, Options{Limits: lim})
}

// SimulateWith is Simulate with the options of Run that apply to one
// state: Limits, Workers, Precision and FusionWidth (Shots and Seed are not
// used).
func SimulateWith(ctx context.Context, c *Circuit, opts Options) (*State, error) {
	if err := opts.Limits.CheckPrecision(c.NumQubits, opts.Precision); err != nil {
		return nil, err
	}
	if err := c.Validate(); err != nil {
		return nil, err
	}
	p := prepare(c, opts.fusion(), false)
	if !p.terminal {
		return nil, fmt.Errorf("%w: Simulate needs a circuit whose measurements are all terminal; this one measures mid-circuit, resets or branches on classical bits", ErrInvalidCircuit)
	}
	s, err := NewStatePrecision(c.NumQubits, opts.Precision, opts.Limits)
	if err != nil {
		return nil, err
	}
	if opts.Workers > 0 {
		s.SetWorkers(opts.Workers)
	}
	return s, s.applyAll(ctx, p.head)
}
