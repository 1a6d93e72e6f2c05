package sim

import (
	"fmt"
	"math"
	"slices"
	"unsafe"
)

// Op is one operation of a circuit: a gate, a measurement, a reset, a
// barrier, a noise channel, or classical work (set bits, compute, jump).
// Build it with the constructors (StdGate.Op, GateOp, MeasureOp, ResetOp,
// BarrierOp, NoiseOp, SetBitsOp, ComputeOp, JumpOp) and read it with the
// accessors; Kind says which accessors mean something.
//
// An Op is a value of 56 bytes, because a program of a million gates is a
// million of them. A standard gate (StdGate.Op) on up to three qubits with up
// to three parameters, a measurement, a reset and an unconditional jump are
// held whole in it, parameters and source position included: their matrices
// are built from the parameters only when the circuit runs. What does not
// fit (a gate given by its matrix, more than three qubits, a condition, the
// bits of SetBits and Compute, a barrier's qubits, a channel) lives in an extension the
// Op points to, shared by copies of the Op and never changed once built:
// the With methods copy it before they change anything.
type Op struct {
	Kind  OpKind
	std   uint8 // a standard gate: its StdGate.id; 0 for a gate given by its matrix
	nt    uint8 // a gate's targets
	nc    uint8 // a gate's controls
	neg   uint8 // inline controls: bit i is set when control i is negated
	flags uint8 // adjoint, wide
	col   uint16
	line  int32 // where the front end read it (col too); 0 when unknown
	// q holds a gate's targets then its controls (when they fit), a
	// channel's qubits, a measurement's qubit and bit, a reset's qubit, a
	// jump's target.
	q [3]int32
	p [3]float64 // a standard gate's parameters
	x *opExt
}

const (
	flagAdjoint = 1 << iota // the adjoint of the standard gate
	flagWide                // the gate's qubits are in x (more than three), not in q
)

func (op *Op) adjoint() bool { return op.flags&flagAdjoint != 0 }
func (op *Op) wide() bool    { return op.flags&flagWide != 0 }

func (op *Op) setWide(w bool) {
	if w {
		op.flags |= flagWide
	} else {
		op.flags &^= flagWide
	}
}

// opExt is what an Op holds beyond its 56 bytes.
type opExt struct {
	name     string       // a gate given by its matrix
	matrix   []complex128 // ditto
	targets  []int        // a wide gate's qubits
	controls []Control    // ditto
	qubits   []int        // OpBarrier
	bits     []int        // OpSetBits, OpCompute
	value    uint64       // OpSetBits
	expr     *Expr        // OpCompute
	cond     *Condition   // the condition of a conditional operation
	channel  *Channel     // OpNoise
}

// inlineQubits is how many qubits (targets and controls) a gate keeps in
// the Op itself; inlineParams how many parameters.
const (
	inlineQubits = 3
	inlineParams = 3
)

// own gives op an extension of its own to change: a copy of the one it
// shares, or a new one.
func (op *Op) own() *opExt {
	if op.x == nil {
		op.x = &opExt{}
	} else {
		x := *op.x
		op.x = &x
	}
	return op.x
}

// Op builds the operation that applies s with parameters p to qubits (its
// controls first, as Gate takes them). It keeps the parameters, not the
// matrix; a gate with more than three parameters keeps its matrix.
func (s StdGate) Op(p []float64, qubits ...int) (Op, error) {
	if len(p) != s.NumParams {
		return Op{}, fmt.Errorf("gate %q takes %d parameters, got %d", s.Name, s.NumParams, len(p))
	}
	if len(qubits) != s.NumQubits {
		return Op{}, fmt.Errorf("gate %q takes %d qubits, got %d", s.Name, s.NumQubits, len(qubits))
	}
	if s.id == 0 || len(p) > inlineParams {
		// copies, so that p and qubits never leave the caller's stack
		return s.matrixOp(slices.Clone(p), slices.Clone(qubits))
	}
	op := Op{Kind: OpGate, std: s.id}
	copy(op.p[:], p)
	nc := s.NumControls
	op.setQubits(qubits[nc:], nil)
	for _, q := range qubits[:nc] {
		op.addControl(Control{Qubit: q})
	}
	return op, nil
}

// PutOp writes s.Op(p[:s.NumParams], q[:s.NumQubits]...).WithPos(line,
// col) to *dst, for a gate held whole in its Op, and reports whether it
// did; it leaves *dst as it was for a gate of more than three parameters
// or qubits, which Op holds with its matrix. It takes no slices, checks
// nothing Op would, and builds the Op where it is to stay: a front end
// places the gates of a large program by the million.
func (s *StdGate) PutOp(dst *Op, p *[3]float64, q *[3]int, line, col int) bool {
	if s.id == 0 || s.NumParams > inlineParams || s.NumQubits > inlineQubits {
		return false
	}
	nc := s.NumControls
	nt := s.NumQubits - nc
	*dst = Op{Kind: OpGate, std: s.id, nt: uint8(nt), nc: uint8(nc)}
	for i := range s.NumParams {
		dst.p[i] = p[i]
	}
	// the targets first, then the controls, which q holds first
	for i := range nt {
		dst.q[i] = clampIndex(q[nc+i])
	}
	for i := range nc {
		dst.q[nt+i] = clampIndex(q[i])
	}
	dst.line, dst.col = int32(min(max(line, 0), math.MaxInt32)), uint16(min(max(col, 0), math.MaxUint16))
	return true
}

func (s StdGate) matrixOp(p []float64, qubits []int) (Op, error) {
	g, err := s.Gate(p, qubits...)
	return GateOp(g), err
}

// GateOp is the operation that applies g. It holds g's matrix and name as
// they are (it does not copy them): a gate given by its matrix costs that
// matrix, where StdGate.Op costs its parameters.
func GateOp(g Gate) Op {
	op := Op{Kind: OpGate}
	x := op.own()
	x.name, x.matrix = g.Name, g.Matrix
	op.setQubits(g.Targets, nil)
	for _, c := range g.Controls {
		op.addControl(c)
	}
	return op
}

// setQubits sets a gate's targets and drops its controls.
func (op *Op) setQubits(targets []int, _ []Control) {
	op.nt, op.nc, op.neg = 0, 0, 0
	if op.wide() {
		x := op.own()
		x.targets, x.controls = nil, nil
		op.setWide(false)
	}
	if len(targets) > inlineQubits {
		x := op.own()
		x.targets = slices.Clone(targets)
		op.setWide(true)
		return
	}
	for i, q := range targets {
		op.q[i] = clampIndex(q)
	}
	op.nt = uint8(len(targets))
}

// addControl appends a control, moving the qubits out of the Op when they
// no longer fit.
func (op *Op) addControl(c Control) {
	n := int(op.nt) + int(op.nc)
	if !op.wide() && n == inlineQubits {
		x := op.own()
		x.targets = op.inlineTargets()
		x.controls = op.inlineControls()
		op.setWide(true)
		op.nt, op.nc, op.neg = 0, 0, 0
	}
	if op.wide() {
		x := op.own()
		x.controls = append(slices.Clip(x.controls), c)
		return
	}
	op.q[n] = clampIndex(c.Qubit)
	if c.Negated {
		op.neg |= 1 << op.nc
	}
	op.nc++
}

func (op *Op) inlineTargets() []int {
	out := make([]int, op.nt)
	for i := range out {
		out[i] = int(op.q[i])
	}
	return out
}

func (op *Op) inlineControls() []Control {
	if op.nc == 0 {
		return nil
	}
	out := make([]Control, op.nc)
	for i := range out {
		out[i] = Control{Qubit: int(op.q[int(op.nt)+i]), Negated: op.neg>>i&1 == 1}
	}
	return out
}

// MeasureOp measures qubit q into classical bit b.
func MeasureOp(q, b int) Op {
	op := Op{Kind: OpMeasure}
	op.setInt(0, q)
	op.setInt(1, b)
	return op
}

// WithReadoutError returns the measurement op recording the opposite of
// its outcome with probability r, independently each time it runs: a
// QPU's readout error. The qubit is left in the state measured; only the
// recorded bit is wrong. Validate checks that r is in [0, 1].
func (op Op) WithReadoutError(r float64) Op {
	if op.Kind == OpMeasure {
		op.p[0] = r
	}
	return op
}

// ReadoutError is the probability that a measurement records the
// opposite bit (WithReadoutError); 0 for other kinds.
func (op Op) ReadoutError() float64 {
	if op.Kind != OpMeasure {
		return 0
	}
	return op.p[0]
}

// ResetOp returns qubit q to |0⟩.
func ResetOp(q int) Op {
	op := Op{Kind: OpReset}
	op.setInt(0, q)
	return op
}

// BarrierOp keeps gates from merging across it, on qs (none: every qubit).
func BarrierOp(qs ...int) Op {
	op := Op{Kind: OpBarrier}
	if len(qs) > 0 {
		op.own().qubits = qs
	}
	return op
}

// NoiseOp applies the channel ch to qubits: qubit j is bit j of the
// index of ch's Kraus matrices (see Kraus). The channel is shared, not
// copied. Validate checks that the qubits are distinct, in range and as
// many as the channel acts on.
func NoiseOp(ch *Channel, qubits ...int) Op {
	op := Op{Kind: OpNoise}
	op.own().channel = ch
	op.setQubits(qubits, nil)
	return op
}

// SetBitsOp writes v to the classical bits: bit i of v to bits[i].
func SetBitsOp(bits []int, v uint64) Op {
	op := Op{Kind: OpSetBits}
	x := op.own()
	x.bits, x.value = bits, v
	return op
}

// ComputeOp computes e and writes the low len(bits) bits of the result to
// bits, bit i to bits[i].
func ComputeOp(bits []int, e *Expr) Op {
	op := Op{Kind: OpCompute}
	x := op.own()
	x.bits, x.expr = bits, e
	return op
}

// JumpOp continues at the operation with index target (len(Ops): the end).
// With a condition (WithIf) it jumps only when the condition holds.
func JumpOp(target int) Op {
	op := Op{Kind: OpJump}
	op.setInt(0, target)
	return op
}

// setInt stores an index in q[i]. An index past int32 is clamped to it:
// no circuit has that many qubits, bits or operations, so Validate still
// reports it out of range.
func (op *Op) setInt(i int, v int) { op.q[i] = clampIndex(v) }

func (op *Op) getInt(i int) int { return int(op.q[i]) }

func clampIndex(v int) int32 { return int32(min(max(v, math.MinInt32), math.MaxInt32)) }

// WithIf returns op made conditional on c (nil: unconditional).
func (op Op) WithIf(c *Condition) Op {
	if c != nil || op.x != nil && op.x.cond != nil {
		op.own().cond = c
	}
	return op
}

// WithPos returns op with the source position a front end read it at, for
// messages about it.
// A column past 65,535 is kept as 65,535.
func (op Op) WithPos(line, col int) Op {
	op.line, op.col = int32(min(max(line, 0), math.MaxInt32)), uint16(min(max(col, 0), math.MaxUint16))
	return op
}

// WithControls returns the gate op with more controls, after its own.
func (op Op) WithControls(cs ...Control) Op {
	if !op.wide() && int(op.nt)+int(op.nc)+len(cs) <= inlineQubits {
		for _, c := range cs {
			op.addControl(c)
		}
		return op
	}
	targets, controls := op.inlineTargets(), op.inlineControls()
	if op.wide() {
		targets, controls = op.x.targets, op.x.controls
	}
	x := op.own()
	x.targets = targets
	x.controls = append(slices.Clip(controls), cs...)
	op.setWide(true)
	op.nt, op.nc, op.neg = 0, 0, 0
	return op
}

// Inverse returns the gate op's inverse: a standard gate marked as its
// adjoint (its parameters kept), a gate given by its matrix with the
// conjugate transpose of it.
func (op Op) Inverse() Op {
	if op.std != 0 {
		op.flags ^= flagAdjoint
		return op
	}
	x := op.own()
	x.matrix = Dagger(x.matrix)
	return op
}

// Cond is the operation's condition, nil when it always runs.
func (op Op) Cond() *Condition {
	if op.x == nil {
		return nil
	}
	return op.x.cond
}

// Pos is where the front end read the operation (line and column from 1),
// or 0, 0.
func (op Op) Pos() (line, col int) { return int(op.line), int(op.col) }

// Qubit is the qubit of a measurement or a reset.
func (op Op) Qubit() int { return op.getInt(0) }

// Bit is the classical bit a measurement writes.
func (op Op) Bit() int { return op.getInt(1) }

// SetBit changes the classical bit a measurement writes.
func (op *Op) SetBit(b int) { op.setInt(1, b) }

// JumpTarget is the index a jump continues at.
func (op Op) JumpTarget() int { return op.getInt(0) }

// SetJumpTarget changes where a jump continues: front ends emit a jump
// before they know where its block ends.
func (op *Op) SetJumpTarget(t int) { op.setInt(0, t) }

// Qubits are a barrier's qubits (none: every qubit).
func (op Op) Qubits() []int {
	if op.x == nil {
		return nil
	}
	return op.x.qubits
}

// Channel is the channel a noise operation applies, nil for other kinds.
// Its qubits are NumTargets and TargetAt, as a gate's targets.
func (op Op) Channel() *Channel {
	if op.x == nil || op.Kind != OpNoise {
		return nil
	}
	return op.x.channel
}

// Bits are the classical bits SetBits and Compute write.
func (op Op) Bits() []int {
	if op.x == nil || op.Kind != OpSetBits && op.Kind != OpCompute {
		return nil
	}
	return op.x.bits
}

// Value is what SetBits writes.
func (op Op) Value() uint64 {
	if op.x == nil {
		return 0
	}
	return op.x.value
}

// Expr is what Compute computes.
func (op Op) Expr() *Expr {
	if op.x == nil {
		return nil
	}
	return op.x.expr
}

// Std is the standard gate a gate op applies, its parameters and whether
// it applies the adjoint; ok is false for a gate given by its matrix.
func (op Op) Std() (g StdGate, params []float64, adjoint, ok bool) {
	if op.Kind != OpGate || op.std == 0 {
		return StdGate{}, nil, false, false
	}
	g = stdTable[op.std-1]
	return g, slices.Clone(op.p[:g.NumParams]), op.adjoint(), true
}

// GateName names the gate for messages: the standard gate's name (with
// "inv @ " for its adjoint), or the name a gate given by its matrix has.
func (op Op) GateName() string {
	switch {
	case op.Kind != OpGate:
		return ""
	case op.std == 0:
		return op.x.name
	case op.adjoint():
		return "inv @ " + stdTable[op.std-1].Name
	}
	return stdTable[op.std-1].Name
}

// NumTargets and NumControls count a gate's qubits; NumTargets counts a
// channel's too.
func (op Op) NumTargets() int {
	if op.wide() {
		return len(op.x.targets)
	}
	return int(op.nt)
}

func (op Op) NumControls() int {
	if op.wide() {
		return len(op.x.controls)
	}
	return int(op.nc)
}

// TargetAt is the gate's (or the channel's) target i: bit i of its
// matrix's index.
func (op Op) TargetAt(i int) int {
	if op.wide() {
		return op.x.targets[i]
	}
	return int(op.q[i])
}

// ControlAt is the gate's control i.
func (op Op) ControlAt(i int) Control {
	if op.wide() {
		return op.x.controls[i]
	}
	return Control{Qubit: int(op.q[int(op.nt)+i]), Negated: op.neg>>i&1 == 1}
}

// Gate is the gate op applies, with a matrix, targets and controls of its
// own that the caller may change.
func (op Op) Gate() Gate {
	g := op.gate()
	g.Matrix = slices.Clone(g.Matrix)
	return g
}

// gate is Gate sharing the matrix of a standard gate without parameters:
// for the simulator's own use, which never writes a gate's matrix.
func (op *Op) gate() Gate {
	if op.Kind != OpGate {
		return Gate{}
	}
	g := Gate{Name: op.GateName(), Matrix: op.matrix()}
	if op.wide() {
		g.Targets = slices.Clone(op.x.targets)
		g.Controls = slices.Clone(op.x.controls)
	} else {
		g.Targets = op.inlineTargets()
		g.Controls = op.inlineControls()
	}
	return g
}

// matrix is the unitary on the gate's targets; shared, not to be written.
func (op *Op) matrix() []complex128 {
	if op.std == 0 {
		if op.x == nil {
			return nil
		}
		return op.x.matrix
	}
	s := &stdTable[op.std-1]
	m := s.fixed
	if m == nil {
		m = s.matrix(op.p[:s.NumParams])
	}
	if op.adjoint() {
		if s.fixedAdj != nil {
			return s.fixedAdj
		}
		m = Dagger(m)
	}
	return m
}

// isDiagonal reports whether the gate's matrix is diagonal, without
// building it for a standard gate.
func (op *Op) isDiagonal() bool {
	if op.std != 0 {
		return stdTable[op.std-1].diagonal
	}
	return isDiagonal(op.matrix())
}

// numQubits counts a gate's targets and controls.
func (op *Op) numQubits() int { return op.NumTargets() + op.NumControls() }

// qubitAt is the gate's qubit i: its targets, then its controls.
func (op *Op) qubitAt(i int) int {
	if nt := op.NumTargets(); i >= nt {
		return op.ControlAt(i - nt).Qubit
	}
	return op.TargetAt(i)
}

// matrixEntries is the size of the gate's matrix, 4^targets, without
// building it: what checking it costs.
func (op *Op) matrixEntries() int {
	if op.std != 0 {
		return 1
	}
	if op.x == nil {
		return 0
	}
	return len(op.x.matrix)
}

// Bytes is about what op holds in memory: its 56 bytes and its extension's
// lists and matrix. A condition, expression or channel, which front ends
// share between operations, is not counted (Channel.Bytes is a channel's).
func (op Op) Bytes() int64 {
	n := int64(unsafe.Sizeof(op))
	if x := op.x; x != nil {
		n += int64(unsafe.Sizeof(*x)) + int64(len(x.name)) + 16*int64(len(x.matrix)) +
			8*int64(len(x.targets)+len(x.qubits)+len(x.bits)) + 16*int64(len(x.controls))
	}
	return n
}
