package sim_test

import (
	"context"
	"math"
	"math/cmplx"
	"testing"

	"github.com/qjobs/quantum/sim"
)

func sq(p float64) float64 { return math.Sqrt(p) }

// pauliKraus is √p·P for each of the Paulis on two qubits given as
// (factor on target 1, factor on target 0) pairs.
func twoQubitKraus(terms map[[2]int]float64) [][]complex128 {
	ps := [][]complex128{mI, mX, mY, mZ}
	var out [][]complex128
	for pq, p := range terms {
		out = append(out, scale(kron(ps[pq[0]], ps[pq[1]]), sq(p)))
	}
	return out
}

// channelCase is a channel built by sim and its Kraus matrices written
// here from decisions.md.
type channelCase struct {
	name  string
	ch    *sim.Channel
	kraus [][]complex128
	// pauli are the Pauli probabilities by index (target 0's factor in
	// the low two bits), nil for a channel that is not a Pauli channel.
	pauli []float64
}

func channelCases(t *testing.T) []channelCase {
	t.Helper()
	ch := must(t)
	ad := func(g float64) [][]complex128 {
		return [][]complex128{{1, 0, 0, complex(sq(1-g), 0)}, {0, complex(sq(g), 0), 0, 0}}
	}
	twoDepol := map[[2]int]float64{{0, 0}: 0.6}
	for i := 1; i < 16; i++ {
		twoDepol[[2]int{i / 4, i % 4}] = 0.4 / 15
	}
	twoDepolPauli := make([]float64, 16)
	for i := range twoDepolPauli {
		twoDepolPauli[i] = 0.4 / 15
	}
	twoDepolPauli[0] = 0.6
	twoDeph := make([]float64, 16)
	twoDeph[0], twoDeph[3], twoDeph[12], twoDeph[15] = 0.7, 0.1, 0.1, 0.1
	pdP := (1 - sq(1-0.45)) / 2 // phase damping is a phase flip of this probability

	// A channel on one qubit with complex entries and no symmetry: amplitude
	// damping after a general unitary.
	v := u(0.7, 0.4, 1.1)
	var rotatedAD [][]complex128
	for _, k := range ad(0.4) {
		rotatedAD = append(rotatedAD, mul(k, v, 2))
	}
	// And on two qubits: amplitude damping on target 0, then an entangling
	// unitary with complex entries.
	w := mul(cx01, kron(u(0.3, 1.2, 0.5), u(1.9, 0.1, 2.2)), 4)
	var twoQubitAD [][]complex128
	for _, k := range ad(0.55) {
		twoQubitAD = append(twoQubitAD, mul(w, kron(mI, k), 4))
	}

	return []channelCase{
		{"bit_flip", ch(sim.BitFlip(0.2)), [][]complex128{scale(mI, sq(0.8)), scale(mX, sq(0.2))}, []float64{0.8, 0.2, 0, 0}},
		{"phase_flip", ch(sim.PhaseFlip(0.3)), [][]complex128{scale(mI, sq(0.7)), scale(mZ, sq(0.3))}, []float64{0.7, 0, 0, 0.3}},
		{"pauli_channel", ch(sim.PauliChannel(0.1, 0.15, 0.2)),
			[][]complex128{scale(mI, sq(0.55)), scale(mX, sq(0.1)), scale(mY, sq(0.15)), scale(mZ, sq(0.2))}, []float64{0.55, 0.1, 0.15, 0.2}},
		{"depolarizing", ch(sim.Depolarizing(0.3)),
			[][]complex128{scale(mI, sq(0.7)), scale(mX, sq(0.1)), scale(mY, sq(0.1)), scale(mZ, sq(0.1))}, []float64{0.7, 0.1, 0.1, 0.1}},
		{"two_qubit_depolarizing", ch(sim.TwoQubitDepolarizing(0.4)), twoQubitKraus(twoDepol), twoDepolPauli},
		{"two_qubit_dephasing", ch(sim.TwoQubitDephasing(0.3)),
			twoQubitKraus(map[[2]int]float64{{0, 0}: 0.7, {0, 3}: 0.1, {3, 0}: 0.1, {3, 3}: 0.1}), twoDeph},
		{"amplitude_damping", ch(sim.AmplitudeDamping(0.35)), ad(0.35), nil},
		{"phase_damping", ch(sim.PhaseDamping(0.45)),
			[][]complex128{{1, 0, 0, complex(sq(0.55), 0)}, {0, 0, 0, complex(sq(0.45), 0)}}, []float64{1 - pdP, 0, 0, pdP}},
		{"generalized_amplitude_damping", ch(sim.GeneralizedAmplitudeDamping(0.3, 0.6)), [][]complex128{
			scale([]complex128{1, 0, 0, complex(sq(0.7), 0)}, sq(0.6)),
			scale([]complex128{0, complex(sq(0.3), 0), 0, 0}, sq(0.6)),
			scale([]complex128{complex(sq(0.7), 0), 0, 0, 1}, sq(0.4)),
			scale([]complex128{0, 0, complex(sq(0.3), 0), 0}, sq(0.4)),
		}, nil},
		{"kraus, bit flip as decisions.md writes it", ch(sim.Kraus(
			[]complex128{0.9486832980505138, 0, 0, 0.9486832980505138},
			[]complex128{0, 0.31622776601683794, 0.31622776601683794, 0})),
			[][]complex128{scale(mI, sq(0.9)), scale(mX, sq(0.1))}, []float64{0.9, 0.1, 0, 0}},
		{"kraus, one qubit, complex", ch(sim.Kraus(rotatedAD...)), rotatedAD, nil},
		// Y on target 0; X on target 1 with Z on target 0: a Pauli channel
		// whose qubits' order matters.
		{"kraus, two qubits, Pauli", ch(sim.Kraus(scale(kron(mI, mI), sq(0.6)), scale(kron(mI, mY), sq(0.25)), scale(kron(mX, mZ), sq(0.15)))),
			[][]complex128{scale(kron(mI, mI), sq(0.6)), scale(kron(mI, mY), sq(0.25)), scale(kron(mX, mZ), sq(0.15))},
			[]float64{0: 0.6, 2: 0.25, 7: 0.15, 15: 0}},
		{"kraus, two qubits, complex", ch(sim.Kraus(twoQubitAD...)), twoQubitAD, nil},
	}
}

// noisyCircuit is a small circuit with ch applied twice, on qubits that
// are not in order: gates before it make a state with coherences, gates
// after it turn them into probabilities, so that a channel wrong in any
// entry of ρ shows in the outcomes.
func noisyCircuit(tc channelCase) *refBuilder {
	if tc.ch.NumQubits() == 1 {
		b := newRefBuilder(2)
		b.gate(u(0.9, 0.3, 1.7), 0).gate(ry(1.1), 1).gate(cx01, 0, 1)
		b.noise(tc.ch, tc.kraus, 0).noise(tc.ch, tc.kraus, 1)
		b.gate(u(1.3, 0.8, 0.2), 0).gate(mH, 1).gate(cx01, 1, 0).gate(rx(0.6), 1)
		return b
	}
	b := newRefBuilder(3)
	b.gate(u(0.9, 0.3, 1.7), 0).gate(ry(1.1), 1).gate(mH, 2).gate(cx01, 0, 1).gate(cx01, 2, 0)
	b.noise(tc.ch, tc.kraus, 2, 0)
	b.gate(u(1.3, 0.8, 0.2), 0).gate(mH, 1).gate(rx(0.6), 2).gate(cx01, 1, 2)
	b.noise(tc.ch, tc.kraus, 1, 2)
	b.gate(mH, 2).gate(u(0.2, 1.4, 0.9), 1)
	return b
}

// The density-matrix method computes exactly the ρ of the reference, entry
// by entry, for every channel.
func TestDensityMatrixMatchesReference(t *testing.T) {
	for _, tc := range channelCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			b := noisyCircuit(tc)
			want := b.rho()
			for _, w := range []int{-1, 0, 2, 4} {
				got, err := sim.SimulateDensityMatrix(context.Background(), b.c, sim.Options{FusionWidth: w})
				if err != nil {
					t.Fatal(err)
				}
				assertRho(t, got, want, 1e-9)
			}
		})
	}
}

func assertRho(t *testing.T, got *sim.DensityMatrix, want []complex128, eps float64) {
	t.Helper()
	d := 1 << got.NumQubits()
	for r := range d {
		for c := range d {
			if e := cmplx.Abs(got.At(r, c) - want[r*d+c]); e > eps {
				t.Fatalf("ρ[%d][%d] = %v, want %v", r, c, got.At(r, c), want[r*d+c])
			}
		}
	}
	var trace float64
	for _, p := range got.Probabilities() {
		trace += p
	}
	if math.Abs(trace-1) > eps {
		t.Fatalf("trace %v", trace)
	}
}

// Both methods' counts are samples of the reference's distribution: a
// chi-squared test at a fixed seed, for every channel.
func TestNoisyCountsMatchReference(t *testing.T) {
	const shots = 20_000
	for _, tc := range channelCases(t) {
		for _, m := range []sim.Method{sim.MethodStateVector, sim.MethodDensityMatrix, sim.MethodAuto} {
			t.Run(tc.name+"/"+m.String(), func(t *testing.T) {
				b := noisyCircuit(tc)
				probs := refProbs(b.rho(), b.c.NumQubits)
				r := run(t, b.c, sim.Options{Shots: shots, Seed: seed(11), Method: m})
				want := m
				if m == sim.MethodAuto {
					want = sim.MethodDensityMatrix
				}
				if r.Method != want || r.PerShot != (want == sim.MethodStateVector) {
					t.Fatalf("ran as %s (per shot %v), want %s", r.Method, r.PerShot, want)
				}
				chiSquared(t, r.Counts, probs, shots)
			})
		}
	}
}

// Every channel says whether it is a Pauli channel, with its
// probabilities by Pauli index; phase damping is one however it is
// written, amplitude damping is not.
func TestPauliProbabilities(t *testing.T) {
	for _, tc := range channelCases(t) {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := tc.ch.PauliProbabilities()
			if ok != (tc.pauli != nil) || ok != tc.ch.IsPauli() {
				t.Fatalf("Pauli channel: %v (IsPauli %v), want %v", ok, tc.ch.IsPauli(), tc.pauli != nil)
			}
			if len(got) != len(tc.pauli) {
				t.Fatalf("%d probabilities, want %d", len(got), len(tc.pauli))
			}
			for i := range got {
				if math.Abs(got[i]-tc.pauli[i]) > 1e-12 {
					t.Fatalf("p(%s) = %v, want %v", sim.PauliName(i, tc.ch.NumQubits()), got[i], tc.pauli[i])
				}
			}
		})
	}
}
