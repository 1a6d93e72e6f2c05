package qir

import (
	"errors"
	"fmt"
)

// Function bodies of LLVM bitcode.

// fnReader reads one function block. Values are numbered: the module's,
// then the parameters, then the function's constants, then the results of
// instructions; operands are relative to the next number.
type fnReader struct {
	r       *bcReader
	f       *function
	nm      int      // module values
	consts  []*value // the function's constants
	slotTy  []*typ   // the type of each frame slot known so far
	next    uint64   // the next value number
	blocks  []*block // declared
	cur     int      // the block being filled
	started bool     // an instruction was read: no constants after it
	refs    int      // one past the highest frame slot an operand names
}

func (r *bcReader) readFunction() error {
	if r.nbody >= len(r.bodies) {
		return errors.New("bitcode: a function body without a definition")
	}
	f := r.bodies[r.nbody]
	r.nbody++
	fr := &fnReader{r: r, f: f, nm: len(r.values)}
	fr.slotTy = append(fr.slotTy, f.ty.params...)
	fr.next = uint64(fr.nm + len(f.ty.params))
	err := fr.read()
	if err != nil {
		var e *Error
		if errors.As(err, &e) {
			return err
		}
		// The name is not known until the string table is read: name
		// the function when it is.
		return &fnError{f: f, err: err}
	}
	return nil
}

// fnError is an error inside a function, whose name the string table at
// the end of the file gives.
type fnError struct {
	f   *function
	err error
}

func (e *fnError) Error() string { return e.err.Error() }
func (e *fnError) Unwrap() error { return e.err }

func (fr *fnReader) read() error {
	var rec record
	for {
		kind, bid, err := fr.r.c.next(&rec)
		if err != nil {
			return err
		}
		switch kind {
		case entryEOF:
			return errTruncated
		case entryEnd:
			return fr.end()
		case entryEnter:
			if bid == bidConstants {
				if fr.started || fr.consts != nil {
					return errors.New("bitcode: function constants after its instructions")
				}
				base := make([]*value, 0, fr.nm+len(fr.f.ty.params))
				base = append(base, fr.r.values...)
				for i, t := range fr.f.ty.params {
					base = append(base, &value{kind: vLocal, slot: i, ty: t})
				}
				cs, err := fr.r.readConstants(base)
				if err != nil {
					return err
				}
				fr.consts = cs
				fr.next += uint64(len(cs))
				continue
			}
			if err := fr.r.c.skip(); err != nil {
				return err
			}
		case entryRecord:
			if err := fr.inst(&rec); err != nil {
				return err
			}
		}
	}
}

func (fr *fnReader) end() error {
	if len(fr.blocks) == 0 {
		return errors.New("bitcode: a function without blocks")
	}
	for _, b := range fr.blocks {
		if len(b.insts) == 0 {
			return errors.New("bitcode: a declared block without instructions")
		}
	}
	if fr.refs > len(fr.slotTy) {
		return errors.New("bitcode: a reference to a value that is never defined")
	}
	fr.f.blocks = fr.blocks
	fr.f.nslots = len(fr.slotTy)
	return nil
}

// value is the operand with absolute number id, of type t when it is a
// forward reference.
func (fr *fnReader) value(id uint64, t *typ) (*value, error) {
	nm, np, nc := uint64(fr.nm), uint64(len(fr.f.ty.params)), uint64(len(fr.consts))
	switch {
	case id < nm:
		return fr.r.values[id], nil
	case id < nm+np:
		return &value{kind: vLocal, slot: int(id - nm), ty: fr.slotTy[id-nm]}, nil
	case id < nm+np+nc:
		return fr.consts[id-nm-np], nil
	}
	slot := id - nm - nc
	if slot > maxValues {
		return nil, errors.New("bitcode: a value number out of range")
	}
	if slot < uint64(len(fr.slotTy)) {
		t = fr.slotTy[slot]
	}
	if t == nil {
		return nil, errors.New("bitcode: a forward reference without its type")
	}
	fr.refs = max(fr.refs, int(slot)+1)
	return &value{kind: vLocal, slot: int(slot), ty: t}, nil
}

// ops walks a record's operands.
type ops struct {
	fr *fnReader
	v  []uint64
	i  int
}

func (o *ops) more() bool { return o.i < len(o.v) }

func (o *ops) raw() (uint64, error) {
	if o.i >= len(o.v) {
		return 0, errors.New("bitcode: a short instruction record")
	}
	o.i++
	return o.v[o.i-1], nil
}

func (o *ops) typ() (*typ, error) {
	id, err := o.raw()
	if err != nil {
		return nil, err
	}
	return o.fr.r.typ(id)
}

// relative reads a value numbered relative to the next one.
func (o *ops) relative() (uint64, error) {
	rel, err := o.raw()
	if err != nil {
		return 0, err
	}
	return uint64(uint32(o.fr.next) - uint32(rel)), nil
}

// valueType reads a value and, for a forward reference, its type.
func (o *ops) valueType() (*value, error) {
	id, err := o.relative()
	if err != nil {
		return nil, err
	}
	var t *typ
	if id >= o.fr.next {
		if t, err = o.typ(); err != nil {
			return nil, err
		}
	}
	return o.fr.value(id, t)
}

// valueOf reads a value whose type the instruction already says.
func (o *ops) valueOf(t *typ) (*value, error) {
	id, err := o.relative()
	if err != nil {
		return nil, err
	}
	return o.fr.value(id, t)
}

func (fr *fnReader) block(id uint64) (*block, error) {
	if id >= uint64(len(fr.blocks)) {
		return nil, fmt.Errorf("bitcode: block %d of %d", id, len(fr.blocks))
	}
	return fr.blocks[id], nil
}

var binCodes = [...]opcode{opAdd, opSub, opMul, opUDiv, opSDiv, opURem, opSRem, opShl, opLShr, opAShr, opAnd, opOr, opXor}

// floatOf is a binary operator's float form: fadd for add on doubles.
func floatOf(op opcode) (opcode, bool) {
	switch op {
	case opAdd:
		return opFAdd, true
	case opSub:
		return opFSub, true
	case opMul:
		return opFMul, true
	case opSDiv, opUDiv:
		return opFDiv, true
	case opSRem, opURem:
		return opFRem, true
	}
	return 0, false
}

var unsupportedCodes = map[uint64]string{
	6: "extractelement", 7: "insertelement", 8: "shufflevector", 13: "invoke", 23: "va_arg", 31: "indirectbr",
	36: "fence", 37: "cmpxchg", 38: "atomicrmw", 39: "resume", 40: "landingpad", 41: "load atomic",
	42: "store atomic", 45: "store atomic", 46: "cmpxchg", 47: "landingpad", 48: "cleanupret", 49: "catchret",
	50: "catchpad", 51: "cleanuppad", 52: "catchswitch", 57: "callbr", 59: "atomicrmw",
}

func (fr *fnReader) inst(rec *record) error {
	o := &ops{fr: fr, v: rec.ops}
	switch rec.code {
	case 1: // DECLAREBLOCKS
		if len(fr.blocks) > 0 || len(rec.ops) < 1 || rec.ops[0] == 0 || rec.ops[0] > maxDeclBlocks {
			return errors.New("bitcode: a malformed DECLAREBLOCKS")
		}
		// Each block needs an instruction, and each instruction a few
		// bits: a count past that is a lie.
		if rec.ops[0] > uint64(fr.r.c.r.left()/16) {
			return errTruncated
		}
		fr.blocks = make([]*block, rec.ops[0])
		for i := range fr.blocks {
			fr.blocks[i] = &block{}
		}
		return nil
	case 33, 35, 55, 60, 61, 62, 63, 64, 65: // debug locations and records, operand bundles, blockaddress users
		return nil
	}
	if name, ok := unsupportedCodes[rec.code]; ok {
		return fmt.Errorf("unsupported instruction %q", name)
	}
	if fr.cur >= len(fr.blocks) {
		return errors.New("bitcode: an instruction past the declared blocks")
	}
	fr.started = true
	in := &inst{dst: -1, ty: typVoid}
	var err error
	switch rec.code {
	case 2: // BINOP [lhs, rhs, opcode, flags?]
		var a, b *value
		if a, err = o.valueType(); err == nil {
			b, err = o.valueOf(a.ty)
		}
		if err != nil {
			return err
		}
		code, err := o.raw()
		if err != nil || code >= uint64(len(binCodes)) {
			return errors.New("bitcode: a malformed BINOP")
		}
		in.op, in.ty, in.args = binCodes[code], a.ty, []*value{a, b}
		if a.ty.kind == tyFloat {
			fop, ok := floatOf(in.op)
			if !ok {
				return errors.New("bitcode: a bitwise operator on floats")
			}
			in.op = fop
		}
	case 3: // CAST [value, type, opcode]
		a, err := o.valueType()
		if err != nil {
			return err
		}
		t, err := o.typ()
		if err != nil {
			return err
		}
		code, err := o.raw()
		if err != nil || code >= uint64(len(castCodes)) {
			return errors.New("bitcode: a malformed CAST")
		}
		in.op, in.ty, in.args = castCodes[code], t, []*value{a}
	case 56: // UNOP [value, opcode]
		a, err := o.valueType()
		if err != nil {
			return err
		}
		if code, err := o.raw(); err != nil || code != 0 {
			return errors.New("unsupported unary operator")
		}
		in.op, in.ty, in.args = opFNeg, a.ty, []*value{a}
	case 58: // FREEZE
		a, err := o.valueType()
		if err != nil {
			return err
		}
		in.op, in.ty, in.args = opFreeze, a.ty, []*value{a}
	case 9, 28: // CMP, CMP2 [lhs, rhs, predicate]
		var a, b *value
		if a, err = o.valueType(); err == nil {
			b, err = o.valueOf(a.ty)
		}
		if err != nil {
			return err
		}
		p, err := o.raw()
		if err != nil {
			return err
		}
		switch {
		case p <= 15:
			in.op = opFCmp
		case p >= 32 && p <= 41:
			in.op = opICmp
		default:
			return fmt.Errorf("bitcode: comparison predicate %d", p)
		}
		in.pred, in.ty, in.args = pred(p), typI1, []*value{a, b}
	case 29: // VSELECT [true, false, condition]
		var a, b, c *value
		if a, err = o.valueType(); err == nil {
			if b, err = o.valueOf(a.ty); err == nil {
				c, err = o.valueType()
			}
		}
		if err != nil {
			return err
		}
		in.op, in.ty, in.args = opSelect, a.ty, []*value{c, a, b}
	case 10: // RET [value?]
		in.op = opRet
		if o.more() {
			a, err := o.valueType()
			if err != nil {
				return err
			}
			in.args = []*value{a}
		}
	case 11: // BR [then, else, cond] or [dest]
		in.op = opBr
		t, err := o.raw()
		if err != nil {
			return err
		}
		b, err := fr.block(t)
		if err != nil {
			return err
		}
		in.targets = []*block{b}
		if o.more() {
			e, err := o.raw()
			if err != nil {
				return err
			}
			eb, err := fr.block(e)
			if err != nil {
				return err
			}
			c, err := o.valueOf(typI1)
			if err != nil {
				return err
			}
			in.targets, in.args = append(in.targets, eb), []*value{c}
		}
	case 12: // SWITCH [type, cond, default, (value id, block)…]
		t, err := o.typ()
		if err != nil {
			return err
		}
		c, err := o.valueOf(t)
		if err != nil {
			return err
		}
		d, err := o.raw()
		if err != nil {
			return err
		}
		db, err := fr.block(d)
		if err != nil {
			return err
		}
		in.op, in.args, in.targets = opSwitch, []*value{c}, []*block{db}
		for o.more() {
			vid, err := o.raw()
			if err != nil {
				return err
			}
			cv, err := fr.value(vid, t)
			if err != nil {
				return err
			}
			if cv.kind != vInt {
				return errors.New("bitcode: a switch case that is not an integer constant")
			}
			bid, err := o.raw()
			if err != nil {
				return err
			}
			cb, err := fr.block(bid)
			if err != nil {
				return err
			}
			in.consts, in.targets = append(in.consts, cv.i), append(in.targets, cb)
		}
	case 15: // UNREACHABLE
		in.op = opUnreachable
	case 16: // PHI [type, (value, block)…, flags?]
		t, err := o.typ()
		if err != nil {
			return err
		}
		in.op, in.ty = opPhi, t
		n := (len(rec.ops) - 1) / 2
		for range n {
			raw, _ := o.raw()
			id := int64(fr.next) - decodeSigned(raw)
			if id < 0 {
				return errors.New("bitcode: a phi value number out of range")
			}
			v, err := fr.value(uint64(id), t)
			if err != nil {
				return err
			}
			bid, _ := o.raw()
			b, err := fr.block(bid)
			if err != nil {
				return err
			}
			in.args, in.targets = append(in.args, v), append(in.targets, b)
		}
	case 19: // ALLOCA [type, size type, size id, align and flags]
		if len(rec.ops) < 4 {
			return errors.New("bitcode: a short ALLOCA")
		}
		t, err := fr.r.typ(rec.ops[0])
		if err != nil {
			return err
		}
		if rec.ops[3]&(1<<6) == 0 { // the pointer's type, before explicit types
			if t.kind != tyPtr || t.elem == nil {
				return errors.New("bitcode: an alloca without its type")
			}
			t = t.elem
		}
		st, err := fr.r.typ(rec.ops[1])
		if err != nil {
			return err
		}
		n, err := fr.value(rec.ops[2], st) // absolute, not relative
		if err != nil {
			return err
		}
		in.op, in.elemTy, in.ty = opAlloca, t, typPtr
		if n.kind != vInt || n.i != 1 {
			in.args = []*value{n}
		}
	case 20: // LOAD [ptr, type, align, volatile]
		p, err := o.valueType()
		if err != nil {
			return err
		}
		var t *typ
		if len(rec.ops)-o.i == 3 {
			if t, err = o.typ(); err != nil {
				return err
			}
		} else if p.ty != nil && p.ty.kind == tyPtr && p.ty.elem != nil {
			t = p.ty.elem
		} else {
			return errors.New("bitcode: a load without its type")
		}
		in.op, in.ty, in.args = opLoad, t, []*value{p}
	case 44: // STORE [ptr, value, align, volatile]
		p, err := o.valueType()
		if err != nil {
			return err
		}
		v, err := o.valueType()
		if err != nil {
			return err
		}
		in.op, in.args = opStore, []*value{v, p}
	case 43: // GEP [flags, type, (value)…]
		if _, err := o.raw(); err != nil {
			return err
		}
		t, err := o.typ()
		if err != nil {
			return err
		}
		in.op, in.elemTy, in.ty = opGEP, t, typPtr
		for o.more() {
			a, err := o.valueType()
			if err != nil {
				return err
			}
			in.args = append(in.args, a)
		}
		if len(in.args) == 0 {
			return errors.New("bitcode: a getelementptr without a pointer")
		}
		if p := in.args[0].ty; p != nil && p.kind == tyPtr && p.elem != nil {
			in.ty = &typ{kind: tyPtr, elem: typI8}
		}
	case 34: // CALL [attrs, cc, fmf?, fnty?, callee, args…]
		if err := fr.call(o, in); err != nil {
			return err
		}
	case 26, 27:
		return errors.New("unsupported instruction \"extractvalue\"")
	default:
		return fmt.Errorf("unsupported instruction (code %d)", rec.code)
	}
	if in.ty == nil {
		in.ty = typVoid
	}
	if in.ty.kind != tyVoid {
		in.dst = len(fr.slotTy)
		fr.slotTy = append(fr.slotTy, in.ty)
		fr.next++
		if len(fr.slotTy) > maxValues {
			return errors.New("bitcode: too many values")
		}
	}
	b := fr.blocks[fr.cur]
	b.insts = append(b.insts, in)
	if isTerminator(in.op) {
		fr.cur++
	}
	return nil
}

const (
	callExplicitType = 1 << 15
	callFMF          = 1 << 17
)

func (fr *fnReader) call(o *ops, in *inst) error {
	if _, err := o.raw(); err != nil { // attributes
		return err
	}
	cc, err := o.raw()
	if err != nil {
		return err
	}
	if cc&callFMF != 0 {
		if _, err := o.raw(); err != nil {
			return err
		}
	}
	var ft *typ
	if cc&callExplicitType != 0 {
		if ft, err = o.typ(); err != nil {
			return err
		}
	}
	callee, err := o.valueType()
	if err != nil {
		return err
	}
	if ft == nil {
		if callee.kind == vFunc && callee.fn != nil {
			ft = callee.fn.ty
		} else if callee.ty != nil && callee.ty.kind == tyPtr && callee.ty.elem != nil {
			ft = callee.ty.elem
		}
	}
	if ft == nil || ft.kind != tyFunc {
		return errors.New("bitcode: a call without its function type")
	}
	in.op, in.callee, in.ty = opCall, callee, ft.ret
	for _, pt := range ft.params {
		var a *value
		if pt.kind == tyLabel {
			return errors.New("unsupported: a label argument")
		}
		if a, err = o.valueOf(pt); err != nil {
			return err
		}
		if pt.kind == tyMeta {
			a = &value{kind: vUndef, ty: typMeta}
		}
		in.args = append(in.args, a)
	}
	for o.more() { // varargs carry their types
		a, err := o.valueType()
		if err != nil {
			return err
		}
		in.args = append(in.args, a)
	}
	return nil
}
