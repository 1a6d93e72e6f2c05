package sim_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"

	"github.com/qjobs/quantum/sim"
)

// A million gates are a million Ops: the compact form's point is its size.
func TestOpSize(t *testing.T) {
	if n := unsafe.Sizeof(sim.Op{}); n != 56 {
		t.Fatalf("sim.Op is %d bytes, want 56", n)
	}
	u3, _ := sim.LookupGate("u3")
	op, err := u3.Op([]float64{0.1, 0.2, 0.3}, 4)
	if err != nil {
		t.Fatal(err)
	}
	ccx, _ := sim.LookupGate("ccx")
	op3, _ := ccx.Op(nil, 0, 1, 2)
	for _, o := range []sim.Op{op, op3, sim.MeasureOp(3, 9), sim.ResetOp(2), sim.JumpOp(17)} {
		if b := o.Bytes(); b != 56 {
			t.Errorf("%s holds %d bytes, want 56 (nothing beyond the Op)", o.Kind, b)
		}
	}
	custom := sim.GateOp(sim.Gate{Name: "m", Matrix: sim.RY(0.3), Targets: []int{0}})
	if b := custom.Bytes(); b < 56+4*16 {
		t.Errorf("a gate given by its matrix holds %d bytes, less than the Op and its matrix", b)
	}
}

// PutOp writes what Op and WithPos build, whatever the Op held before,
// for every standard gate it takes, at every position; it refuses the
// others, and leaves the Op as it was.
func TestPutOpAsOp(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 3))
	cx, _ := sim.LookupGate("cx")
	before, _ := cx.Op(nil, 5, 6)
	before = before.WithControls(sim.Control{Qubit: 7, Negated: true}, sim.Control{Qubit: 8}).WithIf(sim.BitIs(2, true)).WithPos(9, 9)
	for _, name := range sim.StdGateNames() {
		std, _ := sim.LookupGate(name)
		for range 20 {
			var p [3]float64
			var q [3]int
			for i := range 3 {
				p[i] = rng.Float64()*20 - 10
			}
			for i, x := range rng.Perm(40)[:3] {
				q[i] = x
			}
			if rng.IntN(4) == 0 {
				q[rng.IntN(3)] = []int{math.MaxInt64, math.MinInt32 - 1, -1}[rng.IntN(3)]
			}
			line, col := rng.IntN(1<<20), rng.IntN(1<<17)-10
			if rng.IntN(8) == 0 {
				line = []int{math.MaxInt64, -1}[rng.IntN(2)]
			}
			got := before
			ok := std.PutOp(&got, &p, &q, line, col)
			if std.NumParams > 3 || std.NumQubits > 3 {
				if ok || got != before {
					t.Fatalf("%s: PutOp took a gate of %d parameters on %d qubits", name, std.NumParams, std.NumQubits)
				}
				continue
			}
			want, err := std.Op(p[:std.NumParams], q[:std.NumQubits]...)
			if err != nil {
				t.Fatal(err)
			}
			if want = want.WithPos(line, col); !ok || got != want {
				t.Fatalf("%s %v %v at %d:%d: PutOp gives %+v, %v; Op %+v", name, p, q, line, col, got, ok, want)
			}
		}
	}
}

// prepared is a 5-qubit circuit whose state has no zero amplitude and no
// symmetry a wrong qubit order could hide behind.
func prepared(t *testing.T) *sim.Circuit {
	t.Helper()
	c := &sim.Circuit{NumQubits: 5}
	for q := range 5 {
		c.Apply(sim.Gate{Name: "ry", Matrix: sim.RY(0.3 + 0.41*float64(q)), Targets: []int{q}})
		c.Apply(sim.Gate{Name: "rz", Matrix: sim.RZ(0.9 - 0.27*float64(q)), Targets: []int{q}})
	}
	c.Apply(sim.Gate{Name: "cx", Matrix: []complex128{0, 1, 1, 0}, Targets: []int{3}, Controls: []sim.Control{{Qubit: 1}}})
	return c
}

func finalState(t *testing.T, c *sim.Circuit, fusion int) []complex128 {
	t.Helper()
	st, err := sim.SimulateWith(context.Background(), c, sim.Options{FusionWidth: fusion})
	if err != nil {
		t.Fatal(err)
	}
	return st.Amplitudes()
}

// TestStdOpsApplyTheirMatrices checks every standard gate held by its
// parameters (StdGate.Op) against the same gate given by its matrix
// (StdGate.Gate), alone, as its inverse, with controls added (inline and
// past what the Op holds, negated too), fused and not.
func TestStdOpsApplyTheirMatrices(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for _, name := range sim.StdGateNames() {
		std, _ := sim.LookupGate(name)
		params := make([]float64, std.NumParams)
		for i := range params {
			params[i] = rng.Float64()*8 - 4
		}
		qubits := rng.Perm(5)[:std.NumQubits]
		free := slices.DeleteFunc(rng.Perm(5), func(q int) bool { return slices.Contains(qubits, q) })
		op, err := std.Op(params, qubits...)
		if err != nil {
			t.Fatal(err)
		}
		g, err := std.Gate(params, qubits...)
		if err != nil {
			t.Fatal(err)
		}
		inv := g
		inv.Matrix = sim.Dagger(g.Matrix)
		cases := []struct {
			what string
			op   sim.Op
			gate sim.Gate
		}{
			{"alone", op, g},
			{"inverse", op.Inverse(), inv},
			{"inverse twice", op.Inverse().Inverse(), g},
		}
		if len(free) > 0 {
			ctl := []sim.Control{{Qubit: free[0], Negated: true}}
			wg := g
			wg.Controls = append(slices.Clone(g.Controls), ctl...)
			cases = append(cases, struct {
				what string
				op   sim.Op
				gate sim.Gate
			}{"with a negated control", op.WithControls(ctl...), wg})
		}
		if len(free) > 1 {
			ctl := []sim.Control{{Qubit: free[0]}, {Qubit: free[1], Negated: true}}
			wg := inv
			wg.Controls = append(slices.Clone(g.Controls), ctl...)
			cases = append(cases, struct {
				what string
				op   sim.Op
				gate sim.Gate
			}{"inverse with two controls", op.WithControls(ctl...).Inverse(), wg})
		}
		for _, tc := range cases {
			// The reference applies the gate to the state directly, never
			// holding it in an Op.
			ref, err := sim.Simulate(context.Background(), prepared(t), sim.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			if err := ref.ApplyGate(tc.gate); err != nil {
				t.Fatal(err)
			}
			for _, fusion := range []int{-1, 0, 3} {
				a := prepared(t)
				a.Append(tc.op)
				assertAmplitudes(t, finalState(t, a, fusion), ref.Amplitudes(), 1e-12)
				if t.Failed() {
					t.Fatalf("%s %s (fusion %d): the Op and its matrix differ", name, tc.what, fusion)
				}
			}
			if got := tc.op.Gate(); len(got.Targets) != len(tc.gate.Targets) || len(got.Controls) != len(tc.gate.Controls) {
				t.Errorf("%s %s: Gate() has %d targets and %d controls, want %d and %d", name, tc.what,
					len(got.Targets), len(got.Controls), len(tc.gate.Targets), len(tc.gate.Controls))
			}
		}
	}
}

// TestOpGateIsACopy checks that Gate's matrix is the caller's: changing it
// changes neither the operation nor the standard gate's shared matrix.
func TestOpGateIsACopy(t *testing.T) {
	h, _ := sim.LookupGate("h")
	op, _ := h.Op(nil, 0)
	g := op.Gate()
	g.Matrix[0] = 42
	g.Targets[0] = 7
	again, _ := h.Op(nil, 1)
	if m := again.Gate().Matrix[0]; m != complex(1/math.Sqrt2, 0) {
		t.Fatalf("h's matrix became %v", m)
	}
	if q := op.TargetAt(0); q != 0 {
		t.Fatalf("target became %d", q)
	}
}

// TestOpAccessors checks what each constructor stores, and that the With
// methods leave the operation they copy as it was.
func TestOpAccessors(t *testing.T) {
	m := sim.MeasureOp(3, 70000)
	if m.Kind != sim.OpMeasure || m.Qubit() != 3 || m.Bit() != 70000 {
		t.Fatalf("measure: %s %d → %d", m.Kind, m.Qubit(), m.Bit())
	}
	m.SetBit(5)
	if m.Bit() != 5 {
		t.Fatalf("SetBit: bit %d", m.Bit())
	}
	j := sim.JumpOp(4)
	j.SetJumpTarget(9)
	if j.JumpTarget() != 9 {
		t.Fatalf("jump target %d", j.JumpTarget())
	}
	cond := sim.BitIs(0, true)
	c := j.WithIf(cond)
	if j.Cond() != nil || c.Cond() != cond {
		t.Fatal("WithIf changed the operation it copied, or lost the condition")
	}
	if d := c.WithIf(nil); d.Cond() != nil || c.Cond() != cond {
		t.Fatal("WithIf(nil) did not drop the condition, or changed the original")
	}
	s := sim.SetBitsOp([]int{1, 2}, 3)
	if !slices.Equal(s.Bits(), []int{1, 2}) || s.Value() != 3 {
		t.Fatalf("setbits: %v = %d", s.Bits(), s.Value())
	}
	b := sim.BarrierOp(0, 2)
	if !slices.Equal(b.Qubits(), []int{0, 2}) {
		t.Fatalf("barrier on %v", b.Qubits())
	}
	p := sim.ResetOp(1).WithPos(12, 70000)
	if line, col := p.Pos(); line != 12 || col != 65535 {
		t.Fatalf("position %d:%d, want 12:65535", line, col)
	}
	cx, _ := sim.LookupGate("cx")
	op, _ := cx.Op(nil, 4, 2)
	if op.NumTargets() != 1 || op.TargetAt(0) != 2 || op.NumControls() != 1 || op.ControlAt(0) != (sim.Control{Qubit: 4}) {
		t.Fatalf("cx 4, 2: targets %d (%d), controls %d (%v)", op.NumTargets(), op.TargetAt(0), op.NumControls(), op.ControlAt(0))
	}
	wide := op.WithControls(sim.Control{Qubit: 0}, sim.Control{Qubit: 1, Negated: true}, sim.Control{Qubit: 3})
	if wide.NumControls() != 4 || wide.ControlAt(2) != (sim.Control{Qubit: 1, Negated: true}) || op.NumControls() != 1 {
		t.Fatalf("WithControls: %d controls, the third %v; the original has %d", wide.NumControls(), wide.ControlAt(2), op.NumControls())
	}
	if g, params, adj, ok := op.Inverse().Std(); !ok || g.Name != "cx" || len(params) != 0 || !adj {
		t.Fatalf("Std of inverse cx: %v %v %v %v", g.Name, params, adj, ok)
	}
	if name := op.Inverse().GateName(); name != "inv @ cx" {
		t.Fatalf("GateName %q", name)
	}
}

func TestValidateStdOps(t *testing.T) {
	rz, _ := sim.LookupGate("rz")
	nan, _ := rz.Op([]float64{math.NaN()}, 0)
	cx, _ := sim.LookupGate("cx")
	twice, _ := cx.Op(nil, 1, 1)
	out, _ := cx.Op(nil, 0, 9)
	wideTwice := twice.WithControls(sim.Control{Qubit: 0}, sim.Control{Qubit: 2}, sim.Control{Qubit: 3})
	for name, op := range map[string]sim.Op{
		"a NaN parameter":        nan,
		"a qubit twice":          twice,
		"a qubit twice, wide":    wideTwice,
		"a qubit out of range":   out,
		"a huge qubit":           sim.ResetOp(math.MaxInt64),
		"a negative jump target": sim.JumpOp(math.MinInt64),
	} {
		c := &sim.Circuit{NumQubits: 4, NumClbits: 1, Ops: []sim.Op{op}}
		if err := c.Validate(); !errors.Is(err, sim.ErrInvalidCircuit) {
			t.Errorf("%s: error %v, want ErrInvalidCircuit", name, err)
		}
	}
}
