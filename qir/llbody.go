package qir

import (
	"math"
	"strconv"
	"strings"
)

// Function bodies and values of LLVM IR text.

// globalFixup is a use of @name before the module says what @name is.
type globalFixup struct {
	v   *value
	tok token
}

// parseBody reads { blocks } of a definition.
func (p *llParser) parseBody(f *function) {
	p.expect(tPunct, "{")
	p.fn = f
	p.blocks = map[string]*block{}
	p.named = p.named[:0]
	p.defined = map[string]bool{}
	p.fixups = p.fixups[:0]
	unnamed := 0 // params without a name or with a number take %0, %1, …
	for name := range p.locals {
		if _, err := strconv.Atoi(name); err == nil {
			unnamed++
		}
	}
	unnamed += len(f.ty.params) - len(p.locals)
	var cur *block
	for !p.isPunct("}") {
		if p.tok.kind == tEOF {
			p.fail(p.tok, "function @%s not closed", f.name)
		}
		// The common call first: a label would have to follow its word.
		if cur != nil {
			if in := p.fastCall(); in != nil {
				cur.insts = appendInst(cur.insts, in)
				continue
			}
		}
		// A label starts a block.
		if (p.tok.kind == tWord || p.tok.kind == tInt || p.tok.kind == tString) && p.ahead().kind == tPunct && p.ahead().text == ":" {
			lt := p.advance()
			p.advance()
			cur = p.defineBlock(lt.text, lt)
			continue
		}
		if p.tok.kind == tWord && strings.HasPrefix(p.tok.text, "#dbg_") && p.ahead().text == "(" {
			p.advance()
			p.skipBalanced()
			continue
		}
		if cur == nil {
			cur = p.defineBlock(strconv.Itoa(unnamed), p.tok)
		}
		in := p.parseInst()
		cur.insts = appendInst(cur.insts, in)
		if isTerminator(in.op) {
			cur = nil
			// The next block must have a label, or is numbered next.
			if !p.isPunct("}") && !(p.ahead().kind == tPunct && p.ahead().text == ":") {
				p.fail(p.tok, "an instruction after a terminator must start a labelled block")
			}
		}
	}
	p.advance()
	for _, b := range p.named {
		if !p.defined[b.name] {
			p.fail(p.tok, "function @%s branches to %%%s, which it does not define", f.name, b.name)
		}
	}
	for _, fx := range p.fixups {
		slot, ok := p.locals[fx.name]
		if !ok {
			p.fail(fx.tok, "%%%s is not defined in @%s", fx.name, f.name)
		}
		fx.v.slot = slot
	}
	if len(f.blocks) == 0 {
		p.fail(p.tok, "function @%s has no blocks", f.name)
	}
	p.fn = nil
}

// appendInst appends in to insts, doubling their room when it runs out:
// append grows a long slice by a quarter at a time, which for a block of
// a million instructions allocates five times its final size.
func appendInst(insts []*inst, in *inst) []*inst {
	if len(insts) == cap(insts) {
		grown := make([]*inst, len(insts), max(2*cap(insts), 8))
		copy(grown, insts)
		insts = grown
	}
	return append(insts, in)
}

// pos32 is a line or column as an inst holds it: one past 2^31 (in a
// source of more than 2 GiB) stays at the largest, not negative.
func pos32(n int) int32 { return int32(min(n, math.MaxInt32)) }

func isTerminator(op opcode) bool {
	return op == opRet || op == opBr || op == opSwitch || op == opUnreachable
}

// defineBlock starts the block name (created earlier if a branch named it).
func (p *llParser) defineBlock(name string, t token) *block {
	if p.defined[name] {
		p.fail(t, "block %%%s is defined twice", name)
	}
	p.defined[name] = true
	b := p.blockRef(name)
	p.fn.blocks = append(p.fn.blocks, b)
	return b
}

func (p *llParser) blockRef(name string) *block {
	if b, ok := p.blocks[name]; ok {
		return b
	}
	b := &block{name: name}
	p.blocks[name] = b
	p.named = append(p.named, b)
	return b
}

// parseLabel reads label %name.
func (p *llParser) parseLabel() *block {
	p.expect(tWord, "label")
	t := p.expectKind(tLocal, "a block name")
	return p.blockRef(t.text)
}

// unsupportedInsts are LLVM instructions QIR programs do not use.
var unsupportedInsts = map[string]bool{
	"invoke": true, "landingpad": true, "resume": true, "callbr": true, "indirectbr": true, "atomicrmw": true,
	"cmpxchg": true, "fence": true, "va_arg": true, "extractelement": true, "insertelement": true,
	"shufflevector": true, "catchswitch": true, "catchret": true, "cleanupret": true, "catchpad": true,
	"cleanuppad": true, "dso_local_equivalent": true, "blockaddress": true,
}

var binaryOps = map[string]opcode{
	"add": opAdd, "sub": opSub, "mul": opMul, "udiv": opUDiv, "sdiv": opSDiv, "urem": opURem, "srem": opSRem,
	"shl": opShl, "lshr": opLShr, "ashr": opAShr, "and": opAnd, "or": opOr, "xor": opXor,
	"fadd": opFAdd, "fsub": opFSub, "fmul": opFMul, "fdiv": opFDiv, "frem": opFRem,
}

var castOps = map[string]opcode{
	"trunc": opTrunc, "zext": opZExt, "sext": opSExt, "fptoui": opFPToUI, "fptosi": opFPToSI, "uitofp": opUIToFP,
	"sitofp": opSIToFP, "fptrunc": opFPTrunc, "fpext": opFPExt, "ptrtoint": opPtrToInt, "inttoptr": opIntToPtr,
	"bitcast": opBitcast, "addrspacecast": opAddrSpaceCast,
}

var icmpPreds = map[string]pred{
	"eq": icmpEQ, "ne": icmpNE, "ugt": icmpUGT, "uge": icmpUGE, "ult": icmpULT, "ule": icmpULE,
	"sgt": icmpSGT, "sge": icmpSGE, "slt": icmpSLT, "sle": icmpSLE,
}

var fcmpPreds = map[string]pred{
	"false": fcmpFalse, "oeq": fcmpOEQ, "ogt": fcmpOGT, "oge": fcmpOGE, "olt": fcmpOLT, "ole": fcmpOLE,
	"one": fcmpONE, "ord": fcmpORD, "uno": fcmpUNO, "ueq": fcmpUEQ, "ugt": fcmpUGT, "uge": fcmpUGE,
	"ult": fcmpULT, "ule": fcmpULE, "une": fcmpUNE, "true": fcmpTrue,
}

// Flags an instruction may carry that change nothing here.
var instFlags = map[string]bool{
	"nuw": true, "nsw": true, "exact": true, "disjoint": true, "nneg": true, "samesign": true, "inbounds": true,
	"nusw": true, "fast": true, "nnan": true, "ninf": true, "nsz": true, "arcp": true, "contract": true,
	"afn": true, "reassoc": true, "volatile": true,
}

func (p *llParser) skipFlags() {
	for p.tok.kind == tWord && instFlags[p.tok.text] {
		p.advance()
	}
	if p.isWord("inrange") && p.ahead().text == "(" {
		p.advance()
		p.skipBalanced()
	}
}

// parseInst reads one instruction.
func (p *llParser) parseInst() *inst {
	var result token
	if p.tok.kind == tLocal {
		result = p.advance()
		p.expect(tPunct, "=")
	}
	start := p.tok
	in := p.insts.new()
	in.dst, in.line, in.col = -1, pos32(start.line), pos32(start.col)
	if p.isWord("tail") || p.isWord("musttail") || p.isWord("notail") {
		p.advance()
	}
	op := p.expectKind(tWord, "an instruction")
	name := op.text
	switch {
	case unsupportedInsts[name]:
		p.fail(op, "unsupported instruction %q", name)
	case name == "ret":
		in.op = opRet
		if !p.accept(tWord, "void") {
			t := p.parseType()
			in.args = p.list(p.parseValue(t))
		}
	case name == "br":
		in.op = opBr
		if p.isWord("label") {
			in.targets = []*block{p.parseLabel()}
		} else {
			t := p.parseType()
			in.args = p.list(p.parseValue(t))
			p.expect(tPunct, ",")
			a := p.parseLabel()
			p.expect(tPunct, ",")
			in.targets = []*block{a, p.parseLabel()}
		}
	case name == "switch":
		in.op = opSwitch
		t := p.parseType()
		in.args = p.list(p.parseValue(t))
		p.expect(tPunct, ",")
		in.targets = []*block{p.parseLabel()}
		p.expect(tPunct, "[")
		for !p.isPunct("]") {
			ct := p.parseType()
			c := p.parseValue(ct)
			if c.kind != vInt {
				p.fail(p.tok, "a switch case must be an integer constant")
			}
			p.expect(tPunct, ",")
			in.consts = append(in.consts, c.i)
			in.targets = append(in.targets, p.parseLabel())
		}
		p.advance()
	case name == "unreachable":
		in.op = opUnreachable
	case binaryOps[name] != 0:
		in.op = binaryOps[name]
		p.skipFlags()
		in.ty = p.parseType()
		a := p.parseValue(in.ty)
		p.expect(tPunct, ",")
		in.args = p.list(a, p.parseValue(in.ty))
	case name == "fneg":
		in.op = opFNeg
		p.skipFlags()
		in.ty = p.parseType()
		in.args = p.list(p.parseValue(in.ty))
	case castOps[name] != 0:
		in.op = castOps[name]
		p.skipFlags()
		t := p.parseType()
		in.args = p.list(p.parseValue(t))
		p.expect(tWord, "to")
		in.ty = p.parseType()
	case name == "icmp" || name == "fcmp":
		in.op = opICmp
		preds := icmpPreds
		if name == "fcmp" {
			in.op, preds = opFCmp, fcmpPreds
		}
		p.skipFlags()
		pt := p.expectKind(tWord, "a predicate")
		pr, ok := preds[pt.text]
		if !ok {
			p.fail(pt, "unknown %s predicate %q", name, pt.text)
		}
		in.pred = pr
		t := p.parseType()
		a := p.parseValue(t)
		p.expect(tPunct, ",")
		in.args = p.list(a, p.parseValue(t))
		in.ty = typI1
	case name == "phi":
		in.op = opPhi
		p.skipFlags()
		in.ty = p.parseType()
		for {
			p.expect(tPunct, "[")
			in.args = append(in.args, p.parseValue(in.ty))
			p.expect(tPunct, ",")
			bt := p.expectKind(tLocal, "a block name")
			in.targets = append(in.targets, p.blockRef(bt.text))
			p.expect(tPunct, "]")
			if !p.isPunct(",") || p.ahead().kind == tMeta {
				break
			}
			p.advance()
		}
	case name == "select":
		in.op = opSelect
		p.skipFlags()
		ct := p.parseType()
		c := p.parseValue(ct)
		p.expect(tPunct, ",")
		in.ty = p.parseType()
		a := p.parseValue(in.ty)
		p.expect(tPunct, ",")
		bt := p.parseType()
		in.args = p.list(c, a, p.parseValue(bt))
	case name == "call":
		p.parseCall(in)
	case name == "alloca":
		in.op = opAlloca
		p.accept(tWord, "inalloca")
		in.elemTy = p.parseType()
		in.ty = typPtr
		if p.isPunct(",") && !p.isAttachmentAhead() {
			p.advance()
			ct := p.parseType()
			in.args = p.list(p.parseValue(ct))
		}
	case name == "load":
		in.op = opLoad
		if p.isWord("atomic") {
			p.fail(p.tok, "unsupported: atomic load")
		}
		p.skipFlags()
		in.ty = p.parseType()
		p.expect(tPunct, ",")
		pt := p.parseType()
		in.args = p.list(p.parseValue(pt))
	case name == "store":
		in.op = opStore
		if p.isWord("atomic") {
			p.fail(p.tok, "unsupported: atomic store")
		}
		p.skipFlags()
		vt := p.parseType()
		v := p.parseValue(vt)
		p.expect(tPunct, ",")
		pt := p.parseType()
		in.args = p.list(v, p.parseValue(pt))
	case name == "getelementptr":
		in.op = opGEP
		p.skipFlags()
		in.elemTy = p.parseType()
		in.ty = typPtr
		for p.isPunct(",") && !p.isAttachmentAhead() {
			p.advance()
			p.skipFlags()
			t := p.parseType()
			in.args = append(in.args, p.parseValue(t))
			if len(in.args) == 1 && t.kind == tyPtr && t.elem != nil {
				in.ty = &typ{kind: tyPtr, elem: typI8} // typed: the result's pointee is not tracked
			}
		}
		if len(in.args) == 0 {
			p.fail(start, "getelementptr without a pointer")
		}
	case name == "freeze":
		in.op = opFreeze
		in.ty = p.parseType()
		in.args = p.list(p.parseValue(in.ty))
	case name == "extractvalue" || name == "insertvalue":
		in.op = opExtractValue
		in.ty = p.parseType()
		in.args = p.list(p.parseValue(in.ty))
		if name == "insertvalue" {
			in.op = opInsertValue
			p.expect(tPunct, ",")
			et := p.parseType()
			in.args = append(in.args, p.parseValue(et))
		}
		for p.isPunct(",") && p.ahead().kind == tInt {
			p.advance()
			n, err := strconv.ParseInt(p.advance().text, 10, 64)
			if err != nil || n < 0 {
				p.fail(start, "bad index")
			}
			in.consts = append(in.consts, n)
		}
	default:
		p.fail(op, "unknown instruction %q", name)
	}
	p.finishInst(in, result)
	return in
}

// finishInst reads what may follow an instruction's operands (, !dbg !7)
// and gives its result a slot.
func (p *llParser) finishInst(in *inst, result token) {
	for p.accept(tPunct, ",") {
		p.skipAttachment()
	}
	if in.ty == nil {
		in.ty = typVoid
	}
	if in.ty.kind != tyVoid {
		in.dst = p.fn.nslots
		p.fn.nslots++
		if result.kind == tLocal {
			if _, dup := p.locals[result.text]; dup {
				p.fail(result, "%%%s is defined twice", result.text)
			}
			p.locals[result.text] = in.dst
		}
	} else if result.kind == tLocal {
		p.fail(result, "%%%s names an instruction without a value", result.text)
	}
}

// isAttachmentAhead reports whether the comma at tok begins an attachment
// (, align 8 or , !dbg !3) rather than another operand.
func (p *llParser) isAttachmentAhead() bool {
	n := p.ahead()
	return n.kind == tMeta || n.kind == tWord && (n.text == "align" || n.text == "addrspace")
}

// parseCall reads the rest of a call: [flags] [cc] [attrs] T [fnty] @f(args) [attrs].
func (p *llParser) parseCall(in *inst) {
	in.op = opCall
	p.skipFlags()
	for p.tok.kind == tWord && (linkageWords[p.tok.text] || p.tok.text == "cc") {
		if p.advance().text == "cc" {
			p.expectKind(tInt, "a calling convention")
		}
	}
	p.paramAttrs()
	t := p.parseType()
	if t.kind == tyFunc { // call void (ptr, ...) @f(…): the callee's type
		t = t.ret
	}
	in.ty = t
	callee := p.tok
	switch callee.kind {
	case tGlobal, tLocal:
		in.callee = p.parseValue(typPtr)
	default:
		p.fail(callee, "expected the function to call, found %s", callee)
	}
	p.expect(tPunct, "(")
	base := len(p.scratch)
	for !p.isPunct(")") {
		if len(p.scratch) > base {
			p.expect(tPunct, ",")
		}
		at := p.parseType()
		p.paramAttrs()
		if at.kind == tyMeta {
			p.skipMetaValue()
			p.scratch = append(p.scratch, p.constant(value{kind: vUndef, ty: typMeta}, nil))
			continue
		}
		p.scratch = append(p.scratch, p.parseValue(at))
	}
	in.args = p.list(p.scratch[base:]...)
	p.scratch = p.scratch[:base]
	p.advance()
	p.callAttrs()
}

// callAttrs skips what may follow a call's arguments: attributes, groups
// and operand bundles.
func (p *llParser) callAttrs() {
	for {
		switch {
		case p.tok.kind == tAttrRef:
			p.advance()
		case p.tok.kind == tWord && fnAttrWords[p.tok.text]:
			p.advance()
			if p.isPunct("(") {
				p.skipBalanced()
			}
		case p.isPunct("[") && p.ahead().kind == tString: // operand bundles
			p.skipBalanced()
		default:
			return
		}
	}
}

// maxValueDepth bounds the nesting of constant expressions and
// aggregates, which parseValue follows by recursion.
const maxValueDepth = 32

// parseValue reads a value of type t.
func (p *llParser) parseValue(t *typ) *value { return p.parseValueDepth(t, 0) }

func (p *llParser) parseValueDepth(t *typ, depth int) *value {
	if depth > maxValueDepth {
		p.fail(p.tok, "constant nested more than %d deep", maxValueDepth)
	}
	tok := p.tok
	switch tok.kind {
	case tLocal:
		p.advance()
		if p.fn == nil {
			p.fail(tok, "%%%s outside a function", tok.text)
		}
		v := p.newValue(value{kind: vLocal, ty: t})
		if slot, ok := p.locals[tok.text]; ok {
			v.slot = slot
		} else {
			p.fixups = append(p.fixups, fixup{v: v, name: tok.text, tok: tok})
		}
		return v
	case tGlobal:
		p.advance()
		return p.globalRef(tok, t)
	case tInt:
		p.advance()
		if t.kind == tyFloat {
			f, err := strconv.ParseFloat(tok.text, 64)
			if err != nil {
				p.fail(tok, "bad number %s", tok.text)
			}
			return p.newValue(value{kind: vFloat, ty: t, f: f})
		}
		if t.kind != tyInt {
			p.fail(tok, "an integer where the type is not an integer")
		}
		n, err := strconv.ParseInt(tok.text, 10, 64)
		if err != nil {
			u, uerr := strconv.ParseUint(tok.text, 10, 64)
			if uerr != nil {
				p.fail(tok, "integer %s out of range", tok.text)
			}
			n = int64(u)
		}
		return p.constant(value{kind: vInt, ty: t, i: signExtend(n, t.bits)}, nil)
	case tFloat:
		p.advance()
		if t.kind != tyFloat {
			p.fail(tok, "a floating-point number where the type is not floating-point")
		}
		return p.newValue(value{kind: vFloat, ty: t, f: p.parseFloat(tok)})
	case tCString:
		p.advance()
		return p.newValue(value{kind: vAggregate, ty: t, bytes: []byte(tok.text)})
	case tPunct:
		switch tok.text {
		case "[", "{":
			close := "]"
			if tok.text == "{" {
				close = "}"
			}
			p.advance()
			v := p.newValue(value{kind: vAggregate, ty: t})
			for !p.isPunct(close) {
				if len(v.args) > 0 {
					p.expect(tPunct, ",")
				}
				et := p.parseTypeDepth(depth + 1)
				v.args = append(v.args, p.parseValueDepth(et, depth+1))
			}
			p.advance()
			return v
		case "<":
			p.fail(tok, "unsupported: vector constants")
		}
	case tWord:
		switch w := tok.text; {
		case w == "true" || w == "false":
			p.advance()
			v := value{kind: vInt, ty: t}
			if w == "true" {
				v.i = signOne(t)
			}
			return p.constant(v, nil)
		case w == "null":
			p.advance()
			return p.constant(value{kind: vNull, ty: t}, nil)
		case w == "undef" || w == "poison":
			p.advance()
			return p.constant(value{kind: vUndef, ty: t}, nil)
		case w == "zeroinitializer":
			p.advance()
			return p.constant(value{kind: vZero, ty: t}, nil)
		case castOps[w] != 0:
			p.advance()
			p.expect(tPunct, "(")
			st := p.parseTypeDepth(depth + 1)
			x := p.parseValueDepth(st, depth+1)
			p.expect(tWord, "to")
			rt := p.parseTypeDepth(depth + 1)
			p.expect(tPunct, ")")
			if shared(x) {
				return p.constant(value{kind: vExpr, ty: rt, op: castOps[w]}, x)
			}
			return p.newValue(value{kind: vExpr, ty: rt, op: castOps[w], args: p.list(x)})
		case w == "getelementptr":
			p.advance()
			p.skipFlags()
			p.expect(tPunct, "(")
			v := p.newValue(value{kind: vExpr, ty: t, op: opGEP})
			v.elemTy = p.parseTypeDepth(depth + 1)
			for p.accept(tPunct, ",") {
				p.skipFlags()
				it := p.parseTypeDepth(depth + 1)
				v.args = append(v.args, p.parseValueDepth(it, depth+1))
			}
			p.expect(tPunct, ")")
			if len(v.args) == 0 {
				p.fail(tok, "getelementptr without a pointer")
			}
			return v
		case unsupportedInsts[w] || binaryOps[w] != 0 || w == "icmp" || w == "fcmp" || w == "select" || w == "extractvalue":
			p.fail(tok, "unsupported constant expression %q", w)
		}
	}
	p.fail(tok, "expected a value, found %s", tok)
	return nil
}

// signOne is the value true has in t: i1 values are held sign-extended,
// so its true is −1; other widths take true as 1.
func signOne(t *typ) int64 {
	if t.kind == tyInt && t.bits == 1 {
		return -1
	}
	return 1
}

// signExtend sign-extends the low bits of n.
func signExtend(n int64, bits int) int64 {
	if bits <= 0 || bits >= 64 {
		return n
	}
	s := uint(64 - bits)
	return n << s >> s
}

// parseFloat reads a decimal or LLVM hex float (0x… is the bits of a
// double, whatever the type).
func (p *llParser) parseFloat(tok token) float64 {
	s := tok.text
	neg := false
	if strings.HasPrefix(s, "-") {
		neg, s = true, s[1:]
	}
	if strings.HasPrefix(s, "0x") {
		h := s[2:]
		if h == "" || strings.IndexAny(h[:1], "KLMHR") == 0 {
			p.fail(tok, "unsupported floating-point literal %s", tok.text)
		}
		bits, err := strconv.ParseUint(h, 16, 64)
		if err != nil {
			p.fail(tok, "bad floating-point literal %s", tok.text)
		}
		f := math.Float64frombits(bits)
		if neg {
			f = -f
		}
		return f
	}
	f, err := strconv.ParseFloat(tok.text, 64)
	if err != nil {
		p.fail(tok, "bad floating-point literal %s", tok.text)
	}
	return f
}
