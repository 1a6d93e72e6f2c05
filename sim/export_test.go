package sim

import (
	"context"
	"math"
	"math/rand/v2"
)

// FuseGates runs fusion alone, for benchmarks: it returns how many kernels
// the gates fuse into.
func FuseGates(ctx context.Context, gates []*Gate, width, diagWidth int) (int, error) {
	ops := make([]*Op, len(gates))
	for i, g := range gates {
		op := GateOp(*g)
		ops[i] = &op
	}
	ks, err := fuseGates(ctx, ops, width, diagWidth)
	return len(ks), err
}

// SetTestHook sets the function called as a run enters each phase
// ("validate", "prepare", "fuse", "apply", "shots", "sample", "count") and
// returns a function that removes it. Tests set it before starting a run and
// remove it after the run has returned.
func SetTestHook(f func(phase string)) (remove func()) {
	testHook = f
	return func() { testHook = nil }
}

// ApplyContext applies g like ApplyGate, checking ctx between chunks of the
// state like a run does.
func (s *State) ApplyContext(ctx context.Context, g Gate) error {
	return s.v.apply(ctx, newKernel(&g), s.n, s.workers)
}

// UniformsForTest returns the variates newUniforms hands out for a seed,
// the first pass's kept (keep) or drawn again from a copy of the
// generator.
func UniformsForTest(seed uint64, shots int, keep bool) []float64 {
	u, err := newUniforms(context.Background(), newSource(seed), shots, 1)
	if err != nil {
		panic(err)
	}
	if !keep {
		u.kept = nil
		replay := newSource(seed)
		u.rng = rand.New(replay)
		u.sum = u.rng.ExpFloat64()
		u.next = u.sum * u.scale
	}
	var out []float64
	for u.left > 0 {
		out = append(out, u.next)
		u.take()
	}
	return out
}

// KeptVariates is the most shots whose variates are kept between passes.
const KeptVariates = keptVariates

// ReducedDensity is the reduced density matrix of targets as trajectories
// read it (expect.go), d×d row-major, on workers goroutines.
func (s *State) ReducedDensity(targets []int, diagOnly bool, workers int) []complex128 {
	rho, err := s.v.reduced(context.Background(), targets, diagOnly, workers)
	if err != nil {
		panic(err)
	}
	d := 1 << len(targets)
	return rho[:d*d]
}

// SparseAmplitudes applies c's gates on the sparse method and returns its
// nonzero amplitudes.
func SparseAmplitudes(ctx context.Context, c *Circuit, lim Limits) (map[uint64]complex128, error) {
	s := newSparse(c.NumQubits, sparseMax(lim))
	r := &sparseRun{c: c, ops: c.Ops, gates: map[int]*sparseGate{}, max: s.max}
	budget := newWorkBudget(0, 0)
	for i := range c.Ops {
		if err := r.step(ctx, s, i, &budget); err != nil {
			return nil, err
		}
	}
	return s.amp, nil
}

// TallyForTest counts shots whose key bits are rec (bit b of the key in
// rec[b], 64 shots a word) as runFrames does: by popcounts up to
// PopcountTallyBits bits, in an array up to DenseTallyBits, else in a map.
func TallyForTest(rec [][]uint64, shots int) (map[string]int, error) {
	width := len(rec)
	live := make([]int, width)
	for b := range live {
		live[b] = b
	}
	t := newPackedTally(width, width, live, outcomeLimit{max: math.MaxInt})
	if err := t.tallyBatch(context.Background(), rec, (shots+63)/64, shots); err != nil {
		return nil, err
	}
	return t.counts(context.Background())
}

const (
	PopcountTallyBits = popcountTallyBits
	DenseTallyBits    = denseTallyBits
)

// FinalSwapsDropped is how many swaps a sampled run of c leaves out
// (dropFinalSwaps), 0 for a circuit not sampled from one state.
func FinalSwapsDropped(c *Circuit) int {
	p, err := prepare(context.Background(), c, nil, fusion{}, false)
	if err != nil || p.perShot || p.stream {
		return 0
	}
	head := p.head
	p.dropFinalSwaps(nil)
	n := 0
	for _, op := range head[len(p.head):] {
		if op.Kind == OpGate {
			n++
		}
	}
	return n
}
