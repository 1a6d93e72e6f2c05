package sim

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
)

// The sparse method keeps only the nonzero amplitudes of the state, by
// basis index in a uint64: a program of up to 64 qubits whose state stays
// sparse (GHZ with T gates, oracles and arithmetic on basis states) costs
// its nonzero amplitudes, however many qubits it has. A gate that maps
// each basis state to one (diagonal gates, X, CX, SWAP, Toffoli: the
// monomial matrices) keeps their number; any other gate on k qubits may
// multiply it by 2^k. The state holds at most what the memory budget
// allows; past it the run fails naming the count it reached.
//
// Reductions (norms, a qubit's probability, sampling) add the amplitudes
// in index order, and a gate computes each new amplitude from its group
// in a fixed order, so a seed gives the same counts on every run, whatever
// order Go's maps iterate in.

// MaxSparseQubits is the most qubits the sparse method runs: basis
// indices are uint64s.
const MaxSparseQubits = 64

// SparseEntryBytes bounds what one nonzero amplitude costs: its map entry
// (a uint64 key, a complex128, Go's map overhead: about 40 bytes) in the
// state every shot starts from, in the shot's copy and in the map a gate
// builds from it, and its place in a sorted index.
const SparseEntryBytes = 128

// sparseDrop is the squared magnitude under which an amplitude a gate
// computes is dropped as rounding's residue of a cancellation (H·H leaves
// 1e-17).
const sparseDrop = 1e-30

// sparseState is a state of n qubits by its nonzero amplitudes.
type sparseState struct {
	n   int
	amp map[uint64]complex128
	max int // the most entries the budget allows
	// grow, when not nil, is what of the budget the state holds: past it,
	// it asks for more (Options.Grow).
	grow *sparseGrowth
}

func newSparse(n, max int) *sparseState {
	return &sparseState{n: n, amp: map[uint64]complex128{0: 1}, max: max}
}

// sparseMax is how many nonzero amplitudes the limits allow.
func sparseMax(l Limits) int {
	return int(min(l.budget()/SparseEntryBytes, math.MaxInt32))
}

// sparseCap is how many nonzero amplitudes a run of c may hold: what the
// budget leaves after the rest of what the run holds (sparseNeed).
func sparseCap(c *Circuit, sh shape, opts Options) int {
	rest := sparseRest(c, sh, opts)
	return int(min(max(opts.Limits.budget()-rest, 0)/SparseEntryBytes, math.MaxInt32))
}

// sparseRest is what a sparse run holds besides its amplitudes: the
// prepared gates, the counts, fixed overheads.
func sparseRest(c *Circuit, sh shape, opts Options) int64 {
	need := addSat(fixedBytes, mulSat(int64(min(len(c.Ops), maxKeptKernels)), 256))
	return addSat(need, countsNeed(c, sh, opts))
}

// checkSparse reports whether the sparse method may run n qubits in
// precision p (which it ignores, but an unknown one is an error
// everywhere): at most MaxSparseQubits and at most Limits.MaxQubits, whose
// 0 means DefaultMaxQubits here too.
func (l Limits) checkSparse(n int, p Precision) error {
	limit := min(MaxSparseQubits, DefaultMaxQubits)
	if l.MaxQubits > 0 {
		limit = min(MaxSparseQubits, l.MaxQubits)
	}
	switch {
	case p > Single:
		return fmt.Errorf("%w: unknown precision %d", ErrInvalidCircuit, p)
	case n < 0:
		return fmt.Errorf("%w: %d qubits", ErrInvalidCircuit, n)
	case n > limit:
		return fmt.Errorf("%w: %d qubits requested, the limit of the sparse method is %d", ErrTooManyQubits, n, limit)
	}
	return nil
}

func (s *sparseState) tooMany(n int) error { return &SparseLimitError{Reached: n, Max: s.max} }

// SparseLimitError is the error of a sparse state that passes the memory
// budget: the count of nonzero amplitudes it reached. It is an
// ErrMemoryBudget.
type SparseLimitError struct{ Reached, Max int }

func (e *SparseLimitError) Error() string {
	return fmt.Sprintf("the sparse state reached %d nonzero amplitudes, more than the %d the memory budget leaves room for (%s at %d bytes each)",
		e.Reached, e.Max, byteSize(int64(e.Max)*SparseEntryBytes), SparseEntryBytes)
}

func (e *SparseLimitError) Unwrap() error { return ErrMemoryBudget }

// sparseGate is a gate prepared for sparse states: its matrix on its
// targets, where its controls hold (idx&cmask == cval), and whether it is
// diagonal or monomial.
type sparseGate struct {
	m           []complex128
	targets     []int
	tmask       uint64
	cmask, cval uint64
	diagonal    bool
	// monomial: column j has its one nonzero, phase[j], at row perm[j].
	perm  []int
	phase []complex128
}

func newSparseGate(m []complex128, targets []int, controls []Control) *sparseGate {
	g := &sparseGate{m: m, targets: targets}
	for _, t := range targets {
		g.tmask |= 1 << t
	}
	for _, c := range controls {
		g.cmask |= 1 << c.Qubit
		if !c.Negated {
			g.cval |= 1 << c.Qubit
		}
	}
	d := 1 << len(targets)
	g.diagonal = true
	g.perm, g.phase = make([]int, d), make([]complex128, d)
	monomial := true
	for j := range d {
		nz := 0
		for r := range d {
			if v := m[r*d+j]; v != 0 {
				nz++
				g.perm[j], g.phase[j] = r, v
				if r != j {
					g.diagonal = false
				}
			}
		}
		monomial = monomial && nz == 1
	}
	if !monomial {
		g.perm, g.phase, g.diagonal = nil, nil, false
	}
	return g
}

// sub is the index into the gate's matrix of basis state i; spread the
// basis bits of the targets for matrix index j.
func (g *sparseGate) sub(i uint64) int {
	j := 0
	for k, t := range g.targets {
		j |= int(i>>t&1) << k
	}
	return j
}

func (g *sparseGate) spread(j int) uint64 {
	var i uint64
	for k, t := range g.targets {
		i |= uint64(j>>k&1) << t
	}
	return i
}

// apply applies g; work is charged by the caller (one unit an entry).
func (s *sparseState) apply(ctx context.Context, g *sparseGate) error {
	tick := ticker{ctx: ctx}
	if g.diagonal {
		for i, a := range s.amp {
			if err := tick.tick(); err != nil {
				return err
			}
			if i&g.cmask == g.cval {
				j := g.sub(i)
				s.amp[i] = a * g.phase[j]
			}
		}
		return nil
	}
	out := make(map[uint64]complex128, len(s.amp))
	if g.perm != nil {
		for i, a := range s.amp {
			if err := tick.tick(); err != nil {
				return err
			}
			if i&g.cmask != g.cval {
				out[i] = a
				continue
			}
			j := g.sub(i)
			out[i&^g.tmask|g.spread(g.perm[j])] = a * g.phase[j]
		}
		s.amp = out
		return nil
	}
	d := 1 << len(g.targets)
	in := make([]complex128, d)
	for i, a := range s.amp {
		if err := tick.step(d); err != nil {
			return err
		}
		if i&g.cmask != g.cval {
			out[i] = a
			continue
		}
		// The group of i (its targets' values) is computed once, from its
		// member of the lowest matrix index present.
		base, j := i&^g.tmask, g.sub(i)
		first := true
		for l := range j {
			if _, ok := s.amp[base|g.spread(l)]; ok {
				first = false
				break
			}
		}
		if !first {
			continue
		}
		for l := range d {
			in[l] = s.amp[base|g.spread(l)]
		}
		for r := range d {
			var v complex128
			for l := range d {
				v += g.m[r*d+l] * in[l]
			}
			if real(v)*real(v)+imag(v)*imag(v) > sparseDrop {
				out[base|g.spread(r)] = v
			}
		}
		if len(out) > s.max {
			return s.tooMany(len(out))
		}
		if g := s.grow; g != nil && len(out) > g.held {
			if err := g.more(len(out), s.max); err != nil {
				return err
			}
		}
	}
	s.amp = out
	return nil
}

// sorted returns the indices of the nonzero amplitudes in order.
func (s *sparseState) sorted() []uint64 {
	return slices.Sorted(maps.Keys(s.amp))
}

// probability is the probability that qubit q reads 1, and the squared
// norm, added in index order.
func (s *sparseState) probability(q int) (p1, norm float64) {
	for _, i := range s.sorted() {
		a := s.amp[i]
		p := real(a)*real(a) + imag(a)*imag(a)
		norm += p
		if i>>q&1 == 1 {
			p1 += p
		}
	}
	return p1, norm
}

// measure measures qubit q, collapsing the state onto the outcome.
func (s *sparseState) measure(q int, rng *rand.Rand) bool {
	p1, norm := s.probability(q)
	one := rng.Float64()*norm < p1
	p := p1
	if !one {
		p = norm - p1
	}
	scale := complex(1/math.Sqrt(p), 0)
	for i, a := range s.amp {
		if (i>>q&1 == 1) != one {
			delete(s.amp, i)
		} else {
			s.amp[i] = a * scale
		}
	}
	return one
}

// reset measures q and flips it to 0 when it read 1.
func (s *sparseState) reset(q int, rng *rand.Rand) {
	if !s.measure(q, rng) {
		return
	}
	out := make(map[uint64]complex128, len(s.amp))
	for i, a := range s.amp {
		out[i^1<<q] = a
	}
	s.amp = out
}

// noise applies one trajectory's draw of the channel of op: a mixture
// draws its unitary by its fixed probabilities; other channels draw Kraus
// matrix K with probability ‖Kψ‖², computed by applying each.
func (s *sparseState) noise(ctx context.Context, op *Op, rng *rand.Rand) error {
	ch := op.Channel()
	targets := make([]int, op.NumTargets())
	for j := range targets {
		targets[j] = op.TargetAt(j)
	}
	if ch.mix != nil {
		b := ch.mix[ch.draw(rng)]
		if b.m == nil {
			return nil
		}
		return s.apply(ctx, newSparseGate(b.m, targets, nil))
	}
	u := rng.Float64()
	var kept *sparseState
	var total float64
	for k, br := range ch.general {
		t := &sparseState{n: s.n, amp: maps.Clone(s.amp), max: s.max, grow: s.grow}
		if err := t.apply(ctx, newSparseGate(br.k, targets, nil)); err != nil {
			return err
		}
		var p float64
		for _, i := range t.sorted() {
			a := t.amp[i]
			p += real(a)*real(a) + imag(a)*imag(a)
		}
		total += p
		if kept == nil && (u < total || k == len(ch.general)-1) {
			kept = t
			scale := complex(1/math.Sqrt(p), 0)
			for i, a := range t.amp {
				t.amp[i] = a * scale
			}
		}
	}
	s.amp = kept.amp
	return nil
}

// sparseRun is a circuit prepared for the sparse method.
type sparseRun struct {
	c     *Circuit
	ops   []Op // c's operations, then the final measurements of a circuit that measures nothing
	gates map[int]*sparseGate
	max   int
}

func (r *sparseRun) gate(i int) *sparseGate {
	if g, ok := r.gates[i]; ok {
		return g
	}
	op := &r.ops[i]
	g := newSparseGate(op.matrix(), slices.Clone(op.gateTargets()), op.gateControls())
	if len(r.gates) < maxKeptKernels {
		r.gates[i] = g
	}
	return g
}

// runSparse runs c on the sparse method: the gates once and the shots
// sampled when the circuit is terminal and noiseless, else shot by shot
// (trajectories for its noise), its leading gates once.
func runSparse(ctx context.Context, c *Circuit, sh shape, extra []Op, opts Options, src *rand.PCG, k keys, lim outcomeLimit, budget *workBudget) (map[string]int, error) {
	r := &sparseRun{c: c, ops: append(slices.Clip(c.Ops), extra...), gates: map[int]*sparseGate{}, max: sparseCap(c, sh, opts)}
	s := newSparse(c.NumQubits, r.max)
	if opts.Grow != nil {
		s.grow = newSparseGrowth(opts, sparseRest(c, sh, opts))
	}
	prefix := sh.prefix
	if !sh.perShot() {
		prefix = len(r.ops)
	}
	for i := range prefix {
		if err := r.step(ctx, s, i, budget); err != nil {
			return nil, err
		}
	}
	if !sh.perShot() {
		if err := budget.charge(int64(opts.Shots) + int64(len(s.amp))); err != nil {
			return nil, err
		}
		return s.sample(ctx, src, opts.Shots, sourcesOf(c, extra, k), lim)
	}
	rng := rand.New(src)
	shared := s.amp
	t := newTally(lim)
	clbits := make([]bool, max(c.NumClbits+len(extra), 1))
	key := make([]byte, k.width())
	for range opts.Shots {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := budget.charge(int64(len(shared)) + int64(len(clbits))/64 + 1); err != nil {
			return nil, err
		}
		s.amp = maps.Clone(shared)
		clear(clbits)
		if err := r.shot(ctx, s, prefix, clbits, rng, budget); err != nil {
			return nil, err
		}
		countKey(key, clbits[k.from:k.to])
		if err := t.add(key); err != nil {
			return nil, err
		}
	}
	return t.counts(ctx)
}

// step applies a gate or barrier of the shared part.
func (r *sparseRun) step(ctx context.Context, s *sparseState, i int, budget *workBudget) error {
	if r.ops[i].Kind != OpGate {
		return nil
	}
	if err := budget.charge(int64(len(s.amp)) << len(r.ops[i].gateTargets())); err != nil {
		return err
	}
	return s.apply(ctx, r.gate(i))
}

// shot runs the operations from pc on for one shot, within the steps of a
// shot and the work left.
func (r *sparseRun) shot(ctx context.Context, s *sparseState, pc int, clbits []bool, rng *rand.Rand, budget *workBudget) error {
	var steps int64
	for pc < len(r.ops) {
		if steps++; steps > budget.perShot {
			return budget.stepsExceeded()
		}
		op := &r.ops[pc]
		if err := budget.charge(1 + int64(len(s.amp))); err != nil {
			return err
		}
		i := pc
		pc++
		if c := op.Cond(); c != nil && !c.Eval(clbits) {
			continue
		}
		switch op.Kind {
		case OpGate:
			if err := r.step(ctx, s, i, budget); err != nil {
				return err
			}
		case OpMeasure:
			clbits[op.Bit()] = s.measure(op.Qubit(), rng)
			misread(clbits, op, rng)
		case OpReset:
			s.reset(op.Qubit(), rng)
		case OpNoise:
			if err := s.noise(ctx, op, rng); err != nil {
				return err
			}
		case OpSetBits, OpCompute:
			if err := classical(op, clbits, i); err != nil {
				return err
			}
		case OpJump:
			pc = op.JumpTarget()
		}
	}
	return ctx.Err()
}

// sample draws shots outcomes of the final state, keyed by the qubits
// each key bit holds (source, −1 for a bit that reads 0), walking the
// amplitudes in index order against sorted uniforms.
func (s *sparseState) sample(ctx context.Context, src *rand.PCG, shots int, source []int, lim outcomeLimit) (map[string]int, error) {
	idx := s.sorted()
	var total float64
	for _, i := range idx {
		a := s.amp[i]
		total += real(a)*real(a) + imag(a)*imag(a)
	}
	u, err := newUniforms(ctx, src, shots, total)
	if err != nil {
		return nil, err
	}
	counts := map[string]int{}
	key := make([]byte, len(source))
	hit := func(i uint64, n int) error {
		for b, q := range source {
			key[len(key)-1-b] = '0'
			if q >= 0 && i>>q&1 == 1 {
				key[len(key)-1-b] = '1'
			}
		}
		if _, ok := counts[string(key)]; !ok && len(counts) >= lim.max {
			return lim.err()
		}
		counts[string(key)] += n
		return nil
	}
	var cum float64
	tick := ticker{ctx: ctx}
	for _, i := range idx {
		if u.left == 0 {
			break
		}
		if err := tick.tick(); err != nil {
			return nil, err
		}
		a := s.amp[i]
		cum += real(a)*real(a) + imag(a)*imag(a)
		n := 0
		for u.left > 0 && u.next < cum {
			u.take()
			n++
		}
		if n > 0 {
			if err := hit(i, n); err != nil {
				return nil, err
			}
		}
	}
	if u.left > 0 { // rounding left the last variates past the final sum
		if err := hit(idx[len(idx)-1], u.left); err != nil {
			return nil, err
		}
	}
	return counts, nil
}

// sparseNeed bounds what a sparse run holds: its nonzero amplitudes (at
// most 2^SparseBound, SparseEntryBytes each) and the rest (sparseRest).
// Past the budget it says so rather than cap itself there: a run that
// could fill the budget is one the caller should refuse (or let grow,
// Options.Grow), not reserve the whole budget for.
func sparseNeed(c *Circuit, sh shape, opts Options) (entries, need int64) {
	b, _ := SparseBound(context.Background(), c, sh.perShot()) // never cancelled
	entries = math.MaxInt64
	if b < 62 {
		entries = int64(1) << b
	}
	return entries, addSat(mulSat(entries, SparseEntryBytes), sparseRest(c, sh, opts))
}

// sparseStartEntries is what a sparse run that grows (Options.Grow) holds
// from its start: 8 MiB of amplitudes. It asks for more as it passes what
// it holds, doubling it each time, so that a run asks a few dozen times
// at most and never holds more than twice what it needs.
const sparseStartEntries = 1 << 16

// sparseGrowth is what a growing sparse state holds of the budget, and
// how it asks for more.
type sparseGrowth struct {
	held int // entries the memory held covers
	ask  func(delta int64) error
}

// newSparseGrowth is the growth of a run that holds rest bytes besides
// its amplitudes: it starts with sparseStartEntries, or what opts.Held
// covers.
func newSparseGrowth(opts Options, rest int64) *sparseGrowth {
	held := max(int64(sparseStartEntries), (opts.Held-rest)/SparseEntryBytes)
	return &sparseGrowth{held: int(min(held, math.MaxInt32)), ask: opts.Grow}
}

// more makes room for n entries, at most limit: an error is the caller's
// (Options.Grow) refusal, returned as it is.
func (g *sparseGrowth) more(n, limit int) error {
	if n <= g.held {
		return nil
	}
	next := min(max(2*g.held, n), limit)
	if err := g.ask(int64(next-g.held) * SparseEntryBytes); err != nil {
		return err
	}
	g.held = next
	return nil
}

// gateTargets and gateControls are a gate's (or a channel's) qubits.
func (op *Op) gateTargets() []int {
	t := make([]int, op.NumTargets())
	for j := range t {
		t[j] = op.TargetAt(j)
	}
	return t
}

func (op *Op) gateControls() []Control {
	c := make([]Control, op.NumControls())
	for j := range c {
		c[j] = op.ControlAt(j)
	}
	return c
}

// classical runs a SetBits or Compute operation, operation i of its
// circuit, on a shot's classical bits: what every per-shot method does
// alike.
func classical(op *Op, clbits []bool, i int) error {
	v := op.Value()
	if op.Kind == OpCompute {
		r, err := op.Expr().Eval(clbits)
		if err != nil {
			return fmt.Errorf("operation %d: %w", i, err)
		}
		v = uint64(r)
	}
	for j, b := range op.Bits() {
		clbits[b] = v>>j&1 == 1
	}
	return nil
}
