package rydberg

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
)

// Atom is an atom's position, in µm.
type Atom struct{ X, Y, Z float64 }

// Drive is a laser driving some atoms between g and r: its complex Rabi
// frequency Ω·e^{iφ} at Times, linear between them.
type Drive struct {
	// Atoms are the indices of the atoms it drives; nil drives every atom.
	Atoms []int
	// Times are in µs, from 0 to the program's Duration, non-decreasing:
	// a time given twice is a jump (a phase that changes there).
	Times []float64
	// Values are Ω·e^{iφ} in rad/µs, one per time.
	Values []complex128
}

// Detuning is a detuning −δ(t)·Σ_k w_k n_k: a global one (Weights nil, every
// atom weighted 1) or a local one.
type Detuning struct {
	// Weights are w_k, one per atom; nil weighs every atom 1.
	Weights []float64
	// Times and Values (rad/µs) as a Drive's.
	Times  []float64
	Values []float64
}

// Program is what to simulate.
type Program struct {
	Atoms []Atom
	// C6 is the interaction coefficient, in rad·µm⁶/µs.
	C6 float64
	// Duration is how long the atoms evolve, in µs.
	Duration  float64
	Drives    []Drive
	Detunings []Detuning
}

// MaxAtoms is the most atoms a program may have: more than any device
// holds (Aquila has 256 sites), and few enough that the pairs of atoms
// are counted in a moment.
const MaxAtoms = 1024

// ErrProgram wraps every error Validate returns.
var ErrProgram = errors.New("rydberg: program")

// Validate checks that p is a program this package can simulate: finite
// numbers, atoms apart, fields defined on [0, Duration]. Front ends check
// their users' input first and name its fields; these errors are the
// rules as this package sees them.
func (p *Program) Validate() error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s", ErrProgram, fmt.Sprintf(format, args...))
	}
	n := len(p.Atoms)
	switch {
	case n > MaxAtoms:
		return bad("%d atoms, more than %d", n, MaxAtoms)
	case !(p.C6 > 0) || math.IsInf(p.C6, 0):
		return bad("C6 must be positive and finite, got %v", p.C6)
	case !(p.Duration >= 0) || math.IsInf(p.Duration, 0):
		return bad("the duration must be 0 or more and finite, got %v", p.Duration)
	}
	for i, a := range p.Atoms {
		if !finite(a.X) || !finite(a.Y) || !finite(a.Z) {
			return bad("atom %d is not at a finite position", i)
		}
	}
	for i := range p.Atoms {
		for j := i + 1; j < n; j++ {
			if distance(p.Atoms[i], p.Atoms[j]) == 0 {
				return bad("atoms %d and %d are at the same position", i, j)
			}
		}
	}
	for i, d := range p.Drives {
		if err := checkTimes(d.Times, len(d.Values), p.Duration); err != nil {
			return bad("drive %d: %v", i, err)
		}
		for j, v := range d.Values {
			if cmplx.IsNaN(v) || cmplx.IsInf(v) {
				return bad("drive %d: value %d is not finite", i, j)
			}
		}
		for j, a := range d.Atoms {
			if a < 0 || a >= n {
				return bad("drive %d: atom %d is %d, not one of the %d atoms", i, j, a, n)
			}
		}
	}
	for i, d := range p.Detunings {
		if err := checkTimes(d.Times, len(d.Values), p.Duration); err != nil {
			return bad("detuning %d: %v", i, err)
		}
		for j, v := range d.Values {
			if !finite(v) {
				return bad("detuning %d: value %d is not finite", i, j)
			}
		}
		if d.Weights != nil && len(d.Weights) != n {
			return bad("detuning %d: %d weights for %d atoms", i, len(d.Weights), n)
		}
		for j, w := range d.Weights {
			if !finite(w) {
				return bad("detuning %d: weight %d is not finite", i, j)
			}
		}
	}
	return nil
}

// checkTimes checks a field's times: as many as its values, from 0 to the
// duration, non-decreasing, no time more than twice.
func checkTimes(times []float64, values int, duration float64) error {
	switch {
	case len(times) < 2:
		return fmt.Errorf("%d times, at least 2 are needed", len(times))
	case len(times) != values:
		return fmt.Errorf("%d times and %d values", len(times), values)
	case times[0] != 0:
		return fmt.Errorf("the first time is %v, not 0", times[0])
	case times[len(times)-1] != duration:
		return fmt.Errorf("the last time is %v, not the duration %v", times[len(times)-1], duration)
	}
	for i := 1; i < len(times); i++ {
		switch {
		case !finite(times[i]) || times[i] < times[i-1]:
			return fmt.Errorf("time %d (%v) is before time %d (%v)", i, times[i], i-1, times[i-1])
		case i >= 2 && times[i] == times[i-2]:
			return fmt.Errorf("time %v is given more than twice", times[i])
		}
	}
	return nil
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func distance(a, b Atom) float64 {
	dx, dy, dz := a.X-b.X, a.Y-b.Y, a.Z-b.Z
	return math.Sqrt(dx*dx + dy*dy + dz*dz)
}

// Interaction is C6/d⁶ between atoms i and j of p, in rad/µs.
func (p *Program) Interaction(i, j int) float64 {
	d := distance(p.Atoms[i], p.Atoms[j])
	d2 := d * d
	return p.C6 / (d2 * d2 * d2)
}
