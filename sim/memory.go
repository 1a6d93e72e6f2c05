package sim

import (
	"context"
	"math"
)

// outcomeBytes bounds what one distinct outcome of the counts costs besides
// its key: its entries in the maps that count it (an index or the
// intermediate map by measured qubits, then the result), with the tables
// they grow through. Measured: 50 to 130 bytes an entry for a Go map of
// strings or ints, growth included.
const outcomeBytes = 256

// fixedBytes covers what a run allocates whatever its size: buffers,
// goroutines' closures, a few kilobytes.
const fixedBytes = 64 << 10

// MemoryNeed returns an upper bound of the bytes Run(ctx, c, opts)
// allocates that grow with the state, the shots or the results, so that a
// service can reserve them before running c, and refuse c when they could
// never fit. It counts:
//
//   - the state vector: 2^n amplitudes of 16 bytes, 8 in single precision;
//   - a second state when the circuit runs once per shot (see
//     [Circuit.PerShot]) and the prefix every shot shares holds a gate: each
//     shot starts from a copy of the state after it (without such a gate
//     every shot starts from |0…0⟩ again, and there is no copy);
//   - the counts: at most min(shots, 2^width, MaxResultBytes / width)
//     distinct outcomes (2^n too when sampled), each a key of width bytes
//     and its map entries;
//   - the classical bits of a shot and the key buffers, and 64 KiB for
//     fixed overheads;
//   - what grows with the length of the circuit: 40 bytes an operation
//     for its preparation, the kernels of one chunk of fused gates (at
//     most 1,024 gates' worth, twice while the fusion width is chosen) and
//     the kernels a per-shot run keeps (those of its first 8,192 gates).
//
// Sampling holds nothing of size shots or 2^n beyond the state. It returns
// math.MaxInt64 for a circuit no state can hold (Run refuses it).
func MemoryNeed(c *Circuit, opts Options) int64 {
	n := c.NumQubits
	if n < 0 || n > hardMaxQubits || c.NumClbits < 0 || c.NumClbits > MaxClbits {
		return math.MaxInt64
	}
	sh, _ := analyse(context.Background(), c) // never cancelled
	state := opts.Precision.bytesPerAmplitude() << n
	need := addSat(state, fixedBytes)
	if !sh.terminal && sh.prefixGates {
		need = addSat(need, state)
	}
	need = addSat(need, kernelsNeed(c, sh, opts.fusion()))
	k := keysOf(c, opts)
	w := int64(k.width())
	// A shot's classical bits, the qubit each key bit samples, two keys.
	need = addSat(need, 9*int64(k.numClbits)+2*w)
	lim, err := newOutcomeLimit(k.width(), opts.MaxResultBytes)
	if err != nil {
		return need // Run fails before counting
	}
	distinct := min(int64(max(opts.Shots, 0)), int64(lim.max))
	if w < 62 {
		distinct = min(distinct, 1<<w)
	}
	if sh.terminal {
		distinct = min(distinct, 1<<n)
	}
	// A key is allocated in a size class: at most 1/8 over its length
	// (a page over it past 32 KiB, at most 1/4), and 16 bytes at least.
	return addSat(need, mulSat(distinct, w+w/4+16+outcomeBytes))
}

// preparedBytes is what prepare holds for an operation: its preparedOp and
// its place in the head.
const preparedBytes = 40

// kernelBytes bounds a kernel on k targets: its fixed part, its matrix in
// both precisions, and what the vector kernels prepare from it.
func kernelBytes(k int) int64 { return 4<<10 + 64<<(2*min(k, 16)) }

// kernelsNeed bounds what running c holds for its operations: their
// preparation, a chunk of fused kernels at a time for the head, and the
// kernels a per-shot run keeps.
func kernelsNeed(c *Circuit, sh shape, f fusion) int64 {
	width := max(f.width, 1)
	if f.auto {
		width = 4 // the widest the cost model tries
	}
	fused := max(kernelBytes(width), kernelBytes(0)+24<<f.diagWidth)
	head, perShot := sh.prefix, len(c.Ops)
	if sh.terminal {
		head, perShot = len(c.Ops), len(c.Ops)
	}
	need := mulSat(int64(len(c.Ops)+c.NumQubits), preparedBytes)
	gates := 0
	for i := range head {
		if c.Ops[i].Kind == OpGate {
			if gates++; gates == headChunk {
				break
			}
		}
	}
	need = addSat(need, mulSat(2*int64(gates), fused))
	kept := 0
	for i := head; i < perShot && kept < maxKeptKernels; i++ {
		if op := &c.Ops[i]; op.Kind == OpGate {
			need = addSat(need, kernelBytes(op.NumTargets()))
			kept++
		}
	}
	return need
}

// addSat and mulSat are + and × on non-negative int64s, stopping at
// math.MaxInt64 instead of wrapping.
func addSat(a, b int64) int64 {
	if a > math.MaxInt64-b {
		return math.MaxInt64
	}
	return a + b
}

func mulSat(a, b int64) int64 {
	if a != 0 && b > math.MaxInt64/a {
		return math.MaxInt64
	}
	return a * b
}
