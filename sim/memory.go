package sim

import (
	"context"
	"math"
	"unsafe"
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
// never fit. On the state vector it counts:
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
//   - what grows with the length of the circuit: 48 bytes an operation
//     for its preparation, the kernels of one chunk of fused gates (at
//     most 1,024 gates' worth, twice while the fusion width is chosen; a
//     circuit run once as a stream of static control flow fills its
//     chunks however few gates it holds) and the kernels a per-shot run
//     keeps (those of its first 8,192 gates or channels' branches);
//   - with noise (trajectories), the sums of a channel's expectation pass
//     and the kernel of a branch that is not kept.
//
// When Run would use the density matrix (opts.Method, or MethodAuto's
// choice: see Circuit.Method) it counts ρ, 4^n amplitudes, and the state of
// 2^n its diagonal is sampled through, instead of the state vector; one
// chunk of the doubled circuit (density.go) with its fused kernels instead
// of the preparation; and the counts as above.
//
// Sampling holds nothing of size shots or 2^n beyond the state. It returns
// math.MaxInt64 for a circuit no state can hold (Run refuses it).
func MemoryNeed(c *Circuit, opts Options) int64 {
	_, most := MemoryNeeds(c, opts)
	return most
}

// MemoryNeeds returns what Run(ctx, c, opts) holds with opts.Grow set:
// start from its start, and most once it has grown the most it can (what
// MemoryNeed returns). They differ only on the sparse method, whose
// nonzero amplitudes are bounded by SparseBound: a program of n qubits
// whose branching gates no measurement undoes may reach 2^n of them, past
// any budget, while GHZ on 64 qubits holds 2.
func MemoryNeeds(c *Circuit, opts Options) (start, most int64) {
	n := c.NumQubits
	maxQubits := max(hardMaxQubits, MaxSparseQubits)
	if opts.Method == MethodAuto || opts.Method == MethodStabilizer {
		maxQubits = max(maxQubits, MaxStabilizerQubits)
	}
	if n < 0 || n > maxQubits || c.NumClbits < 0 || c.NumClbits > MaxClbits {
		return math.MaxInt64, math.MaxInt64
	}
	if opts.Noise != nil {
		// The noisy circuit is what runs, and its operations are held.
		noisy, noisyEnd, err := withNoise(context.Background(), c, opts) // never cancelled
		if err != nil {
			return math.MaxInt64, math.MaxInt64
		}
		opts.Noise = nil
		ops := mulSat(int64(len(noisy.Ops)), int64(unsafe.Sizeof(Op{})))
		start, most := memoryNeed(noisy, opts, noisyEnd)
		return addSat(start, ops), addSat(most, ops)
	}
	return memoryNeed(c, opts, false)
}

func memoryNeed(c *Circuit, opts Options, noisyEnd bool) (start, most int64) {
	n := c.NumQubits
	sh, _ := analyse(context.Background(), c) // never cancelled
	sh.noise = sh.noise || noisyEnd
	_ = sh.judge(context.Background(), c, opts, &cliffordJudge{}) // never cancelled
	m, _, err := chooseMethod(c, sh, opts)
	if err == nil && m == MethodStabilizer {
		need := stabilizerNeed(c, sh, opts)
		return need, need
	}
	if err == nil && m == MethodSparse {
		_, need := sparseNeed(c, sh, opts)
		// A growing run starts with sparseStartEntries (sparseRun).
		return min(need, addSat(sparseStartEntries*SparseEntryBytes, sparseRest(c, sh, opts))), need
	}
	if n > hardMaxQubits {
		return math.MaxInt64, math.MaxInt64
	}
	if err == nil && m == MethodDensityMatrix {
		if 2*n > hardMaxQubits {
			return math.MaxInt64, math.MaxInt64
		}
		need := addSat(densityBytes(n, opts.Precision), fixedBytes)
		need = addSat(need, densityChunkNeed(c, opts.fusion()))
		need = addSat(need, countsNeed(c, sh, opts))
		return need, need
	}
	state := opts.Precision.bytesPerAmplitude() << n
	need := addSat(state, fixedBytes)
	if sh.vectorPerShot() && sh.prefixGates {
		need = addSat(need, state)
	}
	need = addSat(need, kernelsNeed(c, sh, opts.fusion()))
	if sh.noise {
		need = addSat(need, trajectoryNeed(n))
	}
	if ok, events := groupable(c, sh, opts.Shots); ok {
		// the copy a pattern of errors runs on, and the patterns
		need = addSat(addSat(need, state), patternsNeed(events, opts.Shots))
	}
	need = addSat(need, countsNeed(c, sh, opts))
	return need, need
}

// countsNeed bounds what a run holds for its counts and the classical bits
// of a shot.
func countsNeed(c *Circuit, sh shape, opts Options) int64 {
	k := keysOf(c, opts)
	w := int64(k.width())
	// A shot's classical bits, the qubit each key bit samples, two keys.
	need := 9*int64(k.numClbits) + 2*w
	lim, err := newOutcomeLimit(k.width(), opts.MaxResultBytes)
	if err != nil {
		return need // Run fails before counting
	}
	distinct := min(int64(max(opts.Shots, 0)), int64(lim.max))
	if w < 62 {
		distinct = min(distinct, 1<<w)
	}
	if sh.terminal {
		distinct = min(distinct, 1<<c.NumQubits)
	}
	// A key is allocated in a size class: at most 1/8 over its length
	// (a page over it past 32 KiB, at most 1/4), and 16 bytes at least.
	return addSat(need, mulSat(distinct, w+w/4+16+outcomeBytes))
}

// trajectoryNeed bounds what applying a channel to a state of n qubits
// holds besides the kernels kept: the kernel of a branch past
// maxKeptKernels, and the chunks' sums of the expectation pass, a 4×4
// matrix a chunk.
func trajectoryNeed(n int) int64 {
	return branchKernelBytes(n) + 16*16*int64(max(1, 1<<max(n-16, 0)))
}

// densityChunkNeed bounds what evolveDensity holds for one chunk of the
// doubled circuit: its operations (a mirrored gate may hold the conjugate
// of its matrix; a channel its superoperator, 16^k entries), and twice
// their fused kernels, each as large as the widest of the chunk's
// operations or a fused block.
func densityChunkNeed(c *Circuit, f fusion) int64 {
	width := max(f.width, 1)
	if f.auto {
		width = 4 // the widest the cost model tries
	}
	fused := max(kernelBytes(width), kernelBytes(0)+24<<f.diagWidth)
	const opBytes = int64(unsafe.Sizeof(Op{}) + unsafe.Sizeof(opExt{}) + 8) // and its pointer in the chunk
	var worst, ops, held, widest int64
	flush := func() {
		worst = max(worst, addSat(held, mulSat(2*ops, max(fused, kernelBytes(int(widest))))))
		ops, held, widest = 0, 0, 0
	}
	for i := range c.Ops {
		op := &c.Ops[i]
		if op.Kind == OpBarrier || ops+maxDoubled > headChunk {
			flush()
		}
		switch op.Kind {
		case OpGate:
			t := int64(op.NumTargets())
			ops += 2
			held = addSat(held, opBytes+8+16*int64(op.numQubits())+16<<(2*min(t, 16)))
			widest = max(widest, t)
		case OpNoise, OpReset:
			t := int64(2) // reset: a one-qubit channel on its row and column bit
			if ch := op.Channel(); ch != nil {
				t = int64(2 * ch.k)
			}
			gates := int64(1)
			if t == 4 {
				gates = maxDoubled // a two-qubit Pauli channel (appendChannel)
			}
			ops += gates
			held = addSat(held, gates*(opBytes+8*t)+16<<(2*t))
			widest = max(widest, t)
		}
	}
	flush()
	return worst
}

// preparedBytes is what prepare holds for an operation: its preparedOp and
// its place in the head.
const preparedBytes = 48

// kernelBytes bounds a kernel on k targets: its fixed part, its matrix in
// both precisions, and what the vector kernels prepare from it.
func kernelBytes(k int) int64 { return 4<<10 + 64<<(2*min(k, 16)) }

// branchKernelBytes bounds the kernel of a channel's branch on one or two
// qubits once applied to a state of n qubits: on vectorMinQubits or more
// its matrix laid out for the vector kernels and the plan or the diagonal
// patterns they build on first use (measured: 3 KiB for one qubit, 9.5 KiB
// for a dense 4×4, 17.5 KiB for a two-qubit diagonal such as Z⊗Z on a low
// and a high qubit); below, the pure-Go kernel of kernelBytes.
func branchKernelBytes(n int) int64 {
	if n < vectorMinQubits {
		return kernelBytes(2)
	}
	return 24 << 10
}

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
	if !sh.vectorPerShot() {
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
	if sh.streams() {
		// A stream's chunks fill up however short the circuit (stream.go),
		// and its run holds each classical bit's value and source.
		if gates > 0 {
			gates = headChunk
		}
		need = addSat(need, 9*int64(c.NumClbits+c.NumQubits)+8*headChunk)
	}
	need = addSat(need, mulSat(2*int64(gates), fused))
	kept := 0
	for i := head; i < perShot && kept < maxKeptKernels; i++ {
		switch op := &c.Ops[i]; op.Kind {
		case OpGate:
			need = addSat(need, kernelBytes(op.NumTargets()))
			kept++
		case OpNoise:
			if ch := op.Channel(); ch != nil {
				b := min(ch.branches(), maxKeptKernels-kept)
				need = addSat(need, int64(b)*branchKernelBytes(c.NumQubits)+noiseKernelsBytes(ch))
				kept += b
			}
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
