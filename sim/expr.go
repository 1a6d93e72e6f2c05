package sim

import (
	"errors"
	"fmt"
)

// ErrClassical is returned (wrapped) when the classical code of a shot
// cannot go on: an integer division by zero or a negative shift count in
// an [OpCompute].
var ErrClassical = errors.New("classical error at run time")

// ExprKind says what an [Expr] is.
type ExprKind uint8

const (
	// ExprConst is the number Expr.Value.
	ExprConst ExprKind = iota + 1
	// ExprBits is the integer held in the classical bits Expr.Bits (bit i
	// of it in Bits[i], at most 64 bits), read as two's complement when
	// Expr.Signed.
	ExprBits
	// ExprUnary applies Expr.Op (Neg, BitNot or LogicNot) to Args[0].
	ExprUnary
	// ExprBinary applies Expr.Op to Args[0] and Args[1].
	ExprBinary
	// ExprCompare is 1 when Args[0] Expr.Cmp Args[1] holds, else 0; the
	// comparison is signed.
	ExprCompare
	// ExprCond is 1 when the condition Expr.Cond holds, else 0.
	ExprCond
)

// Operator is an arithmetic, bitwise or logical operator of an [Expr].
// Arithmetic is on 64-bit two's complement integers and wraps.
type Operator uint8

const (
	Add Operator = iota + 1
	Sub
	Mul
	Div // truncates toward zero; by zero is an ErrClassical
	Mod // has the sign of the dividend; by zero is an ErrClassical
	BitAnd
	BitOr
	BitXor
	Shl // a count of 64 or more gives 0; a negative count is an ErrClassical
	Shr // arithmetic; a count of 64 or more gives 0 or -1
	LogicAnd
	LogicOr
	Neg
	BitNot
	LogicNot
)

var operatorNames = [...]string{Add: "+", Sub: "-", Mul: "*", Div: "/", Mod: "%", BitAnd: "&", BitOr: "|",
	BitXor: "^", Shl: "<<", Shr: ">>", LogicAnd: "&&", LogicOr: "||", Neg: "-", BitNot: "~", LogicNot: "!"}

func (o Operator) String() string {
	if int(o) < len(operatorNames) && operatorNames[o] != "" {
		return operatorNames[o]
	}
	return fmt.Sprintf("Operator(%d)", uint8(o))
}

// Expr is an integer expression over classical bits, computed when a shot
// reaches the [OpCompute] that holds it. It lets front ends keep classical
// variables whose values come from measurements: counters, registers
// combined bit by bit, comparisons of two registers.
type Expr struct {
	Kind   ExprKind
	Value  int64 // ExprConst
	Bits   []int // ExprBits
	Signed bool  // ExprBits
	Op     Operator
	Cmp    Cmp        // ExprCompare
	Cond   *Condition // ExprCond
	Args   []*Expr
}

// Const, BitsOf, Unary, Binary, Compare and Truth build expressions.
func Const(v int64) *Expr { return &Expr{Kind: ExprConst, Value: v} }

func BitsOf(bits []int, signed bool) *Expr {
	return &Expr{Kind: ExprBits, Bits: bits, Signed: signed}
}

func Unary(op Operator, x *Expr) *Expr {
	return &Expr{Kind: ExprUnary, Op: op, Args: []*Expr{x}}
}

func Binary(op Operator, x, y *Expr) *Expr {
	return &Expr{Kind: ExprBinary, Op: op, Args: []*Expr{x, y}}
}

func Compare(x *Expr, cmp Cmp, y *Expr) *Expr {
	return &Expr{Kind: ExprCompare, Cmp: cmp, Args: []*Expr{x, y}}
}

// Truth is 1 when cond holds, else 0.
func Truth(cond *Condition) *Expr { return &Expr{Kind: ExprCond, Cond: cond} }

// maxExprDepth bounds the nesting Validate accepts, so that evaluation
// cannot exhaust the stack.
const maxExprDepth = 1000

// maxExprNodes bounds the nodes Validate accepts in the condition and the
// expression of one operation, counted as evaluating them visits them: a
// part used twice (a front end may share one *Expr between two places)
// counts twice. Twenty nested a == b of shared parts are a million visits
// in a 200-byte program; without the bound one evaluation could take
// hours, and validating it as long.
const maxExprNodes = 1 << 16

// nodeCost is how many nodes an operation's condition and expression
// evaluate per step it is charged (see stepBudget).
const nodeCost = 64

// countNode counts one more node against maxExprNodes.
func countNode(nodes *int) error {
	if *nodes++; *nodes > maxExprNodes {
		return fmt.Errorf("condition or expression of more than %d nodes (a part used twice counts twice)", maxExprNodes)
	}
	return nil
}

// evalNodes is how many nodes evaluating op's condition and expression
// visits at most (past maxExprNodes, maxExprNodes+1): a validated
// operation's cost.
func evalNodes(op *Op) int {
	n := 0
	if c := op.Cond(); c != nil {
		countCond(c, &n)
	}
	if e := op.Expr(); e != nil {
		countExpr(e, &n)
	}
	return n
}

func countCond(c *Condition, n *int) {
	if countNode(n) != nil {
		return
	}
	for _, a := range c.Args {
		countCond(a, n)
	}
}

func countExpr(e *Expr, n *int) {
	if countNode(n) != nil {
		return
	}
	if e.Cond != nil {
		countCond(e.Cond, n)
	}
	for _, a := range e.Args {
		countExpr(a, n)
	}
}

// Eval computes the expression over the classical bits clbits. The only
// errors are ErrClassical ones.
func (e *Expr) Eval(clbits []bool) (int64, error) {
	switch e.Kind {
	case ExprConst:
		return e.Value, nil
	case ExprBits:
		v := gather(clbits, e.Bits)
		if n := len(e.Bits); e.Signed && n > 0 && n < 64 && v>>(n-1)&1 == 1 {
			v |= ^uint64(0) << n
		}
		return int64(v), nil
	case ExprCond:
		return b2i(e.Cond.Eval(clbits)), nil
	case ExprUnary:
		x, err := e.Args[0].Eval(clbits)
		if err != nil {
			return 0, err
		}
		switch e.Op {
		case Neg:
			return -x, nil
		case BitNot:
			return ^x, nil
		case LogicNot:
			return b2i(x == 0), nil
		}
	case ExprBinary, ExprCompare:
		x, err := e.Args[0].Eval(clbits)
		if err != nil {
			return 0, err
		}
		// && and || do not evaluate their right side when the left decides.
		if e.Kind == ExprBinary && (e.Op == LogicAnd && x == 0 || e.Op == LogicOr && x != 0) {
			return b2i(x != 0), nil
		}
		y, err := e.Args[1].Eval(clbits)
		if err != nil {
			return 0, err
		}
		if e.Kind == ExprCompare {
			return b2i(compare(x, e.Cmp, y)), nil
		}
		return binary(e.Op, x, y)
	}
	return 0, fmt.Errorf("%w: malformed expression", ErrClassical)
}

func binary(op Operator, x, y int64) (int64, error) {
	switch op {
	case Add:
		return x + y, nil
	case Sub:
		return x - y, nil
	case Mul:
		return x * y, nil
	case Div, Mod:
		if y == 0 {
			return 0, fmt.Errorf("%w: division by zero", ErrClassical)
		}
		if op == Div {
			return x / y, nil
		}
		return x % y, nil
	case BitAnd:
		return x & y, nil
	case BitOr:
		return x | y, nil
	case BitXor:
		return x ^ y, nil
	case Shl, Shr:
		if y < 0 {
			return 0, fmt.Errorf("%w: shift by the negative count %d", ErrClassical, y)
		}
		if op == Shl {
			return x << y, nil
		}
		return x >> y, nil
	case LogicAnd:
		return b2i(x != 0 && y != 0), nil
	case LogicOr:
		return b2i(x != 0 || y != 0), nil
	}
	return 0, fmt.Errorf("%w: operator %v is not binary", ErrClassical, op)
}

// compare applies c to two integers: unsigned in conditions, signed in
// expressions.
func compare[T int64 | uint64](x T, c Cmp, y T) bool {
	switch c {
	case Eq:
		return x == y
	case Ne:
		return x != y
	case Lt:
		return x < y
	case Le:
		return x <= y
	case Gt:
		return x > y
	case Ge:
		return x >= y
	}
	return false
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func (c *Circuit) validateExpr(e *Expr, depth int, nodes *int) error {
	if e == nil {
		return fmt.Errorf("missing expression")
	}
	if err := countNode(nodes); err != nil {
		return err
	}
	if depth > maxExprDepth {
		return fmt.Errorf("expression nested more than %d deep", maxExprDepth)
	}
	args := 0
	switch e.Kind {
	case ExprConst:
	case ExprBits:
		if len(e.Bits) == 0 || len(e.Bits) > 64 {
			return fmt.Errorf("expression reads %d bits, want 1 to 64", len(e.Bits))
		}
		for _, b := range e.Bits {
			if err := c.clbit(b); err != nil {
				return err
			}
		}
	case ExprCond:
		if e.Cond == nil {
			return fmt.Errorf("missing condition")
		}
		if err := c.validateCond(e.Cond, depth+1, nodes); err != nil {
			return err
		}
	case ExprUnary:
		if e.Op != Neg && e.Op != BitNot && e.Op != LogicNot {
			return fmt.Errorf("operator %v is not unary", e.Op)
		}
		args = 1
	case ExprBinary:
		if e.Op < Add || e.Op > LogicOr {
			return fmt.Errorf("operator %v is not binary", e.Op)
		}
		args = 2
	case ExprCompare:
		if e.Cmp < Eq || e.Cmp > Ge {
			return fmt.Errorf("unknown comparison %v", e.Cmp)
		}
		args = 2
	default:
		return fmt.Errorf("unknown expression kind %d", e.Kind)
	}
	if len(e.Args) != args {
		return fmt.Errorf("%v expression with %d arguments, want %d", e.Kind, len(e.Args), args)
	}
	for _, a := range e.Args {
		if err := c.validateExpr(a, depth+1, nodes); err != nil {
			return err
		}
	}
	return nil
}
