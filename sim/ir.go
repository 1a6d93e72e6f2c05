package sim

import (
	"fmt"
	"unsafe"
)

// OpKind says what an [Op] does.
type OpKind uint8

const (
	// OpGate applies a gate (StdGate.Op, GateOp; read with Op.Gate).
	OpGate OpKind = iota + 1
	// OpMeasure measures qubit Op.Qubit() in the computational basis and
	// writes the outcome to classical bit Op.Bit() (MeasureOp).
	OpMeasure
	// OpReset returns qubit Op.Qubit() to |0⟩ (ResetOp).
	OpReset
	// OpBarrier has no effect on the state; it keeps Op.Qubits() from
	// being merged across it by optimisations (BarrierOp).
	OpBarrier
	// OpSetBits writes Op.Value() to the classical bits Op.Bits(): bit i of
	// the value goes to Op.Bits()[i] (SetBitsOp).
	OpSetBits
	// OpJump continues execution at the operation with index
	// Op.JumpTarget() (which may be len(Ops), the end). With a condition
	// (Op.WithIf) it jumps only when the condition holds. Jumps let front
	// ends lower if/else and while loops whose conditions depend on
	// measurement results (JumpOp).
	OpJump
	// OpCompute computes Op.Expr() and writes the low len(Op.Bits()) bits
	// of the result to the classical bits Op.Bits(), bit i to Op.Bits()[i]
	// (ComputeOp).
	OpCompute
	// OpNoise applies the noise channel Op.Channel() to the qubits
	// Op.TargetAt(0 … NumTargets()−1), target j as bit j of the channel's
	// Kraus matrices (NoiseOp). Optimisations never move a gate across it.
	OpNoise
)

func (k OpKind) String() string {
	switch k {
	case OpGate:
		return "gate"
	case OpMeasure:
		return "measure"
	case OpReset:
		return "reset"
	case OpBarrier:
		return "barrier"
	case OpSetBits:
		return "setbits"
	case OpJump:
		return "jump"
	case OpCompute:
		return "compute"
	case OpNoise:
		return "noise"
	}
	return fmt.Sprintf("OpKind(%d)", uint8(k))
}

// Gate is a unitary on Targets, applied where every control qubit holds its
// wanted value.
//
// Matrix is the 2^k × 2^k unitary in row-major order, k = len(Targets). Its
// row and column indices are little-endian in Targets: bit j of the index is
// the state of qubit Targets[j]. A gate with no targets has a 1×1 matrix: a
// phase, global unless the gate has controls.
type Gate struct {
	Name     string // for messages; the kernels never read it
	Matrix   []complex128
	Targets  []int
	Controls []Control
}

// Control is a control qubit. The gate acts where the qubit is |1⟩, or
// where it is |0⟩ when Negated (OpenQASM 3's negctrl).
type Control struct {
	Qubit   int
	Negated bool
}

// Dim is the dimension of the gate's matrix, 2^len(Targets).
func (g Gate) Dim() int { return 1 << len(g.Targets) }

// CondKind says what a [Condition] tests.
type CondKind uint8

const (
	// CondCompare compares the unsigned integer formed by Bits (bit i of the
	// integer is classical bit Bits[i]) with Value using Cmp.
	CondCompare CondKind = iota + 1
	// CondNot holds when Args[0] does not.
	CondNot
	// CondAnd holds when every one of Args holds.
	CondAnd
	// CondOr holds when any one of Args holds.
	CondOr
)

// Cmp is a comparison operator.
type Cmp uint8

const (
	Eq Cmp = iota + 1
	Ne
	Lt
	Le
	Gt
	Ge
)

func (c Cmp) String() string {
	switch c {
	case Eq:
		return "=="
	case Ne:
		return "!="
	case Lt:
		return "<"
	case Le:
		return "<="
	case Gt:
		return ">"
	case Ge:
		return ">="
	}
	return fmt.Sprintf("Cmp(%d)", uint8(c))
}

// Condition is a test on classical bits, evaluated when a shot reaches the
// operation that carries it.
type Condition struct {
	Kind  CondKind
	Bits  []int  // CondCompare: at most 64 bits
	Cmp   Cmp    // CondCompare
	Value uint64 // CondCompare
	Args  []*Condition
}

// BitIs is the condition "classical bit b is v".
func BitIs(b int, v bool) *Condition {
	val := uint64(0)
	if v {
		val = 1
	}
	return &Condition{Kind: CondCompare, Bits: []int{b}, Cmp: Eq, Value: val}
}

// RegisterCmp is the condition "the integer in bits (bits[0] lowest) cmp value".
func RegisterCmp(bits []int, cmp Cmp, value uint64) *Condition {
	return &Condition{Kind: CondCompare, Bits: bits, Cmp: cmp, Value: value}
}

// Not, And and Or combine conditions.
func Not(c *Condition) *Condition     { return &Condition{Kind: CondNot, Args: []*Condition{c}} }
func And(cs ...*Condition) *Condition { return &Condition{Kind: CondAnd, Args: cs} }
func Or(cs ...*Condition) *Condition  { return &Condition{Kind: CondOr, Args: cs} }

// Eval reports whether the condition holds for the classical bits clbits.
func (c *Condition) Eval(clbits []bool) bool {
	switch c.Kind {
	case CondCompare:
		return compare(gather(clbits, c.Bits), c.Cmp, c.Value)
	case CondNot:
		return !c.Args[0].Eval(clbits)
	case CondAnd:
		for _, a := range c.Args {
			if !a.Eval(clbits) {
				return false
			}
		}
		return true
	case CondOr:
		for _, a := range c.Args {
			if a.Eval(clbits) {
				return true
			}
		}
		return false
	}
	return false
}

// gather is the unsigned integer whose bit i is clbits[bits[i]], for at
// most 64 bits. It does not branch on the bits: a loop's counter, read at
// every iteration, changes them all the time.
func gather(clbits []bool, bits []int) uint64 {
	var v uint64
	for i, b := range bits {
		v |= uint64(*(*uint8)(unsafe.Pointer(&clbits[b]))) << i
	}
	return v
}

// Circuit is a program for the simulator.
type Circuit struct {
	NumQubits int
	NumClbits int
	Ops       []Op
}

// Append adds operations to the circuit and returns it, for chaining.
func (c *Circuit) Append(ops ...Op) *Circuit {
	c.Ops = append(c.Ops, ops...)
	return c
}

// Apply appends a gate given by its matrix.
func (c *Circuit) Apply(g Gate) *Circuit { return c.Append(GateOp(g)) }

// ApplyStd appends the standard gate named name with parameters p on
// qubits (controls first), as StdGate.Op builds it. It panics on a name
// LookupGate does not know or on the wrong number of parameters or qubits:
// it is for circuits written in Go, whose gates are known when written.
func (c *Circuit) ApplyStd(name string, p []float64, qubits ...int) *Circuit {
	g, ok := LookupGate(name)
	if !ok {
		panic(fmt.Sprintf("sim: no standard gate %q", name))
	}
	op, err := g.Op(p, qubits...)
	if err != nil {
		panic("sim: " + err.Error())
	}
	return c.Append(op)
}

// Measure appends a measurement of qubit q into classical bit b.
func (c *Circuit) Measure(q, b int) *Circuit { return c.Append(MeasureOp(q, b)) }

// Reset appends a reset of qubit q.
func (c *Circuit) Reset(q int) *Circuit { return c.Append(ResetOp(q)) }

// If appends op to run only when cond holds.
func (c *Circuit) If(cond *Condition, op Op) *Circuit { return c.Append(op.WithIf(cond)) }
