package sim

import "slices"

// Cache blocking: a run of gates that all act on qubits below blockBits is
// applied one block of 2^blockBits amplitudes at a time, every gate of the
// run on a block while it is in cache, instead of one pass over the whole
// state per gate. 2^14 amplitudes are 256 KiB, within a core's L2.
//
// A diagonal treats each amplitude alone, so a diagonal kernel without
// controls joins a run whatever its qubits (rangeDiagonal): on a block it
// multiplies each amplitude by its entry, the bits of targets at or above
// blockBits being those of the block. A QFT's phases, fused into
// diagonals across the whole register, then share their pass with their
// neighbours instead of taking one each.
const blockBits = 14

// highest is the highest qubit the kernel touches, −1 for a global phase.
func (k *kernel) highest() int {
	if len(k.fixed) == 0 {
		return -1
	}
	return k.fixed[len(k.fixed)-1]
}

// lowRun returns how many kernels from the start of ks act only below
// blockBits or are diagonals that run on a block where they are.
func lowRun(ks []*kernel) int {
	n := 0
	for n < len(ks) && (ks[n].highest() < blockBits || ks[n].rangeDiagonal()) {
		n++
	}
	return n
}

// rangeDiagonal reports whether applyDiagRange takes k: a diagonal without
// controls whose lowest target leaves runs of at least 2^patternBits
// amplitudes, or whose patterns exist (lowkernels.go).
func (k *kernel) rangeDiagonal() bool {
	if k.ctrlMask != 0 {
		return false
	}
	switch k.kind {
	case kDiag1:
		return true
	case kDiagK:
		if slices.Min(k.targets) >= patternBits {
			return true
		}
		high := 0
		for _, t := range k.targets {
			if t >= patternBits {
				high++
			}
		}
		return k.diagLow != nil && high <= maxPatternHigh
	}
	return false
}

// applyDiagRange multiplies the amplitudes [a, b) of the state s by their
// entries of the diagonal kernel k (rangeDiagonal). a and b are multiples
// of 2^blockBits, or the ends of s.
func applyDiagRange[T amplitude](k *kernel, c *coefs[T], s []T, a, b int) {
	if k.kind == kDiagK && slices.Min(k.targets) < patternBits {
		if simd == simdNone {
			diagScalar(k, c, s, a, b)
		} else {
			diagWindows(k, c, s, a, b)
		}
		return
	}
	run := 1 << slices.Min(k.targets)
	for i := a; i < b; i += run {
		e := 0 // the entry: bit j of its index is target j's bit
		for j, t := range k.targets {
			e |= (i >> t & 1) << j
		}
		var d T
		if k.kind == kDiag1 {
			e *= 3 // the diagonal of a 2×2 matrix is m[0], m[3]
			d = c.m[e]
		} else {
			d = c.mat[e]
		}
		if d == 1 {
			continue
		}
		x := s[i:min(i+run, b)]
		x = x[vectorScale(&k.vc, e, x):]
		for j := range x {
			x[j] *= d
		}
	}
}
