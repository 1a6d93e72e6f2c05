package sim

import (
	"context"
	"fmt"
)

// Validate checks the circuit against the rules of the IR: every qubit and
// classical bit index in range, at most MaxClbits classical bits, every gate
// matrix square, of the right size and unitary, no qubit twice in one gate,
// jump targets within the circuit, conditions well formed. It allocates
// nothing in proportion to 2^n.
func (c *Circuit) Validate() error { return c.validate(context.Background()) }

// validate is Validate checking ctx as it goes: a circuit of millions of
// gates takes seconds to check.
func (c *Circuit) validate(ctx context.Context) error {
	if c.NumQubits < 0 || c.NumClbits < 0 {
		return fmt.Errorf("%w: negative register size", ErrInvalidCircuit)
	}
	if c.NumClbits > MaxClbits {
		return fmt.Errorf("%w: %d classical bits, at most %d", ErrInvalidCircuit, c.NumClbits, MaxClbits)
	}
	enter("validate")
	tick := ticker{ctx: ctx}
	for i := range c.Ops {
		nodes := 0
		if err := c.validateOp(&c.Ops[i], &nodes); err != nil {
			return fmt.Errorf("%w: operation %d (%s): %s", ErrInvalidCircuit, i, c.Ops[i].Kind, err)
		}
		if err := tick.step(1 + len(c.Ops[i].Gate.Matrix) + nodes); err != nil {
			return err
		}
	}
	return nil
}

func (c *Circuit) validateOp(op *Op, nodes *int) error {
	if op.If != nil {
		if err := c.validateCond(op.If, 0, nodes); err != nil {
			return err
		}
	}
	switch op.Kind {
	case OpGate:
		return c.validateGate(&op.Gate)
	case OpMeasure:
		if err := c.qubit(op.Qubit); err != nil {
			return err
		}
		return c.clbit(op.Bit)
	case OpReset:
		return c.qubit(op.Qubit)
	case OpBarrier:
		for _, q := range op.Qubits {
			if err := c.qubit(q); err != nil {
				return err
			}
		}
	case OpSetBits:
		if len(op.Bits) > 64 {
			return fmt.Errorf("sets %d bits, at most 64", len(op.Bits))
		}
		for _, b := range op.Bits {
			if err := c.clbit(b); err != nil {
				return err
			}
		}
		if len(op.Bits) < 64 && op.Value>>len(op.Bits) != 0 {
			return fmt.Errorf("value %d does not fit %d bits", op.Value, len(op.Bits))
		}
	case OpCompute:
		if len(op.Bits) == 0 || len(op.Bits) > 64 {
			return fmt.Errorf("computes into %d bits, want 1 to 64", len(op.Bits))
		}
		for _, b := range op.Bits {
			if err := c.clbit(b); err != nil {
				return err
			}
		}
		return c.validateExpr(op.Expr, 0, nodes)
	case OpJump:
		if op.Target < 0 || op.Target > len(c.Ops) {
			return fmt.Errorf("jump target %d outside [0, %d]", op.Target, len(c.Ops))
		}
	default:
		return fmt.Errorf("unknown kind %d", op.Kind)
	}
	return nil
}

func (c *Circuit) validateGate(g *Gate) error {
	seen := make(map[int]bool, len(g.Targets)+len(g.Controls))
	use := func(q int) error {
		if err := c.qubit(q); err != nil {
			return err
		}
		if seen[q] {
			return fmt.Errorf("gate %q uses qubit %d twice", g.Name, q)
		}
		seen[q] = true
		return nil
	}
	for _, q := range g.Targets {
		if err := use(q); err != nil {
			return err
		}
	}
	for _, ctl := range g.Controls {
		if err := use(ctl.Qubit); err != nil {
			return err
		}
	}
	if len(g.Targets) > 16 {
		return fmt.Errorf("gate %q has %d targets, at most 16", g.Name, len(g.Targets))
	}
	if want := g.Dim() * g.Dim(); len(g.Matrix) != want {
		return fmt.Errorf("gate %q on %d targets needs a %d×%d matrix, got %d entries", g.Name, len(g.Targets), g.Dim(), g.Dim(), len(g.Matrix))
	}
	if e := UnitarityError(g.Matrix); e > UnitaryTolerance {
		return fmt.Errorf("gate %q: matrix is not unitary (‖UU†−I‖ = %.3g)", g.Name, e)
	}
	return nil
}

func (c *Circuit) validateCond(cond *Condition, depth int, nodes *int) error {
	if depth > 1000 {
		return fmt.Errorf("condition nested too deeply")
	}
	if err := countNode(nodes); err != nil {
		return err
	}
	switch cond.Kind {
	case CondCompare:
		if len(cond.Bits) == 0 || len(cond.Bits) > 64 {
			return fmt.Errorf("condition on %d bits, want 1 to 64", len(cond.Bits))
		}
		for _, b := range cond.Bits {
			if err := c.clbit(b); err != nil {
				return err
			}
		}
		if cond.Cmp < Eq || cond.Cmp > Ge {
			return fmt.Errorf("unknown comparison %d", cond.Cmp)
		}
	case CondNot, CondAnd, CondOr:
		if cond.Kind == CondNot && len(cond.Args) != 1 {
			return fmt.Errorf("not takes one condition, got %d", len(cond.Args))
		}
		for _, a := range cond.Args {
			if a == nil {
				return fmt.Errorf("nil condition")
			}
			if err := c.validateCond(a, depth+1, nodes); err != nil {
				return err
			}
		}
	default:
		return fmt.Errorf("unknown condition kind %d", cond.Kind)
	}
	return nil
}

func (c *Circuit) qubit(q int) error {
	if q < 0 || q >= c.NumQubits {
		return fmt.Errorf("qubit %d out of range [0, %d)", q, c.NumQubits)
	}
	return nil
}

func (c *Circuit) clbit(b int) error {
	if b < 0 || b >= c.NumClbits {
		return fmt.Errorf("classical bit %d out of range [0, %d)", b, c.NumClbits)
	}
	return nil
}
