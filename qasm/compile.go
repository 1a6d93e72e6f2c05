package qasm

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/qjobs/quantum/sim"
)

// Options bound what Compile accepts.
type Options struct {
	// MaxQubits refuses programs that declare more qubits, before anything
	// is allocated; 0 means DefaultMaxQubits.
	MaxQubits int
	// Inputs holds the values of OpenQASM 3 input declarations, by name:
	// numbers as float64, json.Number or any Go integer, booleans, and bit
	// strings such as "0101".
	Inputs map[string]any
	// MaxLoopIterations caps the iterations of a loop unrolled at compile
	// time; 0 means DefaultMaxLoopIterations.
	MaxLoopIterations int
	// MaxOps caps the operations of the lowered circuit (and the gates
	// built while expanding definitions); 0 means DefaultMaxOps.
	MaxOps int
}

// Defaults for the zero values of Options.
const (
	DefaultMaxQubits         = 64
	DefaultMaxLoopIterations = 100_000
	// DefaultMaxOps keeps a lowered circuit to a few hundred MB: an
	// operation with its gate matrix takes about 300 bytes.
	DefaultMaxOps = 2_000_000
	// maxClbits bounds the classical bits of a program, registers and
	// the compiler's scratch bits together.
	maxClbits = 1 << 16
	// maxCallDepth bounds nested gate expansions and subroutine calls, so
	// recursion ends in an error.
	maxCallDepth = 100
)

// Compile parses, checks and lowers a program. The version line decides
// whether it is read as OpenQASM 2 or 3; a program without one is read as
// OpenQASM 3. Every error it returns is an *Error.
func Compile(src string, opts Options) (*sim.Circuit, error) {
	p, err := CompileProgram(src, opts)
	if err != nil {
		return nil, err
	}
	return p.Circuit, nil
}

// Program is a compiled program with what a caller needs beyond the
// circuit to present its results.
type Program struct {
	Circuit *sim.Circuit
	Version int // 2 or 3
	// OutputBits counts the program's own classical bits: bits
	// 0..OutputBits-1 hold its registers, in declaration order. Bits from
	// OutputBits up are scratch bits of the compiler (locals of loops and
	// subroutines, bools that hold measured values); results should
	// leave them out.
	OutputBits int
	// Registers lists the classical registers declared at the top level.
	Registers []Register
}

// Register is a classical register of a program: bits Offset to
// Offset+Size-1 of the circuit.
type Register struct {
	Name         string
	Offset, Size int
}

// CompileProgram is Compile that also returns the program's register
// layout.
func CompileProgram(src string, opts Options) (prog *Program, err error) {
	defer func() {
		if r := recover(); r != nil {
			if b, ok := r.(bail); ok {
				prog, err = nil, b.err
				return
			}
			// The last line of defence: a bug in the compiler must not take
			// the process down.
			// The stack stays out: this message reaches the program's author.
			prog, err = nil, &Error{Msg: fmt.Sprintf("internal error in the compiler: %v", r)}
		}
	}()
	stmts, version, phys, perr := parse(src)
	if perr != nil {
		return nil, perr
	}
	c := newCompiler(opts, version)
	// Most statements emit one operation; sizing for them up front saves
	// regrowing a slice of large elements.
	c.ops = make([]sim.Op, 0, min(strings.Count(src, ";")+1, c.opts.MaxOps))
	// Physical qubits keep their numbers: $n is qubit n, and declared
	// qubits come after the highest one.
	if phys.n > c.opts.MaxQubits {
		return nil, errorf(phys.pos, "program uses physical qubit $%d, more than the limit of %d qubits", phys.n-1, c.opts.MaxQubits)
	}
	c.nq = phys.n
	c.checkInputs(stmts)
	c.lowerProgram(stmts)
	circ := c.finish()
	return &Program{Circuit: circ, Version: version, OutputBits: c.nOut, Registers: c.registers}, nil
}

// dropDeadStores removes writes of constants to scratch bits that no
// condition ever reads. They come from classical code that was evaluated
// at compile time (a loop's local bit[32] sum = ...); left in, they would
// push a circuit off sim's sample-once fast path for nothing.
func (c *compiler) dropDeadStores() {
	read := map[int]bool{}
	var mark func(*sim.Condition)
	mark = func(cd *sim.Condition) {
		if cd == nil {
			return
		}
		for _, b := range cd.Bits {
			read[b] = true
		}
		for _, a := range cd.Args {
			mark(a)
		}
	}
	var markExpr func(*sim.Expr)
	markExpr = func(e *sim.Expr) {
		if e == nil {
			return
		}
		for _, b := range e.Bits {
			read[b] = true
		}
		mark(e.Cond)
		for _, a := range e.Args {
			markExpr(a)
		}
	}
	for i := range c.ops {
		mark(c.ops[i].If)
		markExpr(c.ops[i].Expr)
	}
	dead := func(op *sim.Op) bool {
		if op.Kind != sim.OpSetBits && op.Kind != sim.OpCompute {
			return false
		}
		for _, b := range op.Bits {
			if b >= 0 || read[b] {
				return false
			}
		}
		return true
	}
	newIndex := make([]int, len(c.ops)+1)
	kept := c.ops[:0]
	for i := range c.ops {
		newIndex[i] = len(kept)
		if !dead(&c.ops[i]) {
			kept = append(kept, c.ops[i])
		}
	}
	newIndex[len(c.ops)] = len(kept)
	for i := range kept {
		if kept[i].Kind == sim.OpJump {
			kept[i].Target = newIndex[kept[i].Target]
		}
	}
	c.ops = kept
}

func newCompiler(opts Options, version int) *compiler {
	if opts.MaxQubits <= 0 {
		opts.MaxQubits = DefaultMaxQubits
	}
	if opts.MaxLoopIterations <= 0 {
		opts.MaxLoopIterations = DefaultMaxLoopIterations
	}
	if opts.MaxOps <= 0 {
		opts.MaxOps = DefaultMaxOps
	}
	c := &compiler{opts: opts, version: version}
	c.scopes = []*scope{{syms: map[string]*symbol{}}}
	return c
}

// checkInputs reports every input declaration the options give no value,
// in one error, before anything is lowered.
func (c *compiler) checkInputs(stmts []stmt) {
	var missing []string
	var first position
	for _, s := range stmts {
		if d, ok := s.(*sDecl); ok && d.IO == "input" {
			if _, ok := c.opts.Inputs[d.Name]; !ok {
				if missing == nil {
					first = d.P
				}
				missing = append(missing, d.Name)
			}
		}
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		fail(first, "no value given for input %s (set it in the job's runtime options)", strings.Join(quoteAll(missing), ", "))
	}
}

func quoteAll(s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = fmt.Sprintf("%q", x)
	}
	return out
}

// finish patches the jumps to the end of the program and renumbers the
// scratch bits after the program's own classical bits, so that registers
// keep the indices their declaration order gives them.
func (c *compiler) finish() *sim.Circuit {
	end := len(c.ops)
	for _, j := range c.endJumps {
		c.ops[j].Target = end
	}
	c.dropDeadStores()
	remap := func(b int) int {
		switch {
		case b <= permBase:
			return c.nOut + c.scratchMax + (permBase - b)
		case b < 0:
			return c.nOut + (-b - 1)
		}
		return b
	}
	seen := map[*sim.Condition]bool{}
	var fixCond func(*sim.Condition)
	fixCond = func(cd *sim.Condition) {
		if cd == nil || seen[cd] {
			return
		}
		seen[cd] = true
		for i, b := range cd.Bits {
			cd.Bits[i] = remap(b)
		}
		for _, a := range cd.Args {
			fixCond(a)
		}
	}
	var fixExpr func(*sim.Expr)
	fixExpr = func(e *sim.Expr) {
		if e == nil {
			return
		}
		// remap is idempotent, so bits shared between expressions (a
		// register read twice) come out right.
		for i, b := range e.Bits {
			e.Bits[i] = remap(b)
		}
		fixCond(e.Cond)
		for _, a := range e.Args {
			fixExpr(a)
		}
	}
	for i := range c.ops {
		op := &c.ops[i]
		switch op.Kind {
		case sim.OpMeasure:
			op.Bit = remap(op.Bit)
		case sim.OpSetBits, sim.OpCompute:
			for j, b := range op.Bits {
				op.Bits[j] = remap(b)
			}
		}
		fixCond(op.If)
		fixExpr(op.Expr)
	}
	return &sim.Circuit{NumQubits: c.nq, NumClbits: c.nOut + c.scratchMax + c.nPerm, Ops: slices.Clip(c.ops)}
}
