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
	// MaxSteps bounds the steps one shot may execute (a while loop that
	// never ends fails instead of hanging): a step an operation, and one
	// more per 64 nodes of its condition or expression. 0 means
	// DefaultMaxSteps. It bounds a run shot by shot only: a circuit whose
	// control flow no measurement steers runs once on the state vector
	// however long its loops (see Circuit.PerShot), and MaxWork bounds it.
	MaxSteps int
	// MaxWork bounds the work of the whole run, in amplitudes touched: a
	// gate on n qubits costs 2^n, a measurement twice that, a classical
	// step 1, a sampled shot 1 (steps.go has the whole table). Work is
	// charged before it is done (a chunk of fused gates, or an operation
	// of a shot, at a time), so a run stops before the work that would
	// pass it, with ErrWorkLimit. 0 (or less) means DefaultMaxWork.
	MaxWork int64
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
	// simulation (see DefaultFusionWidth); 0 means the default, a negative
	// value turns fusion off, and values above 6 mean 6.
	FusionWidth int
	// MaxResultBytes bounds the counts: their distinct outcomes times the
	// width of a key (one byte per classical bit) may not exceed it. It is
	// enforced while counting, before the memory is spent; past it Run
	// fails with ErrResultTooLarge. 0 (or less) means
	// DefaultMaxResultBytes.
	MaxResultBytes int64
	// Method is how to simulate (see Method); the zero value is
	// MethodAuto, which runs a circuit without noise as the state vector
	// always has.
	Method Method
	// Noise, when not nil, is written into the circuit before it runs
	// (see NoiseModel.Apply): a device's noise on a program that has none
	// of its own, or more. The method is chosen for the noisy circuit.
	Noise *NoiseModel
	// Grow, when not nil, lets a run whose memory grows with its state
	// (the sparse method) start with what MemoryNeeds calls its start and
	// ask for the rest as it needs it, delta bytes at a time (doubling
	// what it holds), instead of the caller reserving the most it may
	// need up front. A run never asks for more than MemoryNeeds' most in
	// all. An error stops the run, which returns it as it is. The caller
	// gives back what it granted once the run has returned.
	Grow func(delta int64) error
	// Held, with Grow, is what the caller holds for the run from its
	// start when that is more than MemoryNeeds' start (a run that grew
	// before, started again): the run asks Grow only past it.
	Held int64
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
	// measurement, reset or classical control that reads measured bits),
	// false when the shots were sampled from one final state.
	PerShot bool
	// Work is the work the run did, in the units of Options.MaxWork: a
	// caller running several circuits under one bound passes the next
	// what is left.
	Work int64
	// Method is the method the run used: MethodStateVector (with quantum
	// trajectories when the circuit has noise, and PerShot),
	// MethodDensityMatrix or MethodStabilizer (PerShot with classical
	// control, else Pauli frames). MethodReason says in a few words why,
	// when Options.Method was MethodAuto.
	Method       Method
	MethodReason string
}

// preparedOp is an operation of the circuit with its kernel built (for a
// gate run shot by shot). It points into the circuit rather than copying
// the operation: a circuit may hold millions of them.
type preparedOp struct {
	*Op
	kernel *kernel
	// cost is the steps an execution of the operation takes: 1, and one
	// more per nodeCost nodes of its condition and expression.
	cost int64
	// work is its work (steps.go): cost, and the amplitudes it touches.
	work int64
	// noise holds a channel's kernels, built as its branches are drawn.
	noise *noiseKernels
}

// shape is what running a circuit depends on, found in one pass over it.
type shape struct {
	// terminal is true when no operation depends on a measurement or
	// acts on a qubit after measuring it: the shots can be sampled.
	terminal bool
	// stream is true when the circuit has classical control that takes
	// the same path on every shot and its measurements are terminal once
	// its loops are taken into account (stream.go): without noise, the
	// state vector runs it once and samples the shots.
	stream bool
	// prefix is the number of leading operations that are plain
	// unconditional gates (or barriers) and that no jump leads back into:
	// the part every shot shares.
	prefix int
	// prefixGates is true when the prefix holds a gate: a per-shot run
	// keeps a copy of the state after it to start each shot from.
	prefixGates bool
	// noise is true when the circuit has a noise channel: on the state
	// vector it runs shot by shot, a trajectory a shot.
	noise bool
	// densityBlock says why the density-matrix method cannot run the
	// circuit (classical control, a mid-circuit measurement), "" when it
	// can: unlike sampling, it applies resets.
	densityBlock string
	// judged: stabilizerBlock was worked out (only for the methods that
	// need it, auto and stabilizer: judging every gate costs a little).
	// stabilizerBlock says why the stabilizer method cannot run the
	// circuit (a gate not Clifford, a channel not Pauli), "" when it can.
	judged          bool
	stabilizerBlock string
}

// opWhere names operation i for a message: where the front end read it
// when it knows, else its index.
func opWhere(i int, op *Op) string {
	what := op.Kind.String()
	if name := op.GateName(); name != "" {
		what = "gate " + name
	}
	if line, col := op.Pos(); line > 0 {
		return fmt.Sprintf("the %s at %d:%d", what, line, col)
	}
	return fmt.Sprintf("operation %d (%s)", i, what)
}

// analyse returns c's shape. It reads indices as they are (a circuit not
// validated yet gets a shape, not a panic) and checks ctx as it goes.
func analyse(ctx context.Context, c *Circuit) (shape, error) {
	sh := shape{terminal: true, prefix: -1}
	// The qubits measured so far: a bit mask, with a map for indices past
	// 63, which only circuits too large for any state have.
	var measured uint64
	var measuredHigh map[int]bool
	isMeasured := func(q int) bool {
		if q >= 0 && q < 64 {
			return measured>>q&1 == 1
		}
		return measuredHigh[q]
	}
	// afterMeasure notes a quantum operation on a measured qubit.
	afterMeasure := func(i int, op *Op, q int) {
		if isMeasured(q) {
			sh.terminal = false
			if sh.densityBlock == "" {
				sh.densityBlock = fmt.Sprintf("%s acts on qubit %d after its measurement", opWhere(i, op), q)
			}
		}
	}
	tick := ticker{ctx: ctx}
	control := false
	for i := range c.Ops {
		if err := tick.tick(); err != nil {
			return shape{}, err
		}
		op := &c.Ops[i]
		plain := op.Cond() == nil && (op.Kind == OpGate || op.Kind == OpBarrier)
		if !plain && sh.prefix < 0 {
			sh.prefix = i
		}
		switch {
		case op.Cond() != nil, op.Kind == OpJump, op.Kind == OpSetBits, op.Kind == OpCompute:
			sh.terminal = false
			control = true
			if sh.densityBlock == "" {
				sh.densityBlock = fmt.Sprintf("%s is classical control", opWhere(i, op))
			}
		case op.Kind == OpReset:
			sh.terminal = false
			afterMeasure(i, op, op.Qubit())
		case op.Kind == OpMeasure:
			if q := op.Qubit(); q >= 0 && q < 64 {
				measured |= 1 << q
			} else {
				if measuredHigh == nil {
					measuredHigh = make(map[int]bool)
				}
				measuredHigh[q] = true
			}
		case op.Kind == OpGate, op.Kind == OpNoise:
			for j := range op.numQubits() {
				afterMeasure(i, op, op.qubitAt(j))
			}
		}
		sh.noise = sh.noise || op.Kind == OpNoise || op.ReadoutError() > 0
	}
	if sh.prefix < 0 {
		sh.prefix = len(c.Ops)
	}
	// The shared prefix runs once; no jump may lead back into it.
	for i := range c.Ops {
		if op := &c.Ops[i]; op.Kind == OpJump {
			sh.prefix = max(min(sh.prefix, op.JumpTarget()), 0)
		}
	}
	sh.prefixGates = slices.ContainsFunc(c.Ops[:sh.prefix], func(op Op) bool { return op.Kind == OpGate })
	if control {
		var err error
		if sh.stream, err = staticFlow(ctx, c); err != nil {
			return shape{}, err
		}
	}
	return sh, nil
}

// PerShot reports whether Run runs the circuit once per shot on the state
// vector (mid-circuit measurement, reset, classical control that reads
// measured bits, or noise, which runs as trajectories) rather than
// sampling all shots from one final state. Classical control that takes
// the same path on every shot (loops, conditions on bits no measurement
// writes) runs once (stream.go). The density matrix samples every circuit
// it runs; which method a run takes is Circuit.Method's, and
// Result.PerShot says what it did.
func (c *Circuit) PerShot() bool {
	sh, _ := analyse(context.Background(), c) // never cancelled
	return sh.vectorPerShot()
}

// perShot reports whether the circuit's shots differ in what they run
// (not terminal) or draw (noise): the methods other than the state vector
// then run it shot by shot.
func (sh *shape) perShot() bool { return !sh.terminal || sh.noise }

// streams reports whether the state vector runs the circuit once as a
// stream of static control flow (stream.go).
func (sh *shape) streams() bool { return sh.stream && !sh.noise }

// vectorPerShot reports whether the state vector runs the circuit once
// per shot.
func (sh *shape) vectorPerShot() bool { return sh.perShot() && !sh.streams() }

type prepared struct {
	shape
	// ops are the circuit's operations followed by extra ones (the final
	// measurements of a circuit that measures nothing).
	ops       []preparedOp
	numClbits int // the classical bits ops use
	// head is what to apply once: for a terminal circuit every gate (its
	// measurements only sample the result), else the prefix; its gates and
	// barriers, fused a chunk at a time as they are applied (applyHead).
	head   []*Op
	fusion fusion
	// kept counts the kernels of per-shot gates kept for the next shot;
	// past maxKeptKernels a gate's kernel is built each time it runs.
	kept int
	// perShot: the circuit runs shot by shot from the prefix on; else its
	// head is every gate, and its shots are sampled.
	perShot bool
	// stream: the circuit's control flow is static and it runs once, its
	// operations in the order the control flow takes them (stream.go),
	// in place of the head.
	stream bool
	// hasTail: a trajectory measures its ops from tail on at once, for
	// tailCost steps and tailWork (tail.go).
	hasTail            bool
	tail               int
	tailCost, tailWork int64
}

// A kernel takes a kilobyte or two (more for a wide fused block), and a
// circuit may hold two million gates, so kernels are never all built at
// once. The head is fused and applied headChunk gates at a time, each
// chunk's kernels dropped after it; a per-shot run keeps the kernels of
// its first maxKeptKernels gates and builds the others anew each time
// they run (a microsecond or two each, against the gate's pass over the
// state). MemoryNeed counts both.
const (
	headChunk      = 1024
	maxKeptKernels = 8192
)

// fusion widths; see DefaultFusionWidth. auto lets the cost model pick
// the general width (fusecost.go).
type fusion struct {
	width, diagWidth int
	auto             bool
	prec             Precision // the cost model's tables differ by precision
}

func (o Options) fusion() fusion {
	switch {
	case o.FusionWidth < 0:
		return fusion{}
	case o.FusionWidth == 0:
		return fusion{DefaultFusionWidth, DefaultDiagonalFusionWidth, true, o.Precision}
	}
	w := min(o.FusionWidth, maxFusionWidth)
	return fusion{w, max(w, DefaultDiagonalFusionWidth), false, o.Precision}
}

// prepare analyses c followed by extra and builds what running it needs
// on the state vector (prepareShape).
func prepare(ctx context.Context, c *Circuit, extra []Op, f fusion, perShot bool) (*prepared, error) {
	enter("prepare")
	sh, err := analyse(ctx, c)
	if err != nil {
		return nil, err
	}
	return prepareShape(ctx, c, sh, extra, f, perShot)
}

// prepareShape builds what running c, of shape sh, followed by extra
// needs on the state vector. With perShot, or when the circuit runs shot
// by shot anyway (not terminal, or noisy), the head is the shared prefix
// and every later gate gets its own kernel for the per-shot loop; the
// prefix ends before the first channel, so no gate is fused across one. It
// checks ctx every few thousand operations.
func prepareShape(ctx context.Context, c *Circuit, sh shape, extra []Op, f fusion, perShot bool) (*prepared, error) {
	p := &prepared{shape: sh, numClbits: c.NumClbits + len(extra), ops: make([]preparedOp, 0, len(c.Ops)+len(extra))}
	p.perShot = perShot || sh.vectorPerShot()
	p.stream = !p.perShot && sh.streams()
	for i := range c.Ops {
		p.ops = append(p.ops, preparedOp{Op: &c.Ops[i]})
	}
	for i := range extra {
		p.ops = append(p.ops, preparedOp{Op: &extra[i]})
	}
	p.fusion = f
	if p.stream {
		return p, p.streamCosts(ctx)
	}
	tick := ticker{ctx: ctx}
	head := p.ops
	if p.perShot {
		head = p.ops[:p.prefix]
		for i := p.prefix; i < len(p.ops); i++ {
			if err := tick.tick(); err != nil {
				return nil, err
			}
			op := &p.ops[i]
			op.cost = 1 + int64(evalNodes(op.Op)/nodeCost)
			op.work = op.cost
			switch op.Kind {
			case OpGate:
				op.work += passWork(c.NumQubits, 1)
			case OpMeasure:
				op.work += passWork(c.NumQubits, 2)
			case OpReset:
				op.work += passWork(c.NumQubits, 3)
			case OpNoise:
				if op.Channel().mix == nil {
					op.work += passWork(c.NumQubits, 2) // the branches' probabilities, then one
				}
			}
		}
	}
	p.head = make([]*Op, 0, len(head))
	for i := range head {
		if k := head[i].Kind; k == OpGate || k == OpBarrier {
			p.head = append(p.head, head[i].Op)
		}
	}
	return p, nil
}

// applyHead applies the head to s, fused between barriers (a barrier keeps
// gates from merging across it) and headChunk gates at a time, charging
// each chunk's kernels to budget (nil: no bound) before applying them. A
// stream has no head: it runs whole (applyStream).
func (p *prepared) applyHead(ctx context.Context, s *State, budget *workBudget) error {
	if p.stream {
		_, err := p.applyStream(ctx, s, budget)
		return err
	}
	var run []*Op
	flush := func() error {
		if len(run) == 0 {
			return nil
		}
		ks, err := fuseBest(ctx, run, s.n, p.fusion)
		run = run[:0]
		if err != nil {
			return err
		}
		if budget != nil {
			if err := budget.charge(headWork(ks, s.n)); err != nil {
				return err
			}
		}
		return s.applyAll(ctx, ks)
	}
	for _, op := range p.head {
		if op.Kind == OpGate {
			run = append(run, op)
			if len(run) < headChunk {
				continue
			}
		}
		if err := flush(); err != nil {
			return err
		}
	}
	if err := flush(); err != nil {
		return err
	}
	return ctx.Err()
}

// kernel is the kernel of the per-shot gate op, for a state of n qubits:
// kept for the next shot while fewer than maxKeptKernels are.
func (p *prepared) kernel(op *preparedOp, n int) *kernel {
	if op.kernel != nil {
		return op.kernel
	}
	g := op.gate()
	k := newKernelFor(&g, n)
	if p.kept < maxKeptKernels {
		op.kernel = k
		p.kept++
	}
	return k
}

// Run executes the circuit for opts.Shots shots and returns the counts.
//
// It validates the circuit and checks its size against opts.Limits before
// allocating the state; MemoryNeed says what it allocates at most. ctx is
// checked in every phase, every few milliseconds at most: between and
// within gates, between shots, while sampling and counting. A cancelled
// context stops the run and returns ctx's error.
func Run(ctx context.Context, c *Circuit, opts Options) (*Result, error) {
	if opts.Shots < 1 {
		return nil, fmt.Errorf("%w: shots must be at least 1, got %d", ErrInvalidCircuit, opts.Shots)
	}
	if err := opts.Method.check(); err != nil {
		return nil, err // an unknown method, or one not implemented
	}
	c, noisyEnd, err := withNoise(ctx, c, opts)
	if err != nil {
		return nil, err
	}
	// The limits of the widest method opts allow, before anything grows
	// with the circuit; those of the method chosen once it is.
	if err := opts.checkAnyMethod(c.NumQubits); err != nil {
		return nil, err
	}
	if err := c.validate(ctx); err != nil {
		return nil, err
	}
	k := keysOf(c, opts)
	lim, err := newOutcomeLimit(k.width(), opts.MaxResultBytes)
	if err != nil {
		return nil, err
	}
	seed := rand.Uint64()
	if opts.Seed != nil {
		seed = *opts.Seed
	}
	src := newSource(seed)
	var extra []Op
	if k.measureAll {
		extra = finalMeasurements(c)
		if noisyEnd {
			for i := range extra {
				extra[i] = extra[i].WithReadoutError(opts.Noise.ReadoutError[extra[i].Qubit()])
			}
		}
	}
	enter("prepare")
	sh, err := analyse(ctx, c)
	if err != nil {
		return nil, err
	}
	sh.noise = sh.noise || noisyEnd
	var judge cliffordJudge
	if err := sh.judge(ctx, c, opts, &judge); err != nil {
		return nil, err
	}
	method, reason, err := chooseMethod(c, sh, opts)
	if err != nil {
		return nil, err
	}
	if err := opts.checkMethod(method, c.NumQubits); err != nil {
		return nil, err
	}
	res := &Result{Seed: seed, Method: method, MethodReason: reason}
	budget := newWorkBudget(opts.MaxSteps, opts.MaxWork)
	if method == MethodSparse {
		res.PerShot = sh.perShot()
		if res.Counts, err = runSparse(ctx, c, sh, extra, opts, src, k, lim, &budget); err != nil {
			return nil, err
		}
		res.Work = budget.total - budget.left
		return res, nil
	}
	if method == MethodStabilizer {
		p, err := prepareStabilizer(ctx, c, extra, sh, &judge)
		if err != nil {
			return nil, err
		}
		res.Counts, res.PerShot, err = runStabilizer(ctx, p, opts.Shots, rand.New(src), &budget, k, lim)
		if err != nil {
			return nil, err
		}
		res.Work = budget.total - budget.left
		return res, nil
	}
	if method == MethodDensityMatrix {
		if err := budget.charge(sampleWork(c.NumQubits, opts.Shots)); err != nil {
			return nil, err
		}
		res.Counts, err = runDensity(ctx, c, opts, src, sourcesOf(c, extra, k), readoutsOf(c, extra, k), lim, &budget)
		if err != nil {
			return nil, err
		}
		res.Work = budget.total - budget.left
		return res, nil
	}
	p, err := prepareShape(ctx, c, sh, extra, opts.fusion(), false)
	if err != nil {
		return nil, err
	}
	if sh.noise {
		p.setTail(c.NumQubits)
	}
	if !p.perShot {
		// Sampling's work is known now; the gates' once they are fused,
		// chunk by chunk, before each chunk is applied.
		if err := budget.charge(sampleWork(c.NumQubits, opts.Shots)); err != nil {
			return nil, err
		}
	}

	s, err := newRunState(ctx, c.NumQubits, opts.Precision, opts.Limits, opts.Workers)
	if err != nil {
		return nil, err
	}
	res.PerShot = p.perShot
	if p.stream {
		var run *streamRun
		if run, err = p.applyStream(ctx, s, &budget); err != nil {
			return nil, err
		}
		res.Counts, err = sample(ctx, s, src, opts.Shots, run.sources(k), lim)
	} else if !p.perShot {
		source := p.dropFinalSwaps(sourcesOf(c, extra, k))
		if err := p.applyHead(ctx, s, &budget); err != nil {
			return nil, err
		}
		res.Counts, err = sample(ctx, s, src, opts.Shots, source, lim)
	} else if ok, maxEv := groupable(c, sh, opts.Shots); ok {
		if err := p.applyHead(ctx, s, &budget); err != nil {
			return nil, err
		}
		res.Counts, err = runPatterns(ctx, s, p, src, opts.Shots, &budget, sourcesOf(c, extra, k), lim, maxEv)
		if r := readoutsOf(c, extra, k); err == nil && r != nil {
			res.Counts, err = misreadCounts(ctx, res.Counts, r, rand.New(src), lim)
		}
	} else {
		res.Counts, err = runShots(ctx, s, p, rand.New(src), opts.Shots, &budget, k, lim)
	}
	if err != nil {
		return nil, err
	}
	res.Work = budget.total - budget.left
	return res, nil
}

// newRunState is |0…0⟩ on n qubits for a run, on workers goroutines (0:
// GOMAXPROCS), its pages faulted in on the pool (vector.touch), checking
// ctx.
func newRunState(ctx context.Context, n int, p Precision, lim Limits, workers int) (*State, error) {
	s, err := NewStatePrecision(n, p, lim)
	if err != nil {
		return nil, err
	}
	if workers > 0 {
		s.SetWorkers(workers)
	}
	if err := s.v.touch(ctx, s.workers); err != nil {
		return nil, err
	}
	return s, nil
}

// newSource is the generator of a seed: measurements, shots and sampling
// all draw from it.
func newSource(seed uint64) *rand.PCG { return rand.NewPCG(seed, seed^0x9e3779b97f4a7c15) }

// sourcesOf returns, for each bit of a key, the qubit whose measurement it
// holds at the end of a terminal circuit c followed by extra (the last
// measurement into a bit wins), or −1 for a bit never measured, which
// reads 0.
func sourcesOf(c *Circuit, extra []Op, k keys) []int {
	source := make([]int, c.NumClbits+len(extra))
	for i := range source {
		source[i] = -1
	}
	for _, ops := range [][]Op{c.Ops, extra} {
		for i := range ops {
			if op := &ops[i]; op.Kind == OpMeasure {
				source[op.Bit()] = op.Qubit()
			}
		}
	}
	return source[k.from:k.to]
}

// runShots runs the circuit once per shot. The leading gates every shot
// shares are applied once and each shot starts from a copy of that state;
// with no such gates each shot starts from |0…0⟩ again, and no copy is held.
func runShots(ctx context.Context, s *State, p *prepared, rng *rand.Rand, shots int, budget *workBudget, k keys, lim outcomeLimit) (map[string]int, error) {
	// the shared prefix once, and the copy each shot starts from
	if err := p.applyHead(ctx, s, budget); err != nil {
		return nil, err
	}
	var shared vector
	if p.prefixGates {
		if err := budget.charge(passWork(s.n, 1)); err != nil {
			return nil, err
		}
		var err error
		if shared, err = s.v.clone(ctx, s.workers); err != nil {
			return nil, err
		}
	}
	enter("shots")
	t := newTally(lim)
	clbits := make([]bool, p.numClbits)
	key := make([]byte, k.width())
	perShot := shotWork(s.n, p.numClbits)
	for shot := range shots {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := budget.charge(perShot); err != nil {
			return nil, err
		}
		if shot > 0 {
			var err error
			if shared != nil {
				err = s.v.copyFrom(ctx, shared, s.workers)
			} else {
				err = s.v.reset(ctx, s.workers)
			}
			if err != nil {
				return nil, err
			}
			clear(clbits)
			s.norm2 = 1
		}
		if err := s.run(ctx, p, p.prefix, clbits, rng, budget); err != nil {
			return nil, err
		}
		countKey(key, clbits[k.from:k.to])
		if err := t.add(key); err != nil {
			return nil, err
		}
	}
	return t.counts(ctx)
}

// checked makes the checks that come before a simulation allocates: the
// size of what it holds (check), the rules of the IR; and returns the
// circuit's shape.
func checked(ctx context.Context, c *Circuit, p Precision, check func(int, Precision) error) (shape, error) {
	if err := check(c.NumQubits, p); err != nil {
		return shape{}, err
	}
	if err := c.validate(ctx); err != nil {
		return shape{}, err
	}
	return analyse(ctx, c)
}

// Simulate returns the exact final state of a circuit whose measurements
// are all terminal: its gates applied in order, its measurements left out
// (they would only sample this state). A circuit with mid-circuit
// measurement, reset or classical control has no single final state; run it
// with [State.Execute] shot by shot instead.
//
// ctx is checked between and within gates; a cancel returns ctx's error and
// no state.
func Simulate(ctx context.Context, c *Circuit, lim Limits) (*State, error) {
	return SimulateWith(ctx, c, Options{Limits: lim})
}

// SimulateWith is Simulate with the options of Run that apply to one
// state: Limits, Workers, Precision and FusionWidth, and MaxWork for a
// circuit whose loops run as a stream (stream.go) (Shots and Seed are not
// used).
func SimulateWith(ctx context.Context, c *Circuit, opts Options) (*State, error) {
	sh, err := checked(ctx, c, opts.Precision, opts.Limits.CheckPrecision)
	if err != nil {
		return nil, err
	}
	if !sh.terminal && !sh.stream {
		return nil, fmt.Errorf("%w: Simulate needs a circuit whose measurements are all terminal; this one measures mid-circuit, resets or branches on measured bits", ErrInvalidCircuit)
	}
	if sh.noise {
		return nil, fmt.Errorf("%w: Simulate returns a state vector, and this circuit has noise channels; SimulateDensityMatrix returns its density matrix", ErrInvalidCircuit)
	}
	p, err := prepare(ctx, c, nil, opts.fusion(), false)
	if err != nil {
		return nil, err
	}
	s, err := newRunState(ctx, c.NumQubits, opts.Precision, opts.Limits, opts.Workers)
	if err != nil {
		return nil, err
	}
	if p.stream {
		// Loops may run without end: the work is bounded as Run's.
		budget := newWorkBudget(0, opts.MaxWork)
		if _, err := p.applyStream(ctx, s, &budget); err != nil {
			return nil, err
		}
		return s, nil
	}
	if err := p.applyHead(ctx, s, nil); err != nil {
		return nil, err
	}
	return s, nil
}
