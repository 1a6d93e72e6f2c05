package qir

import (
	"errors"
	"fmt"
)

// Calls: to the module's own functions (a new frame) and to the QIR
// runtime and instruction set (done here, on the machine's device).

// errTooWide is a shot that holds more qubits at once than the program
// was given.
var errTooWide = errors.New("the program allocates more qubits than it was given")

// Results that are not ids: what result_get_zero and result_get_one
// return, and a result never measured (records as 0).
const (
	resultZero = -1
	resultOne  = -2
)

func (m *machine) call(fr *frame, in *inst) error {
	g := in.callee.fn
	m.steps += int64(len(in.args)) / 8 // a call of many arguments costs what it evaluates
	if g.blocks != nil {
		// push copies the arguments into the new frame: one buffer serves
		// every call.
		m.argBuf = m.argBuf[:0]
		for _, a := range in.args {
			v, err := m.eval(fr, a)
			if err != nil {
				return err
			}
			m.argBuf = append(m.argBuf, v)
		}
		return m.push(g, m.argBuf[:min(len(m.argBuf), len(g.ty.params))], in.dst)
	}
	var buf [4]rv
	args := buf[:0]
	for _, a := range in.args {
		v, err := m.eval(fr, a)
		if err != nil {
			return err
		}
		args = append(args, v)
	}
	r, err := m.intrinsic(g, m.c.intrinsics[g], args)
	if err == nil && in.dst >= 0 {
		fr.slots[in.dst] = r
	}
	return err
}

func (m *machine) qubit(v rv) (int, error) {
	if v.obj != 0 {
		return 0, errors.New("a qubit operand that is not a qubit")
	}
	if v.i < 0 || v.i >= int64(m.width) {
		return 0, fmt.Errorf("qubit %d is past the %d qubits the program was given", v.i, m.width)
	}
	if v.i < int64(len(m.released)) && m.released[v.i] {
		return 0, fmt.Errorf("qubit %d is used after its release", v.i)
	}
	m.usedQ = max(m.usedQ, int(v.i)+1)
	return int(v.i), nil
}

// result is a result operand's id, or resultZero / resultOne.
func (m *machine) result(v rv) (int, error) {
	switch {
	case v.obj == resultConst && v.i == 1:
		return resultOne, nil
	case v.obj == resultConst:
		return resultZero, nil
	case v.obj != 0:
		return 0, errors.New("a result operand that is not a result")
	case v.i < 0 || v.i >= maxResultID:
		return 0, fmt.Errorf("result %d is past the %d results a program may use", v.i, maxResultID)
	}
	return int(v.i), nil
}

func (m *machine) readResult(v rv) (bool, error) {
	r, err := m.result(v)
	switch {
	case err != nil:
		return false, err
	case r == resultOne:
		return true, nil
	case r == resultZero:
		return false, nil
	}
	return m.dev.read(r)
}

func (m *machine) newResult() (rv, error) {
	if m.results >= maxResultID {
		return rv{}, fmt.Errorf("more than %d results", maxResultID)
	}
	m.results++
	return rv{i: int64(m.results - 1)}, nil
}

func (m *machine) allocQubit() (int, error) {
	var q int
	if n := len(m.free); n > 0 {
		q, m.free = m.free[n-1], m.free[:n-1]
		m.released[q] = false
	} else {
		if m.nextQ >= m.width {
			return 0, fmt.Errorf("%w (%d)", errTooWide, m.width)
		}
		q = m.nextQ
		m.nextQ++
	}
	return q, nil
}

// releaseQubit resets q (qir-runner's semantics: a measurement, then a flip
// to |0⟩) and returns an allocated one to the pool. A qubit allocations
// have not reached yet (an id read from memory never written) is only
// reset: pooled, it would be handed out twice.
func (m *machine) releaseQubit(q int) error {
	if err := m.dev.reset(q); err != nil {
		return err
	}
	if q >= m.c.qubits && q < m.nextQ {
		m.free = append(m.free, q)
		if q >= len(m.released) {
			m.released = append(m.released, make([]bool, q+1-len(m.released))...)
		}
		m.released[q] = true
	}
	return nil
}

// available is how many qubits allocations may still take in this shot.
func (m *machine) available() int { return len(m.free) + m.width - m.nextQ }

// noAllocError writes false to an allocation's out_err flag (QIR 2.1),
// when the program passed one. An allocation that fails ends the shot
// instead (allocQubit), so the flag never reads true.
func (m *machine) noAllocError(g *function, p rv) error {
	if p.obj == 0 && p.i == 0 {
		return nil
	}
	if err := m.mem.store(p, rv{}); err != nil {
		return fmt.Errorf("@%s: its error flag: %w", g.name, err)
	}
	return nil
}

func (m *machine) intrinsic(g *function, k intrinsic, args []rv) (rv, error) {
	switch k.kind {
	case inGate:
		var pbuf [3]float64
		var qbuf [3]int
		params, qs := pbuf[:k.params], qbuf[:k.qubits]
		for i := range params {
			params[i] = args[i].f
		}
		for i := range qs {
			q, err := m.qubit(args[k.params+i])
			if err != nil {
				return rv{}, err
			}
			for _, o := range qs[:i] {
				if o == q {
					return rv{}, fmt.Errorf("@%s: qubit %d twice", g.name, q)
				}
			}
			qs[i] = q
		}
		op, err := k.std.Op(params, qs...)
		if err != nil {
			return rv{}, err
		}
		return rv{}, m.dev.gate(op)
	case inMz, inMResetZ, inM:
		q, err := m.qubit(args[0])
		if err != nil {
			return rv{}, err
		}
		var r int
		var out rv
		if len(args) == 1 { // m(q) → a new result
			if out, err = m.newResult(); err != nil {
				return rv{}, err
			}
			r = int(out.i)
		} else if r, err = m.result(args[1]); err != nil {
			return rv{}, err
		} else if r < 0 {
			return rv{}, errors.New("a measurement into a constant result")
		}
		if err := m.dev.measure(q, r); err != nil {
			return rv{}, err
		}
		if k.kind == inMResetZ {
			err = m.dev.reset(q)
		}
		return out, err
	case inReset:
		q, err := m.qubit(args[0])
		if err != nil {
			return rv{}, err
		}
		return rv{}, m.dev.reset(q)
	case inReadResult:
		b, err := m.readResult(args[0])
		return b2rv(b), err
	case inResultEqual:
		a, err := m.readResult(args[0])
		if err != nil {
			return rv{}, err
		}
		b, err := m.readResult(args[1])
		return b2rv(a == b), err
	case inResultOne:
		return rv{obj: resultConst, i: 1}, nil
	case inResultZero:
		return rv{obj: resultConst}, nil
	case inRecordResult:
		r, err := m.result(args[0])
		if err != nil {
			return rv{}, err
		}
		return rv{}, m.dev.record(r)
	case inRecordResultArray:
		return rv{}, m.recordResultArray(g, args)
	case inQubitArrayAllocate:
		return rv{}, m.qubitArrayAllocate(g, args)
	case inQubitArrayRelease:
		return rv{}, m.qubitArrayRelease(g, args)
	case inResultArrayAllocate:
		return rv{}, m.resultArrayAllocate(g, args)
	case inResultArrayRelease:
		return rv{}, m.resultArrayRelease(g, args)
	case inMzArray:
		return rv{}, m.mzArray(g, args)
	case inResultAllocate:
		r, err := m.newResult()
		if err == nil && len(args) == 1 {
			err = m.noAllocError(g, args[0])
		}
		return r, err
	case inQubitAllocate:
		q, err := m.allocQubit()
		if err == nil && len(args) == 1 {
			err = m.noAllocError(g, args[0])
		}
		return rv{i: int64(q)}, err
	case inQubitRelease:
		q, err := m.qubit(args[0])
		if err != nil {
			return rv{}, err
		}
		return rv{}, m.releaseQubit(q)
	case inQubitAllocateArray:
		n := args[0].i
		if n < 0 || n > int64(m.width) {
			return rv{}, fmt.Errorf("%w: an array of %d qubits (%d)", errTooWide, n, m.width)
		}
		id, err := m.mem.alloc(8*n, nil)
		if err != nil {
			return rv{}, err
		}
		m.mem.objs[id].qubits = true
		for i := range n {
			q, err := m.allocQubit()
			if err != nil {
				return rv{}, err
			}
			if err := m.mem.store(rv{obj: id, i: 8 * i}, rv{i: int64(q)}); err != nil {
				return rv{}, err
			}
		}
		return rv{obj: id}, nil
	case inQubitReleaseArray:
		o, err := m.mem.array(args[0], "a release of an array")
		if err != nil {
			return rv{}, err
		}
		if !o.qubits {
			return rv{}, errors.New("a release of an array that qubit_allocate_array did not make")
		}
		for off := int64(0); off < o.size; off += 8 {
			v := o.cells[off]
			q, err := m.qubit(v)
			if err != nil {
				return rv{}, err
			}
			if err := m.releaseQubit(q); err != nil {
				return rv{}, err
			}
		}
		return rv{}, nil
	case inArrayElementPtr:
		a := args[0]
		if _, err := m.mem.array(a, "an array element"); err != nil {
			return rv{}, err
		}
		i := args[1].i
		if i < 0 || i > maxTypeSize/8 {
			return rv{}, fmt.Errorf("array index %d", i)
		}
		a.i += 8 * i
		if _, err := m.mem.object(a, "an array element"); err != nil {
			return rv{}, err
		}
		return a, nil
	case inArraySize:
		o, err := m.mem.array(args[0], "an array's size")
		if err != nil {
			return rv{}, err
		}
		return rv{i: o.size / 8}, nil
	case inFail:
		return rv{}, errors.New("the program failed (__quantum__rt__fail)")
	}
	return rv{}, nil // no-ops, strings nobody reads, headers and classical records
}
