package qasm

// callDef inlines a subroutine. Classical arguments are passed by value
// (bits are copied into the callee's own), qubits by reference. Written as
// a gate call (old syntax: name(args) qubits;), the qubits come apart from
// the classical arguments; in a call expression they are mixed, in order.
//
// Recursion: every cycle through the lowering passes in or enter, so
// it goes maxNest levels deep at most.
func (c *compiler) callDef(p position, d *sDef, args []expr, qubits []expr) value {
	all := append(append([]expr(nil), args...), qubits...)
	if len(all) != len(d.Args) {
		fail(p, "subroutine %q takes %d argument(s), got %d", d.Name, len(d.Args), len(all))
	}
	c.enter(p)
	defer c.leave()
	// the call's own state (fnCtx, the arguments' copies) and its types
	c.charge(p, callBytes+256)
	c.chargeN(p, len(all), 2*valueBytes)
	// Evaluate every argument in the caller's scope first.
	type bound struct {
		qs     []int
		single bool
		v      value
	}
	vals := make([]bound, len(all))
	for i, a := range d.Args {
		e := all[i]
		if a.Type.Name == "qubit" {
			if !c.isQubitExpr(e) {
				fail(e.at(), "argument %q of %q must be qubits", a.Name, d.Name)
			}
			qs, single := c.qubitsOf(e)
			want := 1
			if a.Type.Size != nil {
				n := c.count(a.Type.Size, "a qubit argument's size")
				if n < 1 || n > int64(c.opts.MaxQubits) {
					fail(a.Type.Size.at(), "qubit argument %q of %q has size %d; sizes go from 1 to %d (MaxQubits)", a.Name, d.Name, n, c.opts.MaxQubits)
				}
				want = int(n)
			}
			if len(qs) != want {
				fail(e.at(), "argument %q of %q takes %d qubit(s), got %d", a.Name, d.Name, want, len(qs))
			}
			vals[i] = bound{qs: qs, single: single && a.Type.Size == nil}
			continue
		}
		if c.isQubitExpr(e) {
			fail(e.at(), "argument %q of %q is classical, got qubits", a.Name, d.Name)
		}
		vals[i] = bound{v: c.eval(e)}
	}
	var ret *ctype
	if d.Ret != nil {
		ret = c.resolveType(d.Ret)
	}
	f := &fnCtx{def: d, level: c.rt, ret: ret}
	if ret != nil && (ret.name == "bit" || ret.name == "bool" || runtimeWidth(ret) > 0 && c.returnsInBranch(d.Body)) {
		// The result lives in the caller's scope: the callee's bits are
		// freed when it returns.
		n := max(ret.size, 1)
		if ret.name != "bit" && ret.name != "bool" {
			n = runtimeWidth(ret)
		}
		f.resBits = c.allocScratch(p, n)
	}
	c.push(true, false)
	defer c.pop()
	c.fns = append(c.fns, f)
	defer func() { c.fns = c.fns[:len(c.fns)-1] }()
	// Loops outside do not see break or continue from inside.
	savedLoops := c.loops
	c.loops = nil
	defer func() { c.loops = savedLoops }()
	for i, a := range d.Args {
		b := vals[i]
		if a.Type.Name == "qubit" {
			c.declare(&symbol{kind: symQubits, name: a.Name, pos: a.P, qubits: b.qs, single: b.single})
			continue
		}
		ty := c.resolveType(a.Type)
		sym := &symbol{name: a.Name, pos: a.P, ty: ty}
		switch {
		case ty.name == "bit" || ty.name == "bool" && b.v.runtime():
			sym.kind, sym.single = symBits, ty.size == 0
			sym.bits = c.allocScratch(a.P, max(ty.size, 1))
			c.storeBits(a.P, sym.bits, c.varBits(sym, b.v))
		case b.v.runtime() && runtimeWidth(ty) > 0:
			// an int, uint or angle measured at run time: a copy in bits
			sym.kind = symBits
			sym.bits = c.allocScratch(a.P, runtimeWidth(ty))
			c.storeBits(a.P, sym.bits, c.varBitsOf(ty, b.v))
		case b.v.runtime():
			runtimeFail(all[i].at(), "argument "+quote(a.Name)+" of "+quote(d.Name))
		case ty.name == "array" && ty.dims == nil:
			sym.kind, sym.val = symVar, b.v // #dim arrays take any shape
		default:
			sym.kind, sym.val = symVar, coerce(b.v, ty, all[i].at(), "argument "+quote(a.Name))
		}
		c.declare(sym)
	}
	if c.lowerList(d.Body) == ctlEnd && !f.raised {
		// The program ends here (the jump is in place); what follows
		// the call is lowered but never runs.
		if ret == nil {
			return value{}
		}
		return zeroOf(ret)
	}
	for _, j := range f.returns {
		c.ops[j].SetJumpTarget(len(c.ops))
	}
	if f.raised {
		c.rt--
		c.forgetAll()
		if ret == nil {
			return value{}
		}
		return c.readTyped(f.resBits, ret)
	}
	if ret != nil && f.result.k == 0 {
		fail(p, "subroutine %q ended without returning a %s", d.Name, ret.name)
	}
	if f.result.runtime() && f.resBits != nil {
		// Move the result out of the callee's bits, which the caller's
		// next allocation may reuse.
		c.storeBits(p, f.resBits, f.result)
		f.result = c.readTyped(f.resBits, ret)
	}
	return f.result
}

// returnsInBranch reports whether a subroutine body returns from inside
// an if, switch or loop: a return that may depend on a measurement, whose
// value then needs bits of the caller's. It recurses as deeply as
// statements nest, which the parser bounds.
func (c *compiler) returnsInBranch(stmts []stmt) bool {
	var walk func([]stmt, bool) bool
	walk = func(stmts []stmt, nested bool) bool {
		for _, st := range stmts {
			c.charge(st.at(), stepBytes)
			var inner [][]stmt
			switch s := st.(type) {
			case *sReturn:
				if nested {
					return true
				}
			case *sIf:
				inner = [][]stmt{s.Then, s.Else}
			case *sFor:
				inner = [][]stmt{s.Body}
			case *sWhile:
				inner = [][]stmt{s.Body}
			case *sSwitch:
				inner = [][]stmt{s.Default}
				for _, cs := range s.Cases {
					inner = append(inner, cs.Body)
				}
			case *sBlock:
				if walk(s.Body, nested) {
					return true
				}
			}
			for _, b := range inner {
				if walk(b, true) {
					return true
				}
			}
		}
		return false
	}
	return walk(stmts, false)
}
