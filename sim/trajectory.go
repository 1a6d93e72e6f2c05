package sim

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
)

// Quantum trajectories: on the state vector a circuit with noise runs
// once per shot, and each channel it meets draws one Kraus branch K with
// probability ‖Kψ‖²/‖ψ‖² and applies it. The shot's outcomes are then a
// sample of exactly the density-matrix distribution, independent of the
// other shots' (none shares a branch). Two kinds of channel cost different
// amounts:
//
//   - a mixture of unitaries with fixed probabilities (every Pauli
//     channel, and any channel whose K†K are multiples of I) draws its
//     branch without reading the state, and applies it only when it is
//     not the identity: a pass over the state with probability p, none
//     otherwise;
//   - any other channel (amplitude damping) computes the reduced density
//     matrix of its qubits in one pass over the state (expect.go; a
//     one-qubit damping channel reads half of it), every branch's
//     probability from it, then applies the branch drawn in a second pass.
//
// A run keeps the kernels of the branches it draws, as it keeps its gates'
// (maxKeptKernels in all), so a branch drawn again costs its pass and
// nothing else. Those kernels apply K unscaled: the state's squared norm
// becomes ‖Kψ‖², which State.norm2 holds and the next measurement divides
// by (a collapse leaves the state normalised again); a state whose norm
// falls under minNorm2 is scaled back at once, for a pass.
//
// Work: the second kind's two passes are charged with the operation
// (prepare); a mixture's unitary, and scaling back, when they happen,
// before they are done.

// minNorm2 is the squared norm under which a trajectory's state is scaled
// back to 1: far from where float64 loses precision (1e-308), and reached
// only after hundreds of unlikely branches without a measurement.
const minNorm2 = 1e-100

// noiseKernels are the kernels of a channel's branches, by branch, built
// as they are drawn.
type noiseKernels struct {
	targets []int
	ks      []*kernel
}

// branches is the number of branches a trajectory may apply: a
// mixture's other than the identity, or every Kraus matrix drawn by its
// probability.
func (ch *Channel) branches() int {
	if ch.mix == nil {
		return len(ch.general)
	}
	n := 0
	for _, b := range ch.mix {
		if b.m != nil {
			n++
		}
	}
	return n
}

// noiseKernelsBytes is what a channel's noiseKernels hold besides the
// kernels: the struct, its targets and a pointer a branch.
func noiseKernelsBytes(ch *Channel) int64 {
	return 64 + 8*int64(ch.k) + 8*int64(max(len(ch.mix), len(ch.general)))
}

// draw returns the index of the mixture branch drawn with its
// probability. It takes one variate from rng whatever it draws.
func (ch *Channel) draw(rng *rand.Rand) int {
	u := rng.Float64()
	for i, b := range ch.mix {
		if u < b.p {
			return i
		}
		u -= b.p
	}
	return len(ch.mix) - 1 // rounding left u past the last sum
}

// kernels returns the noise operation's kernels, made on its first use.
func (op *preparedOp) kernels() *noiseKernels {
	if op.noise == nil {
		ch := op.Channel()
		nk := &noiseKernels{targets: make([]int, ch.k), ks: make([]*kernel, max(len(ch.mix), len(ch.general)))}
		for j := range nk.targets {
			nk.targets[j] = op.TargetAt(j)
		}
		op.noise = nk
	}
	return op.noise
}

// noiseKernel is the kernel of branch i (matrix m) of the noise operation
// op, kept for the next time it is drawn while fewer than maxKeptKernels
// are kept.
func (p *prepared) noiseKernel(op *preparedOp, i int, m []complex128, n int) *kernel {
	nk := op.kernels()
	if k := nk.ks[i]; k != nil {
		return k
	}
	g := branchGate(m, nk.targets)
	k := newKernelFor(&g, n)
	if p.kept < maxKeptKernels {
		nk.ks[i] = k
		p.kept++
	}
	return k
}

// branchGate is the gate that applies a branch's matrix m to targets. A
// one-qubit diagonal with a 1 on it (Z; amplitude damping's K0,
// diag(1, √(1−γ))) changes only the half of the state where the qubit
// holds the other value: it is that value's factor controlled by the
// qubit, which reads and writes that half alone, when the qubit is high
// enough that the half comes in long runs (shortRun).
func branchGate(m []complex128, targets []int) Gate {
	if len(targets) == 1 && targets[0] >= shortRun && m[1] == 0 && m[2] == 0 {
		switch {
		case m[0] == 1:
			return Gate{Matrix: m[3:], Controls: []Control{{Qubit: targets[0]}}}
		case m[3] == 1:
			return Gate{Matrix: m[:1], Controls: []Control{{Qubit: targets[0], Negated: true}}}
		}
	}
	return Gate{Matrix: m, Targets: targets}
}

// halfReadMin is the lowest qubit whose probability is read from half the
// state: below, its halves share cache lines, and the whole is read anyway.
const halfReadMin = 3

// drawKraus draws a branch of a channel that is not a mixture of unitaries
// by its probability on the state, and returns it and ‖Kψ‖².
func (s *State) drawKraus(ctx context.Context, ch *Channel, targets []int, rng *rand.Rand) (int, float64, error) {
	d := 1 << ch.k
	var rho [16]complex128
	var err error
	if ch.k == 1 && ch.diagonal && targets[0] >= halfReadMin {
		// The damping channels need the qubit's two probabilities, and
		// the norm gives one from the other: a read of half the state.
		var p1 float64
		p1, err = s.v.qubitProbability(ctx, targets[0], s.workers)
		rho[0], rho[3] = complex(max(s.norm2-p1, 0), 0), complex(p1, 0)
	} else {
		rho, err = s.v.reduced(ctx, targets, ch.diagonal, s.workers)
	}
	if err != nil {
		return 0, 0, err
	}
	var probs [16]float64
	var total float64
	for i, b := range ch.general {
		probs[i] = max(expectation(b.kdk, &rho, d), 0)
		total += probs[i]
	}
	u := rng.Float64() * total
	pick := -1
	for i, p := range probs[:len(ch.general)] {
		if p <= 0 {
			continue
		}
		pick = i
		if u < p {
			break
		}
		u -= p
	}
	if pick < 0 {
		return 0, 0, fmt.Errorf("sim: channel %s: every branch has probability 0 on a state of norm %g", ch.name, total)
	}
	return pick, probs[pick], nil
}

// applyNoise applies one draw of the channel of op to the state, with
// the kernels p keeps. What it may or may not do (a unitary drawn, a
// state to scale back) it charges to work before doing it; budget says
// what is left.
func (s *State) applyNoise(ctx context.Context, p *prepared, op *preparedOp, rng *rand.Rand, work *int64, budget *workBudget) error {
	ch := op.Channel()
	if ch.mix != nil {
		i := ch.draw(rng)
		if ch.mix[i].m == nil {
			return nil
		}
		if *work += passWork(s.n, 1); *work > budget.left {
			return budget.exceeded()
		}
		return s.v.apply(ctx, p.noiseKernel(op, i, ch.mix[i].m, s.n), s.n, s.workers)
	}
	i, norm2, err := s.drawKraus(ctx, ch, op.kernels().targets, rng)
	if err != nil {
		return err
	}
	if err := s.v.apply(ctx, p.noiseKernel(op, i, ch.general[i].k, s.n), s.n, s.workers); err != nil {
		return err
	}
	if s.norm2 = norm2; s.norm2 >= minNorm2 {
		return nil
	}
	if *work += passWork(s.n, 1); *work > budget.left {
		return budget.exceeded()
	}
	return s.normalise(ctx)
}

// ApplyChannel applies one trajectory's draw of ch to qubits (qubit j is
// bit j of ch's matrices), rng drawing the branch, for a front end that
// drives a State itself shot by shot: the state is left normalised, and
// over many shots the outcomes follow the density matrix. It stops when
// ctx is done as ApplyGateContext does.
func (s *State) ApplyChannel(ctx context.Context, ch *Channel, rng *rand.Rand, qubits ...int) error {
	op := NoiseOp(ch, qubits...)
	c := Circuit{NumQubits: s.n}
	if err := c.validateNoise(&op); err != nil {
		return fmt.Errorf("%w: %s", ErrInvalidCircuit, err)
	}
	p := &prepared{kept: maxKeptKernels} // nothing to keep a kernel for
	work, budget := int64(0), newWorkBudget(0, math.MaxInt64)
	if err := s.applyNoise(ctx, p, &preparedOp{Op: &op}, rng, &work, &budget); err != nil {
		return err
	}
	return s.normalise(ctx)
}
