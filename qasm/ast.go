package qasm

import "github.com/qjobs/quantum/sim"

// The syntax tree. The parser builds it for the whole program before
// lowering starts, so that a syntax error anywhere is reported without
// emitting anything.

type node interface{ at() position }

// Expressions.
type (
	expr interface{ node }

	xIdent struct {
		P    position
		Name string
	}
	xInt struct {
		P position
		V int64
	}
	xFloat struct {
		P position
		V float64
	}
	// xDuration is a time (100ns, 2us, or durationof(...)); sim has no
	// timing, so its value only matters for being a number.
	xDuration struct {
		P position
		V float64
	}
	xBool struct {
		P position
		V bool
	}
	xBits struct {
		P position
		S string // most significant bit first, as written
	}
	xPhys struct {
		P position
		N int
	}
	// The nodes with operands carry H, the height of their tree (see
	// height), which the parser keeps to maxDepth.
	xUnary struct {
		P  position
		Op string
		X  expr
		H  int32
	}
	xBinary struct {
		P    position
		Op   string
		X, Y expr
		H    int32
	}
	// xIndex is x[i], x[a:b], x[{i, j}] or x[i, j]: one item per
	// comma-separated index.
	xIndex struct {
		P     position
		X     expr
		Items []expr
		H     int32
	}
	xCall struct {
		P    position
		Name string
		Args []expr
		H    int32
	}
	xCast struct {
		P    position
		Type *typeSpec
		X    expr
		H    int32
	}
	// xRange is start:step:stop with any part left out; both ends are
	// inclusive, as OpenQASM 3 says.
	xRange struct {
		P                 position
		Start, Step, Stop expr
		H                 int32
	}
	// xSet is {a, b, ...}: an index set or an array literal.
	xSet struct {
		P     position
		Elems []expr
		H     int32
	}
	xMeasure struct {
		P position
		Q expr
		H int32
	}
)

// height is the height of an expression's tree, 1 for a leaf and 0 for
// none. Every recursion over an expression (evaluation, the operand
// resolvers) goes at most this deep.
func height(e expr) int32 {
	switch e := e.(type) {
	case nil:
		return 0
	case *xUnary:
		return e.H
	case *xBinary:
		return e.H
	case *xIndex:
		return e.H
	case *xCall:
		return e.H
	case *xCast:
		return e.H
	case *xRange:
		return e.H
	case *xSet:
		return e.H
	case *xMeasure:
		return e.H
	}
	return 1
}

// maxHeight is the height of the tallest of es.
func maxHeight(es []expr) int32 {
	var h int32
	for _, e := range es {
		h = max(h, height(e))
	}
	return h
}

func (e *xIdent) at() position    { return e.P }
func (e *xInt) at() position      { return e.P }
func (e *xFloat) at() position    { return e.P }
func (e *xDuration) at() position { return e.P }
func (e *xBool) at() position     { return e.P }
func (e *xBits) at() position     { return e.P }
func (e *xPhys) at() position     { return e.P }
func (e *xUnary) at() position    { return e.P }
func (e *xBinary) at() position   { return e.P }
func (e *xIndex) at() position    { return e.P }
func (e *xCall) at() position     { return e.P }
func (e *xCast) at() position     { return e.P }
func (e *xRange) at() position    { return e.P }
func (e *xSet) at() position      { return e.P }
func (e *xMeasure) at() position  { return e.P }

// typeSpec is a classical (or qubit) type as written.
type typeSpec struct {
	P    position
	Name string // int uint float angle bool bit complex duration stretch array qubit
	Size expr   // the [n] designator, nil when absent
	// For arrays: the element type and the dimensions. Dims is nil for
	// a subroutine argument written with #dim=n.
	Elem *typeSpec
	Dims []expr
	H    int32 // as for expressions, types within types counting a level
}

// Statements.
type (
	stmt interface{ node }

	sInclude struct {
		P    position
		Path string
	}
	sQubitDecl struct {
		P    position
		Name string
		Size expr // nil for a single qubit
	}
	// sDecl declares a variable: bit, creg, int, ..., array, with
	// const, input or output before it.
	sDecl struct {
		P     position
		Type  *typeSpec
		Name  string
		Init  expr
		Const bool
		IO    string // "input", "output" or ""
	}
	sAlias struct {
		P     position
		Name  string
		Value expr
	}
	sGateDef struct {
		P      position
		Name   string
		Params []string
		Qubits []string
		Body   []stmt
		Opaque bool
	}
	param struct {
		P    position
		Type *typeSpec
		Name string
	}
	sDef struct {
		P    position
		Name string
		Args []param
		Ret  *typeSpec
		Body []stmt
	}
	sExtern struct {
		P    position
		Name string
	}
	modifier struct {
		P    position
		Kind string // ctrl negctrl inv pow
		Arg  expr   // nil when absent
	}
	sGateCall struct {
		P      position
		Mods   []modifier
		Name   string
		Params []expr
		Qubits []expr
	}
	sMeasure struct {
		P      position
		Q      expr
		Target expr // nil for a bare "measure q;"
	}
	sReset struct {
		P position
		Q expr
	}
	sBarrier struct {
		P  position
		Qs []expr
	}
	sIf struct {
		P    position
		Cond expr
		Then []stmt
		Else []stmt
	}
	sFor struct {
		P    position
		Var  string
		Type *typeSpec
		Iter expr
		Body []stmt
	}
	sSwitch struct {
		P       position
		Target  expr
		Cases   []switchCase
		Default []stmt // nil without a default
	}
	switchCase struct {
		P      position
		Values []expr
		Body   []stmt
	}
	sWhile struct {
		P    position
		Cond expr
		Body []stmt
	}
	sBreak    struct{ P position }
	sContinue struct{ P position }
	sEnd      struct{ P position }
	sReturn   struct {
		P     position
		Value expr
	}
	sAssign struct {
		P      position
		Target expr
		Op     string // "=", "+=", ...
		Value  expr
	}
	sExpr struct {
		P position
		X expr
	}
	sBlock struct {
		P    position
		Body []stmt
	}
	// sIgnored is a statement with no meaning for a state-vector simulator
	// (delay, pragma, defcal, ...); What names it.
	sIgnored struct {
		P    position
		What string
	}
	// sNoise is "#pragma braket noise": a channel applied where the pragma
	// stands (see noise.go).
	sNoise struct {
		P       position // the pragma's
		Name    string   // the channel, one of noiseKinds
		NamePos position
		Params  []expr
		Mats    []krausMatrix // kraus only
		Qubits  []expr
		// kraus is the channel of Mats once built: they are constants, so
		// a loop that runs the pragma again builds it once.
		kraus *sim.Channel
	}
	krausMatrix struct {
		P position // its "["
		D int      // D×D
		M []complex128
	}
)

func (s *sInclude) at() position   { return s.P }
func (s *sQubitDecl) at() position { return s.P }
func (s *sDecl) at() position      { return s.P }
func (s *sAlias) at() position     { return s.P }
func (s *sGateDef) at() position   { return s.P }
func (s *sDef) at() position       { return s.P }
func (s *sExtern) at() position    { return s.P }
func (s *sGateCall) at() position  { return s.P }
func (s *sMeasure) at() position   { return s.P }
func (s *sReset) at() position     { return s.P }
func (s *sBarrier) at() position   { return s.P }
func (s *sIf) at() position        { return s.P }
func (s *sFor) at() position       { return s.P }
func (s *sSwitch) at() position    { return s.P }
func (s *sWhile) at() position     { return s.P }
func (s *sBreak) at() position     { return s.P }
func (s *sContinue) at() position  { return s.P }
func (s *sEnd) at() position       { return s.P }
func (s *sReturn) at() position    { return s.P }
func (s *sAssign) at() position    { return s.P }
func (s *sExpr) at() position      { return s.P }
func (s *sBlock) at() position     { return s.P }
func (s *sIgnored) at() position   { return s.P }
func (s *sNoise) at() position     { return s.P }
