package qir

import "fmt"

// QIR 2.1's arrays of qubits and results (the Adaptive profile's bullet
// 11 and the specification's Memory_Management.md): the program owns the
// memory, an alloca of [N x ptr] as MQT writes it, and the runtime writes
// N qubit or result pointers into it or reads N back. Each call checks its
// count and the caller's memory before it allocates or touches anything,
// and costs a step an element, so no count can take more than the bounds
// allow or run past the step limit unchecked.

// isArrayCall reports whether k takes a count and an array of pointers.
func isArrayCall(k intrinsicKind) bool {
	switch k {
	case inQubitArrayAllocate, inQubitArrayRelease, inResultArrayAllocate, inResultArrayRelease, inMzArray,
		inRecordResultArray:
		return true
	}
	return false
}

// arrayCount checks an array call's count n, of what ("qubits"): not
// negative, at most limit (whose says whose limit it is), and charged to
// the shot's steps, one an element. With n > 0, each of arrays must have
// room for n pointers.
func (m *machine) arrayCount(g *function, n int64, what string, limit int64, whose string, arrays ...rv) error {
	switch {
	case n < 0:
		return fmt.Errorf("@%s: a negative count of %s (%d)", g.name, what, n)
	case n > limit:
		return fmt.Errorf("@%s: %d %s, more than the %d %s", g.name, n, what, limit, whose)
	}
	if m.steps += n; m.steps > m.maxSteps {
		return fmt.Errorf("%w: a shot ran more than %d instructions (@%s of %d %s)", ErrStepLimit, m.maxSteps, g.name, n, what)
	}
	if n == 0 {
		return nil // no memory is touched: the array may be null
	}
	for _, p := range arrays {
		if err := m.mem.span(p, n, "@"+g.name); err != nil {
			return err
		}
	}
	return nil
}

// element is the address of pointer i of the array at p.
func element(p rv, i int64) rv {
	p.i += 8 * i
	return p
}

// qubitArrayAllocate is __quantum__rt__qubit_array_allocate(n, array,
// out_err): n fresh qubits, in |0⟩, into array[0..n).
func (m *machine) qubitArrayAllocate(g *function, args []rv) error {
	n := args[0].i
	if err := m.arrayCount(g, n, "qubits", int64(m.c.maxQubits), "the device has", args[1]); err != nil {
		return err
	}
	if free := m.available(); n > int64(free) {
		return fmt.Errorf("%w: @%s of %d qubits, with %d free", errTooWide, g.name, n, free)
	}
	for i := range n {
		q, err := m.allocQubit()
		if err != nil {
			return err
		}
		if err := m.mem.store(element(args[1], i), rv{i: int64(q)}); err != nil {
			return err
		}
	}
	if len(args) == 3 {
		return m.noAllocError(g, args[2])
	}
	return nil
}

// qubitArrayRelease is __quantum__rt__qubit_array_release(n, array): each
// qubit is reset and returned to the pool; using one after is an error.
func (m *machine) qubitArrayRelease(g *function, args []rv) error {
	n := args[0].i
	if err := m.arrayCount(g, n, "qubits", int64(m.width), "the program was given", args[1]); err != nil {
		return err
	}
	for i := range n {
		v, err := m.mem.load(element(args[1], i), typPtr)
		if err != nil {
			return err
		}
		q, err := m.qubit(v)
		if err != nil {
			return fmt.Errorf("@%s: element %d: %w", g.name, i, err)
		}
		if err := m.releaseQubit(q); err != nil {
			return err
		}
	}
	return nil
}

// resultArrayAllocate is __quantum__rt__result_array_allocate(n, array,
// out_err): n fresh results, each reading 0 until measured, into
// array[0..n).
func (m *machine) resultArrayAllocate(g *function, args []rv) error {
	n := args[0].i
	if err := m.arrayCount(g, n, "results", int64(maxResultID-m.results), "a shot may still allocate", args[1]); err != nil {
		return err
	}
	for i := range n {
		r, err := m.newResult()
		if err != nil {
			return err
		}
		if err := m.mem.store(element(args[1], i), r); err != nil {
			return err
		}
	}
	if len(args) == 3 {
		return m.noAllocError(g, args[2])
	}
	return nil
}

// resultArrayRelease is __quantum__rt__result_array_release(n, array):
// results are never reused, so releasing one only checks it is one.
func (m *machine) resultArrayRelease(g *function, args []rv) error {
	return m.eachResult(g, args, func(int) error { return nil })
}

// recordResultArray is __quantum__rt__result_array_record_output(n,
// array, label): the n results in memory order, each a record of its own,
// as n result_record_output calls would make.
func (m *machine) recordResultArray(g *function, args []rv) error {
	return m.eachResult(g, args, m.dev.record)
}

// eachResult checks the count args[0] and the array args[1] of results,
// then calls f with each result, in memory order.
func (m *machine) eachResult(g *function, args []rv, f func(r int) error) error {
	n := args[0].i
	if err := m.arrayCount(g, n, "results", maxResultID, "a program may use", args[1]); err != nil {
		return err
	}
	for i := range n {
		v, err := m.mem.load(element(args[1], i), typPtr)
		if err != nil {
			return err
		}
		r, err := m.result(v)
		if err != nil {
			return fmt.Errorf("@%s: element %d: %w", g.name, i, err)
		}
		if err := f(r); err != nil {
			return err
		}
	}
	return nil
}

// mzArray is __quantum__qis__mz_array__body(n, qubits, results), the bulk
// measurement the specification gives as an example: qubits[i] into
// results[i], in order.
func (m *machine) mzArray(g *function, args []rv) error {
	n := args[0].i
	if err := m.arrayCount(g, n, "qubits", int64(m.width), "the program was given", args[1], args[2]); err != nil {
		return err
	}
	for i := range n {
		qv, err := m.mem.load(element(args[1], i), typPtr)
		if err != nil {
			return err
		}
		rval, err := m.mem.load(element(args[2], i), typPtr)
		if err != nil {
			return err
		}
		q, err := m.qubit(qv)
		if err != nil {
			return fmt.Errorf("@%s: element %d: %w", g.name, i, err)
		}
		r, err := m.result(rval)
		if err != nil {
			return fmt.Errorf("@%s: element %d: %w", g.name, i, err)
		}
		if r < 0 {
			return fmt.Errorf("@%s: element %d: a measurement into a constant result", g.name, i)
		}
		if err := m.dev.measure(q, r); err != nil {
			return err
		}
	}
	return nil
}
