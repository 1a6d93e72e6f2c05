package qir

// The module representation that both readers produce: the LLVM text
// parser (ll.go) and the bitcode reader (bitcode*.go). Everything after
// reading (checks, the interpreter, lowering to sim) reads only this, so
// each semantic rule is written once. It keeps the part of LLVM IR that
// QIR programs use; a reader that meets anything else reports it as
// unsupported, naming it, rather than approximating it.

// typeKind says what a typ is.
type typeKind uint8

const (
	tyVoid   typeKind = iota + 1
	tyInt             // bits: 1 to 64 (wider is refused by the readers)
	tyFloat           // bits: 16 (half), 32 (float) or 64 (double); computed as float64
	tyPtr             // elem: the pointee of a typed pointer (%Qubit*), nil for an opaque ptr
	tyOpaque          // a named struct without a body: %Qubit, %Result, %Array, %String, %Tuple
	tyArray           // n elements of elem
	tyStruct          // fields; name is set for a named struct with a body
	tyFunc            // ret, params, vararg
	tyLabel           // a basic block
	tyMeta            // metadata, as an argument of an intrinsic
)

// typ is an LLVM type. Readers may share one *typ between uses.
type typ struct {
	kind   typeKind
	bits   int    // tyInt, tyFloat
	name   string // tyOpaque, named tyStruct
	elem   *typ   // tyPtr (nil: opaque), tyArray
	n      int64  // tyArray
	fields []*typ // tyStruct
	ret    *typ   // tyFunc
	params []*typ // tyFunc
	vararg bool   // tyFunc
}

// valueKind says what a value is.
type valueKind uint8

const (
	// vLocal is a parameter or an instruction's result in the function
	// being run: slot indexes the function's frame.
	vLocal valueKind = iota + 1
	// vInt is the integer i, sign-extended from ty.bits.
	vInt
	// vFloat is the number f.
	vFloat
	// vNull is a null pointer.
	vNull
	// vUndef is undef or poison: it reads as zero.
	vUndef
	// vZero is zeroinitializer (of any type).
	vZero
	// vGlobal is the address of the global g.
	vGlobal
	// vFunc is the address of the function fn.
	vFunc
	// vExpr is a constant expression: op (a cast or opGEP) over args,
	// with elemTy for opGEP (the source element type).
	vExpr
	// vAggregate is a constant array or struct: elems, or bytes for an
	// array of i8 written as a string (c"r0\00").
	vAggregate
)

// value is an operand: a local, a constant, or a global's address.
type value struct {
	kind   valueKind
	op     opcode // vExpr; shares kind's word, as inst's op and pred do
	ty     *typ
	slot   int     // vLocal
	i      int64   // vInt
	f      float64 // vFloat
	g      *global // vGlobal
	fn     *function
	elemTy *typ     // vExpr with opGEP
	args   []*value // vExpr operands; vAggregate elements
	bytes  []byte   // vAggregate of i8 given as a string
}

// global is a global variable: in QIR, the labels of output records and
// constant arrays.
type global struct {
	name     string
	ty       *typ   // the type of the value it holds
	init     *value // nil for an external global
	constant bool
}

// function is a defined or declared function.
type function struct {
	name string
	ty   *typ // tyFunc
	// attrs are the function's attributes, string attributes by key with
	// their value ("entry_point" → "", "qir_profiles" → "base_profile",
	// "required_num_qubits" → "2") and keyword attributes by name with "".
	attrs map[string]string
	// nslots is the size of a frame: parameters take slots 0..len(ty.params)-1,
	// then the results of instructions.
	nslots int
	blocks []*block // nil for a declaration; blocks[0] is the entry
	// line is where the function is defined, for messages: 0 for
	// bitcode (messages then name the function).
	line int
}

// block is a basic block.
type block struct {
	name  string
	insts []*inst
}

// opcode is an instruction's (or a constant expression's) operation.
type opcode uint8

const (
	opRet opcode = iota + 1
	opBr
	opSwitch
	opUnreachable

	// Binary operators: args[0] op args[1], of type ty.
	opAdd
	opSub
	opMul
	opUDiv
	opSDiv
	opURem
	opSRem
	opShl
	opLShr
	opAShr
	opAnd
	opOr
	opXor
	opFAdd
	opFSub
	opFMul
	opFDiv
	opFRem

	opFNeg

	// Casts: args[0] to ty.
	opTrunc
	opZExt
	opSExt
	opFPToUI
	opFPToSI
	opUIToFP
	opSIToFP
	opFPTrunc
	opFPExt
	opPtrToInt
	opIntToPtr
	opBitcast
	opAddrSpaceCast

	opICmp
	opFCmp
	opPhi
	opSelect
	opCall
	opAlloca
	opLoad
	opStore
	opGEP
	opFreeze
	opExtractValue
	opInsertValue
)

// pred is a comparison predicate, numbered as LLVM numbers them (and as
// bitcode stores them).
type pred uint8

const (
	fcmpFalse pred = 0
	fcmpOEQ   pred = 1
	fcmpOGT   pred = 2
	fcmpOGE   pred = 3
	fcmpOLT   pred = 4
	fcmpOLE   pred = 5
	fcmpONE   pred = 6
	fcmpORD   pred = 7
	fcmpUNO   pred = 8
	fcmpUEQ   pred = 9
	fcmpUGT   pred = 10
	fcmpUGE   pred = 11
	fcmpULT   pred = 12
	fcmpULE   pred = 13
	fcmpUNE   pred = 14
	fcmpTrue  pred = 15

	icmpEQ  pred = 32
	icmpNE  pred = 33
	icmpUGT pred = 34
	icmpUGE pred = 35
	icmpULT pred = 36
	icmpULE pred = 37
	icmpSGT pred = 38
	icmpSGE pred = 39
	icmpSLT pred = 40
	icmpSLE pred = 41
)

// inst is an instruction. Which fields matter depends on op:
//
//	opRet          args: [] or [value]
//	opBr           targets: [dest] (args empty) or [then, else] with args [cond]
//	opSwitch       args: [cond]; targets: [default, case...]; consts: the cases, parallel to targets[1:]
//	binary, casts  args: operands; ty: result type
//	opICmp, opFCmp args: [x, y]; pred
//	opPhi          args parallel to targets (the incoming blocks); ty
//	opSelect       args: [cond, x, y]
//	opCall         callee; args; ty: the return type
//	opAlloca       elemTy: the allocated type; args: [] or [count]
//	opLoad         ty: the loaded type; args: [ptr]
//	opStore        args: [value, ptr]
//	opGEP          elemTy: the source element type; args: [ptr, index...]
//	opExtractValue args: [aggregate]; consts: the indices
//	opInsertValue  args: [aggregate, element]; consts: the indices
type inst struct {
	op      opcode
	pred    pred // shares op's word: a module may hold millions of instructions
	ty      *typ // the result's type; tyVoid (or nil) for none
	elemTy  *typ
	dst     int // the frame slot of the result, -1 for none
	args    []*value
	targets []*block
	consts  []int64 // a switch's cases or an aggregate's indices: one field, never both
	callee  *value
	// line and col are where the instruction is, for messages; 0 for
	// bitcode. (int32: a module may hold millions of instructions.)
	line, col int32
}

// module is a whole QIR module.
type module struct {
	funcs   []*function
	globals []*global
	// flags are the module flags with integer values
	// ("qir_major_version" → 1, "dynamic_qubit_management" → 0).
	flags map[string]int64
}

// function looks a function up by name.
func (m *module) function(name string) *function {
	for _, f := range m.funcs {
		if f.name == name {
			return f
		}
	}
	return nil
}
