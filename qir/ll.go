package qir

import (
	"strconv"
	"strings"
)

// parseLL reads LLVM IR text: the subset QIR producers write, with both
// pointer syntaxes (ptr and %Qubit*). What it does not support it names,
// at its line and column.
func parseLL(src string) (*module, error) { return newLLParser(src).parse() }

func newLLParser(src string) *llParser {
	return &llParser{
		lex:     lexer{src: src, line: 1},
		m:       &module{flags: map[string]int64{}},
		types:   map[string]*typ{},
		globals: map[string]*global{},
		funcs:   map[string]*function{},
		groups:  map[string]map[string]string{},
		meta:    map[string][]metaField{},
	}
}

func (p *llParser) parse() (m *module, err error) {
	defer func() {
		if r := recover(); r != nil {
			e, ok := r.(*Error)
			if !ok {
				panic(r)
			}
			m, err = nil, e
		}
	}()
	p.advance()
	p.parseModule()
	return p.m, nil
}

type llParser struct {
	lex lexer
	tok token
	// peek is the token after tok, when hasPeek: the grammar never
	// looks further ahead.
	peek    token
	hasPeek bool
	m       *module

	types   map[string]*typ // named types, by name without %
	globals map[string]*global
	funcs   map[string]*function
	// fnGroups are the attribute groups each function refers to, applied
	// when the module is read (groups may come after their users).
	fnGroups map[*function][]string
	groups   map[string]map[string]string // attributes #N by N
	meta     map[string][]metaField       // numbered metadata nodes of the form !{i32 1, !"name", i32 2}
	flagRefs []string                     // the nodes !llvm.module.flags lists

	// Per function.
	fn      *function
	locals  map[string]int // slot by name
	blocks  map[string]*block
	named   []*block        // p.blocks in the order they were first named
	defined map[string]bool // blocks that have a label or are the entry
	fixups  []fixup         // uses of locals not yet defined
	// gfixups are the uses of @names, resolved when the module is read.
	gfixups []globalFixup

	// What the module makes once, and the slabs of the rest (llalloc.go).
	ints        [65]*typ
	half, float *typ
	ptrs        map[*typ]*typ
	consts      map[constKey]*value
	grefs       map[globalKey]*value
	insts       slab[inst]
	values      slab[value]
	lists       []*value
	scratch     []*value // operands being read, before list copies them
	// The fast path's memory of the types and ids it read last.
	lastNamed struct {
		name string
		t    *typ
	}
	lastPtr struct{ elem, t *typ }
	ids     [2]idCache
	lines   map[string]fastLine // by their text from call to the line's end

	// general turns the fast path off (llfast.go), for tests that compare
	// the two.
	general bool
}

type fixup struct {
	v    *value
	name string
	tok  token
}

type metaField struct {
	str   string
	num   int64
	isNum bool
}

// fail stops the parse with an error at t.
func (p *llParser) fail(t token, format string, args ...any) {
	e := p.lex.errAt(t.line, t.col, format, args...)
	panic(e)
}

func (p *llParser) advance() token {
	prev := p.tok
	if p.hasPeek {
		p.tok, p.hasPeek = p.peek, false
		return prev
	}
	t, err := p.lex.next()
	if err != nil {
		panic(err)
	}
	p.tok = t
	return prev
}

// ahead returns the token after the current one.
func (p *llParser) ahead() token {
	if !p.hasPeek {
		t, err := p.lex.next()
		if err != nil {
			panic(err)
		}
		p.peek, p.hasPeek = t, true
	}
	return p.peek
}

func (p *llParser) is(kind tokKind, text string) bool {
	return p.tok.kind == kind && p.tok.text == text
}

func (p *llParser) isWord(text string) bool  { return p.is(tWord, text) }
func (p *llParser) isPunct(text string) bool { return p.is(tPunct, text) }

func (p *llParser) accept(kind tokKind, text string) bool {
	if p.is(kind, text) {
		p.advance()
		return true
	}
	return false
}

func (p *llParser) expect(kind tokKind, text string) token {
	if !p.is(kind, text) {
		p.fail(p.tok, "expected %q, found %s", text, p.tok)
	}
	return p.advance()
}

func (p *llParser) expectKind(kind tokKind, what string) token {
	if p.tok.kind != kind {
		p.fail(p.tok, "expected %s, found %s", what, p.tok)
	}
	return p.advance()
}

// skipBalanced skips a bracketed group starting at the current opening
// bracket, counting depth without recursion.
func (p *llParser) skipBalanced() {
	depth := 0
	for {
		t := p.tok
		switch {
		case t.kind == tEOF:
			p.fail(t, "unclosed bracket")
		case t.kind == tPunct && strings.Contains("([{<", t.text):
			depth++
		case t.kind == tPunct && strings.Contains(")]}>", t.text):
			depth--
		}
		p.advance()
		if depth == 0 {
			return
		}
	}
}

func (p *llParser) parseModule() {
	p.fnGroups = map[*function][]string{}
	for p.tok.kind != tEOF {
		t := p.tok
		switch {
		case t.kind == tWord && (t.text == "source_filename" || t.text == "target"):
			p.advance()
			if p.tok.kind == tWord { // target datalayout / triple
				p.advance()
			}
			p.expect(tPunct, "=")
			p.expectKind(tString, "a string")
		case t.kind == tLocal:
			p.parseTypeDef()
		case t.kind == tGlobal:
			p.parseGlobal()
		case t.kind == tWord && t.text == "declare":
			p.advance()
			p.parseFunctionHeader(false)
		case t.kind == tWord && t.text == "define":
			p.advance()
			f := p.parseFunctionHeader(true)
			p.parseBody(f)
		case t.kind == tWord && t.text == "attributes":
			p.parseAttributeGroup()
		case t.kind == tMeta:
			p.parseMetadata()
		case t.kind == tWord && t.text == "module": // module asm "…"
			p.advance()
			p.expect(tWord, "asm")
			p.expectKind(tString, "a string")
		case t.kind == tWord && strings.HasPrefix(t.text, "$"): // $c = comdat any
			p.advance()
			p.expect(tPunct, "=")
			p.expect(tWord, "comdat")
			p.expectKind(tWord, "a comdat kind")
		default:
			p.fail(t, "unexpected %s at the top level", t)
		}
	}
	for _, fx := range p.gfixups {
		if f, ok := p.funcs[fx.tok.text]; ok {
			fx.v.kind, fx.v.fn = vFunc, f
		} else if g, ok := p.globals[fx.tok.text]; ok {
			fx.v.g = g
		} else {
			p.fail(fx.tok, "@%s is not defined", fx.tok.text)
		}
	}
	for f, refs := range p.fnGroups {
		for _, r := range refs {
			g, ok := p.groups[r]
			if !ok {
				p.fail(token{}, "function @%s uses attributes #%s, which the module does not define", f.name, r)
			}
			for k, v := range g {
				f.attrs[k] = v
			}
		}
	}
	for _, ref := range p.flagRefs {
		if fs := p.meta[ref]; len(fs) == 3 && !fs[1].isNum && fs[2].isNum {
			p.m.flags[fs[1].str] = fs[2].num
		}
	}
}

// parseTypeDef reads %Name = type opaque | type {…}.
func (p *llParser) parseTypeDef() {
	name := p.advance()
	p.expect(tPunct, "=")
	p.expect(tWord, "type")
	t := p.namedType(name.text)
	if p.accept(tWord, "opaque") {
		return
	}
	body := p.parseType()
	if body.kind != tyStruct {
		// %T = type i64: an alias.
		*t = *body
		return
	}
	t.kind, t.fields = tyStruct, body.fields
}

// namedType returns the type %name, created opaque on first use so that
// uses may come before the definition.
func (p *llParser) namedType(name string) *typ {
	if t, ok := p.types[name]; ok {
		return t
	}
	t := &typ{kind: tyOpaque, name: name}
	p.types[name] = t
	return t
}

var (
	typVoid   = &typ{kind: tyVoid}
	typLabel  = &typ{kind: tyLabel}
	typMeta   = &typ{kind: tyMeta}
	typI1     = &typ{kind: tyInt, bits: 1}
	typI8     = &typ{kind: tyInt, bits: 8}
	typDouble = &typ{kind: tyFloat, bits: 64}
	typPtr    = &typ{kind: tyPtr}
)

// maxTypeDepth bounds the nesting of a written type ([2 x [2 x …]]), which
// parseType follows by recursion.
const maxTypeDepth = 32

func (p *llParser) parseType() *typ { return p.parseTypeDepth(0) }

func (p *llParser) parseTypeDepth(depth int) *typ {
	if depth > maxTypeDepth {
		p.fail(p.tok, "type nested more than %d deep", maxTypeDepth)
	}
	t := p.tok
	var base *typ
	switch {
	case t.kind == tWord && len(t.text) > 1 && t.text[0] == 'i' && isDigit(t.text[1]):
		n, err := strconv.Atoi(t.text[1:])
		if err != nil || n < 1 || n > 64 {
			p.fail(t, "unsupported type %s: integers of 1 to 64 bits only", t.text)
		}
		p.advance()
		base = p.intType(n)
	case t.kind == tWord && t.text == "half":
		p.advance()
		if p.half == nil {
			p.half = &typ{kind: tyFloat, bits: 16}
		}
		base = p.half
	case t.kind == tWord && t.text == "float":
		p.advance()
		if p.float == nil {
			p.float = &typ{kind: tyFloat, bits: 32}
		}
		base = p.float
	case t.kind == tWord && t.text == "double":
		p.advance()
		base = typDouble
	case t.kind == tWord && t.text == "void":
		p.advance()
		base = typVoid
	case t.kind == tWord && t.text == "label":
		p.advance()
		base = typLabel
	case t.kind == tWord && t.text == "metadata":
		p.advance()
		base = typMeta
	case t.kind == tWord && t.text == "ptr":
		p.advance()
		p.addrSpace()
		base = typPtr
	case t.kind == tLocal:
		p.advance()
		base = p.namedType(t.text)
	case t.kind == tPunct && t.text == "[":
		p.advance()
		n := p.expectKind(tInt, "an array length")
		count, err := strconv.ParseInt(n.text, 10, 64)
		if err != nil || count < 0 || count > 1<<32 {
			p.fail(n, "array length %s out of range", n.text)
		}
		p.expect(tWord, "x")
		elem := p.parseTypeDepth(depth + 1)
		p.expect(tPunct, "]")
		base = &typ{kind: tyArray, n: count, elem: elem}
	case t.kind == tPunct && (t.text == "{" || t.text == "<" && p.ahead().kind == tPunct && p.ahead().text == "{"):
		packed := t.text == "<"
		p.advance()
		if packed {
			p.advance()
		}
		s := &typ{kind: tyStruct}
		for !p.isPunct("}") {
			if len(s.fields) > 0 {
				p.expect(tPunct, ",")
			}
			s.fields = append(s.fields, p.parseTypeDepth(depth+1))
		}
		p.advance()
		if packed {
			p.expect(tPunct, ">")
		}
		base = s
	case t.kind == tPunct && t.text == "<":
		p.fail(t, "unsupported type: vectors")
	default:
		p.fail(t, "expected a type, found %s", t)
	}
	// Suffixes: T* (a typed pointer) and T (params) (a function type).
	for {
		switch {
		case p.isWord("addrspace") && p.ahead().kind == tPunct && p.ahead().text == "(":
			p.addrSpace()
			p.expect(tPunct, "*")
			base = p.ptrTo(base)
		case p.isPunct("*"):
			p.advance()
			base = p.ptrTo(base)
		case p.isPunct("(") && base.kind != tyLabel && base.kind != tyMeta:
			p.advance()
			ft := &typ{kind: tyFunc, ret: base}
			for !p.isPunct(")") {
				if len(ft.params) > 0 || ft.vararg {
					p.expect(tPunct, ",")
				}
				if p.accept(tPunct, "...") {
					ft.vararg = true
					continue
				}
				ft.params = append(ft.params, p.parseTypeDepth(depth+1))
			}
			p.advance()
			base = ft
		default:
			return base
		}
	}
}

// addrSpace skips addrspace(N).
func (p *llParser) addrSpace() {
	if p.isWord("addrspace") {
		p.advance()
		p.expect(tPunct, "(")
		p.expectKind(tInt, "an address space")
		p.expect(tPunct, ")")
	}
}

// Keywords that may precede a global's or a function's type and mean
// nothing to a QIR program's run.
var linkageWords = map[string]bool{
	"private": true, "internal": true, "external": true, "weak": true, "weak_odr": true, "linkonce": true,
	"linkonce_odr": true, "common": true, "appending": true, "extern_weak": true, "available_externally": true,
	"dso_local": true, "dso_preemptable": true, "hidden": true, "protected": true, "default": true,
	"unnamed_addr": true, "local_unnamed_addr": true, "thread_local": true, "externally_initialized": true,
	"dllimport": true, "dllexport": true, "ccc": true, "fastcc": true, "coldcc": true,
}

// parseGlobal reads @name = [linkage…] global|constant T [init] [, …].
func (p *llParser) parseGlobal() {
	name := p.advance()
	p.expect(tPunct, "=")
	for p.tok.kind == tWord && linkageWords[p.tok.text] {
		p.advance()
	}
	if p.isWord("thread_local") && p.ahead().text == "(" {
		p.advance()
		p.skipBalanced()
	}
	p.addrSpace()
	if p.isWord("alias") || p.isWord("ifunc") {
		p.fail(p.tok, "unsupported: %s", p.tok.text)
	}
	g := &global{name: name.text}
	switch {
	case p.accept(tWord, "constant"):
		g.constant = true
	case p.accept(tWord, "global"):
	default:
		p.fail(p.tok, "expected global or constant, found %s", p.tok)
	}
	g.ty = p.parseType()
	if !p.isPunct(",") && !p.atTopLevelStart() {
		g.init = p.parseValue(g.ty)
	}
	for p.accept(tPunct, ",") {
		p.skipAttachment()
	}
	if _, dup := p.globals[g.name]; dup {
		p.fail(name, "@%s is defined twice", g.name)
	}
	p.globals[g.name] = g
	p.m.globals = append(p.m.globals, g)
}

// atTopLevelStart reports whether the current token starts a new
// top-level entity (so an external global has no initialiser).
func (p *llParser) atTopLevelStart() bool {
	t := p.tok
	return t.kind == tEOF || t.kind == tGlobal || t.kind == tMeta ||
		t.kind == tLocal && p.ahead().kind == tPunct && p.ahead().text == "=" ||
		t.kind == tWord && (t.text == "define" || t.text == "declare" || t.text == "attributes")
}

// skipAttachment skips what follows a comma after a global, a function
// header or an instruction: align N, section "x", comdat, !dbg !7 and
// the like.
func (p *llParser) skipAttachment() {
	switch {
	case p.tok.kind == tMeta:
		p.advance()
		p.skipMetaValue()
	case p.isWord("align") || p.isWord("section") || p.isWord("partition") || p.isWord("comdat") || p.isWord("code_model"):
		p.advance()
		if p.isPunct("(") {
			p.skipBalanced()
		} else if p.tok.kind == tInt || p.tok.kind == tString {
			p.advance()
		}
	default:
		p.fail(p.tok, "unexpected %s", p.tok)
	}
}

// skipMetaValue skips a metadata value: !7, !{…}, !"s", !DILocation(…).
func (p *llParser) skipMetaValue() {
	switch {
	case p.tok.kind == tMeta && p.tok.text == "" && p.ahead().text == "{":
		p.advance()
		p.skipBalanced()
	case p.tok.kind == tMeta && p.ahead().kind == tPunct && p.ahead().text == "(":
		p.advance()
		p.skipBalanced()
	case p.tok.kind == tMeta && p.tok.text == "" && p.ahead().kind == tString: // !"s"
		p.advance()
		p.advance()
	case p.tok.kind == tMeta:
		p.advance()
	case p.tok.kind == tString:
		p.advance()
	default:
		p.fail(p.tok, "expected metadata, found %s", p.tok)
	}
}

// paramAttrs skips the attributes of a parameter or a return value.
func (p *llParser) paramAttrs() {
	for {
		t := p.tok
		switch {
		case t.kind == tString: // "key"="value"
			p.advance()
			if p.accept(tPunct, "=") {
				p.expectKind(tString, "an attribute value")
			}
		case t.kind == tWord && (t.text == "align" || t.text == "alignstack") && p.ahead().kind == tInt:
			p.advance()
			p.advance()
		case t.kind == tWord && paramAttrWords[t.text]:
			p.advance()
			if p.isPunct("(") {
				p.skipBalanced()
			}
		default:
			return
		}
	}
}

var paramAttrWords = map[string]bool{
	"noundef": true, "nocapture": true, "readonly": true, "writeonly": true, "readnone": true, "nonnull": true,
	"signext": true, "zeroext": true, "inreg": true, "immarg": true, "returned": true, "noalias": true,
	"nofree": true, "nest": true, "swiftself": true, "swifterror": true, "dereferenceable": true,
	"dereferenceable_or_null": true, "byval": true, "byref": true, "sret": true, "inalloca": true,
	"preallocated": true, "elementtype": true, "align": true, "alignstack": true, "captures": true,
	"initializes": true, "range": true, "nofpclass": true, "allocalign": true, "allocptr": true,
	"noext": true, "dead_on_unwind": true, "writable": true, "noinit": true,
}

// parseFunctionHeader reads what follows define or declare up to the body.
func (p *llParser) parseFunctionHeader(define bool) *function {
	for p.tok.kind == tWord && linkageWords[p.tok.text] {
		p.advance()
	}
	if p.isWord("cc") {
		p.advance()
		p.expectKind(tInt, "a calling convention")
	}
	p.paramAttrs() // of the return value
	ret := p.parseType()
	nameTok := p.expectKind(tGlobal, "a function name")
	f := &function{name: nameTok.text, attrs: map[string]string{}, line: nameTok.line}
	ft := &typ{kind: tyFunc, ret: ret}
	p.expect(tPunct, "(")
	p.locals = map[string]int{}
	for !p.isPunct(")") {
		if len(ft.params) > 0 || ft.vararg {
			p.expect(tPunct, ",")
		}
		if p.accept(tPunct, "...") {
			ft.vararg = true
			continue
		}
		pt := p.parseType()
		p.paramAttrs()
		if p.tok.kind == tLocal {
			p.locals[p.tok.text] = len(ft.params)
			p.advance()
		}
		ft.params = append(ft.params, pt)
	}
	p.advance()
	f.ty = ft
	f.nslots = len(ft.params)
	// Function attributes, groups, and what else a header may hold.
	for {
		t := p.tok
		switch {
		case t.kind == tAttrRef:
			p.fnGroups[f] = append(p.fnGroups[f], t.text)
			p.advance()
		case t.kind == tString:
			k := p.advance().text
			v := ""
			if p.accept(tPunct, "=") {
				v = p.expectKind(tString, "an attribute value").text
			}
			f.attrs[k] = v
		case t.kind == tWord && (linkageWords[t.text] || fnAttrWords[t.text]):
			p.advance()
			if p.isPunct("(") {
				p.skipBalanced()
			}
		case t.kind == tWord && (t.text == "align" || t.text == "alignstack") && p.ahead().kind == tInt:
			p.advance()
			p.advance()
		case t.kind == tWord && (t.text == "section" || t.text == "gc" || t.text == "partition"):
			p.advance()
			p.expectKind(tString, "a string")
		case t.kind == tWord && (t.text == "comdat" || t.text == "addrspace"):
			p.advance()
			if p.isPunct("(") {
				p.skipBalanced()
			}
		case t.kind == tWord && (t.text == "personality" || t.text == "prefix" || t.text == "prologue"):
			p.fail(t, "unsupported: %s", t.text)
		case t.kind == tMeta && t.text != "" && define:
			p.advance()
			p.skipMetaValue()
		default:
			goto done
		}
	}
done:
	if old, dup := p.funcs[f.name]; dup {
		if old.blocks != nil || define {
			p.fail(nameTok, "@%s is defined twice", f.name)
		}
		return old
	}
	p.funcs[f.name] = f
	p.m.funcs = append(p.m.funcs, f)
	return f
}

var fnAttrWords = map[string]bool{
	"nounwind": true, "noinline": true, "alwaysinline": true, "optnone": true, "readnone": true, "readonly": true,
	"writeonly": true, "argmemonly": true, "norecurse": true, "willreturn": true, "nosync": true, "nofree": true,
	"mustprogress": true, "uwtable": true, "cold": true, "hot": true, "noreturn": true, "inlinehint": true,
	"minsize": true, "optsize": true, "speculatable": true, "convergent": true, "memory": true, "nocallback": true,
	"noduplicate": true, "nomerge": true, "nocf_check": true, "ssp": true, "sspreq": true, "sspstrong": true,
	"sanitize_address": true, "naked": true, "builtin": true, "nobuiltin": true, "returns_twice": true,
	"noimplicitfloat": true, "nounwind_": true, "allockind": true, "allocsize": true, "vscale_range": true,
	"uwtable_": true, "strictfp": true, "null_pointer_is_valid": true, "noprofile": true, "immarg": true,
	"inaccessiblememonly": true, "inaccessiblemem_or_argmemonly": true, "shadowcallstack": true,
}

// parseAttributeGroup reads attributes #N = { … }.
func (p *llParser) parseAttributeGroup() {
	p.advance()
	ref := p.expectKind(tAttrRef, "#N")
	p.expect(tPunct, "=")
	p.expect(tPunct, "{")
	g := map[string]string{}
	for !p.isPunct("}") {
		t := p.tok
		switch t.kind {
		case tString:
			p.advance()
			v := ""
			if p.accept(tPunct, "=") {
				v = p.expectKind(tString, "an attribute value").text
			}
			g[t.text] = v
		case tWord:
			p.advance()
			g[t.text] = ""
			if p.isPunct("(") {
				p.skipBalanced()
			} else if p.accept(tPunct, "=") {
				p.advance()
			} else if (t.text == "align" || t.text == "alignstack") && p.tok.kind == tInt {
				p.advance()
			}
		case tEOF:
			p.fail(t, "attribute group not closed")
		default:
			p.fail(t, "unexpected %s in an attribute group", t)
		}
	}
	p.advance()
	p.groups[ref.text] = g
}

// parseMetadata reads a metadata definition. Only !llvm.module.flags and
// the nodes it lists are kept; the rest is skipped.
func (p *llParser) parseMetadata() {
	name := p.advance()
	if name.text == "" {
		p.fail(name, "metadata without a name")
	}
	p.expect(tPunct, "=")
	p.accept(tWord, "distinct")
	if p.tok.kind != tMeta {
		p.fail(p.tok, "expected metadata, found %s", p.tok)
	}
	if p.tok.text != "" || p.ahead().text != "{" {
		p.skipMetaValue() // !DILocation(…) and the like
		return
	}
	p.advance()
	p.expect(tPunct, "{")
	var fields []metaField
	var refs []string
	for !p.isPunct("}") {
		if len(fields) > 0 || len(refs) > 0 {
			p.expect(tPunct, ",")
		}
		switch {
		case p.tok.kind == tMeta && p.tok.text == "" && p.ahead().kind == tString:
			p.advance()
			fields = append(fields, metaField{str: p.advance().text})
		case p.tok.kind == tMeta && p.tok.text != "":
			refs = append(refs, p.advance().text)
		case p.tok.kind == tMeta:
			p.skipMetaValue()
			fields = append(fields, metaField{})
		case p.tok.kind == tWord && p.tok.text == "null":
			p.advance()
			fields = append(fields, metaField{})
		default:
			t := p.parseType()
			v := p.parseValue(t)
			f := metaField{}
			if v.kind == vInt {
				f.num, f.isNum = v.i, true
			}
			fields = append(fields, f)
		}
	}
	p.advance()
	if name.text == "llvm.module.flags" {
		p.flagRefs = refs
		return
	}
	p.meta[name.text] = fields
}
