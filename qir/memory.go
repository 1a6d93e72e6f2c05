package qir

import (
	"errors"
	"fmt"
)

// Memory of a running program: what alloca, the runtime's arrays and the
// globals give pointers into. A pointer is an object and a byte offset;
// an object holds the scalars stored into it by offset, which is all QIR
// programs do with memory (arrays of results, counters, qubit arrays).

// rv is a value at run time. Integers are held sign-extended from their
// width; a pointer with obj 0 is an address (a static qubit or result id,
// or null), with obj > 0 a place in memory object obj.
type rv struct {
	i   int64
	f   float64
	obj int32
}

// resultConst marks the results __quantum__rt__result_get_one and _zero
// return: obj −1, i the value they read.
const resultConst = -1

// object is one allocation.
type object struct {
	cells map[int64]rv
	// init is a global's initialiser, read where nothing was stored.
	init *value
	size int64 // bytes; loads and stores past it are errors
	// qubits marks an array of qubits the runtime allocated: the only
	// kind qubit_release_array takes.
	qubits bool
}

const (
	// maxObjects and maxCells bound a shot's memory: allocas in a loop
	// or stores to ever new offsets end in an error, not in exhausted
	// memory.
	maxObjects = 1 << 16
	maxCells   = 1 << 18
	// maxTypeSize bounds a type's size, so that offsets cannot overflow.
	maxTypeSize = 1 << 40
)

var errTypeSize = errors.New("a type larger than 1 TiB")

// maxLayoutTypes bounds the distinct types a module may lay out.
const maxLayoutTypes = 1 << 16

// layout is the sizes (with natural alignment) and struct field offsets of
// the types a program lays out in memory, worked out once when it is
// checked, so that a getelementptr at run time costs a lookup whatever its
// type, and so that a Program is read-only once compiled.
type layout struct {
	size    map[*typ]int64
	offsets map[*typ][]int64 // of struct fields
}

func newLayout() *layout {
	return &layout{size: map[*typ]int64{}, offsets: map[*typ][]int64{}}
}

// add works out root and the types inside it, without recursion: a type
// nests at most maxTypeDepth deep, and a malformed module's cycle is an
// error.
func (l *layout) add(root *typ) error {
	type item struct {
		t        *typ
		depth    int
		expanded bool
	}
	stack := []item{{t: root}}
	open := map[*typ]bool{}
	for len(stack) > 0 {
		top := len(stack) - 1
		t, depth := stack[top].t, stack[top].depth
		if t == nil {
			return errors.New("a malformed type")
		}
		if _, done := l.size[t]; done {
			stack = stack[:top]
			continue
		}
		if !stack[top].expanded {
			if depth > maxTypeDepth {
				return fmt.Errorf("a type nested more than %d deep", maxTypeDepth)
			}
			if open[t] {
				return errors.New("a type that contains itself")
			}
			open[t] = true
			stack[top].expanded = true
			switch t.kind {
			case tyArray:
				stack = append(stack, item{t: t.elem, depth: depth + 1})
			case tyStruct:
				for _, f := range t.fields {
					stack = append(stack, item{t: f, depth: depth + 1})
				}
			}
			continue
		}
		stack = stack[:top]
		delete(open, t)
		size, err := l.compute(t)
		if err != nil {
			return err
		}
		if len(l.size) >= maxLayoutTypes {
			return fmt.Errorf("more than %d types laid out in memory", maxLayoutTypes)
		}
		l.size[t] = size
	}
	return nil
}

// compute is t's size once its parts are known.
func (l *layout) compute(t *typ) (int64, error) {
	switch t.kind {
	case tyInt:
		switch {
		case t.bits <= 8:
			return 1, nil
		case t.bits <= 16:
			return 2, nil
		case t.bits <= 32:
			return 4, nil
		}
		return 8, nil
	case tyFloat:
		return int64(t.bits / 8), nil
	case tyPtr, tyOpaque:
		return 8, nil
	case tyArray:
		e := l.size[t.elem]
		if t.n < 0 || e > 0 && t.n > maxTypeSize/e {
			return 0, errTypeSize
		}
		return t.n * e, nil
	case tyStruct:
		offs := make([]int64, len(t.fields))
		var off int64
		for i, f := range t.fields {
			a := l.align(f)
			off = (off + a - 1) / a * a
			offs[i] = off
			if off += l.size[f]; off > maxTypeSize {
				return 0, errTypeSize
			}
		}
		l.offsets[t] = offs
		return off, nil
	case tyVoid, tyLabel, tyMeta, tyFunc:
		return 0, nil
	}
	return 0, errors.New("a malformed type")
}

// align is a simple natural alignment: a scalar's size, 8 for the rest.
func (l *layout) align(t *typ) int64 {
	if (t.kind == tyInt || t.kind == tyFloat) && l.size[t] > 0 {
		return l.size[t]
	}
	return 8
}

// memory is a shot's objects. Object 0 is not used: obj 0 is an address.
type memory struct {
	lay   *layout
	objs  []object
	cells int
	// globals maps a global to its object, made on first use.
	globals map[*global]int32
}

func (m *memory) reset() {
	m.objs = m.objs[:0]
	m.cells = 0
	clear(m.globals)
}

func (m *memory) alloc(size int64, init *value) (int32, error) {
	if len(m.objs) == 0 {
		m.objs = append(m.objs, object{}) // object 0
	}
	if len(m.objs) > maxObjects {
		return 0, fmt.Errorf("the program allocates more than %d objects in a shot", maxObjects)
	}
	m.objs = append(m.objs, object{size: size, init: init})
	return int32(len(m.objs) - 1), nil
}

func (m *memory) global(g *global) (int32, error) {
	if id, ok := m.globals[g]; ok {
		return id, nil
	}
	size, ok := m.lay.size[g.ty]
	if !ok {
		return 0, fmt.Errorf("@%s: a global whose type was not laid out", g.name)
	}
	id, err := m.alloc(size, g.init)
	if err != nil {
		return 0, err
	}
	if m.globals == nil {
		m.globals = map[*global]int32{}
	}
	m.globals[g] = id
	return id, nil
}

func (m *memory) object(p rv, what string) (*object, error) {
	if p.obj <= 0 || int(p.obj) >= len(m.objs) {
		if p.obj == 0 && p.i == 0 {
			return nil, fmt.Errorf("%s through a null pointer", what)
		}
		return nil, fmt.Errorf("%s through a pointer that is not to memory (address %d)", what, p.i)
	}
	o := &m.objs[p.obj]
	if p.i < 0 || p.i >= o.size {
		return nil, fmt.Errorf("%s at offset %d of an object of %d bytes", what, p.i, o.size)
	}
	return o, nil
}

// array is the object an array pointer (to its start) points to; an
// empty array is one too.
func (m *memory) array(p rv, what string) (*object, error) {
	if p.obj <= 0 || int(p.obj) >= len(m.objs) || p.i != 0 {
		return nil, fmt.Errorf("%s through a pointer that is not to an array", what)
	}
	return &m.objs[p.obj], nil
}

// span checks that n pointers fit in p's object from p on: the caller's
// memory a runtime call on an array of n qubits or results uses.
func (m *memory) span(p rv, n int64, what string) error {
	o, err := m.object(p, what)
	if err != nil {
		return err
	}
	if room := o.size - p.i; n > room/8 {
		return fmt.Errorf("%s: %d pointers do not fit in the %d bytes their array has from offset %d", what, n, room, p.i)
	}
	return nil
}

func (m *memory) load(p rv, t *typ) (rv, error) {
	o, err := m.object(p, "a load")
	if err != nil {
		return rv{}, err
	}
	if v, ok := o.cells[p.i]; ok {
		return v, nil
	}
	if o.init != nil {
		return m.lay.initAt(o.init, p.i)
	}
	return rv{}, nil
}

func (m *memory) store(p rv, v rv) error {
	o, err := m.object(p, "a store")
	if err != nil {
		return err
	}
	if o.cells == nil {
		o.cells = map[int64]rv{}
	}
	if _, ok := o.cells[p.i]; !ok {
		if m.cells++; m.cells > maxCells {
			return fmt.Errorf("the program stores to more than %d places in a shot", maxCells)
		}
	}
	o.cells[p.i] = v
	return nil
}

// initAt reads the scalar at offset off of a global's initialiser: a
// byte of a string, an element of a constant array. It walks the
// aggregate by offset, one level a step, without recursion.
func (l *layout) initAt(v *value, off int64) (rv, error) {
	for range maxTypeDepth {
		if v == nil {
			return rv{}, nil
		}
		switch v.kind {
		case vInt:
			return rv{i: v.i}, nil
		case vFloat:
			return rv{f: v.f}, nil
		case vNull, vZero, vUndef:
			return rv{}, nil
		case vExpr:
			if (v.op == opIntToPtr || v.op == opBitcast) && len(v.args) == 1 {
				id, ok := constID(v)
				if ok {
					return rv{i: id}, nil
				}
			}
			return rv{}, fmt.Errorf("a load of a constant expression in a global")
		case vAggregate:
			if v.bytes != nil {
				if off < 0 || off >= int64(len(v.bytes)) {
					return rv{}, nil
				}
				return rv{i: signExtend(int64(v.bytes[off]), 8)}, nil
			}
			if v.ty == nil {
				return rv{}, nil
			}
			switch v.ty.kind {
			case tyArray:
				es := l.size[v.ty.elem]
				if es == 0 {
					return rv{}, nil
				}
				i := off / es
				if i < 0 || i >= int64(len(v.args)) {
					return rv{}, nil
				}
				v, off = v.args[i], off-i*es
			case tyStruct:
				var next *value
				offs := l.offsets[v.ty]
				for j := min(len(offs), len(v.args)) - 1; j >= 0; j-- {
					if offs[j] <= off {
						next, off = v.args[j], off-offs[j]
						break
					}
				}
				if next == nil {
					return rv{}, nil
				}
				v = next
			default:
				return rv{}, nil
			}
		default:
			return rv{}, nil
		}
	}
	return rv{}, fmt.Errorf("a global's initialiser nested too deep")
}
