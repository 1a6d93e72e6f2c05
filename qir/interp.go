package qir

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/qjobs/quantum/sim"
)

// The interpreter: it runs a checked module's entry point once, handing
// every quantum operation to a device — the tracer that writes a sim
// circuit, or a live state vector shot by shot. Calls push frames on a
// stack of its own (bounded), never Go's.

// device is what the interpreter does quantum work with.
type device interface {
	// gate applies op, a gate whose qubits it holds.
	gate(op sim.Op) error
	// measure measures qubit q into result r (an index into results).
	measure(q, r int) error
	reset(q int) error
	// read returns result r's value.
	read(r int) (bool, error)
	// record appends result r to the shot's output.
	record(r int) error
}

// errDynamic stops a trace: the program reads a measured result, so its
// path depends on the shot.
var errDynamic = errors.New("the program reads a measurement")

// maxFrames bounds the call depth, and maxSlots the values of all the
// frames together (a deep recursion of a function with many values).
const (
	maxFrames = 1024
	maxSlots  = 1 << 20
)

type frame struct {
	fn    *function
	slots []rv
	blk   *block
	pc    int
	// ret is the slot of the caller's frame that takes the return value,
	// -1 for none.
	ret int
}

// machine runs one shot at a time.
type machine struct {
	c      *checked
	dev    device
	mem    memory
	frames []frame
	slots  int // the values of the frames in use
	argBuf []rv
	// width is the qubits the device has; static ids are below
	// c.qubits, allocated ones from there up.
	width    int
	free     []int // released allocated qubits, reused first
	nextQ    int   // the next never-used allocated qubit
	usedQ    int   // one more than the highest qubit id a shot used
	results  int   // result ids in use: static ones, then allocated
	steps    int64
	maxSteps int64
	// nextCheck is the step count at which ctx is checked next.
	nextCheck int64
	ctx       context.Context
	// released marks the allocated qubits in free, by id: a handle kept
	// past its release is refused, not handed a qubit someone else has.
	released []bool
}

func newMachine(c *checked, width int, maxSteps int64) *machine {
	return &machine{c: c, width: width, maxSteps: maxSteps, mem: memory{lay: c.lay}}
}

// shot runs the entry point once on dev.
func (m *machine) shot(ctx context.Context, dev device) error {
	m.ctx, m.dev = ctx, dev
	m.mem.reset()
	m.frames = m.frames[:0]
	m.slots = 0
	m.free = m.free[:0]
	clear(m.released)
	m.nextQ = m.c.qubits
	m.usedQ = 0
	m.results = m.c.results
	m.steps, m.nextCheck = 0, 0
	if err := m.push(m.c.entry, nil, -1); err != nil {
		return err
	}
	return m.loop()
}

func (m *machine) push(f *function, args []rv, ret int) error {
	if len(m.frames) >= maxFrames {
		return fmt.Errorf("calls nested more than %d deep", maxFrames)
	}
	// A frame costs its size: clearing a large one in a loop is work.
	m.steps += int64(f.nslots) / 16
	if m.slots+f.nslots > maxSlots {
		return fmt.Errorf("calls nested too deep: their frames hold more than %d values", maxSlots)
	}
	m.slots += f.nslots
	// Frames are reused: their slots keep their capacity.
	if len(m.frames) < cap(m.frames) {
		m.frames = m.frames[:len(m.frames)+1]
	} else {
		m.frames = append(m.frames, frame{})
	}
	fr := &m.frames[len(m.frames)-1]
	if cap(fr.slots) >= f.nslots {
		fr.slots = fr.slots[:f.nslots]
		clear(fr.slots)
	} else {
		fr.slots = make([]rv, f.nslots)
	}
	copy(fr.slots, args)
	fr.fn, fr.blk, fr.pc, fr.ret = f, f.blocks[0], 0, ret
	return nil
}

// errAt wraps an error of a running instruction with its place.
func errAt(f *function, in *inst, err error) error {
	if errors.Is(err, errDynamic) || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, ErrStepLimit) || errors.Is(err, sim.ErrWorkLimit) || errors.Is(err, errTooWide) {
		return err
	}
	e := posError(f, in, "%s", err.Error())
	e.err = err
	return e
}

func (m *machine) loop() error {
	for len(m.frames) > 0 {
		fr := &m.frames[len(m.frames)-1]
		in := fr.blk.insts[fr.pc]
		if m.steps++; m.steps > m.maxSteps {
			return fmt.Errorf("%w: a shot ran more than %d instructions", ErrStepLimit, m.maxSteps)
		}
		if m.steps >= m.nextCheck {
			m.nextCheck = m.steps + 1024
			if err := m.ctx.Err(); err != nil {
				return err
			}
		}
		fr.pc++
		if err := m.exec(fr, in); err != nil {
			return errAt(fr.fn, in, err)
		}
	}
	return nil
}

func (m *machine) eval(fr *frame, v *value) (rv, error) {
	switch v.kind {
	case vLocal:
		return fr.slots[v.slot], nil
	case vInt:
		return rv{i: v.i}, nil
	case vFloat:
		return rv{f: v.f}, nil
	case vGlobal:
		id, err := m.mem.global(v.g)
		return rv{obj: id}, err
	case vExpr:
		return m.evalExpr(fr, v)
	}
	return rv{}, nil // null, undef, zero, a function's address, an aggregate
}

// evalExpr computes a constant expression: casts nest a level or two, a
// GEP's base is a global. The depth is bounded by checkValue's node bound.
func (m *machine) evalExpr(fr *frame, v *value) (rv, error) {
	if v.op == opGEP {
		return m.gep(fr, v.elemTy, v.args)
	}
	x, err := m.eval(fr, v.args[0])
	if err != nil {
		return rv{}, err
	}
	return cast(v.op, x, v.args[0].ty, v.ty)
}

func (m *machine) exec(fr *frame, in *inst) error {
	switch in.op {
	case opRet:
		var r rv
		if len(in.args) == 1 {
			var err error
			if r, err = m.eval(fr, in.args[0]); err != nil {
				return err
			}
		}
		ret := fr.ret
		m.slots -= fr.fn.nslots
		m.frames = m.frames[:len(m.frames)-1]
		if ret >= 0 && len(m.frames) > 0 {
			m.frames[len(m.frames)-1].slots[ret] = r
		}
		return nil
	case opBr:
		t := in.targets[0]
		if len(in.args) == 1 {
			c, err := m.eval(fr, in.args[0])
			if err != nil {
				return err
			}
			if c.i&1 == 0 {
				t = in.targets[1]
			}
		}
		return m.jump(fr, t)
	case opSwitch:
		c, err := m.eval(fr, in.args[0])
		if err != nil {
			return err
		}
		bits := 64
		if t := in.args[0].ty; t != nil && t.kind == tyInt {
			bits = t.bits
		}
		t := in.targets[0]
		scanned := len(in.consts)
		for i, k := range in.consts {
			if signExtend(k, bits) == c.i {
				t, scanned = in.targets[i+1], i
				break
			}
		}
		m.steps += int64(scanned) / 8 // a switch of many cases costs what it scans
		return m.jump(fr, t)
	case opUnreachable:
		return errors.New("reached unreachable")
	case opPhi:
		return errors.New("a phi reached other than on entry to its block") // jump evaluates them
	case opCall:
		return m.call(fr, in)
	case opAlloca:
		size := m.c.lay.size[in.elemTy] // laid out when checked
		if len(in.args) == 1 {
			n, err := m.eval(fr, in.args[0])
			if err != nil {
				return err
			}
			if n.i < 0 || size > 0 && n.i > maxTypeSize/size {
				return fmt.Errorf("alloca of %d elements", n.i)
			}
			size *= n.i
		}
		id, err := m.mem.alloc(size, nil)
		fr.slots[in.dst] = rv{obj: id}
		return err
	case opLoad:
		p, err := m.eval(fr, in.args[0])
		if err != nil {
			return err
		}
		v, err := m.mem.load(p, in.ty)
		fr.slots[in.dst] = v
		return err
	case opStore:
		v, err := m.eval(fr, in.args[0])
		if err != nil {
			return err
		}
		p, err := m.eval(fr, in.args[1])
		if err != nil {
			return err
		}
		return m.mem.store(p, v)
	case opGEP:
		v, err := m.gep(fr, in.elemTy, in.args)
		fr.slots[in.dst] = v
		return err
	case opSelect:
		c, err := m.eval(fr, in.args[0])
		if err != nil {
			return err
		}
		pick := in.args[2]
		if c.i&1 == 1 {
			pick = in.args[1]
		}
		v, err := m.eval(fr, pick)
		fr.slots[in.dst] = v
		return err
	case opFreeze:
		v, err := m.eval(fr, in.args[0])
		fr.slots[in.dst] = v
		return err
	}
	// Arithmetic, comparisons and casts.
	x, err := m.eval(fr, in.args[0])
	if err != nil {
		return err
	}
	var y rv
	if len(in.args) > 1 {
		if y, err = m.eval(fr, in.args[1]); err != nil {
			return err
		}
	}
	var r rv
	switch {
	case in.op == opICmp:
		r, err = icmp(in.pred, x, y, in.args[0].ty)
	case in.op == opFCmp:
		r, err = fcmp(in.pred, x.f, y.f)
	case in.op == opFNeg:
		r = rv{f: -x.f}
	case in.op >= opTrunc && in.op <= opAddrSpaceCast:
		r, err = cast(in.op, x, in.args[0].ty, in.ty)
	default:
		r, err = binary(in.op, x, y, in.ty)
	}
	fr.slots[in.dst] = r
	return err
}

// jump enters block t from the frame's current block, evaluating t's phis
// together, as LLVM does, from the values before any of them changes.
func (m *machine) jump(fr *frame, t *block) error {
	from := fr.blk
	n := 0
	for n < len(t.insts) && t.insts[n].op == opPhi {
		n++
	}
	if n > 0 {
		var buf [8]rv
		vals := buf[:0]
		for _, phi := range t.insts[:n] {
			i := -1
			for j, b := range phi.targets {
				if b == from {
					i = j
					break
				}
			}
			// The scan is charged: a phi of many incoming blocks in a loop
			// costs what it scans.
			m.steps += int64(max(i, len(phi.targets)/2)) / 8
			if i < 0 {
				return fmt.Errorf("phi in block %%%s has no value for the block it was entered from (%%%s)", t.name, from.name)
			}
			v, err := m.eval(fr, phi.args[i])
			if err != nil {
				return err
			}
			vals = append(vals, v)
		}
		for i, phi := range t.insts[:n] {
			fr.slots[phi.dst] = vals[i]
		}
		m.steps += int64(n)
	}
	fr.blk, fr.pc = t, n
	return nil
}

func (m *machine) gep(fr *frame, elem *typ, args []*value) (rv, error) {
	p, err := m.eval(fr, args[0])
	if err != nil {
		return rv{}, err
	}
	lay := m.c.lay
	t := elem
	for k, a := range args[1:] {
		idx, err := m.eval(fr, a)
		if err != nil {
			return rv{}, err
		}
		switch {
		case k == 0:
			if p.i, err = offset(p.i, lay.size[t], idx.i); err != nil {
				return rv{}, err
			}
		case t.kind == tyArray:
			t = t.elem
			if p.i, err = offset(p.i, lay.size[t], idx.i); err != nil {
				return rv{}, err
			}
		case t.kind == tyStruct:
			offs := lay.offsets[t]
			if idx.i < 0 || idx.i >= int64(len(offs)) {
				return rv{}, fmt.Errorf("struct field %d of %d", idx.i, len(offs))
			}
			p.i += offs[idx.i]
			t = t.fields[idx.i]
		default:
			return rv{}, fmt.Errorf("getelementptr into a %s", typeName(t))
		}
		if p.i > maxTypeSize || p.i < -maxTypeSize {
			return rv{}, fmt.Errorf("getelementptr to offset %d", p.i)
		}
	}
	return p, nil
}

// offset is base + size·index, refused past ±maxTypeSize before it could
// overflow.
func offset(base, size, index int64) (int64, error) {
	if index > maxTypeSize || index < -maxTypeSize || size > 0 && (index > maxTypeSize/size || index < -maxTypeSize/size) {
		return 0, fmt.Errorf("getelementptr index %d out of range", index)
	}
	return base + size*index, nil
}

func typeName(t *typ) string {
	switch t.kind {
	case tyInt:
		return fmt.Sprintf("i%d", t.bits)
	case tyFloat:
		return "floating-point value"
	case tyPtr:
		return "pointer"
	case tyOpaque:
		return "%" + t.name
	}
	return "value of this type"
}

func mask(x int64, bits int) uint64 {
	if bits <= 0 || bits >= 64 {
		return uint64(x)
	}
	return uint64(x) & (1<<bits - 1)
}

func intBits(t *typ) int {
	if t != nil && t.kind == tyInt {
		return t.bits
	}
	return 64
}

func binary(op opcode, x, y rv, t *typ) (rv, error) {
	bits := intBits(t)
	var r int64
	switch op {
	case opAdd:
		r = x.i + y.i
	case opSub:
		r = x.i - y.i
	case opMul:
		r = x.i * y.i
	case opUDiv, opURem:
		a, b := mask(x.i, bits), mask(y.i, bits)
		if b == 0 {
			return rv{}, errors.New("division by zero")
		}
		if op == opUDiv {
			r = int64(a / b)
		} else {
			r = int64(a % b)
		}
	case opSDiv, opSRem:
		if y.i == 0 {
			return rv{}, errors.New("division by zero")
		}
		if op == opSDiv {
			r = x.i / y.i
		} else {
			r = x.i % y.i
		}
	case opShl, opLShr, opAShr:
		n := mask(y.i, bits)
		switch {
		case n >= uint64(bits):
			r = 0 // poison in LLVM
		case op == opShl:
			r = x.i << n
		case op == opLShr:
			r = int64(mask(x.i, bits) >> n)
		default:
			r = x.i >> n
		}
	case opAnd:
		r = x.i & y.i
	case opOr:
		r = x.i | y.i
	case opXor:
		r = x.i ^ y.i
	case opFAdd:
		return rv{f: round(x.f+y.f, t)}, nil
	case opFSub:
		return rv{f: round(x.f-y.f, t)}, nil
	case opFMul:
		return rv{f: round(x.f*y.f, t)}, nil
	case opFDiv:
		return rv{f: round(x.f/y.f, t)}, nil
	case opFRem:
		return rv{f: round(math.Mod(x.f, y.f), t)}, nil
	default:
		return rv{}, fmt.Errorf("unsupported operation %s", opName(op))
	}
	return rv{i: signExtend(r, bits)}, nil
}

// round keeps a float's precision to its type's.
func round(f float64, t *typ) float64 {
	if t != nil && t.kind == tyFloat && t.bits == 32 {
		return float64(float32(f))
	}
	return f
}

func icmp(p pred, x, y rv, t *typ) (rv, error) {
	bits := intBits(t)
	if t != nil && t.kind != tyInt {
		// Pointers: the same object and offset are equal; order by offset.
		if x.obj != y.obj && p != icmpEQ && p != icmpNE {
			return rv{}, errors.New("an ordered comparison of pointers to different objects")
		}
		if x.obj != y.obj {
			return b2rv((p == icmpNE)), nil
		}
	}
	a, b := x.i, y.i
	ua, ub := mask(a, bits), mask(b, bits)
	var r bool
	switch p {
	case icmpEQ:
		r = ua == ub
	case icmpNE:
		r = ua != ub
	case icmpUGT:
		r = ua > ub
	case icmpUGE:
		r = ua >= ub
	case icmpULT:
		r = ua < ub
	case icmpULE:
		r = ua <= ub
	case icmpSGT:
		r = a > b
	case icmpSGE:
		r = a >= b
	case icmpSLT:
		r = a < b
	case icmpSLE:
		r = a <= b
	default:
		return rv{}, fmt.Errorf("icmp predicate %d", p)
	}
	return b2rv(r), nil
}

func fcmp(p pred, a, b float64) (rv, error) {
	uno := math.IsNaN(a) || math.IsNaN(b)
	var r bool
	switch p {
	case fcmpFalse:
	case fcmpTrue:
		r = true
	case fcmpORD:
		r = !uno
	case fcmpUNO:
		r = uno
	case fcmpOEQ, fcmpUEQ:
		r = a == b || p == fcmpUEQ && uno
	case fcmpOGT, fcmpUGT:
		r = a > b || p == fcmpUGT && uno
	case fcmpOGE, fcmpUGE:
		r = a >= b || p == fcmpUGE && uno
	case fcmpOLT, fcmpULT:
		r = a < b || p == fcmpULT && uno
	case fcmpOLE, fcmpULE:
		r = a <= b || p == fcmpULE && uno
	case fcmpONE:
		r = !uno && a != b
	case fcmpUNE:
		r = uno || a != b
	default:
		return rv{}, fmt.Errorf("fcmp predicate %d", p)
	}
	return b2rv(r), nil
}

// b2rv is an i1: true is −1, as i1 values are held sign-extended.
func b2rv(b bool) rv {
	if b {
		return rv{i: -1}
	}
	return rv{}
}

func cast(op opcode, x rv, from, to *typ) (rv, error) {
	tb := intBits(to)
	switch op {
	case opTrunc:
		return rv{i: signExtend(x.i, tb)}, nil
	case opZExt:
		return rv{i: signExtend(int64(mask(x.i, intBits(from))), tb)}, nil
	case opSExt:
		return rv{i: signExtend(x.i, tb)}, nil
	case opFPToSI, opFPToUI:
		if math.IsNaN(x.f) || math.IsInf(x.f, 0) || math.Abs(x.f) >= 1<<63 {
			return rv{}, nil // poison in LLVM
		}
		return rv{i: signExtend(int64(x.f), tb)}, nil
	case opSIToFP:
		return rv{f: round(float64(x.i), to)}, nil
	case opUIToFP:
		return rv{f: round(float64(mask(x.i, intBits(from))), to)}, nil
	case opFPTrunc, opFPExt:
		return rv{f: round(x.f, to)}, nil
	case opPtrToInt:
		if x.obj != 0 {
			return rv{}, errors.New("ptrtoint of a pointer to memory")
		}
		return rv{i: signExtend(x.i, tb)}, nil
	case opIntToPtr:
		return rv{i: int64(mask(x.i, intBits(from)))}, nil
	case opBitcast, opAddrSpaceCast:
		switch {
		case from != nil && to != nil && from.kind == tyInt && to.kind == tyFloat && to.bits == 64:
			return rv{f: math.Float64frombits(uint64(x.i))}, nil
		case from != nil && to != nil && from.kind == tyFloat && from.bits == 64 && to.kind == tyInt:
			return rv{i: int64(math.Float64bits(x.f))}, nil
		case from != nil && to != nil && from.kind == tyInt && to.kind == tyFloat && to.bits == 32:
			return rv{f: float64(math.Float32frombits(uint32(x.i)))}, nil
		case from != nil && to != nil && from.kind == tyFloat && from.bits == 32 && to.kind == tyInt:
			return rv{i: signExtend(int64(math.Float32bits(float32(x.f))), 32)}, nil
		}
		return x, nil
	}
	return rv{}, fmt.Errorf("unsupported cast %s", opName(op))
}
