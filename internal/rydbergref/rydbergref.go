// Package rydbergref is a reference for the tests of the Rydberg
// simulator and the analog devices: the Hamiltonian of a rydberg.Program
// written out as a dense matrix, one row per configuration, and the state
// carried across each stretch between breakpoints by matrix exponentials
// computed by scaling and squaring. Where the fields ramp, a stretch is
// cut into substeps, each the exponential of the fourth-order Magnus
// expansion (−i·h·H(mid) + h³/12·[H(mid), H']), and the substeps are
// doubled until two answers agree to 1e-12. Nothing here is shared with
// package rydberg's sparse Taylor integrator; it is slow (a dense matrix
// of 2^n rows) and plainly right.
package rydbergref

import (
	"math"
	"math/cmplx"
	"slices"

	"github.com/qjobs/quantum/rydberg"
)

// dense is a square complex matrix, row-major.
type dense struct {
	n int
	a []complex128
}

func newDense(n int) *dense { return &dense{n: n, a: make([]complex128, n*n)} }

func (m *dense) at(i, j int) complex128 { return m.a[i*m.n+j] }

func (m *dense) mul(o *dense) *dense {
	r := newDense(m.n)
	for i := range m.n {
		for k := range m.n {
			x := m.a[i*m.n+k]
			if x == 0 {
				continue
			}
			for j := range m.n {
				r.a[i*m.n+j] += x * o.a[k*m.n+j]
			}
		}
	}
	return r
}

func (m *dense) apply(v []complex128) []complex128 {
	out := make([]complex128, m.n)
	for i := range m.n {
		var s complex128
		for j := range m.n {
			s += m.a[i*m.n+j] * v[j]
		}
		out[i] = s
	}
	return out
}

// expm is e^X by scaling and squaring: X/2^s of norm at most 1/2, its
// Taylor series to 30 terms (a remainder below 1e-40), squared s times.
func expm(x *dense) *dense {
	norm := 0.0
	for i := range x.n {
		row := 0.0
		for j := range x.n {
			row += cmplx.Abs(x.at(i, j))
		}
		norm = max(norm, row)
	}
	s := 0
	for norm > 0.5 {
		norm /= 2
		s++
	}
	f := complex(math.Ldexp(1, -s), 0)
	y := newDense(x.n)
	for i := range x.a {
		y.a[i] = x.a[i] * f
	}
	sum := newDense(x.n)
	term := newDense(x.n)
	for i := range x.n {
		sum.a[i*x.n+i] = 1
		term.a[i*x.n+i] = 1
	}
	for k := 1; k <= 30; k++ {
		term = term.mul(y)
		for i := range term.a {
			term.a[i] /= complex(float64(k), 0)
			sum.a[i] += term.a[i]
		}
	}
	for range s {
		sum = sum.mul(sum)
	}
	return sum
}

// Space lists the configurations the reference uses, as bit masks
// (atom k in r when bit k is set): all of them, or those whose atoms in r
// are all farther apart than radius.
func Space(p *rydberg.Program, radius float64) []int {
	n := len(p.Atoms)
	var out []int
	for s := range 1 << n {
		ok := true
		for i := range n {
			for j := i + 1; j < n; j++ {
				if s>>i&1 == 1 && s>>j&1 == 1 && dist(p.Atoms[i], p.Atoms[j]) <= radius {
					ok = false
				}
			}
		}
		if ok {
			out = append(out, s)
		}
	}
	return out
}

func dist(a, b rydberg.Atom) float64 {
	return math.Sqrt((a.X-b.X)*(a.X-b.X) + (a.Y-b.Y)*(a.Y-b.Y) + (a.Z-b.Z)*(a.Z-b.Z))
}

// valueAt is a piecewise linear field's value just after t (the later
// value at a jump).
func valueAt(times []float64, values []complex128, t float64) complex128 {
	for i := len(times) - 1; i >= 0; i-- {
		if times[i] <= t {
			if i == len(times)-1 {
				return values[i]
			}
			f := (t - times[i]) / (times[i+1] - times[i])
			return values[i] + (values[i+1]-values[i])*complex(f, 0)
		}
	}
	return values[0]
}

func realAt(times, values []float64, t float64) float64 {
	c := make([]complex128, len(values))
	for i, v := range values {
		c[i] = complex(v, 0)
	}
	return real(valueAt(times, c, t))
}

// hamiltonian is the dense H at time t+ on the configurations of space.
func hamiltonian(p *rydberg.Program, space []int, t float64) *dense {
	n := len(p.Atoms)
	index := map[int]int{}
	for i, s := range space {
		index[s] = i
	}
	h := newDense(len(space))
	for i, s := range space {
		diag := 0.0
		for a := range n {
			for b := a + 1; b < n; b++ {
				if s>>a&1 == 1 && s>>b&1 == 1 {
					d := dist(p.Atoms[a], p.Atoms[b])
					diag += p.C6 / math.Pow(d, 6)
				}
			}
		}
		for _, d := range p.Detunings {
			delta := realAt(d.Times, d.Values, t)
			for a := range n {
				w := 1.0
				if d.Weights != nil {
					w = d.Weights[a]
				}
				if s>>a&1 == 1 {
					diag -= delta * w
				}
			}
		}
		h.a[i*h.n+i] = complex(diag, 0)
		for _, d := range p.Drives {
			c := valueAt(d.Times, d.Values, t)
			atoms := d.Atoms
			if atoms == nil {
				for a := range n {
					atoms = append(atoms, a)
				}
			}
			for _, a := range atoms {
				// ⟨s|H|s'⟩ for s' = s with atom a flipped: c/2 from g to r.
				j, ok := index[s^(1<<a)]
				if !ok {
					continue
				}
				if s>>a&1 == 1 {
					h.a[i*h.n+j] += c / 2
				} else {
					h.a[i*h.n+j] += cmplx.Conj(c) / 2
				}
			}
		}
	}
	return h
}

// breakpoints are the times where any field of p has a point.
func breakpoints(p *rydberg.Program) []float64 {
	ts := []float64{0, p.Duration}
	for _, d := range p.Drives {
		ts = append(ts, d.Times...)
	}
	for _, d := range p.Detunings {
		ts = append(ts, d.Times...)
	}
	slices.Sort(ts)
	return slices.Compact(ts)
}

// Evolve evolves p from every atom in g and returns the final amplitude
// of each configuration of space (as Space lists them).
func Evolve(p *rydberg.Program, space []int) []complex128 {
	psi := make([]complex128, len(space))
	psi[0] = 1
	ts := breakpoints(p)
	for i := 0; i+1 < len(ts); i++ {
		psi = stretchRef(p, space, ts[i], ts[i+1], psi)
	}
	return psi
}

// stretchRef carries psi from t0 to t1, between two breakpoints.
func stretchRef(p *rydberg.Program, space []int, t0, t1 float64, psi []complex128) []complex128 {
	h0 := hamiltonian(p, space, t0)
	mid := hamiltonian(p, space, (t0+t1)/2)
	if slices.Equal(h0.a, mid.a) {
		return exponential(h0, t1-t0).apply(psi)
	}
	slope := newDense(h0.n) // H' on the stretch
	for i := range slope.a {
		slope.a[i] = (mid.a[i] - h0.a[i]) / complex((t1-t0)/2, 0)
	}
	// Substeps of norm below 1/2 to start with, doubled until two answers
	// agree.
	m := 1
	for norm(h0)*(t1-t0)/float64(m) > 0.5 {
		m *= 2
	}
	ab, ba := h0.mul(slope), slope.mul(h0)
	comm := newDense(h0.n)
	for i := range comm.a {
		comm.a[i] = ab.a[i] - ba.a[i]
	}
	prev := magnus(h0, slope, comm, t0, t1, psi, m)
	for m *= 2; ; m *= 2 {
		cur := magnus(h0, slope, comm, t0, t1, psi, m)
		diff := 0.0
		for i := range cur {
			diff = max(diff, cmplx.Abs(cur[i]-prev[i]))
		}
		if diff < 1e-12 || m >= 1<<20 {
			return cur
		}
		prev = cur
	}
}

// norm is the largest row sum of |H|, a bound on its 2-norm.
func norm(h *dense) float64 {
	n := 0.0
	for i := range h.n {
		row := 0.0
		for j := range h.n {
			row += cmplx.Abs(h.at(i, j))
		}
		n = max(n, row)
	}
	return n
}

// exponential is e^{−iHt}.
func exponential(h *dense, t float64) *dense {
	x := newDense(h.n)
	for i := range h.a {
		x.a[i] = complex(0, -t) * h.a[i]
	}
	return expm(x)
}

// magnus carries psi across the stretch in m substeps of the fourth-order
// Magnus expansion. On the stretch H(t) = H0 + (t−t0)·H', so the
// commutator [H(mid), H'] is [H0, H'] (comm) on every substep.
func magnus(h0, slope, comm *dense, t0, t1 float64, psi []complex128, m int) []complex128 {
	h := (t1 - t0) / float64(m)
	out := slices.Clone(psi)
	x := newDense(h0.n)
	for k := range m {
		tau := (float64(k) + 0.5) * h
		for i := range x.a {
			x.a[i] = complex(0, -h)*(h0.a[i]+complex(tau, 0)*slope.a[i]) + complex(h*h*h/12, 0)*comm.a[i]
		}
		out = expApply(x, out)
	}
	return out
}

// expApply is e^X·v by the Taylor series on the vector, for X of small
// norm (a substep's), to a term below 1e-20.
func expApply(x *dense, v []complex128) []complex128 {
	out := slices.Clone(v)
	term := slices.Clone(v)
	for k := 1; k < 200; k++ {
		term = x.apply(term)
		size := 0.0
		for i := range term {
			term[i] /= complex(float64(k), 0)
			out[i] += term[i]
			size = max(size, cmplx.Abs(term[i]))
		}
		if size < 1e-20 {
			break
		}
	}
	return out
}

// Distance is the 2-norm of the difference between a simulated state of
// n atoms and the reference's amplitudes want on space: a bound on every
// amplitude's error. A configuration of space the state left out counts
// as amplitude 0.
func Distance(st *rydberg.State, n int, space []int, want []complex128) float64 {
	sum := 0.0
	for i, s := range space {
		ryd := make([]bool, n)
		for k := range ryd {
			ryd[k] = s>>k&1 == 1
		}
		got := complex128(0)
		if j, ok := st.Index(ryd); ok {
			got = st.Amplitude(j)
		}
		sum += math.Pow(cmplx.Abs(got-want[i]), 2)
	}
	return math.Sqrt(sum)
}
