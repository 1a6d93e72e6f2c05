package qir

// Where the LLVM text parser puts what it builds. A module of a million
// instructions would otherwise be millions of small allocations, and the
// collector would spend as long walking them as the parser spends making
// them: instructions, operands and operand lists are cut from slabs, and
// types and constants that recur (i64, %Qubit*, inttoptr (i64 3 to
// %Qubit*), the address of a declared function) are made once per module.
// Nothing the parser shares is changed after it is made, except a global
// reference, which the end of the module resolves for all its uses at once.

// slab hands out elements of chunks that grow from a few to a bound, so
// that a small module stays small and a large one is a few large
// allocations.
type slab[T any] struct{ buf []T }

const (
	slabFirst = 16
	slabMax   = 1024
)

func (s *slab[T]) new() *T {
	if len(s.buf) == cap(s.buf) {
		s.buf = make([]T, 0, min(max(2*cap(s.buf), slabFirst), slabMax))
	}
	s.buf = s.buf[:len(s.buf)+1]
	return &s.buf[len(s.buf)-1]
}

// list copies vs into a slab of operand lists. The list's capacity is its
// length: an append to it copies rather than overwrite a neighbour.
func (p *llParser) list(vs ...*value) []*value {
	n := len(vs)
	if n == 0 {
		return nil
	}
	if n > slabMax/4 {
		return append([]*value(nil), vs...)
	}
	if cap(p.lists)-len(p.lists) < n {
		p.lists = make([]*value, 0, min(max(2*cap(p.lists), slabFirst), slabMax))
	}
	i := len(p.lists)
	p.lists = append(p.lists, vs...)
	return p.lists[i : i+n : i+n]
}

// newValue returns a value of the slab, set to v.
func (p *llParser) newValue(v value) *value {
	x := p.values.new()
	*x = v
	return x
}

// constKey identifies a constant the module makes once: a kind and a type,
// with an integer's value or a cast's operation and operand.
type constKey struct {
	kind valueKind
	op   opcode
	ty   *typ
	i    int64
	x    *value
}

// constant returns the value v, one for the module, for constants that
// carry nothing but constKey's fields; x is a cast's operand.
func (p *llParser) constant(v value, x *value) *value {
	k := constKey{kind: v.kind, op: v.op, ty: v.ty, i: v.i, x: x}
	if c, ok := p.consts[k]; ok {
		return c
	}
	if p.consts == nil {
		p.consts = map[constKey]*value{}
	}
	if x != nil {
		v.args = p.list(x)
	}
	c := p.newValue(v)
	p.consts[k] = c
	return c
}

// shared reports whether v is one value for the module (a constant or a
// global reference), so that a cast of it can be one too.
func shared(v *value) bool {
	switch v.kind {
	case vInt, vNull, vUndef, vZero, vGlobal:
		return true
	}
	return false
}

// intType returns iN.
func (p *llParser) intType(bits int) *typ {
	if p.ints[bits] == nil {
		p.ints[bits] = &typ{kind: tyInt, bits: bits}
	}
	return p.ints[bits]
}

// ptrTo returns the typed pointer elem*.
func (p *llParser) ptrTo(elem *typ) *typ {
	if t, ok := p.ptrs[elem]; ok {
		return t
	}
	if p.ptrs == nil {
		p.ptrs = map[*typ]*typ{}
	}
	t := &typ{kind: tyPtr, elem: elem}
	p.ptrs[elem] = t
	return t
}

type globalKey struct {
	name string
	ty   *typ
}

// globalRef returns the reference to @name of type t, made at its first
// use, which is where an error says the name is not defined.
func (p *llParser) globalRef(tok token, t *typ) *value {
	k := globalKey{tok.text, t}
	if v, ok := p.grefs[k]; ok {
		return v
	}
	if p.grefs == nil {
		p.grefs = map[globalKey]*value{}
	}
	v := p.newValue(value{kind: vGlobal, ty: t})
	p.grefs[k] = v
	p.gfixups = append(p.gfixups, globalFixup{v: v, tok: tok})
	return v
}
