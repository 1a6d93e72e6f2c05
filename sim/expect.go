package sim

import "context"

// The expectation pass: a trajectory draws a Kraus branch K with
// probability ⟨ψ|K†K|ψ⟩ = Tr(K†K ρ_T), ρ_T the reduced density matrix of
// the channel's one or two qubits. One read of the state, without a copy
// of it, gives ρ_T (2×2 or 4×4), and from it every branch's probability
// whatever their number; when every K†K is diagonal (the damping channels)
// only ρ_T's diagonal is summed.
//
// It is one of the passes (passes.go): chunk c of the state's amplitudes
// is, here, the chunk's worth of groups (a group is the 2^k amplitudes
// that differ in the targets' bits) from c·chunkAmps/2^k on, as many
// chunks either way. Each chunk's sums are kept apart and added in chunk
// order: the result does not depend on how many workers ran, and a seed
// draws the same branches with any number of them. Like the other passes
// it allocates nothing once its sums are there.

// reduced returns the reduced density matrix of targets (one or two),
// target j as bit j of its index, d×d row-major in the first d² entries:
// only its diagonal when diagOnly.
func (v *vec[T]) reduced(ctx context.Context, targets []int, diagOnly bool, workers int) ([16]complex128, error) {
	var rho [16]complex128
	v.pass = passArgs[T]{kind: passReduced, nt: len(targets), diagOnly: diagOnly}
	copy(v.pass.targets[:], targets)
	d := 1 << len(targets)
	chunks := v.passChunks()
	if len(v.csums) != chunks*d*d {
		v.csums = make([]complex128, chunks*d*d)
	}
	if err := v.runPass(ctx, workers); err != nil {
		return rho, err
	}
	for c := range chunks {
		for i, s := range v.csums[c*d*d : (c+1)*d*d] {
			rho[i] += s
		}
	}
	// The upper triangle was summed; the lower is its conjugate.
	for r := range d {
		for c := range r {
			rho[r*d+c] = complex(real(rho[c*d+r]), -imag(rho[c*d+r]))
		}
	}
	return rho, nil
}

// reducedChunk sums chunk c's share of the reduced density matrix into its
// place in v.csums.
func (v *vec[T]) reducedChunk(c int) {
	p := &v.pass
	d := 1 << p.nt
	acc := v.csums[c*d*d : (c+1)*d*d]
	clear(acc)
	var off [4]int
	for r := range d {
		for j := range p.nt {
			if r>>j&1 == 1 {
				off[r] |= 1 << p.targets[j]
			}
		}
	}
	lo, hi := p.targets[0], p.targets[0] // the targets' bits, ascending
	if p.nt == 2 {
		lo, hi = min(p.targets[0], p.targets[1]), max(p.targets[0], p.targets[1])
	}
	if p.nt == 1 && lo < shortRun {
		// Pairs a few amplitudes apart: chunk c's groups are its
		// amplitudes, walked in order.
		reducedLow(acc, v.a[c*chunkAmps:min((c+1)*chunkAmps, len(v.a))], 1<<lo, p.diagOnly)
		return
	}
	per := chunkAmps >> p.nt
	groups := len(v.a) >> p.nt
	run := 1 << lo // loop counters below the lowest target map to consecutive indices
	for j, end := c*per, min((c+1)*per, groups); j < end; {
		m := min(run-j&(run-1), end-j)
		b := insertZero(j, lo)
		if p.nt == 2 {
			b = insertZero(b, hi)
			reduced2(acc, [4][]T{v.a[b : b+m], v.a[b+off[1] : b+off[1]+m], v.a[b+off[2] : b+off[2]+m], v.a[b+off[3] : b+off[3]+m]}, p.diagOnly)
		} else {
			reduced1(acc, v.a[b:b+m], v.a[b+off[1]:b+off[1]+m], p.diagOnly)
		}
		j += m
	}
}

// insertZero inserts a 0 bit into i at position q.
func insertZero(i, q int) int {
	low := i & (1<<q - 1)
	return (i^low)<<1 | low
}

// reduced1 adds to acc the 2×2 reduced density matrix (upper triangle) of
// the pairs (x[i], y[i]).
func reduced1[T amplitude](acc []complex128, x, y []T, diagOnly bool) {
	y = y[:len(x)]
	var s00, s11 float64
	var s01 complex128
	for i := range x {
		a, b := complex128(x[i]), complex128(y[i])
		s00 += real(a)*real(a) + imag(a)*imag(a)
		s11 += real(b)*real(b) + imag(b)*imag(b)
		if !diagOnly {
			s01 += a * complex(real(b), -imag(b))
		}
	}
	acc[0] += complex(s00, 0)
	acc[3] += complex(s11, 0)
	acc[1] += s01
}

// reducedLow is reduced1 on the pairs (a[i], a[i+stride]) of a, i with
// the stride's bit 0, stride small: one loop over a rather than a call a
// pair.
func reducedLow[T amplitude](acc []complex128, a []T, stride int, diagOnly bool) {
	var s00, s11 float64
	var s01 complex128
	for b := 0; b < len(a); b += 2 * stride {
		for i := b; i < b+stride; i++ {
			x, y := complex128(a[i]), complex128(a[i+stride])
			s00 += real(x)*real(x) + imag(x)*imag(x)
			s11 += real(y)*real(y) + imag(y)*imag(y)
			if !diagOnly {
				s01 += x * complex(real(y), -imag(y))
			}
		}
	}
	acc[0] += complex(s00, 0)
	acc[3] += complex(s11, 0)
	acc[1] += s01
}

// reduced2 adds to acc the 4×4 reduced density matrix (upper triangle) of
// the quadruples x[0][i] … x[3][i].
func reduced2[T amplitude](acc []complex128, x [4][]T, diagOnly bool) {
	for r := range 4 {
		for c := r; c < 4; c++ {
			if diagOnly && c != r {
				continue
			}
			xr, xc := x[r], x[c][:len(x[r])]
			var s complex128
			for i := range xr {
				a, b := complex128(xr[i]), complex128(xc[i])
				s += a * complex(real(b), -imag(b))
			}
			acc[r*4+c] += s
		}
	}
}

// expectation is Tr(M ρ) for the Hermitian M and reduced density matrix
// ρ, both d×d: ⟨ψ|M|ψ⟩, real.
func expectation(m []complex128, rho *[16]complex128, d int) float64 {
	var e float64
	for r := range d {
		for c := range d {
			e += real(m[r*d+c] * rho[c*d+r])
		}
	}
	return e
}
