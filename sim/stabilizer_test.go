package sim_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/qjobs/quantum/sim"
)

// stdOp is the standard gate op name(p…) on qubits, controls first.
func stdOp(t *testing.T, name string, p []float64, qubits ...int) sim.Op {
	t.Helper()
	g, ok := sim.LookupGate(name)
	if !ok {
		t.Fatalf("no gate %q", name)
	}
	op, err := g.Op(p, qubits...)
	if err != nil {
		t.Fatal(err)
	}
	return op
}

// Gates are judged Clifford by their matrices, one at a time as written.
func TestCliffordJudgement(t *testing.T) {
	pi := math.Pi
	phased := stdGate("h", nil, 0)
	for i := range phased.Matrix {
		phased.Matrix[i] *= complex(math.Cos(0.3), math.Sin(0.3)) // a global phase
	}
	tests := []struct {
		name     string
		op       func(t *testing.T) sim.Op
		clifford bool
	}{
		{"h", func(t *testing.T) sim.Op { return stdOp(t, "h", nil, 0) }, true},
		{"u3(pi/2,0,pi)", func(t *testing.T) sim.Op { return stdOp(t, "u3", []float64{pi / 2, 0, pi}, 0) }, true},
		{"rz(pi/2)", func(t *testing.T) sim.Op { return stdOp(t, "rz", []float64{pi / 2}, 0) }, true},
		{"rz(pi/4)", func(t *testing.T) sim.Op { return stdOp(t, "rz", []float64{pi / 4}, 0) }, false},
		{"rx(pi)", func(t *testing.T) sim.Op { return stdOp(t, "rx", []float64{pi}, 0) }, true},
		{"t", func(t *testing.T) sim.Op { return stdOp(t, "t", nil, 0) }, false},
		{"inv @ t", func(t *testing.T) sim.Op { return stdOp(t, "t", nil, 0).Inverse() }, false},
		{"inv @ s", func(t *testing.T) sim.Op { return stdOp(t, "s", nil, 0).Inverse() }, true},
		{"sx", func(t *testing.T) sim.Op { return stdOp(t, "sx", nil, 0) }, true},
		{"cx", func(t *testing.T) sim.Op { return stdOp(t, "cx", nil, 0, 1) }, true},
		{"iswap", func(t *testing.T) sim.Op { return stdOp(t, "iswap", nil, 0, 1) }, true},
		{"ecr", func(t *testing.T) sim.Op { return stdOp(t, "ecr", nil, 0, 1) }, true},
		{"cp(pi)", func(t *testing.T) sim.Op { return stdOp(t, "cp", []float64{pi}, 0, 1) }, true},
		{"cp(pi/2)", func(t *testing.T) sim.Op { return stdOp(t, "cp", []float64{pi / 2}, 0, 1) }, false},
		{"rzz(pi/2)", func(t *testing.T) sim.Op { return stdOp(t, "rzz", []float64{pi / 2}, 0, 1) }, true},
		{"ch", func(t *testing.T) sim.Op { return stdOp(t, "ch", nil, 0, 1) }, false},
		{"ccx", func(t *testing.T) sim.Op { return stdOp(t, "ccx", nil, 0, 1, 2) }, false},
		{"ctrl @ z", func(t *testing.T) sim.Op { return stdOp(t, "z", nil, 1).WithControls(sim.Control{Qubit: 0}) }, true},
		{"negctrl @ x", func(t *testing.T) sim.Op {
			return stdOp(t, "x", nil, 1).WithControls(sim.Control{Qubit: 0, Negated: true})
		}, true},
		{"ctrl @ s", func(t *testing.T) sim.Op { return stdOp(t, "s", nil, 1).WithControls(sim.Control{Qubit: 0}) }, false},
		// ctrl @ gphase(pi/2) is s on the control.
		{"ctrl @ phase", func(t *testing.T) sim.Op {
			return sim.GateOp(sim.Gate{Name: "gphase", Matrix: []complex128{1i}, Controls: []sim.Control{{Qubit: 0}}})
		}, true},
		{"matrix e^{0.3i}·h", func(t *testing.T) sim.Op { return sim.GateOp(phased) }, true},
		{"matrix cz", func(t *testing.T) sim.Op { return sim.GateOp(stdGate("cz", nil, 0, 1)) }, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &sim.Circuit{NumQubits: 3}
			c.Append(tc.op(t).WithPos(7, 1))
			m, _, err := c.Method(sim.Options{Shots: 1, Method: sim.MethodStabilizer})
			if tc.clifford {
				if err != nil || m != sim.MethodStabilizer {
					t.Fatalf("method %s, %v; want stabilizer", m, err)
				}
				return
			}
			if !errors.Is(err, sim.ErrMethod) || !strings.Contains(err.Error(), "at 7:1") {
				t.Fatalf("error %v, want ErrMethod naming 7:1", err)
			}
		})
	}
}

// The stabilizer method refuses what it cannot run, naming the first
// offender and where it stands; auto then keeps the state vector.
func TestStabilizerRefuses(t *testing.T) {
	damp := must(t)(sim.AmplitudeDamping(0.1))
	tests := []struct {
		name string
		c    func(t *testing.T) *sim.Circuit
		want string
	}{
		{"t at 7:1", func(t *testing.T) *sim.Circuit {
			c := &sim.Circuit{NumQubits: 2, NumClbits: 1}
			c.Append(stdOp(t, "h", nil, 0).WithPos(6, 1), stdOp(t, "t", nil, 1).WithPos(7, 1), stdOp(t, "tdg", nil, 1).WithPos(8, 1))
			return c.Measure(0, 0)
		}, "gate t at 7:1 is not a Clifford gate"},
		{"t without position", func(t *testing.T) *sim.Circuit {
			c := &sim.Circuit{NumQubits: 2}
			return c.ApplyStd("h", nil, 0).ApplyStd("t", nil, 1)
		}, "gate t (operation 1) is not a Clifford gate"},
		{"damping", func(t *testing.T) *sim.Circuit {
			c := &sim.Circuit{NumQubits: 1}
			return c.ApplyStd("h", nil, 0).Append(sim.NoiseOp(damp, 0).WithPos(3, 5))
		}, "channel amplitude_damping(0.1) at 3:5 is not a Pauli channel"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.c(t)
			_, err := sim.Run(context.Background(), c, sim.Options{Shots: 10, Method: sim.MethodStabilizer})
			if !errors.Is(err, sim.ErrMethod) || !strings.HasSuffix(err.Error(), tc.want) {
				t.Fatalf("error %v, want ErrMethod ending %q", err, tc.want)
			}
			r := run(t, c, sim.Options{Shots: 10, Seed: seed(1)})
			if r.Method == sim.MethodStabilizer {
				t.Fatalf("auto chose the stabilizer for %s", tc.name)
			}
		})
	}
}

// Auto picks the stabilizer for Clifford circuits with Pauli channels,
// and says why.
func TestAutoPicksStabilizer(t *testing.T) {
	dep := must(t)(sim.Depolarizing(0.05))
	c := &sim.Circuit{NumQubits: 3, NumClbits: 3}
	c.ApplyStd("h", nil, 0).ApplyStd("cx", nil, 0, 1).Append(sim.NoiseOp(dep, 1)).ApplyStd("s", nil, 2)
	c.Measure(0, 0).Measure(1, 1).Measure(2, 2)
	for _, opts := range []sim.Options{
		{Shots: 100},
		{Shots: 100, Noise: &sim.NoiseModel{Rules: []sim.NoiseRule{{Channel: dep}}, ReadoutError: map[int]float64{0: 0.1}}},
	} {
		m, reason, err := c.Method(opts)
		if err != nil || m != sim.MethodStabilizer || reason != "all gates Clifford" {
			t.Fatalf("Method: %s %q %v", m, reason, err)
		}
		opts.Seed = seed(3)
		r := run(t, c, opts)
		if r.Method != sim.MethodStabilizer || r.MethodReason != "all gates Clifford" || r.PerShot {
			t.Fatalf("ran as %s (%q), per shot %v", r.Method, r.MethodReason, r.PerShot)
		}
	}
}

// Past the state vector's limits the stabilizer still runs, to its own;
// the state vector never passes its own.
func TestStabilizerLimits(t *testing.T) {
	ghz := func(n int, clifford bool) *sim.Circuit {
		c := &sim.Circuit{NumQubits: n}
		c.ApplyStd("h", nil, 0)
		for q := 1; q < n; q++ {
			c.ApplyStd("cx", nil, q-1, q)
		}
		if !clifford {
			c.ApplyStd("t", nil, 0)
		}
		return c
	}
	tests := []struct {
		name string
		c    *sim.Circuit
		opts sim.Options
		want error
	}{
		{"auto 1000 Clifford", ghz(1000, true), sim.Options{}, nil},
		{"stabilizer 1000", ghz(1000, true), sim.Options{Method: sim.MethodStabilizer}, nil},
		{"auto 1000 not Clifford", ghz(1000, false), sim.Options{}, sim.ErrTooManyQubits},
		{"statevector 1000 Clifford", ghz(1000, true), sim.Options{Method: sim.MethodStateVector}, sim.ErrTooManyQubits},
		{"densitymatrix 40 Clifford", ghz(40, true), sim.Options{Method: sim.MethodDensityMatrix}, sim.ErrTooManyQubits},
		{"over the stabilizer's maximum", ghz(sim.MaxStabilizerQubits+1, true), sim.Options{}, sim.ErrTooManyQubits},
		{"over MaxQubits", ghz(101, true), sim.Options{Limits: sim.Limits{MaxQubits: 100}}, sim.ErrTooManyQubits},
		{"within MaxQubits", ghz(100, true), sim.Options{Limits: sim.Limits{MaxQubits: 100}}, nil},
		{"over the memory budget", ghz(1000, true), sim.Options{Limits: sim.Limits{MemoryBudget: 100_000}}, sim.ErrMemoryBudget},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Shots, tc.opts.Seed = 10, seed(1)
			r, err := sim.Run(context.Background(), tc.c, tc.opts)
			if tc.want != nil {
				if !errors.Is(err, tc.want) {
					t.Fatalf("error %v, want %v", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.Method != sim.MethodStabilizer {
				t.Fatalf("ran as %s", r.Method)
			}
		})
	}
}

// GHZ on 1000 qubits: all zeros or all ones, about half each.
func TestStabilizerGHZ1000(t *testing.T) {
	const n, shots = 1000, 10_000
	c := &sim.Circuit{NumQubits: n}
	c.ApplyStd("h", nil, 0)
	for q := 1; q < n; q++ {
		c.ApplyStd("cx", nil, q-1, q)
	}
	r := run(t, c, sim.Options{Shots: shots, Seed: seed(5)})
	zeros, ones := strings.Repeat("0", n), strings.Repeat("1", n)
	if len(r.Counts) != 2 || r.Counts[zeros]+r.Counts[ones] != shots {
		t.Fatalf("%d distinct outcomes", len(r.Counts))
	}
	// 4.5 standard deviations of a fair coin's count: at a fixed seed
	// this only says the seed was not picked to pass.
	if d := math.Abs(float64(r.Counts[zeros]) - shots/2); d > 4.5*math.Sqrt(shots/4) {
		t.Fatalf("%d all-zeros of %d", r.Counts[zeros], shots)
	}
}

// Bernstein–Vazirani on 64 qubits finds its secret every shot.
func TestStabilizerBernsteinVazirani(t *testing.T) {
	const n = 64
	secret := uint64(0xd3c1_0b9e_5a27_6f48)
	c := &sim.Circuit{NumQubits: n + 1, NumClbits: n}
	c.ApplyStd("x", nil, n).ApplyStd("h", nil, n)
	for q := range n {
		c.ApplyStd("h", nil, q)
	}
	for q := range n {
		if secret>>q&1 == 1 {
			c.ApplyStd("cx", nil, q, n)
		}
	}
	for q := range n {
		c.ApplyStd("h", nil, q).Measure(q, q)
	}
	want := fmt.Sprintf("%064b", secret)
	r := run(t, c, sim.Options{Shots: 1000, Seed: seed(2)})
	if len(r.Counts) != 1 || r.Counts[want] != 1000 {
		t.Fatalf("counts %v, want %s every shot", r.Counts, want)
	}
}

// A distance-5 repetition code without noise: three rounds of syndromes
// measured mid-circuit into bits of their own, ancillas reset between
// rounds, all zero for either logical state; the data read back.
func TestStabilizerRepetitionCode(t *testing.T) {
	const d, rounds = 5, 3
	for _, logical := range []bool{false, true} {
		c := &sim.Circuit{NumQubits: 2*d - 1, NumClbits: rounds*(d-1) + d}
		if logical {
			for q := range d {
				c.ApplyStd("x", nil, q)
			}
		}
		// Phases on the data change nothing.
		c.ApplyStd("s", nil, 0).ApplyStd("z", nil, 1).ApplyStd("sdg", nil, 2)
		for r := range rounds {
			for a := range d - 1 {
				anc := d + a
				c.ApplyStd("cx", nil, a, anc).ApplyStd("cx", nil, a+1, anc).Measure(anc, r*(d-1)+a).Reset(anc)
			}
		}
		for q := range d {
			c.Measure(q, rounds*(d-1)+q)
		}
		data := strings.Repeat("0", d)
		if logical {
			data = strings.Repeat("1", d)
		}
		want := data + strings.Repeat("0", rounds*(d-1))
		res := run(t, c, sim.Options{Shots: 2000, Seed: seed(4)})
		if res.Counts[want] != 2000 {
			t.Fatalf("logical %v: counts %v, want %s every shot", logical, res.Counts, want)
		}
	}
}

// gateSpec is a Clifford gate for random circuits: a standard gate with
// parameters, maybe as its adjoint, given by its matrix or with a negated
// control added.
type gateSpec struct {
	name   string
	params []float64
	qubits int
}

var cliffordSpecs = []gateSpec{
	{"id", nil, 1}, {"x", nil, 1}, {"y", nil, 1}, {"z", nil, 1}, {"h", nil, 1}, {"s", nil, 1},
	{"sdg", nil, 1}, {"sx", nil, 1}, {"sxdg", nil, 1},
	{"u3", []float64{math.Pi / 2, 0, math.Pi}, 1}, {"rz", []float64{math.Pi / 2}, 1},
	{"rx", []float64{-math.Pi / 2}, 1}, {"ry", []float64{math.Pi / 2}, 1}, {"p", []float64{math.Pi}, 1},
	{"u2", []float64{math.Pi / 2, -math.Pi / 2}, 1},
	{"cx", nil, 2}, {"cy", nil, 2}, {"cz", nil, 2}, {"swap", nil, 2}, {"iswap", nil, 2},
	{"ecr", nil, 2}, {"dcx", nil, 2}, {"cp", []float64{math.Pi}, 2}, {"rzz", []float64{math.Pi / 2}, 2},
	{"rxx", []float64{-math.Pi / 2}, 2}, {"crz", []float64{math.Pi}, 2},
}

// randomClifford returns a random Clifford gate op on n qubits.
func randomClifford(t *testing.T, rng *rand.Rand, n int) sim.Op {
	t.Helper()
	for {
		s := cliffordSpecs[rng.IntN(len(cliffordSpecs))]
		if s.qubits > n {
			continue
		}
		qs := rng.Perm(n)[:s.qubits]
		op := stdOp(t, s.name, s.params, qs...)
		switch rng.IntN(6) {
		case 0:
			op = op.Inverse()
		case 1:
			g := op.Gate()
			g.Name = "m_" + s.name
			op = sim.GateOp(g)
		case 2:
			if s.name == "x" || s.name == "z" || s.name == "y" {
				if n > 1 {
					c := qs[0]
					for c == qs[0] {
						c = rng.IntN(n)
					}
					op = op.WithControls(sim.Control{Qubit: c, Negated: rng.IntN(2) == 0})
				}
			}
		}
		return op
	}
}

// pauliChannels are Pauli channels of one and two qubits for random
// circuits.
func pauliChannels(t *testing.T) (one, two []*sim.Channel) {
	m := must(t)
	k := math.Sqrt(0.2)
	one = []*sim.Channel{
		m(sim.BitFlip(0.1)), m(sim.PhaseFlip(0.2)), m(sim.Depolarizing(0.15)),
		m(sim.PauliChannel(0.05, 0.1, 0.15)), m(sim.PhaseDamping(0.3)),
		m(sim.Kraus([]complex128{complex(math.Sqrt(0.8), 0), 0, 0, complex(math.Sqrt(0.8), 0)}, []complex128{0, complex(0, -k), complex(0, k), 0})),
	}
	two = []*sim.Channel{m(sim.TwoQubitDepolarizing(0.1)), m(sim.TwoQubitDephasing(0.2))}
	return one, two
}

// classicalReference is a circuit whose exact distribution the density
// matrix gives: c's classical bits as qubits after its own, a measurement
// a reset of its bit's qubit and a CX into it (a readout error a bit flip
// after), a condition on one bit a control on its qubit.
type classicalReference struct {
	c *sim.Circuit // the stabilizer's circuit
	d *sim.Circuit // its reference on n + clbits qubits
}

func (r *classicalReference) add(op sim.Op, mirror ...sim.Op) {
	r.c.Append(op)
	r.d.Append(mirror...)
}

// randomCliffordProgram builds a random Clifford circuit on n qubits and m
// classical bits with ops operations: gates, mid-circuit measurements
// with and without readout errors, resets, Pauli channels, and (when
// control) gates conditioned on a measured bit.
func randomCliffordProgram(t *testing.T, rng *rand.Rand, n, m, ops int, control bool) *classicalReference {
	t.Helper()
	one, two := pauliChannels(t)
	r := &classicalReference{c: &sim.Circuit{NumQubits: n, NumClbits: m}, d: &sim.Circuit{NumQubits: n + m}}
	measured := make([]bool, m)
	for range ops {
		switch k := rng.IntN(20); {
		case k < 11:
			op := randomClifford(t, rng, n)
			r.add(op, op)
		case k < 14:
			q, b := rng.IntN(n), rng.IntN(m)
			measured[b] = true
			op := sim.MeasureOp(q, b)
			mirror := []sim.Op{sim.ResetOp(n + b), stdOp(t, "cx", nil, q, n+b)}
			if rng.IntN(3) == 0 {
				e := 0.05 + 0.3*rng.Float64()
				op = op.WithReadoutError(e)
				mirror = append(mirror, sim.NoiseOp(must(t)(sim.BitFlip(e)), n+b))
			}
			r.add(op, mirror...)
		case k < 15:
			q := rng.IntN(n)
			r.add(sim.ResetOp(q), sim.ResetOp(q))
		case k < 17:
			if n >= 2 && rng.IntN(2) == 0 {
				qs := rng.Perm(n)[:2]
				op := sim.NoiseOp(two[rng.IntN(len(two))], qs...)
				r.add(op, op)
			} else {
				op := sim.NoiseOp(one[rng.IntN(len(one))], rng.IntN(n))
				r.add(op, op)
			}
		default:
			b := rng.IntN(m)
			if !control || !measured[b] {
				continue
			}
			v := rng.IntN(2) == 0
			op := randomClifford(t, rng, n)
			r.add(op.WithIf(sim.BitIs(b, v)), op.WithControls(sim.Control{Qubit: n + b, Negated: !v}))
		}
	}
	// End by measuring every bit not measured yet from some qubit, so
	// that each key bit carries an outcome.
	for b := range m {
		if !measured[b] {
			q := rng.IntN(n)
			r.add(sim.MeasureOp(q, b), sim.ResetOp(n+b), stdOp(t, "cx", nil, q, n+b))
		}
	}
	return r
}

// probabilities is the exact distribution of the reference's classical
// bits, keyed as Run keys them.
func (r *classicalReference) probabilities(t *testing.T) map[string]float64 {
	t.Helper()
	n, m := r.c.NumQubits, r.c.NumClbits
	rho, err := sim.SimulateDensityMatrix(context.Background(), r.d, sim.Options{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for i, p := range rho.Probabilities() {
		if p < 1e-12 {
			continue
		}
		key := []byte(strings.Repeat("0", m))
		for b := range m {
			if i>>(n+b)&1 == 1 {
				key[m-1-b] = '1'
			}
		}
		out[string(key)] += p
	}
	for k, p := range out {
		if p < 1e-9 {
			delete(out, k)
		}
	}
	return out
}

// Random Clifford circuits with mid-circuit measurement, reset, Pauli
// noise, readout errors and classical control: the stabilizer's counts
// against the exact distribution of the density matrix (frames without
// classical control, a tableau a shot with it).
func TestStabilizerMatchesDensityMatrix(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 2))
	const shots = 20_000
	for i := range 48 {
		n := 1 + rng.IntN(6)
		m := 1 + rng.IntN(min(4, 10-n))
		control := i%2 == 1
		ops := 5 + rng.IntN(40)
		r := randomCliffordProgram(t, rng, n, m, ops, control)
		t.Run(fmt.Sprintf("%d/n%d/m%d/control=%v", i, n, m, control), func(t *testing.T) {
			probs := r.probabilities(t)
			res := run(t, r.c, sim.Options{Shots: shots, Seed: seed(uint64(i)), Method: sim.MethodStabilizer})
			chiSquared(t, res.Counts, probs, shots)
			again := run(t, r.c, sim.Options{Shots: shots, Seed: seed(uint64(i)), Method: sim.MethodStabilizer})
			if fmt.Sprint(again.Counts) != fmt.Sprint(res.Counts) {
				t.Fatalf("the same seed gave %v, then %v", res.Counts, again.Counts)
			}
		})
	}
}

// Random Clifford circuits of up to 12 qubits measured at their end: the
// stabilizer's counts against the state vector's exact probabilities,
// with measurements into bits in a shuffled order and, for some, none at
// all (Run measures every qubit).
func TestStabilizerMatchesStateVector(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 29))
	const shots = 20_000
	for i := range 24 {
		n := 1 + rng.IntN(12)
		c := &sim.Circuit{NumQubits: n}
		for range 3 * n * (1 + rng.IntN(4)) {
			c.Append(randomClifford(t, rng, n))
		}
		st, err := sim.Simulate(context.Background(), c, sim.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		perm := rng.Perm(n)
		measureAll := i%3 == 0
		if !measureAll {
			c.NumClbits = n
			for q := range n {
				c.Measure(q, perm[q])
			}
		}
		probs := map[string]float64{}
		for idx, p := range st.Probabilities() {
			if p < 1e-12 {
				continue
			}
			key := []byte(strings.Repeat("0", n))
			for q := range n {
				b := q
				if !measureAll {
					b = perm[q]
				}
				if idx>>q&1 == 1 {
					key[n-1-b] = '1'
				}
			}
			probs[string(key)] += p
		}
		t.Run(fmt.Sprintf("%d/n%d", i, n), func(t *testing.T) {
			res := run(t, c, sim.Options{Shots: shots, Seed: seed(uint64(i))})
			if res.Method != sim.MethodStabilizer {
				t.Fatalf("auto ran %s", res.Method)
			}
			chiSquared(t, res.Counts, probs, shots)
		})
	}
}

// A deterministic circuit gives its one outcome every shot, on both of
// the stabilizer's paths, the same as the state vector's.
func TestStabilizerDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	for i := range 20 {
		n := 2 + rng.IntN(10)
		c := &sim.Circuit{NumQubits: n, NumClbits: n}
		// A random Clifford, then its inverse, on a random basis state:
		// the state comes back.
		var gates []sim.Op
		for range 4 * n {
			gates = append(gates, randomClifford(t, rng, n))
		}
		basis := rng.Uint64() & (1<<n - 1)
		for q := range n {
			if basis>>q&1 == 1 {
				c.ApplyStd("x", nil, q)
			}
		}
		c.Append(gates...)
		for j := len(gates) - 1; j >= 0; j-- {
			c.Append(gates[j].Inverse())
		}
		for q := range n {
			c.Measure(q, q)
		}
		if i%2 == 1 { // classical control: a tableau a shot
			c.If(sim.BitIs(0, basis&1 == 1), stdOp(t, "id", nil, 0))
		}
		want := fmt.Sprintf("%0*b", n, basis)
		for _, m := range []sim.Method{sim.MethodStabilizer, sim.MethodStateVector} {
			r := run(t, c, sim.Options{Shots: 300, Seed: seed(uint64(i)), Method: m})
			if r.Counts[want] != 300 {
				t.Fatalf("%d on %s: counts %v, want %s every shot", i, m, r.Counts, want)
			}
		}
	}
}

// Classical control beyond conditions: jumps, set bits and compute, a
// loop that repeats until a coin comes up 1.
func TestStabilizerClassicalControl(t *testing.T) {
	// 0: h q0; 1: measure q0 → b0; 2: reset q0; 3: if b0 == 0 jump 0;
	// 4: setbits b1 = 1; 5: compute b2 = b0 ^ b1 (= 0).
	c := &sim.Circuit{NumQubits: 1, NumClbits: 3}
	c.ApplyStd("h", nil, 0).Measure(0, 0).Reset(0)
	c.Append(sim.JumpOp(0).WithIf(sim.BitIs(0, false)))
	c.Append(sim.SetBitsOp([]int{1}, 1))
	c.Append(sim.ComputeOp([]int{2}, sim.Binary(sim.BitXor, sim.BitsOf([]int{0}, false), sim.BitsOf([]int{1}, false))))
	r := run(t, c, sim.Options{Shots: 500, Seed: seed(8)})
	if r.Method != sim.MethodStabilizer || !r.PerShot || r.Counts["011"] != 500 {
		t.Fatalf("%s per shot %v: counts %v", r.Method, r.PerShot, r.Counts)
	}
	// A loop that never ends meets MaxSteps.
	loop := &sim.Circuit{NumQubits: 1}
	loop.ApplyStd("x", nil, 0).Append(sim.JumpOp(0))
	_, err := sim.Run(context.Background(), loop, sim.Options{Shots: 1, MaxSteps: 1000, Method: sim.MethodStabilizer})
	if !errors.Is(err, sim.ErrStepLimit) {
		t.Fatalf("error %v, want ErrStepLimit", err)
	}
}

// Work is bounded on every path, before it is done.
func TestStabilizerWorkLimit(t *testing.T) {
	ghz := &sim.Circuit{NumQubits: 200}
	ghz.ApplyStd("h", nil, 0)
	for q := 1; q < 200; q++ {
		ghz.ApplyStd("cx", nil, q-1, q)
	}
	perShot := &sim.Circuit{NumQubits: 200, NumClbits: 1}
	perShot.Append(ghz.Ops...)
	perShot.Measure(0, 0).If(sim.BitIs(0, true), stdOp(t, "x", nil, 0))
	for _, c := range []*sim.Circuit{ghz, perShot} {
		full := run(t, c, sim.Options{Shots: 1000, Seed: seed(1)})
		if full.Work <= 0 {
			t.Fatalf("work %d", full.Work)
		}
		for _, frac := range []int64{2, 10, 1000} {
			_, err := sim.Run(context.Background(), c, sim.Options{Shots: 1000, Seed: seed(1), MaxWork: full.Work / frac})
			if !errors.Is(err, sim.ErrWorkLimit) {
				t.Fatalf("MaxWork %d of %d: error %v, want ErrWorkLimit", full.Work/frac, full.Work, err)
			}
		}
		again := run(t, c, sim.Options{Shots: 1000, Seed: seed(1), MaxWork: full.Work})
		if again.Work != full.Work {
			t.Fatalf("work %d, then %d", full.Work, again.Work)
		}
	}
}

// A cancel stops a stabilizer run in each of its phases.
func TestStabilizerCancel(t *testing.T) {
	big := &sim.Circuit{NumQubits: 500}
	for l := range 20 {
		for q := range 500 {
			big.ApplyStd("h", nil, q)
		}
		for q := l % 2; q+1 < 500; q += 2 {
			big.ApplyStd("cx", nil, q, q+1)
		}
	}
	perShot := &sim.Circuit{NumQubits: 500, NumClbits: 1}
	perShot.Append(big.Ops...)
	perShot.Measure(0, 0).If(sim.BitIs(0, true), stdOp(t, "x", nil, 0))
	for _, tc := range []struct {
		c     *sim.Circuit
		phase string
	}{{big, "validate"}, {big, "prepare"}, {big, "reference"}, {big, "shots"}, {big, "count"}, {perShot, "shots"}} {
		t.Run(tc.phase, func(t *testing.T) {
			phases, err := cancelAt(t, tc.phase, func(ctx context.Context) error {
				_, err := sim.Run(ctx, tc.c, sim.Options{Shots: 100_000, Seed: seed(1)})
				return err
			})
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("error %v after phases %v", err, phases)
			}
		})
	}
}

// The keys are as on every other path: ResultBits, bits never measured,
// the last measurement into a bit, MaxResultBytes.
func TestStabilizerKeys(t *testing.T) {
	c := &sim.Circuit{NumQubits: 3, NumClbits: 5}
	c.ApplyStd("x", nil, 0).ApplyStd("h", nil, 1).Measure(1, 2).Measure(0, 2).Measure(0, 0).Measure(2, 4)
	r := run(t, c, sim.Options{Shots: 100, Seed: seed(1)})
	if r.Counts["00101"] != 100 {
		t.Fatalf("counts %v", r.Counts)
	}
	r = run(t, c, sim.Options{Shots: 100, Seed: seed(1), ResultBits: 2})
	if r.Counts["01"] != 100 {
		t.Fatalf("ResultBits 2: counts %v", r.Counts)
	}
	wide := &sim.Circuit{NumQubits: 100}
	for q := range 100 {
		wide.ApplyStd("h", nil, q)
	}
	_, err := sim.Run(context.Background(), wide, sim.Options{Shots: 1000, Seed: seed(1), MaxResultBytes: 100 * 50})
	if !errors.Is(err, sim.ErrResultTooLarge) {
		t.Fatalf("error %v, want ErrResultTooLarge", err)
	}
}

// MemoryNeed bounds what a stabilizer run allocates, on both paths.
func TestStabilizerMemoryNeed(t *testing.T) {
	ghz := &sim.Circuit{NumQubits: 2000}
	ghz.ApplyStd("h", nil, 0)
	for q := 1; q < 2000; q++ {
		ghz.ApplyStd("cx", nil, q-1, q)
	}
	perShot := &sim.Circuit{NumQubits: 2000, NumClbits: 2}
	perShot.Append(ghz.Ops...)
	perShot.Measure(0, 0).If(sim.BitIs(0, true), stdOp(t, "x", nil, 0)).Measure(0, 1)
	for _, c := range []*sim.Circuit{ghz, perShot} {
		opts := sim.Options{Shots: 3000, Seed: seed(1)}
		need := sim.MemoryNeed(c, opts)
		got := allocated(t, func() { run(t, c, opts) })
		tableau := int64(2000 * 2000 / 2)
		if got > need || need > 4*tableau+got {
			t.Fatalf("allocated %d, MemoryNeed %d", got, need)
		}
	}
}
