package sim_test

import (
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/qjobs/quantum/sim"
)

const tol = 1e-12

func assertMatrix(t *testing.T, name string, got, want []complex128) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d entries, want %d", name, len(got), len(want))
	}
	for i := range got {
		if cmplx.Abs(got[i]-want[i]) > 1e-9 {
			t.Fatalf("%s: entry %d = %v, want %v\ngot  %v\nwant %v", name, i, got[i], want[i], got, want)
		}
	}
}

func TestEveryStandardGateIsUnitary(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, name := range sim.StdGateNames() {
		g, _ := sim.LookupGate(name)
		params := make([]float64, g.NumParams)
		for trial := range 5 {
			for i := range params {
				params[i] = (rng.Float64() - 0.5) * 4 * math.Pi
				if trial == 0 {
					params[i] = 0
				}
			}
			m := g.FullMatrix(params...)
			if want := 1 << (2 * g.NumQubits); len(m) != want {
				t.Fatalf("%s: full matrix has %d entries, want %d", name, len(m), want)
			}
			if e := sim.UnitarityError(m); e > 1e-12 {
				t.Errorf("%s%v: not unitary, error %g", name, params, e)
			}
		}
	}
}

// Textbook matrices, little-endian: argument 0 is the lowest index bit. For
// a controlled gate "c? a, b" the control is a (bit 0) and the target b (bit 1).
func TestStandardGatesMatchTextbook(t *testing.T) {
	r := 1 / math.Sqrt2
	e := func(x float64) complex128 { return cmplx.Exp(complex(0, x)) }
	c, s := math.Cos(0.3), math.Sin(0.3) // half of θ = 0.6
	th := 0.6
	tests := []struct {
		name   string
		params []float64
		want   []complex128
	}{
		{"id", nil, []complex128{1, 0, 0, 1}},
		{"x", nil, []complex128{0, 1, 1, 0}},
		{"y", nil, []complex128{0, -1i, 1i, 0}},
		{"z", nil, []complex128{1, 0, 0, -1}},
		{"h", nil, []complex128{complex(r, 0), complex(r, 0), complex(r, 0), complex(-r, 0)}},
		{"s", nil, []complex128{1, 0, 0, 1i}},
		{"sdg", nil, []complex128{1, 0, 0, -1i}},
		{"t", nil, []complex128{1, 0, 0, e(math.Pi / 4)}},
		{"tdg", nil, []complex128{1, 0, 0, e(-math.Pi / 4)}},
		{"sx", nil, []complex128{(1 + 1i) / 2, (1 - 1i) / 2, (1 - 1i) / 2, (1 + 1i) / 2}},
		{"sxdg", nil, []complex128{(1 - 1i) / 2, (1 + 1i) / 2, (1 + 1i) / 2, (1 - 1i) / 2}},
		{"rx", []float64{th}, []complex128{complex(c, 0), complex(0, -s), complex(0, -s), complex(c, 0)}},
		{"ry", []float64{th}, []complex128{complex(c, 0), complex(-s, 0), complex(s, 0), complex(c, 0)}},
		{"rz", []float64{th}, []complex128{e(-th / 2), 0, 0, e(th / 2)}},
		{"p", []float64{th}, []complex128{1, 0, 0, e(th)}},
		{"u1", []float64{th}, []complex128{1, 0, 0, e(th)}},
		{"u2", []float64{0.2, 0.5}, []complex128{complex(r, 0), -e(0.5) * complex(r, 0), e(0.2) * complex(r, 0), e(0.7) * complex(r, 0)}},
		{"u3", []float64{th, 0.2, 0.5}, []complex128{complex(c, 0), -e(0.5) * complex(s, 0), e(0.2) * complex(s, 0), e(0.7) * complex(c, 0)}},
		{"u", []float64{th, 0.2, 0.5}, []complex128{complex(c, 0), -e(0.5) * complex(s, 0), e(0.2) * complex(s, 0), e(0.7) * complex(c, 0)}},
		// Two qubits; index = a + 2b.
		{"cx", nil, []complex128{
			1, 0, 0, 0,
			0, 0, 0, 1,
			0, 0, 1, 0,
			0, 1, 0, 0}},
		{"cz", nil, []complex128{
			1, 0, 0, 0,
			0, 1, 0, 0,
			0, 0, 1, 0,
			0, 0, 0, -1}},
		{"cy", nil, []complex128{
			1, 0, 0, 0,
			0, 0, 0, -1i,
			0, 0, 1, 0,
			0, 1i, 0, 0}},
		{"cp", []float64{th}, []complex128{
			1, 0, 0, 0,
			0, 1, 0, 0,
			0, 0, 1, 0,
			0, 0, 0, e(th)}},
		{"swap", nil, []complex128{
			1, 0, 0, 0,
			0, 0, 1, 0,
			0, 1, 0, 0,
			0, 0, 0, 1}},
		{"rzz", []float64{th}, []complex128{
			e(-th / 2), 0, 0, 0,
			0, e(th / 2), 0, 0,
			0, 0, e(th / 2), 0,
			0, 0, 0, e(-th / 2)}},
		{"rxx", []float64{th}, []complex128{
			complex(c, 0), 0, 0, complex(0, -s),
			0, complex(c, 0), complex(0, -s), 0,
			0, complex(0, -s), complex(c, 0), 0,
			complex(0, -s), 0, 0, complex(c, 0)}},
		{"ch", nil, []complex128{
			1, 0, 0, 0,
			0, complex(r, 0), 0, complex(r, 0),
			0, 0, 1, 0,
			0, complex(r, 0), 0, complex(-r, 0)}},
		{"crz", []float64{th}, []complex128{
			1, 0, 0, 0,
			0, e(-th / 2), 0, 0,
			0, 0, 1, 0,
			0, 0, 0, e(th / 2)}},
		// cu(θ, φ, λ, γ): e^{iγ}·U on the |1⟩ control subspace.
		{"cu", []float64{th, 0.2, 0.5, 0.4}, []complex128{
			1, 0, 0, 0,
			0, e(0.4) * complex(c, 0), 0, -e(0.9) * complex(s, 0),
			0, 0, 1, 0,
			0, e(0.6) * complex(s, 0), 0, e(1.1) * complex(c, 0)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, ok := sim.LookupGate(tc.name)
			if !ok {
				t.Fatalf("gate %q not found", tc.name)
			}
			assertMatrix(t, tc.name, g.FullMatrix(tc.params...), tc.want)
		})
	}
}

// Three-qubit gates against their definitions as permutations.
func TestToffoliAndFredkin(t *testing.T) {
	perm := func(f func(i int) int) []complex128 {
		m := make([]complex128, 64)
		for i := range 8 {
			m[f(i)*8+i] = 1
		}
		return m
	}
	ccx, _ := sim.LookupGate("ccx")
	assertMatrix(t, "ccx", ccx.FullMatrix(), perm(func(i int) int {
		if i&3 == 3 {
			return i ^ 4
		}
		return i
	}))
	cswap, _ := sim.LookupGate("cswap")
	assertMatrix(t, "cswap", cswap.FullMatrix(), perm(func(i int) int {
		if i&1 == 1 {
			b1, b2 := i>>1&1, i>>2&1
			return 1 | b2<<1 | b1<<2
		}
		return i
	}))
}

// Inverse and controlled forms composed with the matrix helpers agree with
// the named gates.
func TestComposedForms(t *testing.T) {
	m := func(name string, p ...float64) []complex128 {
		g, _ := sim.LookupGate(name)
		return g.FullMatrix(p...)
	}
	assertMatrix(t, "inv s", sim.Dagger(m("s")), m("sdg"))
	assertMatrix(t, "inv t", sim.Dagger(m("t")), m("tdg"))
	assertMatrix(t, "inv sx", sim.Dagger(m("sx")), m("sxdg"))
	assertMatrix(t, "inv rx", sim.Dagger(m("rx", 0.7)), m("rx", -0.7))
	// ControlledMatrix puts the control on the high bit; swap to compare
	// with "cx a, b" where the control a is bit 0.
	ctrlX := sim.PermuteQubits(sim.ControlledMatrix(m("x"), 1), []int{1, 0})
	assertMatrix(t, "ctrl x", ctrlX, m("cx"))
	ctrlCtrlX := sim.PermuteQubits(sim.ControlledMatrix(m("x"), 2), []int{2, 0, 1})
	assertMatrix(t, "ctrl ctrl x", ctrlCtrlX, m("ccx"))
	assertMatrix(t, "swap = 3 cx", sim.MatMul(m("cx"), sim.MatMul(sim.PermuteQubits(m("cx"), []int{1, 0}), m("cx"))), m("swap"))
	assertMatrix(t, "h·h", sim.MatMul(m("h"), m("h")), sim.Identity(2))
	assertMatrix(t, "kron", sim.Kron(m("z"), m("x")), []complex128{
		0, 1, 0, 0,
		1, 0, 0, 0,
		0, 0, 0, -1,
		0, 0, -1, 0})
}

func TestMatPow(t *testing.T) {
	m := func(name string, p ...float64) []complex128 {
		g, _ := sim.LookupGate(name)
		return g.FullMatrix(p...)
	}
	pow := func(u []complex128, k float64) []complex128 {
		t.Helper()
		p, err := sim.MatPow(u, k)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	assertMatrix(t, "x^0.5", pow(m("x"), 0.5), m("sx"))
	assertMatrix(t, "x^-0.5", pow(m("x"), -0.5), m("sxdg"))
	assertMatrix(t, "z^0.5", pow(m("z"), 0.5), m("s"))
	assertMatrix(t, "s^0.5", pow(m("s"), 0.5), m("t"))
	assertMatrix(t, "z^0.25", pow(m("z"), 0.25), m("t"))
	assertMatrix(t, "rx^0.5", pow(m("rx", 0.8), 0.5), m("rx", 0.4))
	assertMatrix(t, "x^3", pow(m("x"), 3), m("x"))
	assertMatrix(t, "s^-1", pow(m("s"), -1), m("sdg"))
	assertMatrix(t, "cx^0.5 squared", sim.MatMul(pow(m("cx"), 0.5), pow(m("cx"), 0.5)), m("cx"))
	assertMatrix(t, "ccx^0.5 squared", sim.MatMul(pow(m("ccx"), 0.5), pow(m("ccx"), 0.5)), m("ccx"))
	assertMatrix(t, "swap^0.5 squared", sim.MatMul(pow(m("swap"), 0.5), pow(m("swap"), 0.5)), m("swap"))

	// A random 3-qubit unitary: (U^(1/3))^3 = U.
	u := randomUnitary(rand.New(rand.NewPCG(7, 7)), 8)
	r := pow(u, 1.0/3)
	assertMatrix(t, "cube root cubed", sim.MatMul(r, sim.MatMul(r, r)), u)

	if _, err := sim.MatPow([]complex128{1, 1, 0, 1}, 0.5); err == nil {
		t.Error("MatPow of a non-unitary matrix: no error")
	}
}

// randomUnitary builds a d×d unitary from random Givens-like rotations and
// phases, composed with MatMul.
func randomUnitary(rng *rand.Rand, d int) []complex128 {
	u := sim.Identity(d)
	for range 4 * d * d {
		i, j := rng.IntN(d), rng.IntN(d)
		if i == j {
			continue
		}
		th, ph := rng.Float64()*2*math.Pi, rng.Float64()*2*math.Pi
		g := sim.Identity(d)
		c, s := complex(math.Cos(th), 0), complex(math.Sin(th), 0)
		e := cmplx.Exp(complex(0, ph))
		g[i*d+i], g[i*d+j] = c, -s*cmplx.Conj(e)
		g[j*d+i], g[j*d+j] = s*e, c
		u = sim.MatMul(g, u)
	}
	for i := range d {
		ph := cmplx.Exp(complex(0, rng.Float64()*2*math.Pi))
		for j := range d {
			u[i*d+j] *= ph
		}
	}
	return u
}

// Each controlled standard gate "c… a, b" is its base gate on b where a is
// |1⟩, built here entry by entry (control bit 0, target bit 1).
func TestControlledGatesMatchTheirBase(t *testing.T) {
	tests := []struct {
		name, base string
		params     []float64
	}{
		{"cx", "x", nil}, {"cy", "y", nil}, {"cz", "z", nil}, {"ch", "h", nil},
		{"cs", "s", nil}, {"csdg", "sdg", nil}, {"csx", "sx", nil},
		{"cp", "p", []float64{0.9}}, {"cu1", "u1", []float64{0.9}}, {"cphase", "p", []float64{-0.4}},
		{"crx", "rx", []float64{0.9}}, {"cry", "ry", []float64{0.9}}, {"crz", "rz", []float64{0.9}},
		{"cu3", "u3", []float64{0.9, 0.1, -0.3}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g, _ := sim.LookupGate(tc.name)
			base, _ := sim.LookupGate(tc.base)
			b := base.FullMatrix(tc.params...)
			want := sim.Identity(4)
			for i := range 2 {
				for j := range 2 {
					want[(1+2*i)*4+1+2*j] = b[i*2+j]
				}
			}
			assertMatrix(t, tc.name, g.FullMatrix(tc.params...), want)
		})
	}
	// Multi-controlled X gates flip the last argument when all others are 1.
	for name, k := range map[string]int{"ccx": 3, "c3x": 4, "c4x": 5} {
		g, _ := sim.LookupGate(name)
		d := 1 << k
		want := make([]complex128, d*d)
		for i := range d {
			j := i
			if i&(d/2-1) == d/2-1 {
				j = i ^ d/2
			}
			want[j*d+i] = 1
		}
		assertMatrix(t, name, g.FullMatrix(), want)
	}
	// iswap, rzx and ecr against their definitions.
	e := func(name string, p ...float64) []complex128 { g, _ := sim.LookupGate(name); return g.FullMatrix(p...) }
	assertMatrix(t, "iswap", e("iswap"), []complex128{1, 0, 0, 0, 0, 0, 1i, 0, 0, 1i, 0, 0, 0, 0, 0, 1})
	c, s := complex(math.Cos(0.35), 0), complex(0, -math.Sin(0.35))
	// rzx(θ) a, b = exp(−iθ/2 Z_a X_b): Z on bit 0, X on bit 1.
	assertMatrix(t, "rzx", e("rzx", 0.7), []complex128{
		c, 0, s, 0,
		0, c, 0, -s,
		s, 0, c, 0,
		0, -s, 0, c})
	r := complex(1/math.Sqrt2, 0)
	// ecr = (IX − XY)/√2 in Qiskit's little-endian notation: X and Y on qubit 0.
	assertMatrix(t, "ecr", e("ecr"), []complex128{
		0, r, 0, 1i * r,
		r, 0, -1i * r, 0,
		0, 1i * r, 0, r,
		-1i * r, 0, r, 0})
}
