package ionq_test

import (
	"math"
	"math/cmplx"
	"testing"

	"github.com/qjobs/quantum/sim"
)

const th = 0.41

var I = complex(0, 1)

func cis(x float64) complex128 { return cmplx.Exp(complex(0, x)) }

var (
	c, s = complex(math.Cos(th/2), 0), complex(math.Sin(th/2), 0)
	h    = complex(1/math.Sqrt2, 0)
	xm   = []complex128{0, 1, 1, 0}
	ym   = []complex128{0, -I, I, 0}
	zm   = []complex128{1, 0, 0, -1}
	v    = []complex128{(1 + I) / 2, (1 - I) / 2, (1 - I) / 2, (1 + I) / 2} // √X
)

func ctrl(m []complex128, n int) []complex128 {
	// controls are the high bits here: little-endian, targets first
	d := isqrt(len(m))
	full := d << n
	out := make([]complex128, full*full)
	for i := range full {
		out[i*full+i] = 1
	}
	off := full - d
	for i := range d {
		for j := range d {
			out[(off+i)*full+off+j] = m[i*d+j]
		}
	}
	return out
}

func isqrt(n int) int {
	d := 1
	for d*d < n {
		d++
	}
	return d
}

// Each QIS gate, alone and controlled, applies its matrix exactly.
func TestQISGates(t *testing.T) {
	rx := []complex128{c, -I * s, -I * s, c}
	ry := []complex128{c, -s, s, c}
	rz := []complex128{cis(-th / 2), 0, 0, cis(th / 2)}
	swap := []complex128{1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1}
	kron := sim.Kron
	xx := make([]complex128, 16)
	yy := make([]complex128, 16)
	zz := make([]complex128, 16)
	xxm, yym, zzm := kron(xm, xm), kron(ym, ym), kron(zm, zm)
	for i := range 16 {
		id := complex(0, 0)
		if i%5 == 0 {
			id = 1
		}
		xx[i] = c*id - I*s*xxm[i]
		yy[i] = c*id - I*s*yym[i]
		zz[i] = c*id - I*s*zzm[i]
	}
	cases := []struct {
		op     map[string]any
		qs     []int
		matrix []complex128
	}{
		{map[string]any{"gate": "x", "target": 1}, []int{1}, xm},
		{map[string]any{"gate": "not", "targets": []int{1}}, []int{1}, xm},
		{map[string]any{"gate": "y", "target": 0}, []int{0}, ym},
		{map[string]any{"gate": "z", "target": 2}, []int{2}, zm},
		{map[string]any{"gate": "z", "target": 2, "rotation": th}, []int{2}, []complex128{1, 0, 0, cis(th)}},
		{map[string]any{"gate": "h", "target": 0}, []int{0}, []complex128{h, h, h, -h}},
		{map[string]any{"gate": "id", "target": 0}, []int{0}, []complex128{1, 0, 0, 1}},
		{map[string]any{"gate": "s", "target": 1}, []int{1}, []complex128{1, 0, 0, I}},
		{map[string]any{"gate": "si", "target": 1}, []int{1}, []complex128{1, 0, 0, -I}},
		{map[string]any{"gate": "t", "target": 1}, []int{1}, []complex128{1, 0, 0, cis(math.Pi / 4)}},
		{map[string]any{"gate": "ti", "target": 1}, []int{1}, []complex128{1, 0, 0, cis(-math.Pi / 4)}},
		{map[string]any{"gate": "v", "target": 2}, []int{2}, v},
		{map[string]any{"gate": "vi", "target": 2}, []int{2}, sim.Dagger(v)},
		{map[string]any{"gate": "rx", "target": 0, "rotation": th}, []int{0}, rx},
		{map[string]any{"gate": "ry", "target": 0, "rotation": th}, []int{0}, ry},
		{map[string]any{"gate": "rz", "target": 0, "rotation": th}, []int{0}, rz},
		{map[string]any{"gate": "swap", "targets": []int{2, 0}}, []int{2, 0}, swap},
		{map[string]any{"gate": "xx", "targets": []int{0, 2}, "rotation": th}, []int{0, 2}, xx},
		{map[string]any{"gate": "yy", "targets": []int{2, 1}, "rotation": th}, []int{2, 1}, yy},
		{map[string]any{"gate": "zz", "targets": []int{1, 0}, "rotation": th}, []int{1, 0}, zz},
		{map[string]any{"gate": "cnot", "control": 0, "target": 2}, []int{2, 0}, ctrl(xm, 1)},
		{map[string]any{"gate": "cnot", "controls": []int{0, 2}, "target": 1}, []int{1, 0, 2}, ctrl(xm, 2)},
		{map[string]any{"gate": "cx", "control": 2, "target": 0}, []int{0, 2}, ctrl(xm, 1)},
		{map[string]any{"gate": "cy", "control": 2, "target": 0}, []int{0, 2}, ctrl(ym, 1)},
		{map[string]any{"gate": "cz", "control": 2, "target": 0}, []int{0, 2}, ctrl(zm, 1)},
		{map[string]any{"gate": "cz", "control": 2, "target": 0, "rotation": th}, []int{0, 2}, ctrl([]complex128{1, 0, 0, cis(th)}, 1)},
		{map[string]any{"gate": "crx", "control": 1, "target": 0, "rotation": th}, []int{0, 1}, ctrl(rx, 1)},
		{map[string]any{"gate": "cry", "control": 1, "target": 0, "rotation": th}, []int{0, 1}, ctrl(ry, 1)},
		{map[string]any{"gate": "crz", "control": 1, "target": 0, "rotation": th}, []int{0, 1}, ctrl(rz, 1)},
		{map[string]any{"gate": "ch", "control": 1, "target": 2}, []int{2, 1}, ctrl([]complex128{h, h, h, -h}, 1)},
		{map[string]any{"gate": "cs", "control": 1, "target": 2}, []int{2, 1}, ctrl([]complex128{1, 0, 0, I}, 1)},
		{map[string]any{"gate": "csi", "control": 1, "target": 2}, []int{2, 1}, ctrl([]complex128{1, 0, 0, -I}, 1)},
		{map[string]any{"gate": "ct", "control": 1, "target": 2}, []int{2, 1}, ctrl([]complex128{1, 0, 0, cis(math.Pi / 4)}, 1)},
		{map[string]any{"gate": "cti", "control": 1, "target": 2}, []int{2, 1}, ctrl([]complex128{1, 0, 0, cis(-math.Pi / 4)}, 1)},
		{map[string]any{"gate": "cv", "control": 1, "target": 2}, []int{2, 1}, ctrl(v, 1)},
		{map[string]any{"gate": "cvi", "control": 1, "target": 2}, []int{2, 1}, ctrl(sim.Dagger(v), 1)},
		{map[string]any{"gate": "ccnot", "controls": []int{0, 1}, "target": 2}, []int{2, 0, 1}, ctrl(xm, 2)},
		{map[string]any{"gate": "swap", "controls": []int{1}, "targets": []int{0, 2}}, []int{0, 2, 1}, ctrl(swap, 1)},
		{map[string]any{"gate": "rx", "controls": []int{1, 2}, "targets": []int{0}, "rotation": th}, []int{0, 1, 2}, ctrl(rx, 2)},
	}
	for _, tc := range cases {
		got := unitaryOf(t, []map[string]any{tc.op}, 3)
		assertClose(t, tc.op["gate"].(string), got, lift(tc.matrix, tc.qs, 3))
	}
}

// A gate takes up to seven controls.
func TestSevenControls(t *testing.T) {
	op := map[string]any{"gate": "x", "controls": []int{1, 2, 3, 4, 5, 6, 7}, "target": 0}
	got := unitaryOf(t, []map[string]any{op}, 8)
	assertClose(t, "x with seven controls", got, lift(ctrl(xm, 7), []int{0, 1, 2, 3, 4, 5, 6, 7}, 8))
}

// σ(φ) = cos 2πφ X + sin 2πφ Y: the native gates are rotations about it,
// by their physical definitions, computed here apart from the package's
// matrices.
func sigma(phi float64) []complex128 {
	return []complex128{0, cis(-2 * math.Pi * phi), cis(2 * math.Pi * phi), 0}
}

// expPauli is exp(−iαP) for P with P² = I: cos α − i sin α P.
func expPauli(alpha float64, p []complex128) []complex128 {
	d := isqrt(len(p))
	out := make([]complex128, len(p))
	for i := range p {
		if i%(d+1) == 0 {
			out[i] = complex(math.Cos(alpha), 0)
		}
		out[i] += complex(0, -math.Sin(alpha)) * p[i]
	}
	return out
}

func TestNativeGates(t *testing.T) {
	const phi0, phi1, theta = 0.13, -0.37, 0.2
	cases := []struct {
		op     map[string]any
		qs     []int
		matrix []complex128
	}{
		// GPI(φ) is σ(φ); GPI2(φ) is a quarter turn about it.
		{map[string]any{"gate": "gpi", "target": 1, "phase": phi0}, []int{1}, sigma(phi0)},
		{map[string]any{"gate": "gpi2", "target": 2, "phase": phi1}, []int{2}, expPauli(math.Pi/4, sigma(phi1))},
		// MS(φ0, φ1, θ) = exp(−iπθ σ(φ0)⊗σ(φ1)), φ0 on targets[0]; its
		// angle is 0.25 unless given.
		{map[string]any{"gate": "ms", "targets": []int{0, 2}, "phases": []float64{phi0, phi1}, "angle": theta}, []int{0, 2},
			expPauli(math.Pi*theta, sim.Kron(sigma(phi1), sigma(phi0)))},
		{map[string]any{"gate": "ms", "targets": []int{2, 1}, "phases": []float64{phi0, phi1}}, []int{2, 1},
			expPauli(math.Pi*0.25, sim.Kron(sigma(phi1), sigma(phi0)))},
		// ZZ(θ) = exp(−iπθ Z⊗Z).
		{map[string]any{"gate": "zz", "targets": []int{0, 1}, "angle": theta}, []int{0, 1}, expPauli(math.Pi*theta, sim.Kron(zm, zm))},
	}
	for _, tc := range cases {
		got := unitaryOf(t, []map[string]any{tc.op}, 3)
		assertClose(t, tc.op["gate"].(string), got, lift(tc.matrix, tc.qs, 3))
	}
}
