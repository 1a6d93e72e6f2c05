package sim

import "slices"

// kernelKind selects the loop that applies a gate. The choice is made once
// per gate, from its matrix, before any amplitude is touched.
type kernelKind uint8

const (
	kPhase     kernelKind = iota + 1 // no targets: multiply the controlled subspace by a phase
	kDiag1                           // diagonal 2×2
	kAntiDiag1                       // anti-diagonal 2×2 (X, Y and their phased forms)
	kGeneral1                        // any 2×2
	kDiagK                           // diagonal 2^k×2^k
	kPermK                           // a permutation with phases: one non-zero per row
	kGeneralK                        // any 2^k×2^k
)

// kernel is a gate prepared for the state: masks, offsets and the matrix in
// the form its loop wants.
type kernel struct {
	kind     kernelKind
	targets  []int
	ctrlMask uint64 // bits of control qubits
	ctrlVal  uint64 // wanted values of those bits
	// fixed lists, ascending, the qubits whose bits the outer loop holds
	// fixed: targets (zero) and controls (ctrlVal). The loop runs over the
	// 2^(n−len(fixed)) values of the other bits.
	fixed []int

	m   [4]complex128 // 1-qubit kernels
	mat []complex128  // kGeneralK: the matrix; kDiagK: the diagonal
	// kPermK: row r of the matrix has its one entry at column perm[r],
	// value mat[r].
	perm []int
	off  []int // offsets of the 2^k amplitudes of a group from its base index
}

// zeroTol is below which a matrix entry counts as zero when choosing a kernel.
// Matrices built from angles have exact zeros where they should; this only
// absorbs products like cos(π/2).
const zeroTol = 1e-15

func isZero(c complex128) bool { return real(c)*real(c)+imag(c)*imag(c) < zeroTol*zeroTol }

func newKernel(g *Gate) *kernel {
	k := &kernel{targets: g.Targets}
	for _, c := range g.Controls {
		k.ctrlMask |= 1 << c.Qubit
		if !c.Negated {
			k.ctrlVal |= 1 << c.Qubit
		}
	}
	k.fixed = slices.Clone(g.Targets)
	for _, c := range g.Controls {
		k.fixed = append(k.fixed, c.Qubit)
	}
	slices.Sort(k.fixed)

	nt := len(g.Targets)
	d := 1 << nt
	m := g.Matrix
	switch {
	case nt == 0:
		k.kind = kPhase
		k.m[0] = m[0]
	case nt == 1:
		copy(k.m[:], m)
		switch {
		case isZero(m[1]) && isZero(m[2]):
			k.kind = kDiag1
		case isZero(m[0]) && isZero(m[3]):
			k.kind = kAntiDiag1
		default:
			k.kind = kGeneral1
		}
	default:
		k.off = make([]int, d)
		for r := range d {
			o := 0
			for j, t := range g.Targets {
				if r>>j&1 == 1 {
					o |= 1 << t
				}
			}
			k.off[r] = o
		}
		if perm, ok := permutation(m, d); ok {
			k.perm = perm
			k.mat = make([]complex128, d)
			for r := range d {
				k.mat[r] = m[r*d+perm[r]]
			}
			k.kind = kPermK
			isDiag := true
			for r, c := range perm {
				isDiag = isDiag && r == c
			}
			if isDiag {
				k.kind = kDiagK
				k.perm = nil
			}
		} else {
			k.kind = kGeneralK
			k.mat = slices.Clone(m)
		}
	}
	return k
}

// permutation reports whether every row of the d×d matrix m has exactly one
// non-zero entry, and where.
func permutation(m []complex128, d int) ([]int, bool) {
	perm := make([]int, d)
	for r := range d {
		perm[r] = -1
		for c := range d {
			if !isZero(m[r*d+c]) {
				if perm[r] >= 0 {
					return nil, false
				}
				perm[r] = c
			}
		}
		if perm[r] < 0 {
			return nil, false
		}
	}
	return perm, true
}

// groups is the number of base indices the outer loop visits on n qubits.
func (k *kernel) groups(n int) int { return 1 << (n - len(k.fixed)) }

// base maps a loop counter to a base index: zeros inserted at every fixed
// position, then the wanted control values set.
func (k *kernel) base(j int) int {
	i := uint64(j)
	for _, p := range k.fixed {
		lo := i & (1<<p - 1)
		i = (i^lo)<<1 | lo
	}
	return int(i | k.ctrlVal)
}

// apply runs the kernel on s for loop counters [lo, hi). buf must hold
// 2^len(targets) amplitudes for kGeneralK and kPermK; it is scratch space so
// that the loop allocates nothing.
func (k *kernel) apply(s []complex128, lo, hi int, buf []complex128) {
	switch k.kind {
	case kPhase:
		ph := k.m[0]
		for j := lo; j < hi; j++ {
			s[k.base(j)] *= ph
		}
	case kDiag1, kAntiDiag1, kGeneral1:
		k.apply1(s, lo, hi)
	case kDiagK:
		for j := lo; j < hi; j++ {
			b := k.base(j)
			for r, o := range k.off {
				s[b+o] *= k.mat[r]
			}
		}
	case kPermK:
		for j := lo; j < hi; j++ {
			b := k.base(j)
			for r, o := range k.off {
				buf[r] = s[b+o]
			}
			for r, o := range k.off {
				s[b+o] = k.mat[r] * buf[k.perm[r]]
			}
		}
	case kGeneralK:
		d := len(k.off)
		for j := lo; j < hi; j++ {
			b := k.base(j)
			for r, o := range k.off {
				buf[r] = s[b+o]
			}
			for r, o := range k.off {
				row := k.mat[r*d : r*d+d]
				var acc complex128
				for c, v := range buf[:d] {
					acc += row[c] * v
				}
				s[b+o] = acc
			}
		}
	}
}

// apply1 is the single-target loop. Without controls the base index is
// computed by one bit insertion; the pair is (b, b+stride).
func (k *kernel) apply1(s []complex128, lo, hi int) {
	t := k.targets[0]
	stride := 1 << t
	m0, m1, m2, m3 := k.m[0], k.m[1], k.m[2], k.m[3]
	if k.ctrlMask == 0 {
		low := stride - 1
		switch k.kind {
		case kDiag1:
			for j := lo; j < hi; j++ {
				b := (j&^low)<<1 | j&low
				s[b] *= m0
				s[b+stride] *= m3
			}
		case kAntiDiag1:
			for j := lo; j < hi; j++ {
				b := (j&^low)<<1 | j&low
				a0, a1 := s[b], s[b+stride]
				s[b], s[b+stride] = m1*a1, m2*a0
			}
		default:
			for j := lo; j < hi; j++ {
				b := (j&^low)<<1 | j&low
				a0, a1 := s[b], s[b+stride]
				s[b] = m0*a0 + m1*a1
				s[b+stride] = m2*a0 + m3*a1
			}
		}
		return
	}
	for j := lo; j < hi; j++ {
		b := k.base(j)
		a0, a1 := s[b], s[b+stride]
		switch k.kind {
		case kDiag1:
			s[b], s[b+stride] = m0*a0, m3*a1
		case kAntiDiag1:
			s[b], s[b+stride] = m1*a1, m2*a0
		default:
			s[b] = m0*a0 + m1*a1
			s[b+stride] = m2*a0 + m3*a1
		}
	}
}
