package qasm_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"strings"
	"testing"

	"github.com/qjobs/quantum/internal/noiseref"
	"github.com/qjobs/quantum/qasm"
	"github.com/qjobs/quantum/sim"
)

// The expected density matrices here are worked out by explicit Kraus
// sums on 2×2 and 4×4 matrices written out below from the formulas of
// decisions.md, not with sim's channel code. Matrices are row-major; on
// two qubits the index is q[1]·2 + q[0] (sim's order, qubit j is bit j).

// dim is the size d of a d×d matrix.
func dim(m []complex128) int { return int(math.Round(math.Sqrt(float64(len(m))))) }

// The matrix algebra of internal/noiseref, the reference the service's
// noise tests use too (written apart from sim).
func mul(a, b []complex128) []complex128           { return noiseref.Mul(a, b, dim(a)) }
func scale(s float64, a []complex128) []complex128 { return noiseref.Scale(a, s) }

// kron is a ⊗ b, a's index the high part of the product's.
var kron = noiseref.Kron

func dagger(a []complex128) []complex128 {
	d := dim(a)
	out := make([]complex128, d*d)
	for r := range d {
		for c := range d {
			out[c*d+r] = cmplx.Conj(a[r*d+c])
		}
	}
	return out
}

// krausSum is Σ K ρ K†.
func krausSum(rho []complex128, ks [][]complex128) []complex128 {
	out := make([]complex128, len(rho))
	for _, k := range ks {
		for i, v := range mul(mul(k, rho), dagger(k)) {
			out[i] += v
		}
	}
	return out
}

// conjugate is U ρ U†.
func conjugate(rho, u []complex128) []complex128 { return mul(mul(u, rho), dagger(u)) }

var (
	id2 = []complex128{1, 0, 0, 1}
	pX  = []complex128{0, 1, 1, 0}
	pY  = []complex128{0, -1i, 1i, 0}
	pZ  = []complex128{1, 0, 0, -1}
	had = scale(1/math.Sqrt2, []complex128{1, 1, 1, -1})
	// swap exchanges the two qubits' bits of an index.
	swap = []complex128{1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0, 1}
	// cnot01 is a CNOT with q[0] the control and q[1] the target.
	cnot01 = []complex128{1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0, 0, 1, 0, 0}
)

func ry(t float64) []complex128 {
	c, s := complex(math.Cos(t/2), 0), complex(math.Sin(t/2), 0)
	return []complex128{c, -s, s, c}
}

func rz(t float64) []complex128 {
	return []complex128{cmplx.Exp(complex(0, -t/2)), 0, 0, cmplx.Exp(complex(0, t/2))}
}

// onQubit lifts one-qubit Kraus matrices to qubit q of two.
func onQubit(q int, ks ...[]complex128) [][]complex128 {
	out := make([][]complex128, len(ks))
	for i, k := range ks {
		if q == 0 {
			out[i] = kron(id2, k)
		} else {
			out[i] = kron(k, id2)
		}
	}
	return out
}

// braketOrder places two-qubit Kraus matrices written as Braket writes
// them (the first qubit named the high bit of the index) on the qubits
// first and second of two.
func braketOrder(first int, ks ...[]complex128) [][]complex128 {
	out := make([][]complex128, len(ks))
	for i, k := range ks {
		if first == 1 {
			out[i] = k // q[1] is already the high bit
		} else {
			out[i] = mul(mul(swap, k), swap)
		}
	}
	return out
}

// prepared is the two-qubit state the tests' programs start from,
// entangled and with complex coherences on both qubits.
const prepare = "OPENQASM 3.0;\nqubit[2] q;\nh q[0];\ncnot q[0], q[1];\nry(0.7) q[1];\nrz(0.4) q[1];\nry(1.1) q[0];\n"

func preparedRho() []complex128 {
	rho := make([]complex128, 16)
	rho[0] = 1
	rho = conjugate(rho, kron(id2, had))
	rho = conjugate(rho, cnot01)
	rho = conjugate(rho, kron(ry(0.7), id2))
	rho = conjugate(rho, kron(rz(0.4), id2))
	return conjugate(rho, kron(id2, ry(1.1)))
}

// The channels of decisions.md as Kraus matrices.

func pauliKraus(pi, px, py, pz float64) [][]complex128 {
	return [][]complex128{scale(math.Sqrt(pi), id2), scale(math.Sqrt(px), pX), scale(math.Sqrt(py), pY), scale(math.Sqrt(pz), pZ)}
}

func twoQubitDepolarizingKraus(p float64) [][]complex128 {
	paulis := [][]complex128{id2, pX, pY, pZ}
	ks := [][]complex128{scale(math.Sqrt(1-p), kron(id2, id2))}
	for i, a := range paulis {
		for j, b := range paulis {
			if i != 0 || j != 0 {
				ks = append(ks, scale(math.Sqrt(p/15), kron(a, b)))
			}
		}
	}
	return ks
}

func twoQubitDephasingKraus(p float64) [][]complex128 {
	s := math.Sqrt(p / 3)
	return [][]complex128{scale(math.Sqrt(1-p), kron(id2, id2)), scale(s, kron(pZ, id2)), scale(s, kron(id2, pZ)), scale(s, kron(pZ, pZ))}
}

func amplitudeDampingKraus(g float64) [][]complex128 {
	return [][]complex128{{1, 0, 0, complex(math.Sqrt(1-g), 0)}, {0, complex(math.Sqrt(g), 0), 0, 0}}
}

func phaseDampingKraus(g float64) [][]complex128 {
	return [][]complex128{{1, 0, 0, complex(math.Sqrt(1-g), 0)}, {0, 0, 0, complex(math.Sqrt(g), 0)}}
}

func generalizedAmplitudeDampingKraus(g, p float64) [][]complex128 {
	a, b := math.Sqrt(p), math.Sqrt(1-p)
	s, r := complex(math.Sqrt(1-g), 0), complex(math.Sqrt(g), 0)
	return [][]complex128{
		scale(a, []complex128{1, 0, 0, s}),
		scale(a, []complex128{0, r, 0, 0}),
		scale(b, []complex128{s, 0, 0, 1}),
		scale(b, []complex128{0, 0, r, 0}),
	}
}

// Kraus sets written out in the programs below, and as matrices.
const (
	// 0.6·I and 0.8·U, U a unitary with complex entries of every form
	krausComplex   = "[[0.6, 0], [0, 0.6]], [[0.48, -0.384 + 0.512im], [0.384 + 0.512im, 0.48]]"
	krausConjugate = "[[0.6, 0], [0, 0.6]], [[0.48, 0.384 - 0.512im], [-0.384 - 0.512im, 0.48]]"
	krausImaginary = "[[0.6, 0], [0, 0.6]], [[0.48, -0.64im], [-0.64im, 0.48]]"
	// √0.7·I and √0.3·CNOT, the first qubit named the control: not
	// symmetric in its qubits
	krausCNOT = "[[0.8366600265340756, 0, 0, 0], [0, 0.8366600265340756, 0, 0], [0, 0, 0.8366600265340756, 0], [0, 0, 0, 0.8366600265340756]], " +
		"[[0.5477225575051661, 0, 0, 0], [0, 0.5477225575051661, 0, 0], [0, 0, 0, 0.5477225575051661], [0, 0, 0.5477225575051661, 0]]"
	// amplitude damping (γ = 0.25, with a phase) of the first qubit
	// named, the identity on the second
	krausDampFirst = "[[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 0.8660254037844386, 0], [0, 0, 0, 0.8660254037844386]], " +
		"[[0, 0, 0.3 + 0.4im, 0], [0, 0, 0, 0.3 + 0.4im], [0, 0, 0, 0], [0, 0, 0, 0]]"
	// amplitude damping of γ = 1e-6, with an entry written 1e-3
	krausSmall = "[[1, 0], [0, 0.9999995]], [[0, 1e-3], [0, 0]]"
)

var (
	complexU   = []complex128{0.48, -0.384 + 0.512i, 0.384 + 0.512i, 0.48}
	imaginaryU = []complex128{0.48, -0.64i, -0.64i, 0.48}
	cnotKraus  = [][]complex128{
		scale(0.8366600265340756, kron(id2, id2)),
		scale(0.5477225575051661, []complex128{1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 1, 0}),
	}
	dampFirstKraus = [][]complex128{
		kron([]complex128{1, 0, 0, 0.8660254037844386}, id2),
		kron([]complex128{0, 0.3 + 0.4i, 0, 0}, id2),
	}
)

// densityOf compiles src and returns its exact density matrix.
func densityOf(t *testing.T, src string) []complex128 {
	t.Helper()
	c, err := qasm.Compile(src, qasm.Options{})
	if err != nil {
		t.Fatalf("compile: %v\n%s", err, src)
	}
	dm, err := sim.SimulateDensityMatrix(context.Background(), c, sim.Options{})
	if err != nil {
		t.Fatalf("simulate: %v", err)
	}
	d := 1 << dm.NumQubits()
	rho := make([]complex128, d*d)
	for r := range d {
		for col := range d {
			rho[r*d+col] = dm.At(r, col)
		}
	}
	return rho
}

func checkDensity(t *testing.T, got, want []complex128) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("density matrix of %d entries, want %d", len(got), len(want))
	}
	for i := range got {
		if cmplx.Abs(got[i]-want[i]) > 1e-12 {
			d := dim(want)
			t.Fatalf("ρ[%d][%d] = %v, want %v\ngot  %v\nwant %v", i/d, i%d, got[i], want[i], got, want)
		}
	}
}

func TestNoiseChannels(t *testing.T) {
	rho := preparedRho()
	tests := []struct {
		name, pragma string
		kraus        [][]complex128
	}{
		{"bit_flip", "bit_flip(0.1) q[1]", onQubit(1, pauliKraus(0.9, 0.1, 0, 0)...)},
		{"phase_flip", "phase_flip(0.2) q[0]", onQubit(0, pauliKraus(0.8, 0, 0, 0.2)...)},
		{"pauli_channel", "pauli_channel(0.1, 0.05, 0.2) q[1]", onQubit(1, pauliKraus(0.65, 0.1, 0.05, 0.2)...)},
		{"depolarizing", "depolarizing(0.3) q[1]", onQubit(1, pauliKraus(0.7, 0.1, 0.1, 0.1)...)},
		{"two_qubit_depolarizing", "two_qubit_depolarizing(0.2) q[0], q[1]", twoQubitDepolarizingKraus(0.2)},
		{"two_qubit_dephasing", "two_qubit_dephasing(0.3) q[1], q[0]", twoQubitDephasingKraus(0.3)},
		{"amplitude_damping", "amplitude_damping(0.4) q[1]", onQubit(1, amplitudeDampingKraus(0.4)...)},
		{"phase_damping", "phase_damping(0.35) q[0]", onQubit(0, phaseDampingKraus(0.35)...)},
		{"generalized_amplitude_damping", "generalized_amplitude_damping(0.3, 0.7) q[1]", onQubit(1, generalizedAmplitudeDampingKraus(0.3, 0.7)...)},
		{"kraus, complex entries", "kraus(" + krausComplex + ") q[1]", onQubit(1, scale(0.6, id2), complexU)},
		{"kraus, conjugated entries", "kraus(" + krausConjugate + ") q[0]", onQubit(0, scale(0.6, id2), dagger(complexU))},
		{"kraus, imaginary entries", "kraus(" + krausImaginary + ") q[1]", onQubit(1, scale(0.6, id2), imaginaryU)},
		{"kraus, exponents", "kraus(" + krausSmall + ") q[1]", onQubit(1, []complex128{1, 0, 0, 0.9999995}, []complex128{0, 1e-3, 0, 0})},
		{"kraus on two qubits, the first named the high bit", "kraus(" + krausCNOT + ") q[1], q[0]", braketOrder(1, cnotKraus...)},
		{"kraus on two qubits, the other order", "kraus(" + krausCNOT + ") q[0], q[1]", braketOrder(0, cnotKraus...)},
		{"kraus of one qubit's damping on two", "kraus(" + krausDampFirst + ") q[0], q[1]", braketOrder(0, dampFirstKraus...)},
		{"kraus of one qubit's damping on two, the other order", "kraus(" + krausDampFirst + ") q[1], q[0]", braketOrder(1, dampFirstKraus...)},
		{"kraus, decisions.md's example", "kraus([[0.9486832980505138, 0], [0, 0.9486832980505138]], [[0, 0.31622776601683794], [0.31622776601683794, 0]]) q[1]", onQubit(1, pauliKraus(0.9, 0.1, 0, 0)...)},
		{"parameters as expressions", "depolarizing(0.6 / 2) q[1]", onQubit(1, pauliKraus(0.7, 0.1, 0.1, 0.1)...)},
		{"parameters with constants", "pauli_channel(pi/20, 0.05, 1 - 0.8) q[1]", onQubit(1, pauliKraus(0.75-math.Pi/20, math.Pi/20, 0.05, 1-0.8)...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := densityOf(t, prepare+"#pragma braket noise "+tt.pragma+"\n")
			checkDensity(t, got, krausSum(rho, tt.kraus))
		})
	}
}

// TestTwoQubitKrausOrder checks Braket's convention on a state worked out
// by hand: with q[0] in |1⟩, √0.7·I and √0.3·CNOT flip q[1] with
// probability 0.3 when q[0] is named first (the control), and do nothing
// when q[1], in |0⟩, is.
func TestTwoQubitKrausOrder(t *testing.T) {
	const src = "OPENQASM 3.0;\nqubit[2] q;\nx q[0];\n#pragma braket noise kraus(" + krausCNOT + ") "
	// |q1 q0⟩ = |01⟩ is index 1, |11⟩ index 3.
	firstControls := make([]complex128, 16)
	firstControls[1*4+1], firstControls[3*4+3] = 0.7, 0.3
	checkDensity(t, densityOf(t, src+"q[0], q[1]\n"), firstControls)
	secondControls := make([]complex128, 16)
	secondControls[1*4+1] = 1
	checkDensity(t, densityOf(t, src+"q[1], q[0]\n"), secondControls)
}

// TestNoisyBellPair compiles a program that mixes gates and pragmas,
// compares its density matrix with the one worked out here, and its
// counts from both of sim's noisy methods with the exact distribution.
func TestNoisyBellPair(t *testing.T) {
	const src = `OPENQASM 3.0;
qubit[2] q;
bit[2] c;
h q[0];
#pragma braket noise depolarizing(0.1) q[0]
cnot q[0], q[1];
#pragma braket noise depolarizing(0.1) q[0], q[1]
#pragma braket noise kraus(` + krausDampFirst + `) q[1], q[0]
c = measure q;
`
	rho := make([]complex128, 16)
	rho[0] = 1
	dep := pauliKraus(0.9, 0.1/3, 0.1/3, 0.1/3)
	rho = conjugate(rho, kron(id2, had))
	rho = krausSum(rho, onQubit(0, dep...))
	rho = conjugate(rho, cnot01)
	rho = krausSum(rho, onQubit(0, dep...))
	rho = krausSum(rho, onQubit(1, dep...))
	rho = krausSum(rho, braketOrder(1, dampFirstKraus...))
	checkDensity(t, densityOf(t, src), rho)

	c, err := qasm.Compile(src, qasm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, method := range []sim.Method{sim.MethodStateVector, sim.MethodDensityMatrix} {
		t.Run(fmt.Sprint(method), func(t *testing.T) {
			want := make([]float64, 4)
			for i := range want {
				want[i] = real(rho[i*4+i])
			}
			checkCounts(t, c, method, want)
		})
	}
}

// checkCounts runs c for 20,000 shots and checks that the distance in
// total variation of the counts (keyed by c[1]c[0]) from want stays within
// six standard deviations of each outcome's frequency, summed: a seeded
// run that passes it passes on any seed but once in 10^8 or so.
func checkCounts(t *testing.T, c *sim.Circuit, method sim.Method, want []float64) {
	t.Helper()
	const shots = 20_000
	seed := uint64(7)
	res, err := sim.Run(context.Background(), c, sim.Options{Shots: shots, Seed: &seed, Method: method})
	if err != nil {
		t.Fatal(err)
	}
	var tv, bound float64
	for i, p := range want {
		got := float64(res.Counts[fmt.Sprintf("%02b", i)]) / shots
		tv += math.Abs(got-p) / 2
		bound += 6 * math.Sqrt(p*(1-p)/shots) / 2
	}
	if tv > bound {
		t.Fatalf("counts %v, exact %v: distance %.4f, more than %.4f", res.Counts, want, tv, bound)
	}
}

// noiseOps returns the channels of a compiled program's noise operations
// and their qubits, as text.
func noiseOps(c *sim.Circuit) []string {
	var out []string
	for _, op := range c.Ops {
		if op.Kind != sim.OpNoise {
			continue
		}
		qs := make([]int, op.NumTargets())
		for i := range qs {
			qs[i] = op.TargetAt(i)
		}
		s := fmt.Sprintf("%v %v", op.Channel(), qs)
		if op.Cond() != nil {
			s += " if"
		}
		out = append(out, s)
	}
	return out
}

// TestNoisePlacement checks where a pragma applies its channel: where it
// stands, each time that point runs, on the qubits its operands name.
func TestNoisePlacement(t *testing.T) {
	const h = "OPENQASM 3.0;\nqubit[3] q;\n"
	tests := []struct {
		name, src string
		want      []string
	}{
		{"a register, each qubit", h + "#pragma braket noise bit_flip(0.1) q\n", []string{"bit_flip(0.1) [0]", "bit_flip(0.1) [1]", "bit_flip(0.1) [2]"}},
		{"several operands", h + "#pragma braket noise amplitude_damping(0.2) q[2], q[0]\n", []string{"amplitude_damping(0.2) [2]", "amplitude_damping(0.2) [0]"}},
		{"a slice", h + "#pragma braket noise phase_flip(0.1) q[1:2]\n", []string{"phase_flip(0.1) [1]", "phase_flip(0.1) [2]"}},
		{"a two-qubit register", "qubit[2] r;\n#pragma braket noise two_qubit_dephasing(0.1) r\n", []string{"two_qubit_dephasing(0.1) [1 0]"}},
		{"two qubits, first named high", h + "#pragma braket noise two_qubit_depolarizing(0.1) q[0], q[2]\n", []string{"two_qubit_depolarizing(0.1) [2 0]"}},
		{"physical qubits", "x $1;\n#pragma braket noise bit_flip(0.1) $1, $0\n", []string{"bit_flip(0.1) [1]", "bit_flip(0.1) [0]"}},
		{"without #", h + "pragma braket noise bit_flip(0.1) q[0]\n", []string{"bit_flip(0.1) [0]"}},
		{"blanks, a comment and a semicolon", h + "  #pragma   braket\tnoise  bit_flip( 0.1 )  q[0] ; // why\n", []string{"bit_flip(0.1) [0]"}},
		{"a loop, each iteration", h + "for int i in [0:2] {\n#pragma braket noise bit_flip(0.1) q[i]\n}\n", []string{"bit_flip(0.1) [0]", "bit_flip(0.1) [1]", "bit_flip(0.1) [2]"}},
		{"a loop's variable as a parameter", h + "for int i in [1:2] {\n#pragma braket noise depolarizing(0.25 * i) q[0]\n}\n", []string{"depolarizing(0.25) [0]", "depolarizing(0.5) [0]"}},
		{"a while loop", h + "int n = 0;\nwhile (n < 2) {\n#pragma braket noise bit_flip(0.1) q[n]\nn += 1;\n}\n", []string{"bit_flip(0.1) [0]", "bit_flip(0.1) [1]"}},
		{"a constant", h + "const float p = 0.05;\n#pragma braket noise pauli_channel(p, p, 2 * p) q[0]\n", []string{"pauli_channel(0.05, 0.05, 0.1) [0]"}},
		{"if, taken", h + "if (true) {\n#pragma braket noise bit_flip(0.1) q[0]\n}\n", []string{"bit_flip(0.1) [0]"}},
		{"if, not taken", h + "if (false) {\n#pragma braket noise bit_flip(0.1) q[0]\n}\n", nil},
		{"if on a measurement", h + "bit b = measure q[0];\nif (b) {\n#pragma braket noise bit_flip(0.1) q[1]\n}\n", []string{"bit_flip(0.1) [1] if"}},
		{"a subroutine, each call", h + "def noisy(qubit a) {\n#pragma braket noise bit_flip(0.1) a\n}\nnoisy(q[2]);\nnoisy(q[0]);\n", []string{"bit_flip(0.1) [2]", "bit_flip(0.1) [0]"}},
		{"a gate never applied", h + "gate g a {\n#pragma braket noise bit_flip(0.1) a\n}\n", nil},
		{"doc.go's example", h + "#pragma braket noise kraus([[0.6, 0], [0, 0.6]], [[0, 0.8im], [-0.8im, 0]]) q\n", []string{"kraus(2 matrices) [0]", "kraus(2 matrices) [1]", "kraus(2 matrices) [2]"}},
		{"other pragmas", h + "#pragma braket verbatim\n#pragma braket noisy(0.1) q\n#pragma anything (\npragma braket result probability\n", nil},
		{"OpenQASM 2", "OPENQASM 2.0;\nqreg q[1];\n#pragma braket noise bit_flip(0.1) q[0]\n#pragma braket noise nonsense(\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := qasm.Compile(tt.src, qasm.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := noiseOps(c); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("noise operations %q, want %q", got, tt.want)
			}
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestNoiseInLoopsAndBranches checks what the pragmas inside a loop and
// under a measured condition do to the state: three bit flips of 0.1 leave
// q[0] flipped with probability (1 − 0.8³)/2; a bit flip of 0.5 on q[1]
// under q[2]'s measured 1 (a Hadamard's) makes every outcome of the two
// equally likely but q[1] = 1 without q[2] = 1.
func TestNoiseInLoopsAndBranches(t *testing.T) {
	loop := densityOf(t, "OPENQASM 3.0;\nqubit q;\nfor int i in [0:2] {\n#pragma braket noise bit_flip(0.1) q\n}\n")
	flipped := (1 - math.Pow(0.8, 3)) / 2
	checkDensity(t, loop, []complex128{complex(1-flipped, 0), 0, 0, complex(flipped, 0)})

	c, err := qasm.Compile("OPENQASM 3.0;\nqubit[2] q;\nbit[2] c;\nh q[0];\nc[0] = measure q[0];\nif (c[0]) {\n#pragma braket noise bit_flip(0.5) q[1]\n}\nc[1] = measure q[1];\n", qasm.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// c[1]c[0]: 00 half the time, 01 and 11 a quarter each
	checkCounts(t, c, sim.MethodStateVector, []float64{0.5, 0.25, 0, 0.25})
}

func TestNoiseErrors(t *testing.T) {
	const h = "OPENQASM 3.0;\nqubit[3] q;\n"
	const n = "#pragma braket noise "
	tests := []struct{ name, src, want string }{
		{"unknown channel", h + n + "bitflip(0.1) q[0]", `3:22: unknown noise channel "bitflip"; the channels are bit_flip, phase_flip, pauli_channel, depolarizing, two_qubit_depolarizing, two_qubit_dephasing, amplitude_damping, phase_damping, generalized_amplitude_damping, kraus`},
		{"no channel", h + n, `3:21: expected a name for the channel after "#pragma braket noise", got the end of the pragma's line`},
		{"no parameters", h + n + "bit_flip q[0]", `3:31: expected "(" after the noise channel "bit_flip", got "q"`},
		{"too many parameters", h + n + "bit_flip(0.1, 0.2) q[0]", `3:36: noise channel "bit_flip" takes 1 parameter (p), got 2`},
		{"too few parameters", h + n + "pauli_channel(0.1, 0.2) q[0]", `3:44: noise channel "pauli_channel" takes 3 parameters (px, py, pz), got 2`},
		{"none at all", h + n + "generalized_amplitude_damping() q[0]", `3:52: noise channel "generalized_amplitude_damping" takes 2 parameters (gamma, p), got 0`},
		{"out of range", h + n + "bit_flip(0.6) q[0]", "3:31: bit_flip: p = 0.6 is outside [0, 0.5]"},
		{"out of range, an expression", h + n + "depolarizing(0.5 + 0.5) q[0]", "3:35: depolarizing: p = 1 is outside [0, 0.75]"},
		{"second parameter out of range", h + n + "generalized_amplitude_damping(0.1, 1.5) q[0]", "3:57: generalized_amplitude_damping: p = 1.5 is outside [0, 1]"},
		{"third parameter out of range", h + n + "pauli_channel(0.1, 0.2, -0.3) q[0]", "3:46: pauli_channel: pz = -0.3 is outside [0, 1]"},
		{"a sum out of range", h + n + "pauli_channel(0.5, 0.3, 0.3) q[0]", "3:36: pauli_channel: px + py + pz = 1.1 is outside [0, 1]"},
		{"two_qubit_depolarizing's range", h + n + "two_qubit_depolarizing(0.95) q[0], q[1]", "3:45: two_qubit_depolarizing: p = 0.95 is outside [0, 0.9375]"},
		{"a measured parameter", h + "bit b = measure q[0];\n" + n + "bit_flip(b) q[0]", "4:31: parameter p of noise channel \"bit_flip\" depends on measurement results at run time"},
		{"a parameter of the wrong type", h + n + "bit_flip(q) q[0]", "3:31: parameter p of noise channel \"bit_flip\" must be a number, got qubit"},
		{"no qubits", h + n + "bit_flip(0.1)", "3:35: expected the qubits bit_flip acts on, got the end of the pragma's line"},
		{"no qubits after a comma", h + n + "bit_flip(0.1) q[0],", "3:41: expected an expression, got the end of the pragma's line"},
		{"one qubit for two", h + n + "two_qubit_depolarizing(0.1) q[1]", `3:50: noise channel "two_qubit_depolarizing" acts on 2 qubits, the pragma names 1`},
		{"three qubits for two", h + n + "two_qubit_dephasing(0.1) q[1], q[0], q[2]", `3:59: noise channel "two_qubit_dephasing" acts on 2 qubits, the pragma names 3`},
		{"a register of three for two", h + n + "two_qubit_dephasing(0.1) q", `3:47: noise channel "two_qubit_dephasing" acts on 2 qubits, the pragma names 3`},
		{"one qubit for a 4×4 kraus", h + n + "kraus(" + krausCNOT + ") q[0]", `acts on 2 qubits, the pragma names 1`},
		{"the same qubit twice", h + n + "bit_flip(0.1) q[0], q[1], q[0]", `3:48: noise channel "bit_flip" uses the same qubit twice`},
		{"the same qubit twice in a register", h + n + "bit_flip(0.1) q[1], q", `3:42: noise channel "bit_flip" uses the same qubit twice`},
		{"the same qubit twice for two", h + n + "two_qubit_depolarizing(0.1) q[1], q[1]", `3:56: noise channel "two_qubit_depolarizing" uses the same qubit twice`},
		{"qubit out of range", h + n + "bit_flip(0.1) q[3]", "3:38: index 3 out of range for size 3"},
		{"undeclared register", h + n + "bit_flip(0.1) r[0]", `3:36: undefined qubit register "r"`},
		{"not qubits", h + "int r;\n" + n + "bit_flip(0.1) r", `4:36: "r" is not a qubit register`},
		{"more on the line", h + n + "bit_flip(0.1) q[0] x q[0];", `3:41: expected the end of the pragma's line after the qubits, got "x" (a pragma takes its whole line)`},
		{"inside a gate", h + "gate g a {\n" + n + "bit_flip(0.1) a\n}\ng q[0];", "4:1: a noise pragma is not allowed inside a gate definition"},
		{"kraus without matrices", h + n + "kraus() q[0]", `3:28: expected "[" to open a Kraus matrix, such as [[1, 0], [0, 1]], got ")"`},
		{"kraus of a flat list", h + n + "kraus([1, 0, 0, 1]) q[0]", `3:29: expected "[" to open a row of a Kraus matrix, got "1"`},
		{"an entry that is no number", h + n + "kraus([[1, x], [0, 1]]) q[0]", `3:33: expected a number for an entry of a Kraus matrix (such as 0.5, -0.2im or 0.3 + 0.4im), got "x"`},
		{"an entry's imaginary part missing", h + n + "kraus([[1, 0.5 + 0.5], [0, 1]]) q[0]", `3:39: expected the imaginary part of a complex entry, such as 0.4im, got "0.5"`},
		{"an unclosed row", h + n + "kraus([[1, 0 [0, 1]]) q[0]", `3:35: expected "]" after the entries of a row of a Kraus matrix, got "["`},
		{"rows of different lengths", h + n + "kraus([[1, 0], [0, 1, 0]]) q[0]", "3:37: row 2 of Kraus matrix 1 has 3 entries, row 1 has 2"},
		{"more rows than columns", h + n + "kraus([[1, 0], [0, 1], [0, 0]]) q[0]", "3:45: Kraus matrix 1 has more rows than its 2 columns: it must be square, 2×2 for one qubit or 4×4 for two"},
		{"fewer rows than columns", h + n + "kraus([[1, 0, 0, 0]]) q[0]", "3:28: Kraus matrix 1 has 1 row of 4 entries: it must be square, 2×2 for one qubit or 4×4 for two"},
		{"a row too long", h + n + "kraus([[1, 0, 0, 0, 0]]) q[0]", "3:42: a row of a Kraus matrix has at most 4 entries (4×4 for two qubits)"},
		{"3×3", h + n + "kraus([[1, 0, 0], [0, 1, 0], [0, 0, 1]]) q[0]", "3:28: Kraus matrix 1 is 3×3: kraus takes 2×2 matrices (one qubit) or 4×4 (two qubits)"},
		{"1×1", h + n + "kraus([[1]]) q[0]", "3:28: Kraus matrix 1 is 1×1: kraus takes 2×2 matrices (one qubit) or 4×4 (two qubits)"},
		{"matrices of two sizes", h + n + "kraus([[1, 0], [0, 1]], " + strings.SplitN(krausCNOT, "], [[", 2)[0] + "]) q[0]", "3:46: Kraus matrix 2 is 4×4, matrix 1 is 2×2: the matrices of a channel act on the same qubits"},
		{"too many matrices", h + n + "kraus([[1, 0], [0, 0]], [[0, 0], [0, 1]], [[0, 0], [0, 0]], [[0, 0], [0, 0]], [[0, 0], [0, 0]]) q[0]", "3:100: kraus takes at most 4 matrices of 2×2 (any channel on 1 qubit has a Kraus form that short)"},
		{"not trace preserving", h + n + "kraus([[1, 0], [0, 1]], [[0, 0.1], [0, 0]]) q[0]", "3:22: invalid channel: kraus: Σ K†K is not the identity (largest entry of |Σ K†K − I| is 0.01, over 1e-09): the channel does not preserve the trace"},
		{"an entry out of range", h + n + "kraus([[1e999, 0], [0, 1]]) q[0]", "3:30: number 1e999 is out of range"},
		{"a string never closed", h + n + "bit_flip(0.1) \"q", "3:36: string opened here is not closed on the same line"},
		{"MaxOps", h + n + "bit_flip(0.1) q", "3:1: program expands to more than 2 operations (MaxOps)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := qasm.Options{}
			if tt.name == "MaxOps" {
				opts.MaxOps = 2
			}
			_, err := qasm.Compile(tt.src, opts)
			var qe *qasm.Error
			if !errors.As(err, &qe) {
				t.Fatalf("error %v (%T), want *qasm.Error %q", err, err, tt.want)
			}
			// a want that starts with its position is the message's start
			if tt.want[0] >= '0' && tt.want[0] <= '9' {
				if !strings.HasPrefix(err.Error(), tt.want) {
					t.Fatalf("error\n%q, want\n%q", err, tt.want)
				}
			} else if !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %q, want it to contain %q", err, tt.want)
			}
		})
	}
}

// TestMillionNoisePragmas compiles a million pragma lines, as it does a
// million gates (a noise operation costs what a gate does), having
// allocated the operations and, for the lines parsed and dropped one at a
// time, a few bytes a byte of source; two million are refused by
// MaxBytes.
func TestMillionNoisePragmas(t *testing.T) {
	const line = "#pragma braket noise depolarizing(0.01) q[1]\n"
	src := "OPENQASM 3.0;\nqubit[4] q;\n" + strings.Repeat(line, 1_000_000)
	var c *sim.Circuit
	var err error
	n := allocated(func() { c, err = qasm.Compile(src, qasm.Options{}) })
	t.Logf("%.1f MiB allocated for %.1f MiB of source", float64(n)/mib, float64(len(src))/mib)
	if err != nil || len(c.Ops) != 1_000_000 {
		t.Fatalf("a million pragmas: %v", err)
	}
	if _, err := qasm.Compile(src+strings.Repeat(line, 1_000_000), qasm.Options{}); err == nil || !strings.Contains(err.Error(), "(MaxBytes)") {
		t.Fatalf("two million pragmas: %v, want MaxBytes", err)
	}
	if limit := qasm.DefaultMaxBytes + 16*mib + 4*len(src); n > uint64(limit) {
		t.Fatalf("allocated %.1f MiB, more than %.1f", float64(n)/mib, float64(limit)/mib)
	}
}

// A noise pragma costs the compile budget what a gate does, an operation's
// 56 bytes: its operations share one extension per channel and qubits, as
// a noise model's do, rather than hold one each; equal Kraus matrices
// make one channel; and the circuit's slice is sized for pragmas as for
// statements. It was about 450 bytes (3.6 KB for a kraus pragma).
func TestNoisePragmaCostsAnOperation(t *testing.T) {
	const n = 20_000
	program := func(line func(i int) string) string {
		var b strings.Builder
		b.WriteString("OPENQASM 3;\ninclude \"stdgates.inc\";\nqubit[4] q;\n")
		for i := range n {
			b.WriteString(line(i))
		}
		return b.String()
	}
	charged := func(src string) int64 {
		t.Helper()
		p, c, err := qasm.CompileCharged(context.Background(), src, qasm.Options{})
		if err != nil || len(p.Circuit.Ops) != n {
			t.Fatalf("%v, %d ops", err, len(p.Circuit.Ops))
		}
		return c
	}
	for _, tc := range []struct{ name, gate, pragma string }{
		{"one qubit", "x q[%d];\n", "#pragma braket noise depolarizing(0.01) q[%d]\n"},
		{"two qubits", "cx q[%d], q[%d];\n", "#pragma braket noise two_qubit_depolarizing(0.01) q[%d], q[%d]\n"},
		{"kraus", "x q[%d];\n", "#pragma braket noise kraus([[0.6, 0], [0, 0.6]], [[0, 0.8], [0.8, 0]]) q[%d]\n"},
	} {
		line := func(format string) func(int) string {
			return func(i int) string {
				if strings.Count(format, "%d") == 1 {
					return fmt.Sprintf(format, i%4)
				}
				return fmt.Sprintf(format, i%4, (i+1)%4)
			}
		}
		gates, noise := charged(program(line(tc.gate))), charged(program(line(tc.pragma)))
		if per := float64(noise-gates) / n; per > 1 {
			t.Errorf("%s: pragmas charged %d bytes, gates %d: %.1f bytes more a pragma", tc.name, noise, gates, per)
		}
	}
}
