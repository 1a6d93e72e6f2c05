package sim

import "context"

// The fusion width that pays depends on the circuit: wider blocks mean
// fewer passes over the state but more arithmetic in each (a dense block of
// k qubits costs 2^k multiply-adds an amplitude). Where vector kernels run
// and the state is large enough that passes dominate, fuseBest fuses a run
// at each candidate width and keeps the cheapest by a cost model measured
// on the kernels (bench/README.md, "fusion cost model"), as qsim chooses
// its fusion per circuit.

// autoMinQubits is the smallest state on which the cost model runs: below
// it a pass costs less than fusing the gates again.
const autoMinQubits = 16

// costTable holds the costs of a kernel in floor passes (one read and
// write of the state, a global phase on both cores): pass when it streams
// the state from memory, block when it runs inside a cache block (blocked
// runs add one pass for the whole run), by its number of targets, for
// complex matrices and for real ones (H, CX, RY and their products), which
// take half the arithmetic on both vector levels, with or without targets
// inside a register. Diagonal kernels cost table[1]
// whatever their width. The figures come from BenchmarkKernels: pass is a
// kernel's time at 22 qubits over the global phase's, block its time at 14
// qubits on one core, halved for two cores, over the same phase
// (bench/README.md, "fusion cost model"); the AVX2 tables from CPU times
// on both cores (below).
type costTable struct {
	pass, block, passReal, blockReal [5]float64
}

// zen5Costs were measured on AMD EPYC (Zen 5, AVX-512), where both
// precisions cost about the same in passes; they serve every AVX-512 CPU
// but Intel's.
var zen5Costs = costTable{
	pass:      [5]float64{1, 1.15, 1.3, 1.45, 2.6},
	block:     [5]float64{0.6, 0.6, 0.75, 1.3, 1.85},
	passReal:  [5]float64{1, 1.1, 1.15, 1.2, 1.4},
	blockReal: [5]float64{0.6, 0.5, 0.5, 0.65, 1.0},
}

// On Intel Xeon (AVX-512, 2026-11-26) single precision differs: a dense
// 4-qubit block streaming from memory costs over five passes, where the
// global phase moving half the bytes of double sets the pass, so width 4
// loses to width 3 on every circuit measured (H+CX layers on 24 qubits:
// 1.42 s against 0.81 s).
var (
	intelDoubleCosts = costTable{
		pass:      [5]float64{1, 1.41, 0.89, 1.10, 2.15},
		block:     [5]float64{0.34, 0.39, 0.54, 0.91, 1.65},
		passReal:  [5]float64{1, 1.11, 0.75, 0.79, 1.25},
		blockReal: [5]float64{0.34, 0.33, 0.40, 0.55, 0.94},
	}
	intelSingleCosts = costTable{
		pass:      [5]float64{1, 1.50, 1.49, 2.01, 5.43},
		block:     [5]float64{0.62, 0.68, 0.92, 1.63, 2.79},
		passReal:  [5]float64{1, 1.16, 1.26, 1.11, 2.36},
		blockReal: [5]float64{0.62, 0.51, 0.58, 1.03, 1.34},
	}
)

// On AMD EPYC with AVX2 only (Zen 3, 2026-11-27) the arithmetic weighs
// more than the memory: a complex dense block inside a cache block takes
// one streaming pass (3 qubits) to two and a half (4 qubits), a diagonal
// a quarter. Width 4 pays for density matrices (a two-qubit channel is a
// 4-qubit block) more than for circuits, and real matrices, which AVX2
// now runs with half the FMAs, cost a third less than complex ones. (The
// 4-qubit figures were taken before those kernels copied their inputs
// onto the stack, which took a tenth to a quarter off them.) Measured as CPU time (user +
// sys) of each kernel on 22 qubits, both cores, over the global phase's,
// median of three runs of BenchmarkKernelCosts (bench/README.md, issue 31
// step 4): pass is one kernel on the whole state, block the same kernel
// eight times through the cache blocks, less one phase pass, over eight.
// CPU time, because this machine is shared and its wall times moved by
// 2–5× between runs.
var (
	avx2DoubleCosts = costTable{
		pass:      [5]float64{1, 1.18, 0.92, 1.44, 3.10},
		block:     [5]float64{0.24, 0.48, 0.52, 1.02, 2.66},
		passReal:  [5]float64{1, 1.05, 0.69, 0.91, 2.16},
		blockReal: [5]float64{0.24, 0.30, 0.32, 0.50, 1.84},
	}
	avx2SingleCosts = costTable{
		pass:      [5]float64{1, 1.14, 1.00, 1.67, 2.99},
		block:     [5]float64{0.20, 0.40, 0.48, 0.94, 2.01},
		passReal:  [5]float64{1, 1.08, 0.84, 1.10, 1.65},
		blockReal: [5]float64{0.20, 0.31, 0.32, 0.53, 1.12},
	}
)

// costsFor returns the table for this CPU's vector level and vendor in
// precision p.
func costsFor(p Precision) *costTable {
	switch {
	case bestSIMD == simdAVX2 && p == Single:
		return &avx2SingleCosts
	case bestSIMD == simdAVX2:
		return &avx2DoubleCosts
	case !intelCPU:
		return &zen5Costs
	case p == Single:
		return &intelSingleCosts
	}
	return &intelDoubleCosts
}

// fuseBest fuses gates at f's widths, or with f.auto at the width of
// 2 to 4 the cost model finds cheapest on n qubits.
func fuseBest(ctx context.Context, gates []*Op, n int, f fusion) ([]*kernel, error) {
	if !f.auto || n < autoMinQubits || bestSIMD == simdNone || len(gates) < 2 {
		return fuseGates(ctx, gates, f.width, f.diagWidth)
	}
	widths := []int{2, 3, 4}
	var best []*kernel
	bestCost := 0.0
	for _, w := range widths {
		ks, err := fuseGates(ctx, gates, w, max(w, f.diagWidth))
		if err != nil {
			return nil, err
		}
		if c := fusionCost(ks, n, costsFor(f.prec)); best == nil || c < bestCost {
			best, bestCost = ks, c
		}
	}
	return best, nil
}

// fusionCost estimates applying ks on n qubits, in floor passes, grouping
// kernels into cache blocks as applyAll does.
func fusionCost(ks []*kernel, n int, t *costTable) float64 {
	cost := 0.0
	for i := 0; i < len(ks); {
		if n > blockBits {
			if m := lowRun(ks[i:]); m >= 2 {
				cost++
				for _, k := range ks[i : i+m] {
					cost += kernelCost(k, t.block, t.blockReal)
				}
				i += m
				continue
			}
		}
		cost += kernelCost(ks[i], t.pass, t.passReal)
		i++
	}
	return cost
}

func kernelCost(k *kernel, table, real [5]float64) float64 {
	switch {
	case k.kind == kDiagK || k.kind == kDiag1 || k.kind == kPhase:
		return table[1]
	case k.mats != nil && len(k.targets) < len(real) && isRealMatrix(k):
		return real[len(k.targets)]
	case len(k.targets) < len(table):
		return table[len(k.targets)]
	}
	return 10 * table[4] // past the vector kernels: the pure-Go loop
}
