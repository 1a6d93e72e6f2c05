package sim

import (
	"context"
	"fmt"
	"math"
)

// Validate checks the circuit against the rules of the IR: every qubit and
// classical bit index in range, at most MaxClbits classical bits, every gate
// matrix square, of the right size and unitary, no qubit twice in one gate
// or channel, as many qubits as its channel acts on, jump targets within
// the circuit, conditions well formed. It allocates
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
		op := &c.Ops[i]
		if err := c.validateOp(op, &nodes); err != nil {
			return fmt.Errorf("%w: operation %d (%s): %s", ErrInvalidCircuit, i, op.Kind, err)
		}
		if err := tick.step(1 + op.matrixEntries() + nodes); err != nil {
			return err
		}
	}
	return nil
}

func (c *Circuit) validateOp(op *Op, nodes *int) error {
	if cond := op.Cond(); cond != nil {
		if err := c.validateCond(cond, 0, nodes); err != nil {
			return err
		}
	}
	switch op.Kind {
	case OpGate:
		return c.validateGate(op)
	case OpMeasure:
		if err := c.qubit(op.Qubit()); err != nil {
			return err
		}
		if r := op.ReadoutError(); !(r >= 0 && r <= 1) {
			return fmt.Errorf("readout error %v is not a probability in [0, 1]", r)
		}
		return c.clbit(op.Bit())
	case OpReset:
		return c.qubit(op.Qubit())
	case OpNoise:
		return c.validateNoise(op)
	case OpBarrier:
		for _, q := range op.Qubits() {
			if err := c.qubit(q); err != nil {
				return err
			}
		}
	case OpSetBits:
		bits := op.Bits()
		if len(bits) > 64 {
			return fmt.Errorf("sets %d bits, at most 64", len(bits))
		}
		for _, b := range bits {
			if err := c.clbit(b); err != nil {
				return err
			}
		}
		if len(bits) < 64 && op.Value()>>len(bits) != 0 {
			return fmt.Errorf("value %d does not fit %d bits", op.Value(), len(bits))
		}
	case OpCompute:
		bits := op.Bits()
		if len(bits) == 0 || len(bits) > 64 {
			return fmt.Errorf("computes into %d bits, want 1 to 64", len(bits))
		}
		for _, b := range bits {
			if err := c.clbit(b); err != nil {
				return err
			}
		}
		if op.Expr() == nil {
			return fmt.Errorf("computes no expression")
		}
		return c.validateExpr(op.Expr(), 0, nodes)
	case OpJump:
		if t := op.JumpTarget(); t < 0 || t > len(c.Ops) {
			return fmt.Errorf("jump target %d outside [0, %d]", t, len(c.Ops))
		}
	default:
		return fmt.Errorf("unknown kind %d", op.Kind)
	}
	return nil
}

// validateGate checks a gate's qubits, and its matrix when it is given by
// one. A standard gate's matrix is unitary by construction once its
// parameters are finite.
func (c *Circuit) validateGate(op *Op) error {
	name := op.GateName()
	if err := c.distinctQubits(op, name); err != nil {
		return err
	}
	nt := op.NumTargets()
	if nt > 16 {
		return fmt.Errorf("gate %q has %d targets, at most 16", name, nt)
	}
	if op.std != 0 {
		for _, p := range op.p {
			if math.IsNaN(p) || math.IsInf(p, 0) {
				return fmt.Errorf("gate %q has the parameter %v, not a finite number", name, p)
			}
		}
		return nil
	}
	m := op.matrix()
	if want := 1 << (2 * nt); len(m) != want {
		return fmt.Errorf("gate %q on %d targets needs a %d×%d matrix, got %d entries", name, nt, 1<<nt, 1<<nt, len(m))
	}
	if e := UnitarityError(m); e > UnitaryTolerance {
		return fmt.Errorf("gate %q: matrix is not unitary (‖UU†−I‖ = %.3g)", name, e)
	}
	return nil
}

// validateNoise checks a channel's qubits. The channel itself was checked
// when it was built: its fields are unexported and only constructors fill
// them.
func (c *Circuit) validateNoise(op *Op) error {
	ch := op.Channel()
	if ch == nil || ch.k == 0 {
		return fmt.Errorf("a noise operation without a channel (build channels with the constructors: BitFlip, …, Kraus)")
	}
	if op.NumControls() != 0 {
		return fmt.Errorf("channel %q has controls", ch.name)
	}
	if n := op.NumTargets(); n != ch.k {
		return fmt.Errorf("channel %q acts on %d qubit(s), given %d", ch.name, ch.k, n)
	}
	return c.distinctQubits(op, ch.name)
}

// distinctQubits checks that the gate's (or channel's) qubits are in range
// and that it uses none twice: pairwise for the few qubits most gates have,
// with a set for wide ones.
func (c *Circuit) distinctQubits(op *Op, name string) error {
	n := op.numQubits()
	if n <= 16 {
		for i := range n {
			q := op.qubitAt(i)
			if err := c.qubit(q); err != nil {
				return err
			}
			for j := range i {
				if op.qubitAt(j) == q {
					return fmt.Errorf("%s %q uses qubit %d twice", op.noun(), name, q)
				}
			}
		}
		return nil
	}
	seen := make(map[int]bool, n)
	for i := range op.numQubits() {
		q := op.qubitAt(i)
		if err := c.qubit(q); err != nil {
			return err
		}
		if seen[q] {
			return fmt.Errorf("%s %q uses qubit %d twice", op.noun(), name, q)
		}
		seen[q] = true
	}
	return nil
}

// noun is what messages call op.
func (op *Op) noun() string {
	if op.Kind == OpNoise {
		return "channel"
	}
	return "gate"
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
