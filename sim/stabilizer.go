package sim

import (
	"context"
	"fmt"
	"math/rand/v2"
)

// The stabilizer method runs circuits whose gates are all Clifford and
// whose channels are all Pauli channels (clifford.go) on n qubits in
// O(n²) bits, so thousands of qubits where the state vector stops near
// thirty:
//
//   - without classical control (conditions, jumps, set bits, compute),
//     one noiseless run of the inverse tableau (tableau.go) gives a
//     reference sample, and the shots are Pauli frames on it, 64 to a
//     word, a batch of them at a time (frames.go): N shots cost about
//     ops·N/64 word operations, not N tableau runs. Mid-circuit
//     measurement, reset, noise and readout errors all run as frames.
//   - with classical control, every shot runs the tableau itself, from a
//     copy of it after the gates every shot shares: a shot's outcomes
//     decide what it runs, which frames on one reference cannot follow.
//
// Work (Options.MaxWork) is counted in words of 64 bits read and written:
// a tableau row is 2⌈n/64⌉ words; a gate on the tableau costs the rows it
// copies and multiplies, a measurement one row to see whether its outcome
// is certain and 2n rows more when it is not; starting a shot costs the
// tableau (2n rows). On frames a batch of 64·w shots costs w words for
// each x or z row an operation reads or writes, a channel w and a word
// per expected hit, and counting w·(64 + width) words for its
// transposes and keys. Every operation costs at least opFloor.

// MaxStabilizerQubits is the most qubits the stabilizer method runs
// (Limits.MaxQubits, when set, may lower it): its tableau then takes
// 50 MB, and a random measurement rewrites all of it.
const MaxStabilizerQubits = 10_000

// stabilizerMaxQubits is the most qubits the limits let the stabilizer
// method run.
func (l Limits) stabilizerMaxQubits() int {
	if l.MaxQubits > 0 {
		return min(l.MaxQubits, MaxStabilizerQubits)
	}
	return MaxStabilizerQubits
}

// checkStabilizer reports whether the stabilizer method may run n
// qubits: at most stabilizerMaxQubits, and a tableau within the memory
// budget.
func (l Limits) checkStabilizer(n int) error {
	if n < 0 {
		return fmt.Errorf("%w: %d qubits", ErrInvalidCircuit, n)
	}
	if m := l.stabilizerMaxQubits(); n > m {
		return fmt.Errorf("%w: %d qubits requested, the limit of the stabilizer method is %d", ErrTooManyQubits, n, m)
	}
	if b := 8 * tableauWords(n); b > l.budget() {
		return fmt.Errorf("%w: the stabilizer tableau of %d qubits needs %s, the budget is %s", ErrMemoryBudget, n, byteSize(b), byteSize(l.budget()))
	}
	return nil
}

// stabOp is an operation of a circuit as the stabilizer method runs it.
type stabOp struct {
	*Op
	g    *cliffordGate // a gate's action
	ch   *stabChannel  // a channel's draws
	qs   [maxCliffordQubits]int
	cost int64 // steps, as preparedOp's
}

// stabProgram is a circuit prepared for the stabilizer method.
type stabProgram struct {
	n, w      int
	ops       []stabOp
	numClbits int
	// classical: the circuit has conditions, jumps, set bits or compute;
	// every shot runs the tableau.
	classical bool
	prefix    int // leading unconditional gates (analyse's prefix)
}

// prepareStabilizer builds the stabilizer program of c followed by extra
// (the final measurements of a circuit that measures nothing), judging
// its gates with j.
func prepareStabilizer(ctx context.Context, c *Circuit, extra []Op, sh shape, j *cliffordJudge) (*stabProgram, error) {
	enter("prepare")
	p := &stabProgram{n: c.NumQubits, w: (c.NumQubits + 63) / 64, numClbits: c.NumClbits + len(extra), prefix: sh.prefix,
		ops: make([]stabOp, 0, len(c.Ops)+len(extra))}
	channels := make(map[*Channel]*stabChannel)
	tick := ticker{ctx: ctx}
	for _, ops := range [][]Op{c.Ops, extra} {
		for i := range ops {
			op := &ops[i]
			if err := tick.tick(); err != nil {
				return nil, err
			}
			so := stabOp{Op: op, cost: 1 + int64(evalNodes(op)/nodeCost)}
			switch op.Kind {
			case OpGate:
				g, ok := j.gate(op)
				if !ok {
					return nil, fmt.Errorf("%w: the stabilizer method runs Clifford gates only: gate %s %s is not one", ErrMethod, op.GateName(), where(len(p.ops), op))
				}
				so.g = g
				for q := range op.numQubits() {
					so.qs[q] = op.qubitAt(q)
				}
			case OpNoise:
				ch := op.Channel()
				sc, ok := channels[ch]
				if !ok {
					sc = newStabChannel(ch)
					channels[ch] = sc
				}
				so.ch = sc
				for q := range op.NumTargets() {
					so.qs[q] = op.TargetAt(q)
				}
			case OpJump, OpSetBits, OpCompute:
				p.classical = true
			}
			p.classical = p.classical || op.Cond() != nil
			p.ops = append(p.ops, so)
		}
	}
	return p, nil
}

// rowWork is the work of reading or writing one row of the tableau.
func (p *stabProgram) rowWork() int64 { return 2 * int64(p.w) }

// gateWork is the work of a Clifford gate on the tableau: copying its
// generators' rows and multiplying the images'.
func (p *stabProgram) gateWork(g *cliffordGate) int64 {
	rows := int64(2 * g.k)
	for j := range 2 * g.k {
		img := g.inv[j]
		if b := generatorBits(img, g.k); b != 1<<j || img.neg {
			rows += int64(popcount(b)) + 1
		}
	}
	return max(rows*p.rowWork(), opFloor)
}

// collapseWork is the work of a random measurement: every row rewritten.
func (p *stabProgram) collapseWork() int64 { return max(2*int64(p.n)*p.rowWork(), opFloor) }

func popcount(b uint) int {
	n := 0
	for ; b != 0; b &= b - 1 {
		n++
	}
	return n
}

// tabMeasure measures qubit q on t, charging the collapse to budget when
// the outcome is random, which draw picks.
func (p *stabProgram) tabMeasure(t *tableau, q int, budget *workBudget, draw func() bool) (bool, error) {
	if err := budget.charge(max(p.rowWork(), opFloor)); err != nil {
		return false, err
	}
	random, outcome := t.deterministic(q)
	if !random {
		return outcome, nil
	}
	if err := budget.charge(p.collapseWork()); err != nil {
		return false, err
	}
	m := draw()
	t.collapse(q, m)
	return m, nil
}

// runStabilizer runs the program for shots shots and counts them by k.
// It reports whether it ran shot by shot.
func runStabilizer(ctx context.Context, p *stabProgram, shots int, rng *rand.Rand, budget *workBudget, k keys, lim outcomeLimit) (map[string]int, bool, error) {
	if p.classical {
		counts, err := p.runShots(ctx, shots, rng, budget, k, lim)
		return counts, true, err
	}
	ref, err := p.reference(ctx, budget)
	if err != nil {
		return nil, false, err
	}
	counts, err := p.runFrames(ctx, ref, shots, rng, budget, k, lim)
	return counts, false, err
}

// reference runs the circuit once on the tableau without its noise,
// taking 0 for every random outcome, and returns the outcome of each
// measurement by its index in p.ops.
func (p *stabProgram) reference(ctx context.Context, budget *workBudget) ([]bool, error) {
	enter("reference")
	if err := budget.charge(max(2*int64(p.n)*p.rowWork(), opFloor)); err != nil {
		return nil, err
	}
	t := newTableau(p.n)
	ref := make([]bool, len(p.ops))
	zero := func() bool { return false }
	for i := range p.ops {
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		op := &p.ops[i]
		switch op.Kind {
		case OpGate:
			if err := budget.charge(p.gateWork(op.g)); err != nil {
				return nil, err
			}
			t.apply(op.g, op.qs[:op.g.k])
		case OpMeasure:
			var err error
			if ref[i], err = p.tabMeasure(t, op.Qubit(), budget, zero); err != nil {
				return nil, err
			}
		case OpReset:
			one, err := p.tabMeasure(t, op.Qubit(), budget, zero)
			if err != nil {
				return nil, err
			}
			if one {
				t.flipSign(p.n + op.Qubit())
			}
		}
	}
	return ref, ctx.Err()
}

// frameBatchBytes bounds the frames and outcome bits of a batch: 64·w
// shots hold (2n + width)·w words. Two MiB keep a batch in the cache of
// the machines measured (bench/README.md).
const frameBatchBytes = 2 << 20

// frameWords is the words of 64 shots a batch of frames holds.
func frameWords(n, width, shots int) int {
	w := frameBatchBytes / (8 * (2*n + width + 1))
	return max(1, min(w, shots/64+1))
}

// runFrames samples the shots as Pauli frames on the reference outcomes
// ref, a batch at a time.
func (p *stabProgram) runFrames(ctx context.Context, ref []bool, shots int, rng *rand.Rand, budget *workBudget, k keys, lim outcomeLimit) (map[string]int, error) {
	enter("shots")
	// Only the key bits some measurement writes vary; the others read 0
	// in every shot and stay out of the frames' outcomes and the packed
	// keys (a 65,536-bit register of which two bits are measured packs
	// two).
	row := make(map[int]int) // key bit → its row of outcomes
	var live []int           // key bits by row
	for i := range p.ops {
		if op := &p.ops[i]; op.Kind == OpMeasure {
			if b := op.Bit(); b >= k.from && b < k.to {
				if _, ok := row[b-k.from]; !ok {
					row[b-k.from] = len(live)
					live = append(live, b-k.from)
				}
			}
		}
	}
	width := len(live)
	wmax := frameWords(p.n, width, shots)
	f := newFrames(p.n, wmax, rng)
	recAll := make([]uint64, width*wmax)
	rec := make([][]uint64, width)
	for b := range rec {
		rec[b] = recAll[b*wmax : (b+1)*wmax]
	}
	// Each measurement's row, −1 for a bit no key holds.
	recOf := make([]int32, len(p.ops))
	for i := range p.ops {
		recOf[i] = -1
		if op := &p.ops[i]; op.Kind == OpMeasure {
			if r, ok := row[op.Bit()-k.from]; ok && op.Bit() >= k.from {
				recOf[i] = int32(r)
			}
		}
	}
	// What a word of a batch costs.
	perWord := int64(64 + width)
	for i := range p.ops {
		op := &p.ops[i]
		switch op.Kind {
		case OpGate:
			if !op.g.frameIdentity {
				perWord += 3 * int64(op.g.k) // x and z rows, and z drawn
			}
		case OpMeasure, OpReset:
			perWord += 2
		case OpNoise:
			perWord += 1 + int64(64*op.ch.total)
		}
	}
	// All of it up front, as sampling on the state vector charges its
	// shots: the words of every batch, and a step per operation a batch.
	words, batches := int64(shots/64)+1, int64(shots/(64*wmax))+1
	if err := budget.charge(addSat(mulSat(perWord, words), mulSat(int64(len(p.ops))+1, batches))); err != nil {
		return nil, err
	}
	t := newPackedTally(width, k.width(), live, lim)
	for start := 0; start < shots; start += 64 * wmax {
		n := min(64*wmax, shots-start)
		w := (n + 63) / 64
		f.start(w)
		for b := range rec {
			clear(rec[b][:w])
		}
		for i := range p.ops {
			if i%ctxCheckEvery == 0 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			op := &p.ops[i]
			switch op.Kind {
			case OpGate:
				if !op.g.frameIdentity {
					f.apply(op.g, op.qs[:op.g.k])
				}
			case OpMeasure:
				var r []uint64
				if j := recOf[i]; j >= 0 {
					r = rec[j]
				}
				f.measure(op.Qubit(), ref[i], r)
				if e := op.ReadoutError(); e > 0 && r != nil {
					f.flip(r, e)
				}
			case OpReset:
				f.reset(op.Qubit())
			case OpNoise:
				f.noise(op.ch, op.qs[:op.NumTargets()])
			}
		}
		if err := t.tallyBatch(ctx, rec, w, n); err != nil {
			return nil, err
		}
	}
	return t.counts(ctx)
}

// runShots runs the tableau once per shot, each shot from a copy of it
// after the gates every shot shares, following conditions and jumps.
func (p *stabProgram) runShots(ctx context.Context, shots int, rng *rand.Rand, budget *workBudget, k keys, lim outcomeLimit) (map[string]int, error) {
	start := max(2*int64(p.n)*p.rowWork(), opFloor)
	if err := budget.charge(start); err != nil {
		return nil, err
	}
	shared := newTableau(p.n)
	for i := range p.ops[:p.prefix] {
		op := &p.ops[i]
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		if op.Kind == OpGate {
			if err := budget.charge(p.gateWork(op.g)); err != nil {
				return nil, err
			}
			shared.apply(op.g, op.qs[:op.g.k])
		}
	}
	if err := budget.charge(start); err != nil {
		return nil, err
	}
	t := newTableau(p.n)
	enter("shots")
	tl := newTally(lim)
	clbits := make([]bool, p.numClbits)
	key := make([]byte, k.width())
	draw := func() bool { return rng.Uint64()&1 == 1 }
	perShot := start + int64(p.numClbits)/64
	for range shots {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := budget.charge(perShot); err != nil {
			return nil, err
		}
		t.copyFrom(shared)
		clear(clbits)
		if err := p.runShot(ctx, t, clbits, rng, draw, budget); err != nil {
			return nil, err
		}
		countKey(key, clbits[k.from:k.to])
		if err := tl.add(key); err != nil {
			return nil, err
		}
	}
	return tl.counts(ctx)
}

// runShot runs p.ops from the prefix on, one shot on t.
func (p *stabProgram) runShot(ctx context.Context, t *tableau, clbits []bool, rng *rand.Rand, draw func() bool, budget *workBudget) error {
	var steps int64
	for n, pc := 0, p.prefix; pc < len(p.ops); n++ {
		if n%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		op := &p.ops[pc]
		if steps += op.cost; steps > budget.perShot {
			return budget.stepsExceeded()
		}
		pc++
		if err := budget.charge(op.cost); err != nil {
			return err
		}
		if c := op.Cond(); c != nil && !c.Eval(clbits) {
			continue
		}
		switch op.Kind {
		case OpGate:
			if err := budget.charge(p.gateWork(op.g)); err != nil {
				return err
			}
			t.apply(op.g, op.qs[:op.g.k])
		case OpMeasure:
			one, err := p.tabMeasure(t, op.Qubit(), budget, draw)
			if err != nil {
				return err
			}
			clbits[op.Bit()] = one
			misread(clbits, op.Op, rng)
		case OpReset:
			one, err := p.tabMeasure(t, op.Qubit(), budget, draw)
			if err != nil {
				return err
			}
			if one {
				t.flipSign(p.n + op.Qubit())
			}
		case OpNoise:
			if rng.Float64() < op.ch.total {
				t.applyPauli(op.ch.draw(rng.Float64()), op.qs[:op.NumTargets()])
			}
		case OpSetBits, OpCompute:
			if err := classical(op.Op, clbits, pc-1); err != nil {
				return err
			}
		case OpJump:
			pc = op.JumpTarget()
		}
	}
	return nil
}

// stabilizerNeed bounds what the stabilizer method allocates for c (with
// extra final measurements when it measures nothing): the tableau (two
// when every shot runs it), the program's operations, the frames and
// outcome bits of a batch and their transposes, the reference outcomes,
// the judge's cache and the counts.
func stabilizerNeed(c *Circuit, sh shape, opts Options) int64 {
	n := c.NumQubits
	k := keysOf(c, opts)
	ops := int64(len(c.Ops))
	if k.measureAll {
		ops += int64(n)
	}
	need := addSat(fixedBytes, mulSat(2, 8*tableauWords(n)))
	need = addSat(need, mulSat(ops, 64+1)) // a stabOp, a reference outcome
	need = addSat(need, int64(maxCliffordCache)*(64+int64(sizeofCliffordGate)))
	w := int64(frameWords(n, k.width(), max(opts.Shots, 0)))
	need = addSat(need, 8*w*int64(2*n+k.width()))
	need = addSat(need, int64(n))                                    // pending z flags
	need = addSat(need, 8*64*int64(k.width()/64+1)+int64(k.width())) // a batch's keys
	return addSat(need, countsNeed(c, sh, opts))
}

// sizeofCliffordGate is about what one judged gate holds.
const sizeofCliffordGate = 64
