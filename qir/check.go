package qir

import (
	"fmt"
	"strings"

	"github.com/qjobs/quantum/sim"
)

// check is everything the service refuses at create: a module that is
// malformed (whichever reader made it), an instruction or a function the
// interpreter does not implement, a missing or ambiguous entry point, and
// constant qubit or result ids past the limits. What passes runs without
// a malformed-module error.

// maxResultID bounds the constant result ids a program may use: results
// are kept in a slice indexed by id.
const maxResultID = 1 << 20

// maxConstNodes bounds the nodes of one operand's constant expression.
const maxConstNodes = 1 << 12

// checked is a module that passed, with what running it needs.
type checked struct {
	m     *module
	entry *function
	// intrinsics are the declared functions the module calls.
	intrinsics map[*function]intrinsic
	// qubits is one more than the highest constant qubit id; results the
	// same for result ids.
	qubits, results int
	// lay is the layout of every type the program puts in memory.
	lay *layout
	// allocs is the qubits the program's allocation calls take, counted
	// once per call site (an array of constant size counts its size): a
	// bound for programs that release what they allocate.
	allocs int
	// maxQubits is the device's qubits: no allocation may ask for more.
	maxQubits int
	// ops is the quantum operations the module's calls make, each call
	// counted once: the length of a straight-line program's trace.
	ops int
}

// posError is an Error at an instruction: its line and column for text,
// its function for bitcode.
func posError(f *function, in *inst, format string, args ...any) *Error {
	e := &Error{Func: f.name, Msg: fmt.Sprintf(format, args...)}
	if in != nil {
		e.Line, e.Col = int(in.line), int(in.col)
	} else {
		e.Line = f.line
	}
	return e
}

// entryPoints lists the defined functions marked as entry points.
func entryPoints(m *module) []*function {
	var out []*function
	for _, f := range m.funcs {
		if f.blocks == nil {
			continue
		}
		if _, ok := f.attrs["entry_point"]; ok {
			out = append(out, f)
		} else if _, ok := f.attrs["EntryPoint"]; ok { // QIR before 1.0
			out = append(out, f)
		}
	}
	return out
}

// EntryPointError is a module whose entry point is missing or ambiguous,
// or not the one asked for: the service reports it on the entry point
// option rather than on the program.
type EntryPointError struct{ Msg string }

func (e *EntryPointError) Error() string { return e.Msg }

func pickEntry(m *module, name string) (*function, error) {
	eps := entryPoints(m)
	names := make([]string, len(eps))
	for i, f := range eps {
		names[i] = f.name
	}
	if name != "" {
		for _, f := range eps {
			if f.name == name {
				return f, nil
			}
		}
		if f := m.function(name); f != nil && f.blocks != nil && len(eps) == 0 {
			return f, nil
		}
		if len(eps) == 0 {
			return nil, &EntryPointError{Msg: fmt.Sprintf("no function @%s is defined", name)}
		}
		return nil, &EntryPointError{Msg: fmt.Sprintf("@%s is not an entry point; the module's entry points are @%s", name, strings.Join(names, ", @"))}
	}
	switch len(eps) {
	case 1:
		return eps[0], nil
	case 0:
		// A module without the attribute but with one definition: that one.
		var defs []*function
		for _, f := range m.funcs {
			if f.blocks != nil {
				defs = append(defs, f)
			}
		}
		if len(defs) == 1 {
			return defs[0], nil
		}
		return nil, errorf("no entry point: no function has the \"entry_point\" attribute")
	}
	return nil, &EntryPointError{Msg: fmt.Sprintf("the module has %d entry points (@%s): name one in runtimeOptions.entryPoint", len(eps), strings.Join(names, ", @"))}
}

// checkModule checks m and picks its entry point. maxQubits bounds the
// constant qubit ids.
func checkModule(m *module, entryName string, maxQubits int) (*checked, error) {
	entry, err := pickEntry(m, entryName)
	if err != nil {
		return nil, err
	}
	if len(entry.ty.params) > 0 {
		return nil, posError(entry, nil, "the entry point @%s takes parameters; it must take none", entry.name)
	}
	c := &checked{m: m, entry: entry, intrinsics: map[*function]intrinsic{}, lay: newLayout(), maxQubits: maxQubits}
	for _, g := range m.globals {
		if err := c.layGlobal(g); err != nil {
			return nil, err
		}
	}
	for _, f := range m.funcs {
		if f.blocks == nil {
			continue
		}
		if err := c.checkFunction(f, maxQubits); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *checked) checkFunction(f *function, maxQubits int) error {
	if f.ty == nil || f.ty.kind != tyFunc || f.nslots < len(f.ty.params) {
		return posError(f, nil, "malformed function")
	}
	own := make(map[*block]bool, len(f.blocks))
	for _, b := range f.blocks {
		if b == nil {
			return posError(f, nil, "malformed function: a nil block")
		}
		own[b] = true
	}
	for _, b := range f.blocks {
		if len(b.insts) == 0 {
			return posError(f, nil, "block %%%s is empty", b.name)
		}
		for i, in := range b.insts {
			if in == nil {
				return posError(f, nil, "malformed block %%%s", b.name)
			}
			last := i == len(b.insts)-1
			if isTerminator(in.op) != last {
				if last {
					return posError(f, in, "block %%%s does not end with a terminator", b.name)
				}
				return posError(f, in, "a terminator in the middle of block %%%s", b.name)
			}
			if in.op == opPhi && i > 0 && b.insts[i-1].op != opPhi {
				return posError(f, in, "a phi after other instructions of block %%%s", b.name)
			}
			if err := c.checkInst(f, in, own, maxQubits); err != nil {
				return err
			}
		}
	}
	return nil
}

// arity is the operand counts each opcode takes: min and max (-1: any).
func arity(op opcode) (lo, hi int) {
	switch op {
	case opRet:
		return 0, 1
	case opBr:
		return 0, 1
	case opSwitch, opFNeg, opFreeze, opLoad:
		return 1, 1
	case opUnreachable:
		return 0, 0
	case opICmp, opFCmp, opStore:
		return 2, 2
	case opSelect:
		return 3, 3
	case opPhi, opGEP:
		return 1, -1
	case opCall:
		return 0, -1
	case opAlloca:
		return 0, 1
	}
	switch {
	case op >= opAdd && op <= opFRem:
		return 2, 2
	case op >= opTrunc && op <= opAddrSpaceCast:
		return 1, 1
	}
	return -1, -1
}

func (c *checked) checkInst(f *function, in *inst, own map[*block]bool, maxQubits int) error {
	lo, hi := arity(in.op)
	if lo < 0 {
		return posError(f, in, "unsupported instruction %s", opName(in.op))
	}
	if len(in.args) < lo || hi >= 0 && len(in.args) > hi {
		return posError(f, in, "malformed %s: %d operands", opName(in.op), len(in.args))
	}
	if in.ty == nil {
		in.ty = typVoid
	}
	if in.dst >= f.nslots || in.dst < -1 || (in.ty.kind != tyVoid) != (in.dst >= 0) {
		return posError(f, in, "malformed %s: its result's slot", opName(in.op))
	}
	for _, a := range in.args {
		if err := c.checkValue(f, in, a); err != nil {
			return err
		}
	}
	for _, t := range in.targets {
		if t == nil || !own[t] {
			return posError(f, in, "%s to a block of another function", opName(in.op))
		}
	}
	switch in.op {
	case opBr:
		if len(in.targets) != len(in.args)+1 {
			return posError(f, in, "malformed br")
		}
	case opSwitch:
		if len(in.targets) < 1 || len(in.consts) != len(in.targets)-1 {
			return posError(f, in, "malformed switch")
		}
	case opPhi:
		if len(in.targets) != len(in.args) {
			return posError(f, in, "malformed phi")
		}
	case opAlloca, opGEP:
		if in.elemTy == nil {
			return posError(f, in, "malformed %s: no element type", opName(in.op))
		}
		if err := c.lay.add(in.elemTy); err != nil {
			return posError(f, in, "%s", err.Error())
		}
	case opCall:
		return c.checkCall(f, in, maxQubits)
	default:
		if len(in.targets) > 0 {
			return posError(f, in, "malformed %s", opName(in.op))
		}
	}
	return nil
}

// checkValue checks an operand and its constant expression, without
// recursion.
func (c *checked) checkValue(f *function, in *inst, v *value) error {
	stack := []*value{v}
	for n := 0; len(stack) > 0; n++ {
		if n > maxConstNodes {
			return posError(f, in, "constant expression of more than %d parts", maxConstNodes)
		}
		x := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if x == nil {
			return posError(f, in, "malformed %s: a missing operand", opName(in.op))
		}
		switch x.kind {
		case vLocal:
			if x.slot < 0 || x.slot >= f.nslots {
				return posError(f, in, "malformed %s: operand slot %d", opName(in.op), x.slot)
			}
		case vGlobal:
			if x.g == nil {
				return posError(f, in, "malformed %s: a global without its definition", opName(in.op))
			}
		case vFunc:
			if x.fn == nil {
				return posError(f, in, "malformed %s: a function without its definition", opName(in.op))
			}
		case vExpr:
			if x.op == opGEP {
				if x.elemTy == nil || len(x.args) == 0 {
					return posError(f, in, "malformed constant getelementptr")
				}
				if err := c.lay.add(x.elemTy); err != nil {
					return posError(f, in, "%s", err.Error())
				}
			} else if x.op < opTrunc || x.op > opAddrSpaceCast || len(x.args) != 1 {
				return posError(f, in, "unsupported constant expression %s", opName(x.op))
			}
			if x.ty == nil {
				return posError(f, in, "malformed constant expression")
			}
			stack = append(stack, x.args...)
		case vInt, vFloat, vNull, vUndef, vZero:
		case vAggregate:
			// Only as a global's initialiser or an ignored operand; the
			// interpreter reads it as zero.
		default:
			return posError(f, in, "malformed operand")
		}
	}
	return nil
}

// intrinsicArity is the operand counts each intrinsic takes.
func intrinsicArity(k intrinsic) (lo, hi int) {
	switch k.kind {
	case inGate:
		return k.params + k.qubits, k.params + k.qubits
	case inMz, inMResetZ, inArrayElementPtr, inResultEqual:
		return 2, 2
	case inM:
		return 1, 2
	case inReset, inReadResult, inQubitRelease, inQubitAllocateArray, inQubitReleaseArray, inArraySize, inFail:
		return 1, 1
	case inRecordResult, inRecordHeader, inRecordValue:
		return 1, 2
	case inRecordResultArray, inQubitArrayAllocate, inResultArrayAllocate:
		return 2, 3
	case inQubitArrayRelease, inResultArrayRelease:
		return 2, 2
	case inMzArray:
		return 3, 3
	case inResultOne, inResultZero:
		return 0, 0
	case inQubitAllocate, inResultAllocate: // QIR 2 passes a pointer (null)
		return 0, 1
	}
	return 0, -1
}

func (c *checked) checkCall(f *function, in *inst, maxQubits int) error {
	if in.callee == nil || in.callee.kind != vFunc || in.callee.fn == nil {
		return posError(f, in, "unsupported: a call through a pointer")
	}
	g := in.callee.fn
	if g.ty == nil || g.ty.kind != tyFunc {
		return posError(f, in, "malformed call of @%s", g.name)
	}
	if g.blocks != nil {
		if len(in.args) != len(g.ty.params) && !(g.ty.vararg && len(in.args) > len(g.ty.params)) {
			return posError(f, in, "@%s takes %d arguments, the call passes %d", g.name, len(g.ty.params), len(in.args))
		}
		return nil
	}
	k, known := c.intrinsics[g]
	if !known {
		var ok bool
		if k, ok = lookupIntrinsic(g.name); !ok {
			return posError(f, in, "unsupported function @%s: the service does not implement it", g.name)
		}
		if k.kind == inGate {
			std, _ := sim.LookupGate(k.gate)
			k.std = &std
		}
	}
	lo, hi := intrinsicArity(k)
	if len(in.args) < lo || hi >= 0 && len(in.args) > hi {
		return posError(f, in, "@%s takes %d arguments, the call passes %d", g.name, lo, len(in.args))
	}
	if k.kind == inM && len(in.args) == 1 && (in.ty.kind != tyPtr || in.dst < 0) {
		return posError(f, in, "@%s with one argument must return the result", g.name)
	}
	if isArrayCall(k.kind) {
		if t := in.args[0].ty; t == nil || t.kind != tyInt {
			return posError(f, in, "@%s: its count (the first argument) must be an integer", g.name)
		}
	}
	if !known {
		c.intrinsics[g] = k
	}
	switch k.kind {
	case inGate, inMz, inM, inReset, inQubitRelease:
		c.ops++
	case inMResetZ:
		c.ops += 2
	}
	// Constant qubit and result ids, against the limits.
	var qubits, results []*value
	switch k.kind {
	case inGate:
		for _, a := range in.args[:k.params] {
			if a.ty == nil || a.ty.kind != tyFloat {
				return posError(f, in, "@%s: an angle that is not a floating-point value", g.name)
			}
		}
		qubits = in.args[k.params:]
	case inMz, inMResetZ, inM:
		qubits, results = in.args[:1], in.args[1:]
	case inReset, inQubitRelease:
		qubits = in.args
	case inReadResult, inRecordResult, inResultEqual:
		results = in.args[:min(len(in.args), 2)]
		if k.kind == inRecordResult {
			results = in.args[:1]
		}
	case inQubitAllocate:
		c.allocs++
	case inQubitAllocateArray, inQubitArrayAllocate:
		if n, ok := constID(in.args[0]); ok && n >= 0 && n <= 1<<20 {
			c.allocs += int(n)
		} else {
			c.allocs++
		}
	}
	for _, q := range qubits {
		if id, ok := constID(q); ok {
			if id < 0 || maxQubits > 0 && id >= int64(maxQubits) || id >= maxResultID {
				return posError(f, in, "qubit %d is past the %d qubits the device has", id, maxQubits)
			}
			c.qubits = max(c.qubits, int(id)+1)
		}
	}
	for _, r := range results {
		if id, ok := constID(r); ok {
			if id < 0 || id >= maxResultID {
				return posError(f, in, "result %d is past the %d results a program may use", id, maxResultID)
			}
			c.results = max(c.results, int(id)+1)
		}
	}
	return nil
}

// constID is the id of a constant qubit or result operand: null is 0,
// inttoptr (i64 N to ptr) is N, through casts a few levels deep.
func constID(v *value) (int64, bool) {
	for range maxValueDepth {
		switch {
		case v == nil:
			return 0, false
		case v.kind == vNull || v.kind == vZero:
			return 0, true
		case v.kind == vInt:
			return v.i, true
		case v.kind == vExpr && (v.op == opIntToPtr || v.op == opBitcast) && len(v.args) == 1:
			v = v.args[0]
		default:
			return 0, false
		}
	}
	return 0, false
}

// layGlobal lays out a global's type and the types of the aggregates in
// its initialiser, which loads walk.
func (c *checked) layGlobal(g *global) error {
	if g == nil || g.ty == nil {
		return errorf("malformed global")
	}
	if err := c.lay.add(g.ty); err != nil {
		return errorf("@%s: %v", g.name, err)
	}
	stack := []*value{g.init}
	for len(stack) > 0 {
		v := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		if v == nil || v.kind != vAggregate {
			continue
		}
		if v.ty != nil {
			if err := c.lay.add(v.ty); err != nil {
				return errorf("@%s: %v", g.name, err)
			}
		}
		stack = append(stack, v.args...)
	}
	return nil
}

var opNames = map[opcode]string{
	opRet: "ret", opBr: "br", opSwitch: "switch", opUnreachable: "unreachable", opAdd: "add", opSub: "sub",
	opMul: "mul", opUDiv: "udiv", opSDiv: "sdiv", opURem: "urem", opSRem: "srem", opShl: "shl", opLShr: "lshr",
	opAShr: "ashr", opAnd: "and", opOr: "or", opXor: "xor", opFAdd: "fadd", opFSub: "fsub", opFMul: "fmul",
	opFDiv: "fdiv", opFRem: "frem", opFNeg: "fneg", opTrunc: "trunc", opZExt: "zext", opSExt: "sext",
	opFPToUI: "fptoui", opFPToSI: "fptosi", opUIToFP: "uitofp", opSIToFP: "sitofp", opFPTrunc: "fptrunc",
	opFPExt: "fpext", opPtrToInt: "ptrtoint", opIntToPtr: "inttoptr", opBitcast: "bitcast",
	opAddrSpaceCast: "addrspacecast", opICmp: "icmp", opFCmp: "fcmp", opPhi: "phi", opSelect: "select",
	opCall: "call", opAlloca: "alloca", opLoad: "load", opStore: "store", opGEP: "getelementptr",
	opFreeze: "freeze", opExtractValue: "extractvalue", opInsertValue: "insertvalue",
}

func opName(op opcode) string {
	if n, ok := opNames[op]; ok {
		return n
	}
	return fmt.Sprintf("opcode %d", op)
}
