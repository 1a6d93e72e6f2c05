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

// Costs of a kernel in floor passes (one read and write of the state):
// passCost when it streams the state from memory, blockCost when it runs
// inside a cache block (blocked runs add one pass for the whole run), by
// its number of targets. Measured with AVX-512 on 22 and 14 qubits;
// diagonal kernels cost a pass whatever their width.
// Real matrices (H, CX, RY and their products) take half the
// arithmetic where the kernels know it (AVX-512).
var (
	passCost      = [5]float64{1, 1.15, 1.3, 1.45, 2.6}
	blockCost     = [5]float64{0.6, 0.6, 0.75, 1.3, 1.85}
	passCostReal  = [5]float64{1, 1.1, 1.15, 1.2, 1.4}
	blockCostReal = [5]float64{0.6, 0.5, 0.5, 0.65, 1.0}
)

// fuseBest fuses gates at f's widths, or with f.auto at the width of
// 2 to 4 the cost model finds cheapest on n qubits.
func fuseBest(ctx context.Context, gates []*Gate, n int, f fusion) ([]*kernel, error) {
	if !f.auto || n < autoMinQubits || bestSIMD == simdNone || len(gates) < 2 {
		return fuseGates(ctx, gates, f.width, f.diagWidth)
	}
	widths := []int{2, 3}
	if bestSIMD == simdAVX512 {
		widths = append(widths, 4) // AVX2 lacks the registers for 4 high targets
	}
	var best []*kernel
	bestCost := 0.0
	for _, w := range widths {
		ks, err := fuseGates(ctx, gates, w, max(w, f.diagWidth))
		if err != nil {
			return nil, err
		}
		if c := fusionCost(ks, n); best == nil || c < bestCost {
			best, bestCost = ks, c
		}
	}
	return best, nil
}

// fusionCost estimates applying ks on n qubits, in floor passes, grouping
// kernels into cache blocks as applyAll does.
func fusionCost(ks []*kernel, n int) float64 {
	cost := 0.0
	for i := 0; i < len(ks); {
		if n > blockBits {
			if m := lowRun(ks[i:]); m >= 2 {
				cost++
				for _, k := range ks[i : i+m] {
					cost += kernelCost(k, blockCost, blockCostReal)
				}
				i += m
				continue
			}
		}
		cost += kernelCost(ks[i], passCost, passCostReal)
		i++
	}
	return cost
}

func kernelCost(k *kernel, table, real [5]float64) float64 {
	switch {
	case k.kind == kDiagK || k.kind == kDiag1 || k.kind == kPhase:
		return table[1]
	case k.mats != nil && bestSIMD == simdAVX512 && len(k.targets) < len(real) && isRealMatrix(k):
		return real[len(k.targets)]
	case len(k.targets) < len(table):
		return table[len(k.targets)]
	}
	return 10 * table[4] // past the vector kernels: the pure-Go loop
}
