package sim

import "slices"

// amplitude is the element type of a state vector: complex128 for double
// precision (the default), complex64 for single.
type amplitude interface{ ~complex64 | ~complex128 }

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
	kGeneral2                        // any 4×4
	kGeneralK                        // any 2^k×2^k
)

// kernel is a gate prepared for the state: masks, offsets and the matrix in
// the form its loop wants, in both precisions.
type kernel struct {
	kind     kernelKind
	targets  []int
	ctrlMask uint64 // bits of control qubits
	ctrlVal  uint64 // wanted values of those bits
	// fixed lists, ascending, the qubits whose bits the outer loop holds
	// fixed: targets (zero) and controls (ctrlVal). The loop runs over the
	// 2^(n−len(fixed)) values of the other bits.
	fixed []int
	real  bool // the 1-qubit matrix has only real entries
	// kPermK: row r of the matrix has its one entry at column perm[r].
	perm []int
	off  []int // offsets of the 2^k amplitudes of a group from its base index

	c128 coefs[complex128]
	c64  coefs[complex64]
	// vc is the matrix for the vector kernels (simd.go): the 1-qubit
	// matrix, kPhase's phase, kGeneral2's 4×4 or kDiagK's diagonal.
	vc simdCoefs
	// diagLow serves kDiagK kernels with a target below patternBits
	// (lowkernels.go), built on first use: fusion may build kernels it
	// then drops (fusecost.go).
	diagLow *lazyPatterns
	// mats are the matrix of a dense kernel without controls prepared for
	// the mat kernels (matkernels.go), nil for other kernels.
	mats *matPlans
}

// coefs are a kernel's matrix entries in one precision.
type coefs[T amplitude] struct {
	m   [4]T  // 1-qubit kernels; kPhase uses m[0]
	m2  [16]T // kGeneral2
	mat []T   // kGeneralK: the matrix; kDiagK: the diagonal; kPermK: row r's entry
}

func newCoefs[T amplitude](m [4]complex128, m2 [16]complex128, mat []complex128) coefs[T] {
	var c coefs[T]
	for i, v := range m {
		c.m[i] = T(v)
	}
	for i, v := range m2 {
		c.m2[i] = T(v)
	}
	c.mat = make([]T, len(mat))
	for i, v := range mat {
		c.mat[i] = T(v)
	}
	return c
}

// zeroTol is below which a matrix entry counts as zero when choosing a kernel.
// Matrices built from angles have exact zeros where they should; this only
// absorbs products like cos(π/2).
const zeroTol = 1e-15

func isZero(c complex128) bool { return real(c)*real(c)+imag(c)*imag(c) < zeroTol*zeroTol }

// newBareKernel is a kernel's masks and fixed qubits, without its matrix.
func newBareKernel(targets []int, controls []Control) *kernel {
	k := &kernel{targets: targets}
	for _, c := range controls {
		k.ctrlMask |= 1 << c.Qubit
		if !c.Negated {
			k.ctrlVal |= 1 << c.Qubit
		}
	}
	k.fixed = slices.Clone(targets)
	for _, c := range controls {
		k.fixed = append(k.fixed, c.Qubit)
	}
	slices.Sort(k.fixed)
	return k
}

// offsets returns the offsets of the 2^k amplitudes of a group from its base
// index: bit j of r is target j.
func offsets(targets []int) []int {
	off := make([]int, 1<<len(targets))
	for r := range off {
		o := 0
		for j, t := range targets {
			if r>>j&1 == 1 {
				o |= 1 << t
			}
		}
		off[r] = o
	}
	return off
}

// newDiagKernel is the kernel of the diagonal matrix with entries diag on
// targets, built without the 2^k×2^k matrix: a fused diagonal block may be
// 8 qubits wide, and its dense matrix would be 1 MiB for 256 entries.
func newDiagKernel(targets []int, diag []complex128) *kernel {
	if len(targets) < 2 {
		m := make([]complex128, len(diag)*len(diag))
		for i, v := range diag {
			m[i*len(diag)+i] = v
		}
		return newKernel(&Gate{Matrix: m, Targets: targets})
	}
	k := newBareKernel(targets, nil)
	k.kind = kDiagK
	k.off = offsets(targets)
	k.c128 = newCoefs[complex128]([4]complex128{}, [16]complex128{}, diag)
	k.c64 = newCoefs[complex64]([4]complex128{}, [16]complex128{}, diag)
	k.vc = newSIMDCoefs(diag)
	k.diagLow = newLazyPatterns(targets, diag)
	return k
}

func newKernel(g *Gate) *kernel {
	if expandsControls(g) {
		g = withoutControls(g)
	}
	return newGateKernel(g, bestSIMD != simdNone)
}

// vectorMinQubits is the smallest state for which State.ApplyGate
// prepares a gate for the vector kernels: on fewer qubits the pure-Go loop
// takes less time than the preparation (a front end that applies gates
// one by one, shot after shot, builds a kernel each time).
const vectorMinQubits = 12

// newKernelFor is g's kernel for a state of n qubits.
func newKernelFor(g *Gate, n int) *kernel {
	if n < vectorMinQubits {
		return newGateKernel(g, false)
	}
	return newKernel(g)
}

// newGateKernel is g's kernel, its controls kept as controls, with what
// the vector kernels need when vectors is set.
func newGateKernel(g *Gate, vectors bool) *kernel {
	k := newBareKernel(g.Targets, g.Controls)

	var m1 [4]complex128
	var m2 [16]complex128
	var mat []complex128
	nt := len(g.Targets)
	d := 1 << nt
	m := g.Matrix
	switch {
	case nt == 0:
		k.kind = kPhase
		m1[0] = m[0]
	case nt == 1:
		copy(m1[:], m)
		k.real = imag(m[0]) == 0 && imag(m[1]) == 0 && imag(m[2]) == 0 && imag(m[3]) == 0
		switch {
		case isZero(m[1]) && isZero(m[2]):
			k.kind = kDiag1
		case isZero(m[0]) && isZero(m[3]):
			k.kind = kAntiDiag1
		default:
			k.kind = kGeneral1
		}
	default:
		k.off = offsets(g.Targets)
		// A permutation of up to 4 qubits that is not diagonal (swap, cx as a fused
		// block) runs as a dense 4×4 where vector kernels exist: a few more
		// multiplications, but register-wide, where the permutation's loop
		// moves one amplitude at a time.
		perm, isPerm := permutation(m, d)
		if isPerm && nt <= 4 && vectors && !isIdentityPerm(perm) {
			isPerm = false
		}
		if isPerm {
			k.perm = perm
			mat = make([]complex128, d)
			for r := range d {
				mat[r] = m[r*d+perm[r]]
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
		} else if nt == 2 {
			k.kind = kGeneral2
			copy(m2[:], m)
		} else {
			k.kind = kGeneralK
			mat = m
		}
	}
	k.c128 = newCoefs[complex128](m1, m2, mat)
	k.c64 = newCoefs[complex64](m1, m2, mat)
	if !vectors {
		return k
	}
	if k.kind != kPhase && k.kind != kPermK && k.kind != kDiagK && k.ctrlMask == 0 {
		k.mats = &matPlans{}
	}
	switch k.kind {
	case kPhase:
		k.vc = newSIMDCoefs(m1[:1])
	case kDiag1, kAntiDiag1, kGeneral1:
		k.vc = newSIMDCoefs(m1[:])
	case kGeneral2:
		k.vc = newSIMDCoefs(m2[:])
	case kDiagK:
		k.vc = newSIMDCoefs(mat)
		if k.ctrlMask == 0 {
			k.diagLow = newLazyPatterns(g.Targets, mat)
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

// chunkGroups is how many loop counters a gate handles between two checks of
// its context: a group holds 2^t amplitudes (t targets), and a general
// matrix costs 2^t operations for each of them.
func (k *kernel) chunkGroups() int {
	shift := len(k.targets)
	if k.kind == kGeneral2 || k.kind == kGeneralK {
		shift *= 2
	}
	return max(1, chunkAmps>>shift)
}

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

// applyKernel runs k on s for loop counters [lo, hi). buf must hold
// 2^len(targets) amplitudes for kGeneralK and kPermK; it is scratch space so
// that the loop allocates nothing.
//
// Loop counters below the lowest fixed qubit map to consecutive indices, so
// each kernel computes a base index once per such run and walks the run.
func applyKernel[T amplitude](k *kernel, c *coefs[T], s []T, lo, hi int, buf []T) {
	switch k.kind {
	case kDiag1, kAntiDiag1, kGeneral1:
		switch {
		case k.ctrlMask != 0:
			apply1Controlled(k, c, s, lo, hi)
		case k.mats != nil && applyMat(k, c, s, lo, hi, nil):
		default:
			apply1(k, c, s, lo, hi)
		}
		return
	}
	if len(k.fixed) == 0 { // a global phase: one run of everything
		applyRun(k, c, s, lo, hi-lo, buf)
		return
	}
	switch {
	case k.mats != nil && applyMat(k, c, s, lo, hi, buf):
	case k.kind == kDiagK && applyDiagLow(k, c, s, lo, hi):
	default:
		applyRuns(k, c, s, lo, hi, buf)
	}
}

// applyRun applies the kernel to the n consecutive groups from base b.
func applyRun[T amplitude](k *kernel, c *coefs[T], s []T, b, n int, buf []T) {
	switch k.kind {
	case kPhase:
		x := s[b : b+n]
		x = x[vectorScale(&k.vc, 0, x):]
		ph := c.m[0]
		for i := range x {
			x[i] *= ph
		}
	case kDiagK:
		for r, o := range k.off {
			d := c.mat[r]
			if d == 1 {
				continue
			}
			x := s[b+o : b+o+n]
			x = x[vectorScale(&k.vc, r, x):]
			for i := range x {
				x[i] *= d
			}
		}
	case kGeneral2:
		m := &c.m2
		x0 := s[b : b+n]
		x1 := s[b+k.off[1] : b+k.off[1]+n]
		x2 := s[b+k.off[2] : b+k.off[2]+n]
		x3 := s[b+k.off[3] : b+k.off[3]+n]
		if v := vectorQuad(&k.vc, x0, x1, x2, x3); v > 0 {
			x0, x1, x2, x3 = x0[v:], x1[v:], x2[v:], x3[v:]
		}
		for i := range x0 {
			a0, a1, a2, a3 := x0[i], x1[i], x2[i], x3[i]
			x0[i] = m[0]*a0 + m[1]*a1 + m[2]*a2 + m[3]*a3
			x1[i] = m[4]*a0 + m[5]*a1 + m[6]*a2 + m[7]*a3
			x2[i] = m[8]*a0 + m[9]*a1 + m[10]*a2 + m[11]*a3
			x3[i] = m[12]*a0 + m[13]*a1 + m[14]*a2 + m[15]*a3
		}
	case kPermK:
		for i := b; i < b+n; i++ {
			for r, o := range k.off {
				buf[r] = s[i+o]
			}
			for r, o := range k.off {
				s[i+o] = c.mat[r] * buf[k.perm[r]]
			}
		}
	case kGeneralK:
		d := len(k.off)
		for i := b; i < b+n; i++ {
			for r, o := range k.off {
				buf[r] = s[i+o]
			}
			for r, o := range k.off {
				row := c.mat[r*d : r*d+d]
				var acc T
				for col, v := range buf[:d] {
					acc += row[col] * v
				}
				s[i+o] = acc
			}
		}
	}
}

// apply1 is the single-target loop without controls. It walks the state as
// pairs of contiguous runs x = s[b:b+n], y = s[b+stride:b+stride+n], which
// the compiler can check once per run instead of once per amplitude.
func apply1[T amplitude](k *kernel, c *coefs[T], s []T, lo, hi int) {
	stride := 1 << k.targets[0]
	low := stride - 1
	for j := lo; j < hi; {
		off := j & low
		n := min(stride-off, hi-j)
		b := (j&^low)<<1 | off
		pairs(k, c, s[b:b+n], s[b+stride:b+stride+n])
		j += n
	}
}

// pairs applies the 2×2 matrix to each (x[i], y[i]).
func pairs[T amplitude](k *kernel, c *coefs[T], x, y []T) {
	y = y[:len(x)]
	if k.kind == kDiag1 {
		v := vectorScale(&k.vc, 0, x)
		vectorScale(&k.vc, 3, y[:v])
		x, y = x[v:], y[v:]
	} else if v := vectorPairs(&k.vc, x, y); v > 0 {
		x, y = x[v:], y[v:]
	}
	if len(x) == 0 {
		return
	}
	m0, m1, m2, m3 := c.m[0], c.m[1], c.m[2], c.m[3]
	switch {
	case k.kind == kDiag1:
		for i := range x {
			x[i] *= m0
			y[i] *= m3
		}
	case k.kind == kAntiDiag1:
		for i := range x {
			x[i], y[i] = m1*y[i], m2*x[i]
		}
	case k.real:
		// Real entries (H, RY): two real products per term instead of a
		// complex one. real() does not take a type parameter, so single
		// precision has its own float32 loop; converting to complex128
		// reads the parts of a double at no cost.
		if x64, ok := any(x).([]complex64); ok {
			pairsReal32(x64, any(y).([]complex64), any(c).(*coefs[complex64]))
			return
		}
		r0, r1 := real(complex128(m0)), real(complex128(m1))
		r2, r3 := real(complex128(m2)), real(complex128(m3))
		for i := range x {
			a0, a1 := complex128(x[i]), complex128(y[i])
			x[i] = T(complex(r0*real(a0)+r1*real(a1), r0*imag(a0)+r1*imag(a1)))
			y[i] = T(complex(r2*real(a0)+r3*real(a1), r2*imag(a0)+r3*imag(a1)))
		}
	default:
		for i := range x {
			a0, a1 := x[i], y[i]
			x[i] = m0*a0 + m1*a1
			y[i] = m2*a0 + m3*a1
		}
	}
}

func apply1Controlled[T amplitude](k *kernel, c *coefs[T], s []T, lo, hi int) {
	stride := 1 << k.targets[0]
	run := 1 << k.fixed[0]
	for j := lo; j < hi; {
		n := min(run-j&(run-1), hi-j)
		b := k.base(j)
		x := s[b : b+n]
		y := s[b+stride : b+stride+n]
		if k.kind == kDiag1 && c.m[0] == 1 {
			// cp, cz, cs…: only the target's |1⟩ half changes.
			ph := c.m[3]
			y = y[vectorScale(&k.vc, 3, y):]
			for i := range y {
				y[i] *= ph
			}
		} else {
			pairs(k, c, x, y)
		}
		j += n
	}
}

func pairsReal32(x, y []complex64, c *coefs[complex64]) {
	y = y[:len(x)]
	r0, r1, r2, r3 := real(c.m[0]), real(c.m[1]), real(c.m[2]), real(c.m[3])
	for i := range x {
		a0, a1 := x[i], y[i]
		x[i] = complex(r0*real(a0)+r1*real(a1), r0*imag(a0)+r1*imag(a1))
		y[i] = complex(r2*real(a0)+r3*real(a1), r2*imag(a0)+r3*imag(a1))
	}
}

func isIdentityPerm(perm []int) bool {
	for r, c := range perm {
		if r != c {
			return false
		}
	}
	return true
}

// shortRun is the run of consecutive amplitudes below which a controlled
// gate walks the state too sparsely for the memory system: a control on
// qubit 3 leaves runs of 8 amplitudes with gaps between, which streams
// several times slower than a pass that reads everything.
const shortRun = 6

// expandsControls reports whether g runs better as a matrix on its
// targets and controls together: where vector kernels exist, its lowest
// control cuts the state into short runs, and the whole fits a mat kernel.
func expandsControls(g *Gate) bool {
	if bestSIMD == simdNone || len(g.Controls) == 0 || len(g.Targets)+len(g.Controls) > 4 || len(g.Targets) == 0 {
		return false
	}
	for _, c := range g.Controls {
		if c.Qubit < shortRun {
			return true
		}
	}
	return false
}

// withoutControls is g as a gate on its targets then its controls, the
// identity where a control is not as wanted.
func withoutControls(g *Gate) *Gate {
	t := len(g.Targets)
	qubits := append(slices.Clone(g.Targets), make([]int, len(g.Controls))...)
	want := 0
	for j, c := range g.Controls {
		qubits[t+j] = c.Qubit
		if !c.Negated {
			want |= 1 << j
		}
	}
	dt, d := 1<<t, 1<<len(qubits)
	m := make([]complex128, d*d)
	for r := range d {
		rc := r >> t
		if rc != want {
			m[r*d+r] = 1
			continue
		}
		for c := range dt {
			m[r*d+(want<<t|c)] = g.Matrix[(r&(dt-1))*dt+c]
		}
	}
	return &Gate{Name: g.Name, Matrix: m, Targets: qubits}
}
