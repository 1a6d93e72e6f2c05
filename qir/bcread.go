package qir

import (
	binenc "encoding/binary"
	"errors"
	"fmt"
	"math"
	"strconv"
)

// The module of LLVM bitcode (LLVM 10 to 20): types, attributes, globals,
// functions, constants and function bodies, into the module form the text
// parser makes. Blocks it does not need are skipped by their length.

// Block ids.
const (
	bidBlockinfo  = 0
	bidModule     = 8
	bidParamattr  = 9
	bidAttrGroup  = 10
	bidConstants  = 11
	bidFunction   = 12
	bidTypes      = 17
	bidStrtab     = 23
	maxTypes      = 1 << 16
	maxValues     = 1 << 22
	fnAttrIndex   = 0xFFFFFFFF
	maxDeclBlocks = 1 << 20
)

type bcName struct{ off, size uint64 }

type bcReader struct {
	c       *cursor
	m       *module
	version uint64
	types   []*typ
	values  []*value // module-level: globals, functions, constants
	strtab  []byte
	// names of globals and functions, resolved once STRTAB (which follows
	// the module) is read.
	gnames  map[*global]bcName
	fnames  map[*function]bcName
	inits   map[*global]uint64 // a global's initialiser's value id
	bodies  []*function        // definitions, in the order their blocks come
	nbody   int
	groups  map[uint64]map[string]string // function-level attributes by group
	lists   [][]uint64                   // attribute lists: their groups
	fnAttrs map[*function]uint64         // a function's attribute list, 1-based
}

func readBitcode(data []byte) (m *module, err error) {
	if len(data) >= 20 && binenc.LittleEndian.Uint32(data) == 0x0B17C0DE {
		off, size := binenc.LittleEndian.Uint32(data[8:]), binenc.LittleEndian.Uint32(data[12:])
		if uint64(off)+uint64(size) > uint64(len(data)) {
			return nil, errorf("bitcode: the wrapper header points past the data")
		}
		data = data[off : off+size]
	}
	if len(data) < 4 || data[0] != 'B' || data[1] != 'C' || data[2] != 0xC0 || data[3] != 0xDE {
		return nil, errorf("not LLVM bitcode (no 'BC' 0xC0DE magic)")
	}
	r := &bcReader{c: newCursor(data[4:]), m: &module{flags: map[string]int64{}},
		gnames: map[*global]bcName{}, fnames: map[*function]bcName{}, inits: map[*global]uint64{},
		groups: map[uint64]map[string]string{}, fnAttrs: map[*function]uint64{}}
	defer func() {
		if err == nil {
			return
		}
		var e *Error
		if !errors.As(err, &e) {
			err = &Error{Msg: err.Error(), err: err}
		}
		m = nil
	}()
	var rec record
	sawModule := false
	for {
		kind, bid, err := r.c.next(&rec)
		if err != nil {
			return nil, err
		}
		switch kind {
		case entryEOF:
			if !sawModule {
				return nil, errors.New("bitcode: no module")
			}
			return r.m, r.finish()
		case entryRecord:
			return nil, errors.New("bitcode: a record outside any block")
		case entryEnter:
			switch bid {
			case bidModule:
				if sawModule {
					return nil, errors.New("bitcode: two modules")
				}
				sawModule = true
				if err := r.readModule(); err != nil {
					var fe *fnError
					if !errors.As(err, &fe) || len(r.c.stack) == 0 {
						return nil, err
					}
					// The function's name is in the string table after the
					// module: skip to it, and name the function.
					return nil, r.nameError(fe)
				}
			case bidStrtab:
				if err := r.readStrtab(); err != nil {
					return nil, err
				}
			case bidBlockinfo:
				if err := r.c.readBlockinfo(); err != nil {
					return nil, err
				}
			default:
				if err := r.c.skip(); err != nil {
					return nil, err
				}
			}
		case entryEnd:
			return nil, errors.New("bitcode: END_BLOCK at the top level")
		}
	}
}

func (r *bcReader) nameError(fe *fnError) error {
	e := &Error{Msg: fe.err.Error(), err: fe.err}
	// Without a string table (or with one that does not read) names are
	// empty and finish numbers the function as LLVM would print it.
	defer func() {
		if e.Func == "" && r.finish() == nil {
			e.Func = fe.f.name
		}
	}()
	mod := r.c.stack[0]
	r.c.stack, r.c.width, r.c.abbrevs = nil, 2, nil
	if mod.end > len(r.c.r.data)*8 {
		return e
	}
	r.c.r.pos = mod.end
	var rec record
	for {
		kind, bid, err := r.c.next(&rec)
		if err != nil || kind == entryEOF || kind != entryEnter {
			return e
		}
		if bid != bidStrtab {
			if r.c.skip() != nil {
				return e
			}
			continue
		}
		_ = r.readStrtab()
		return e
	}
}

func (r *bcReader) readStrtab() error {
	return r.c.eachRecord(func(rec *record) error {
		if rec.code == 1 {
			r.strtab = append([]byte(nil), rec.blob...)
		}
		return nil
	})
}

func (r *bcReader) name(n bcName) (string, error) {
	if n.off > uint64(len(r.strtab)) || n.size > uint64(len(r.strtab))-n.off {
		return "", errors.New("bitcode: a name past the string table")
	}
	return string(r.strtab[n.off : n.off+n.size]), nil
}

// finish names globals and functions, applies attributes and resolves
// global initialisers.
func (r *bcReader) finish() error {
	for g, n := range r.gnames {
		s, err := r.name(n)
		if err != nil {
			return err
		}
		g.name = s
	}
	for f, n := range r.fnames {
		s, err := r.name(n)
		if err != nil {
			return err
		}
		f.name = s
	}
	// Unnamed globals and functions are numbered in module order, globals
	// first, as LLVM's text form numbers them (@0, @1, …).
	n := 0
	for _, g := range r.m.globals {
		if g.name == "" {
			g.name = strconv.Itoa(n)
			n++
		}
	}
	for _, f := range r.m.funcs {
		if f.name == "" {
			f.name = strconv.Itoa(n)
			n++
		}
	}
	for f, li := range r.fnAttrs {
		if li == 0 || li > uint64(len(r.lists)) {
			continue
		}
		for _, gid := range r.lists[li-1] {
			for k, v := range r.groups[gid] {
				f.attrs[k] = v
			}
		}
	}
	return nil
}

func (r *bcReader) typ(id uint64) (*typ, error) {
	if id >= uint64(len(r.types)) {
		return nil, fmt.Errorf("bitcode: type %d is not defined", id)
	}
	return r.types[id], nil
}

func (r *bcReader) readModule() error {
	var rec record
	for {
		kind, bid, err := r.c.next(&rec)
		if err != nil {
			return err
		}
		switch kind {
		case entryEOF:
			return errTruncated
		case entryEnd:
			for g, id := range r.inits {
				if id >= uint64(len(r.values)) {
					return fmt.Errorf("bitcode: @%v's initialiser is value %d of %d", g.name, id, len(r.values))
				}
				g.init = r.values[id]
			}
			return nil
		case entryEnter:
			switch bid {
			case bidBlockinfo:
				err = r.c.readBlockinfo()
			case bidTypes:
				err = r.readTypes()
			case bidAttrGroup:
				err = r.readAttrGroups()
			case bidParamattr:
				err = r.readAttrLists()
			case bidConstants:
				var vals []*value
				vals, err = r.readConstants(r.values)
				r.values = append(r.values, vals...)
			case bidFunction:
				err = r.readFunction()
			default:
				err = r.c.skip()
			}
			if err != nil {
				return err
			}
		case entryRecord:
			if err := r.moduleRecord(&rec); err != nil {
				return err
			}
		}
	}
}

func (r *bcReader) moduleRecord(rec *record) error {
	ops := rec.ops
	switch rec.code {
	case 1: // VERSION
		if len(ops) > 0 {
			r.version = ops[0]
		}
		if r.version < 2 {
			return fmt.Errorf("bitcode: module version %d (LLVM before 5) is not supported", r.version)
		}
	case 7: // GLOBALVAR: [strtab off, size, type, isconst|explicit<<1, initid, linkage, …]
		if len(ops) < 6 {
			return errors.New("bitcode: a short GLOBALVAR record")
		}
		t, err := r.typ(ops[2])
		if err != nil {
			return err
		}
		if ops[3]&2 == 0 { // the type of a pointer to it, before explicit types
			if t.kind != tyPtr || t.elem == nil {
				return errors.New("bitcode: a global without its value type")
			}
			t = t.elem
		}
		g := &global{ty: t, constant: ops[3]&1 == 1}
		r.gnames[g] = bcName{ops[0], ops[1]}
		if ops[4] != 0 {
			r.inits[g] = ops[4] - 1
		}
		r.m.globals = append(r.m.globals, g)
		return r.addValue(&value{kind: vGlobal, ty: typPtr, g: g})
	case 8: // FUNCTION: [strtab off, size, type, cc, isproto, linkage, paramattr, …]
		if len(ops) < 7 {
			return errors.New("bitcode: a short FUNCTION record")
		}
		t, err := r.typ(ops[2])
		if err != nil {
			return err
		}
		if t.kind == tyPtr && t.elem != nil {
			t = t.elem
		}
		if t.kind != tyFunc {
			return errors.New("bitcode: a function whose type is not a function type")
		}
		f := &function{ty: t, attrs: map[string]string{}, nslots: len(t.params)}
		r.fnames[f] = bcName{ops[0], ops[1]}
		if ops[6] != 0 {
			r.fnAttrs[f] = ops[6]
		}
		if ops[4] == 0 {
			r.bodies = append(r.bodies, f)
		}
		r.m.funcs = append(r.m.funcs, f)
		return r.addValue(&value{kind: vFunc, ty: typPtr, fn: f})
	case 14, 15: // ALIAS, IFUNC
		return errors.New("unsupported: aliases and ifuncs")
	}
	return nil
}

func (r *bcReader) addValue(v *value) error {
	if len(r.values) >= maxValues {
		return errors.New("bitcode: too many values")
	}
	r.values = append(r.values, v)
	return nil
}

// readTypes reads TYPE_BLOCK_NEW. Types may refer to later ones (a struct
// field), so every entry gets its *typ first and is filled in place.
func (r *bcReader) readTypes() error {
	var structName string
	get := func(id uint64) (*typ, error) {
		if id >= maxTypes {
			return nil, errors.New("bitcode: type id out of range")
		}
		for uint64(len(r.types)) <= id {
			r.types = append(r.types, &typ{})
		}
		return r.types[id], nil
	}
	next := uint64(len(r.types))
	err := r.c.eachRecord(func(rec *record) error {
		ops := rec.ops
		if rec.code == 1 { // NUMENTRY
			return nil
		}
		if rec.code == 19 { // STRUCT_NAME
			b := make([]byte, len(ops))
			for i, c := range ops {
				b[i] = byte(c)
			}
			structName = string(b)
			return nil
		}
		t, err := get(next)
		if err != nil {
			return err
		}
		next++
		var nt typ
		switch rec.code {
		case 2:
			nt = typ{kind: tyVoid}
		case 3:
			nt = typ{kind: tyFloat, bits: 32}
		case 4:
			nt = typ{kind: tyFloat, bits: 64}
		case 10:
			nt = typ{kind: tyFloat, bits: 16}
		case 5:
			nt = typ{kind: tyLabel}
		case 16:
			nt = typ{kind: tyMeta}
		case 6: // OPAQUE
			nt, structName = typ{kind: tyOpaque, name: structName}, ""
		case 7: // INTEGER
			if len(ops) < 1 || ops[0] < 1 || ops[0] > 64 {
				return errors.New("unsupported type: integers of 1 to 64 bits only")
			}
			nt = typ{kind: tyInt, bits: int(ops[0])}
		case 8: // POINTER [pointee, addrspace]
			if len(ops) < 1 {
				return errors.New("bitcode: a short POINTER record")
			}
			e, err := get(ops[0])
			if err != nil {
				return err
			}
			nt = typ{kind: tyPtr, elem: e}
		case 25: // OPAQUE_POINTER
			nt = typ{kind: tyPtr}
		case 11: // ARRAY [n, elem]
			if len(ops) < 2 {
				return errors.New("bitcode: a short ARRAY record")
			}
			e, err := get(ops[1])
			if err != nil {
				return err
			}
			if ops[0] > 1<<40 {
				return errors.New("bitcode: an array type too large")
			}
			nt = typ{kind: tyArray, n: int64(ops[0]), elem: e}
		case 18, 20: // STRUCT_ANON, STRUCT_NAMED [packed, fields…]
			if len(ops) < 1 {
				return errors.New("bitcode: a short STRUCT record")
			}
			nt = typ{kind: tyStruct}
			if rec.code == 20 {
				nt.name, structName = structName, ""
			}
			for _, id := range ops[1:] {
				f, err := get(id)
				if err != nil {
					return err
				}
				nt.fields = append(nt.fields, f)
			}
		case 21: // FUNCTION [vararg, ret, params…]
			if len(ops) < 2 {
				return errors.New("bitcode: a short FUNCTION type")
			}
			ret, err := get(ops[1])
			if err != nil {
				return err
			}
			nt = typ{kind: tyFunc, vararg: ops[0] != 0, ret: ret}
			for _, id := range ops[2:] {
				p, err := get(id)
				if err != nil {
					return err
				}
				nt.params = append(nt.params, p)
			}
		case 12:
			return errors.New("unsupported type: vectors")
		default:
			return fmt.Errorf("unsupported type (type code %d)", rec.code)
		}
		*t = nt
		return nil
	})
	if err != nil {
		return err
	}
	for _, t := range r.types {
		if t.kind == 0 {
			return errors.New("bitcode: a type used but not defined")
		}
	}
	return nil
}

// readAttrGroups keeps each group's function-level string attributes
// (entry_point, qir_profiles, …) and the names of its enum ones.
func (r *bcReader) readAttrGroups() error {
	return r.c.eachRecord(func(rec *record) error {
		ops := rec.ops
		if rec.code != 3 || len(ops) < 2 || ops[1] != fnAttrIndex {
			return nil
		}
		g := map[string]string{}
		str := func(i int) (string, int) {
			var b []byte
			for ; i < len(ops) && ops[i] != 0; i++ {
				b = append(b, byte(ops[i]))
			}
			return string(b), i + 1
		}
	attrs:
		for i := 2; i < len(ops); {
			switch ops[i] {
			case 0, 6: // enum; type attribute without a type
				i += 2
			case 1, 5: // int; type attribute with its type
				i += 3
			case 3: // string key
				var k string
				k, i = str(i + 1)
				g[k] = ""
			case 4: // string key and value
				var k, v string
				k, i = str(i + 1)
				v, i = str(i)
				g[k] = v
			case 7: // constant range: attr, bit width, lower, upper
				i += 5
			case 8: // constant range list: attr, ranges, bit width, (lower, upper)…
				if i+2 >= len(ops) || ops[i+2] > uint64(len(ops)) {
					break attrs
				}
				i += 4 + 2*int(ops[i+2])
			default:
				break attrs // a kind this reader does not know: its length is not known either
			}
		}
		if len(r.groups) > 1<<16 {
			return errors.New("bitcode: too many attribute groups")
		}
		r.groups[ops[0]] = g
		return nil
	})
}

func (r *bcReader) readAttrLists() error {
	return r.c.eachRecord(func(rec *record) error {
		if rec.code == 2 {
			if len(r.lists) > 1<<16 {
				return errors.New("bitcode: too many attribute lists")
			}
			r.lists = append(r.lists, append([]uint64(nil), rec.ops...))
		}
		return nil
	})
}

// decodeSigned undoes the sign rotation of a signed VBR field.
func decodeSigned(v uint64) int64 {
	if v&1 == 0 {
		return int64(v >> 1)
	}
	if v == 1 {
		return math.MinInt64
	}
	return -int64(v >> 1)
}

var castCodes = [...]opcode{opTrunc, opZExt, opSExt, opFPToUI, opFPToSI, opUIToFP, opSIToFP, opFPTrunc, opFPExt,
	opPtrToInt, opIntToPtr, opBitcast, opAddrSpaceCast}

// readConstants reads a CONSTANTS block: each record one value, numbered
// after base (the values before it). Operands may refer forward within
// the block, so references are patched once it ends.
func (r *bcReader) readConstants(base []*value) ([]*value, error) {
	var out []*value
	var cur *typ
	type patch struct {
		slot **value
		id   uint64
	}
	var patches []patch
	ref := func(id uint64, into **value) {
		patches = append(patches, patch{into, id})
	}
	err := r.c.eachRecord(func(rec *record) error {
		ops := rec.ops
		if rec.code == 1 { // SETTYPE
			if len(ops) < 1 {
				return errors.New("bitcode: a short SETTYPE")
			}
			var err error
			if cur, err = r.typ(ops[0]); err != nil {
				return err
			}
			return nil
		}
		if cur == nil {
			return errors.New("bitcode: a constant before its type")
		}
		if len(base)+len(out) >= maxValues {
			return errors.New("bitcode: too many values")
		}
		v := &value{ty: cur}
		switch rec.code {
		case 2: // NULL: zero of any type
			switch cur.kind {
			case tyPtr:
				v.kind = vNull
			case tyInt:
				v.kind = vInt
			case tyFloat:
				v.kind = vFloat
			default:
				v.kind = vZero
			}
		case 3, 26: // UNDEF, POISON
			v.kind = vUndef
		case 4: // INTEGER
			if len(ops) < 1 || cur.kind != tyInt {
				return errors.New("bitcode: a malformed INTEGER")
			}
			v.kind, v.i = vInt, signExtend(decodeSigned(ops[0]), cur.bits)
		case 6: // FLOAT
			if len(ops) < 1 || cur.kind != tyFloat {
				return errors.New("bitcode: a malformed FLOAT")
			}
			v.kind = vFloat
			switch cur.bits {
			case 64:
				v.f = math.Float64frombits(ops[0])
			case 32:
				v.f = float64(math.Float32frombits(uint32(ops[0])))
			default:
				return errors.New("unsupported: half-precision constants")
			}
		case 7: // AGGREGATE
			v.kind = vAggregate
			v.args = make([]*value, len(ops))
			for i, id := range ops {
				ref(id, &v.args[i])
			}
		case 8, 9: // STRING, CSTRING
			v.kind = vAggregate
			v.bytes = make([]byte, len(ops), len(ops)+1)
			for i, c := range ops {
				v.bytes[i] = byte(c)
			}
			if rec.code == 9 {
				v.bytes = append(v.bytes, 0)
			}
		case 22: // DATA: the elements of an array of numbers
			if cur.kind != tyArray || cur.elem == nil {
				return errors.New("bitcode: DATA of a type that is not an array")
			}
			v.kind = vAggregate
			for _, x := range ops {
				e := &value{ty: cur.elem}
				switch cur.elem.kind {
				case tyInt:
					e.kind, e.i = vInt, signExtend(int64(x), cur.elem.bits)
				case tyFloat:
					e.kind, e.f = vFloat, math.Float64frombits(x)
					if cur.elem.bits == 32 {
						e.f = float64(math.Float32frombits(uint32(x)))
					}
				default:
					return errors.New("bitcode: DATA of other than numbers")
				}
				v.args = append(v.args, e)
			}
		case 11: // CE_CAST [opcode, type, value]
			if len(ops) < 3 || ops[0] >= uint64(len(castCodes)) {
				return errors.New("bitcode: a malformed constant cast")
			}
			if _, err := r.typ(ops[1]); err != nil {
				return err
			}
			v.kind, v.op = vExpr, castCodes[ops[0]]
			v.args = []*value{nil}
			ref(ops[2], &v.args[0])
		case 12, 20, 24, 31, 32: // the constant GEPs of LLVM 10 to 20
			if err := r.constGEP(rec.code, ops, v, ref); err != nil {
				return err
			}
		case 10, 13, 14, 15, 16, 17, 19, 25:
			return errors.New("unsupported constant expression")
		default:
			return fmt.Errorf("unsupported constant (code %d)", rec.code)
		}
		out = append(out, v)
		return nil
	})
	if err != nil {
		return nil, err
	}
	all := len(base) + len(out)
	for _, p := range patches {
		switch {
		case p.id < uint64(len(base)):
			*p.slot = base[p.id]
		case p.id < uint64(all):
			*p.slot = out[p.id-uint64(len(base))]
		default:
			return nil, fmt.Errorf("bitcode: a constant refers to value %d of %d", p.id, all)
		}
	}
	return out, nil
}

// constGEP reads a constant getelementptr:
//
//	12, 20 (LLVM ≤ 18): [pointee type]? then (type, value) pairs; 20 is inbounds
//	24: [pointee type, flags or inrange index, (type, value)…]
//	31 (LLVM 19+ with inrange): [pointee type, flags, range width, lo, hi, (type, value)…]
//	32 (LLVM 19+): [pointee type, flags, (type, value)…]
func (r *bcReader) constGEP(code uint64, ops []uint64, v *value, ref func(uint64, **value)) error {
	i := 0
	var elem uint64
	switch code {
	case 12, 20:
		if len(ops)%2 == 1 {
			elem, i = ops[0], 1
		} else {
			return errors.New("bitcode: a constant getelementptr without its source type")
		}
	case 24, 32:
		if len(ops) < 2 {
			return errors.New("bitcode: a short constant getelementptr")
		}
		elem, i = ops[0], 2
	case 31:
		if len(ops) < 5 {
			return errors.New("bitcode: a short constant getelementptr")
		}
		elem, i = ops[0], 3
		if ops[2] > 64 {
			return errors.New("unsupported: a wide inrange")
		}
		i += 2
	}
	t, err := r.typ(elem)
	if err != nil {
		return err
	}
	v.kind, v.op, v.elemTy = vExpr, opGEP, t
	if (len(ops)-i)%2 != 0 || len(ops) == i {
		return errors.New("bitcode: a malformed constant getelementptr")
	}
	n := (len(ops) - i) / 2
	v.args = make([]*value, n)
	for k := range n {
		if _, err := r.typ(ops[i+2*k]); err != nil {
			return err
		}
		ref(ops[i+2*k+1], &v.args[k])
	}
	return nil
}
