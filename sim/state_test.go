package sim_test

import (
	"context"
	"errors"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"testing"

	"github.com/qjobs/quantum/sim"
)

func gate(t *testing.T, name string, params []float64, qubits ...int) sim.Gate {
	t.Helper()
	g, ok := sim.LookupGate(name)
	if !ok {
		t.Fatalf("no gate %q", name)
	}
	out, err := g.Gate(params, qubits...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func simulate(t *testing.T, c *sim.Circuit) *sim.State {
	t.Helper()
	s, err := sim.Simulate(context.Background(), c, sim.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func assertAmplitudes(t *testing.T, got, want []complex128, eps float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d amplitudes, want %d", len(got), len(want))
	}
	for i := range got {
		if cmplx.Abs(got[i]-want[i]) > eps {
			t.Fatalf("amplitude %d = %v, want %v", i, got[i], want[i])
		}
	}
}

func TestBell(t *testing.T) {
	c := &sim.Circuit{NumQubits: 2}
	c.Apply(gate(t, "h", nil, 0)).Apply(gate(t, "cx", nil, 0, 1))
	r := complex(1/math.Sqrt2, 0)
	assertAmplitudes(t, simulate(t, c).Amplitudes(), []complex128{r, 0, 0, r}, tol)
}

func TestGHZ(t *testing.T) {
	for n := 1; n <= 12; n++ {
		c := &sim.Circuit{NumQubits: n}
		c.Apply(gate(t, "h", nil, 0))
		for q := 1; q < n; q++ {
			c.Apply(gate(t, "cx", nil, q-1, q))
		}
		want := make([]complex128, 1<<n)
		want[0] = complex(1/math.Sqrt2, 0)
		want[len(want)-1] = want[0]
		assertAmplitudes(t, simulate(t, c).Amplitudes(), want, tol)
	}
}

// qft appends the quantum Fourier transform on qubits 0..n−1, with qubit 0
// the least significant bit of the input x and of the output y:
// |x⟩ → 2^(−n/2) Σ_y e^{2πi·xy/2^n} |y⟩.
func qft(t *testing.T, c *sim.Circuit, n int) {
	for j := n - 1; j >= 0; j-- {
		c.Apply(gate(t, "h", nil, j))
		for k := j - 1; k >= 0; k-- {
			c.Apply(gate(t, "cp", []float64{math.Pi / float64(int(1)<<(j-k))}, k, j))
		}
	}
	for q := range n / 2 {
		c.Apply(gate(t, "swap", nil, q, n-1-q))
	}
}

func TestQFTOfBasisStates(t *testing.T) {
	for _, n := range []int{1, 2, 3, 5, 8} {
		N := 1 << n
		for _, x := range []int{0, 1, N / 2, N - 1, 5 % N} {
			c := &sim.Circuit{NumQubits: n}
			for q := range n {
				if x>>q&1 == 1 {
					c.Apply(gate(t, "x", nil, q))
				}
			}
			qft(t, c, n)
			want := make([]complex128, N)
			for y := range N {
				want[y] = cmplx.Exp(complex(0, 2*math.Pi*float64(x*y)/float64(N))) / complex(math.Sqrt(float64(N)), 0)
			}
			assertAmplitudes(t, simulate(t, c).Amplitudes(), want, 1e-12)
		}
	}
}

// applyDense is an independent reference: it applies g to amp by the
// definition, amplitude by amplitude, with none of the kernels' tricks.
func applyDense(amp []complex128, g sim.Gate) []complex128 {
	out := make([]complex128, len(amp))
	d := g.Dim()
	for i := range amp {
		on := true
		for _, c := range g.Controls {
			on = on && (i>>c.Qubit&1 == 1) != c.Negated
		}
		if !on {
			out[i] = amp[i]
			continue
		}
		row := 0
		base := i
		for j, q := range g.Targets {
			row |= (i >> q & 1) << j
			base &^= 1 << q
		}
		var acc complex128
		for col := range d {
			src := base
			for j, q := range g.Targets {
				src |= (col >> j & 1) << q
			}
			acc += g.Matrix[row*d+col] * amp[src]
		}
		out[i] = acc
	}
	return out
}

// randomGate draws a gate of every kernel kind: phases, 1-qubit diagonal,
// anti-diagonal and general, k-qubit diagonal, permutation and general,
// with random controls, some negated.
func randomGate(rng *rand.Rand, n int) sim.Gate {
	qs := rng.Perm(n)
	var targets []int
	var m []complex128
	switch kind := rng.IntN(8); kind {
	case 0:
		m = sim.GlobalPhase(rng.Float64() * 6)
	case 1:
		targets, m = qs[:1], sim.RZ(rng.Float64()*6)
	case 2:
		targets, m = qs[:1], []complex128{0, cmplx.Exp(complex(0, rng.Float64())), cmplx.Exp(complex(0, rng.Float64())), 0}
	case 3:
		targets, m = qs[:1], sim.U3(rng.Float64()*6, rng.Float64()*6, rng.Float64()*6)
	case 4:
		k := 2 + rng.IntN(2)
		targets = qs[:k]
		m = make([]complex128, 1<<(2*k))
		for r := range 1 << k {
			m[r*(1<<k)+r] = cmplx.Exp(complex(0, rng.Float64()*6))
		}
	case 5:
		k := 2 + rng.IntN(2)
		targets = qs[:k]
		d := 1 << k
		m = make([]complex128, d*d)
		for r, c := range rng.Perm(d) {
			m[r*d+c] = cmplx.Exp(complex(0, rng.Float64()*6))
		}
	default:
		k := 2 + rng.IntN(2)
		targets, m = qs[:k], randomUnitary(rng, 1<<k)
	}
	g := sim.Gate{Name: "random", Matrix: m, Targets: targets}
	rest := qs[len(targets):]
	for _, q := range rest[:rng.IntN(min(len(rest), 3)+1)] {
		g.Controls = append(g.Controls, sim.Control{Qubit: q, Negated: rng.IntN(3) == 0})
	}
	return g
}

func TestKernelsMatchDenseReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{4, 6, 15} { // 15 qubits crosses the parallel threshold
		s, err := sim.NewState(n, sim.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		ref := make([]complex128, 1<<n)
		ref[0] = 1
		steps := 300
		if n == 15 {
			steps = 40
		}
		for i := range steps {
			g := randomGate(rng, n)
			if err := s.ApplyGate(g); err != nil {
				t.Fatal(err)
			}
			ref = applyDense(ref, g)
			for j := range ref {
				if cmplx.Abs(s.Amplitude(j)-ref[j]) > 1e-10 {
					t.Fatalf("n=%d step %d (%d targets, %d controls): amplitude %d = %v, want %v", n, i, len(g.Targets), len(g.Controls), j, s.Amplitude(j), ref[j])
				}
			}
		}
	}
}

func TestNormPreservedAfterManyGates(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	s, err := sim.NewState(10, sim.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	for range 1000 {
		if err := s.ApplyGate(randomGate(rng, 10)); err != nil {
			t.Fatal(err)
		}
	}
	if d := math.Abs(s.Norm() - 1); d > 1e-12 {
		t.Fatalf("norm drifted by %g after 1000 gates", d)
	}
}

func TestParallelMatchesSerial(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 9))
	const n = 17
	a, _ := sim.NewState(n, sim.Limits{})
	b, _ := sim.NewState(n, sim.Limits{})
	a.SetWorkers(1)
	b.SetWorkers(4)
	for range 60 {
		g := randomGate(rng, n)
		if err := a.ApplyGate(g); err != nil {
			t.Fatal(err)
		}
		if err := b.ApplyGate(g); err != nil {
			t.Fatal(err)
		}
	}
	assertAmplitudes(t, b.Amplitudes(), a.Amplitudes(), 1e-13)
}

func TestStateErrors(t *testing.T) {
	tests := []struct {
		name string
		n    int
		lim  sim.Limits
		want error
	}{
		{"40 qubits in 4 GiB", 40, sim.Limits{MaxQubits: 64, MemoryBudget: 4 << 30}, sim.ErrMemoryBudget},
		{"over the qubit limit", 11, sim.Limits{MaxQubits: 10}, sim.ErrTooManyQubits},
		{"default limit", 31, sim.Limits{}, sim.ErrTooManyQubits},
		{"absurd", 1000, sim.Limits{MaxQubits: 2000, MemoryBudget: math.MaxInt64}, sim.ErrTooManyQubits},
		{"negative", -1, sim.Limits{}, sim.ErrInvalidCircuit},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := sim.NewState(tc.n, tc.lim); !errors.Is(err, tc.want) {
				t.Fatalf("NewState(%d) = %v, want %v", tc.n, err, tc.want)
			}
			c := &sim.Circuit{NumQubits: tc.n}
			// On the state vector: auto would take the stabilizer (the
			// circuit has no gates, so it is Clifford) or the sparse method
			// where the state vector does not fit.
			if _, err := sim.Run(context.Background(), c, sim.Options{Shots: 1, Limits: tc.lim, Method: sim.MethodStateVector}); !errors.Is(err, tc.want) {
				t.Fatalf("Run on %d qubits = %v, want %v", tc.n, err, tc.want)
			}
		})
	}
}

func TestInvalidCircuits(t *testing.T) {
	h := sim.Gate{Name: "h", Matrix: []complex128{1, 1, 1, -1}, Targets: []int{0}} // not normalised
	tests := []struct {
		name string
		op   sim.Op
	}{
		{"qubit out of range", sim.GateOp(sim.Gate{Name: "x", Matrix: []complex128{0, 1, 1, 0}, Targets: []int{3}})},
		{"negative qubit", sim.ResetOp(-1)},
		{"not unitary", sim.GateOp(h)},
		{"duplicate qubits", sim.GateOp(sim.Gate{Name: "cx", Matrix: []complex128{0, 1, 1, 0}, Targets: []int{1}, Controls: []sim.Control{{Qubit: 1}}})},
		{"wrong matrix size", sim.GateOp(sim.Gate{Name: "x", Matrix: []complex128{0, 1, 1, 0}, Targets: []int{0, 1}})},
		{"classical bit out of range", sim.MeasureOp(0, 2)},
		{"jump out of range", sim.JumpOp(5)},
		{"condition bit out of range", sim.ResetOp(0).WithIf(sim.BitIs(7, true))},
		{"set-bits value too wide", sim.SetBitsOp([]int{0}, 2)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := &sim.Circuit{NumQubits: 2, NumClbits: 2, Ops: []sim.Op{tc.op}}
			if err := c.Validate(); !errors.Is(err, sim.ErrInvalidCircuit) {
				t.Fatalf("Validate = %v, want ErrInvalidCircuit", err)
			}
			if _, err := sim.Run(context.Background(), c, sim.Options{Shots: 1}); !errors.Is(err, sim.ErrInvalidCircuit) {
				t.Fatalf("Run = %v, want ErrInvalidCircuit", err)
			}
			s, _ := sim.NewState(2, sim.Limits{})
			if tc.op.Kind == sim.OpGate {
				if err := s.ApplyGate(tc.op.Gate()); !errors.Is(err, sim.ErrInvalidCircuit) {
					t.Fatalf("ApplyGate = %v, want ErrInvalidCircuit", err)
				}
			}
		})
	}
}
