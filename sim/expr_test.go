package sim_test

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/qjobs/quantum/sim"
)

func TestExprEval(t *testing.T) {
	// clbits 0..3 hold 0b1011 (11; -5 as a signed 4-bit number).
	clbits := []bool{true, true, false, true}
	reg := sim.BitsOf([]int{0, 1, 2, 3}, false)
	sreg := sim.BitsOf([]int{0, 1, 2, 3}, true)
	c := sim.Const
	tests := []struct {
		name string
		e    *sim.Expr
		want int64
	}{
		{"const", c(-7), -7},
		{"unsigned bits", reg, 11},
		{"signed bits", sreg, -5},
		{"one signed bit", sim.BitsOf([]int{0}, true), -1},
		{"add", sim.Binary(sim.Add, reg, c(4)), 15},
		{"sub", sim.Binary(sim.Sub, c(4), reg), -7},
		{"mul", sim.Binary(sim.Mul, sreg, c(3)), -15},
		{"div truncates", sim.Binary(sim.Div, sreg, c(2)), -2},
		{"mod has the dividend's sign", sim.Binary(sim.Mod, sreg, c(3)), -2},
		{"and", sim.Binary(sim.BitAnd, reg, c(6)), 2},
		{"or", sim.Binary(sim.BitOr, reg, c(4)), 15},
		{"xor", sim.Binary(sim.BitXor, reg, c(15)), 4},
		{"shl", sim.Binary(sim.Shl, reg, c(2)), 44},
		{"shl past the width", sim.Binary(sim.Shl, reg, c(64)), 0},
		{"arithmetic shr", sim.Binary(sim.Shr, sreg, c(1)), -3},
		{"shr past the width", sim.Binary(sim.Shr, sreg, c(100)), -1},
		{"neg", sim.Unary(sim.Neg, reg), -11},
		{"bitnot", sim.Unary(sim.BitNot, reg), -12},
		{"logic not", sim.Unary(sim.LogicNot, reg), 0},
		{"and and or", sim.Binary(sim.LogicOr, c(0), sim.Binary(sim.LogicAnd, reg, c(2))), 1},
		{"signed compare", sim.Compare(sreg, sim.Lt, c(0)), 1},
		{"unsigned compare", sim.Compare(reg, sim.Lt, c(0)), 0},
		{"compare registers", sim.Compare(reg, sim.Ge, sim.BitsOf([]int{0, 1}, false)), 1},
		{"truth", sim.Binary(sim.Add, sim.Truth(sim.BitIs(2, false)), sim.Truth(sim.BitIs(2, true))), 1},
		{"wraps", sim.Binary(sim.Add, c(math.MaxInt64), c(1)), math.MinInt64},
		{"short-circuit skips a division by zero", sim.Binary(sim.LogicAnd, c(0), sim.Binary(sim.Div, c(1), c(0))), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.e.Eval(clbits)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("got %d, want %d", got, tt.want)
			}
		})
	}
	for _, e := range []*sim.Expr{
		sim.Binary(sim.Div, reg, c(0)),
		sim.Binary(sim.Mod, reg, sim.Binary(sim.Sub, c(1), c(1))),
		sim.Binary(sim.Shl, reg, c(-1)),
	} {
		if _, err := e.Eval(clbits); !errors.Is(err, sim.ErrClassical) {
			t.Errorf("%v %v: error %v, want ErrClassical", e.Op, e.Args[1], err)
		}
	}
}

// TestComputeCounts counts the ones of three measured qubits with
// OpCompute, the way a program's int counter does, and checks the
// counts against the exact distribution.
func TestComputeCounts(t *testing.T) {
	c := &sim.Circuit{NumQubits: 3, NumClbits: 5}
	h, _ := sim.LookupGate("h")
	for q := range 3 {
		g, err := h.Gate(nil, q)
		if err != nil {
			t.Fatal(err)
		}
		c.Apply(g).Measure(q, 0)
		// bits 1..4 hold a 4-bit counter; add bit 0 to it.
		counter := []int{1, 2, 3, 4}
		c.Append(sim.ComputeOp(counter, sim.Binary(sim.Add, sim.BitsOf(counter, false), sim.BitsOf([]int{0}, false))))
	}
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	const shots = 8000
	res := run(t, c, sim.Options{Shots: shots, Seed: seed(3)})
	byCount := map[string]int{}
	for k, n := range res.Counts {
		byCount[k[:4]] += n // bits 4..1, the counter
	}
	chiSquared(t, byCount, map[string]float64{"0000": 1.0 / 8, "0001": 3.0 / 8, "0010": 3.0 / 8, "0011": 1.0 / 8}, shots)
}

func TestComputeErrorStopsTheRun(t *testing.T) {
	c := &sim.Circuit{NumQubits: 1, NumClbits: 2}
	c.Measure(0, 0).Append(sim.ComputeOp([]int{1}, sim.Binary(sim.Div, sim.Const(1), sim.BitsOf([]int{0}, false))))
	_, err := sim.Run(context.Background(), c, sim.Options{Shots: 1, Seed: seed(1)})
	if !errors.Is(err, sim.ErrClassical) {
		t.Fatalf("error %v, want ErrClassical", err)
	}
}

func TestValidateExpr(t *testing.T) {
	deep := sim.Const(1)
	for range 1100 {
		deep = sim.Unary(sim.Neg, deep)
	}
	for name, op := range map[string]sim.Op{
		"no bits":          sim.ComputeOp(nil, sim.Const(1)),
		"no expression":    sim.ComputeOp([]int{0}, nil),
		"bit out of range": sim.ComputeOp([]int{0}, sim.BitsOf([]int{9}, false)),
		"unary with two":   sim.ComputeOp([]int{0}, &sim.Expr{Kind: sim.ExprUnary, Op: sim.Neg, Args: []*sim.Expr{sim.Const(1), sim.Const(2)}}),
		"binary op unary":  sim.ComputeOp([]int{0}, sim.Binary(sim.Neg, sim.Const(1), sim.Const(2))),
		"too deep":         sim.ComputeOp([]int{0}, deep),
	} {
		c := &sim.Circuit{NumQubits: 1, NumClbits: 2, Ops: []sim.Op{op}}
		if err := c.Validate(); !errors.Is(err, sim.ErrInvalidCircuit) {
			t.Errorf("%s: error %v, want ErrInvalidCircuit", name, err)
		}
	}
}

// sharedEquality is what a front end builds for ((b0 == b1) == b1) == …
// nested levels deep when it shares each side between the two halves of
// an equality: levels that each use the one below twice, so evaluating it
// visits about 2^levels nodes.
func sharedEquality(levels int) *sim.Condition {
	c := sim.BitIs(0, true)
	b := sim.BitIs(1, true)
	for range levels {
		c = sim.Or(sim.And(c, b), sim.And(sim.Not(c), sim.Not(b)))
	}
	return c
}

// A condition whose shared parts make it exponential to evaluate is
// refused by Validate, which stops counting at the bound (a 40-level one
// would take longer than the universe to walk); a smaller one is accepted
// and each evaluation costs steps in proportion to its size.
func TestSharedConditionsAreBounded(t *testing.T) {
	op := func(cond *sim.Condition) *sim.Circuit {
		c := &sim.Circuit{NumQubits: 1, NumClbits: 2}
		c.Measure(0, 0).If(cond, sim.GateOp(stdGate("x", nil, 0)))
		return c
	}
	for _, levels := range []int{14, 40, 1000} {
		err := op(sharedEquality(levels)).Validate()
		if !errors.Is(err, sim.ErrInvalidCircuit) {
			t.Fatalf("%d levels: Validate = %v, want ErrInvalidCircuit", levels, err)
		}
	}
	c := op(sharedEquality(8)) // 2,041 nodes: 32 steps
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := sim.Run(context.Background(), c, sim.Options{Shots: 10, MaxSteps: 30}); !errors.Is(err, sim.ErrStepLimit) {
		t.Fatalf("a condition of thousands of nodes within 30 steps a shot: %v, want ErrStepLimit", err)
	}
	if _, err := sim.Run(context.Background(), c, sim.Options{Shots: 10, MaxSteps: 100}); err != nil {
		t.Fatal(err)
	}
}
