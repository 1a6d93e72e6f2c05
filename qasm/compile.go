package qasm

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/qjobs/quantum/sim"
)

// Options bound what Compile accepts. Every limit has a default that its
// zero value stands for; doc.go lists the limits that are not options.
type Options struct {
	// MaxQubits refuses programs that declare more qubits, before anything
	// is allocated; 0 means DefaultMaxQubits (64).
	MaxQubits int
	// Inputs holds the values of OpenQASM 3 input declarations, by name:
	// numbers as float64, json.Number or any Go integer, booleans, and bit
	// strings such as "0101".
	Inputs map[string]any
	// MaxLoopIterations caps the iterations of one loop unrolled at compile
	// time; 0 means DefaultMaxLoopIterations (100,000). A for loop kept as
	// a loop (loops.go) is not unrolled and not bounded by it: what it
	// does is bounded when it runs (sim.Options.MaxWork).
	MaxLoopIterations int
	// MaxOps caps the operations of the lowered circuit, which bound what
	// sim does per shot; 0 means DefaultMaxOps (2,000,000). An operation
	// takes 56 bytes (sim.Op) and a simple gate about 62 of MaxBytes with
	// the work of lowering it, so with the default MaxBytes the byte budget
	// refuses a program of about a million gates before this count does.
	MaxOps int
	// MaxBytes bounds what the compiler allocates for one program once it
	// is parsed: the circuit (operations, gate matrices), gate definitions
	// and subroutines as they are expanded, unrolled loop iterations (a
	// loop kept as a loop: the iterations lowered to find its body),
	// arrays, classical bits and the compiler's own tables. Each is charged
	// before it is allocated, so a program that crosses the limit is
	// refused having allocated at most about MaxBytes. Work that allocates
	// nothing (a statement lowered, an expression node evaluated, a bit
	// read) is charged a byte a step, so MaxBytes bounds the compile's time
	// too: about a second for the default. 0 means DefaultMaxBytes (64 MiB).
	//
	// Parsing comes before it and is bounded by the source instead: it
	// allocates at most about 64 bytes per byte of source, for the syntax
	// tree (it holds a thousand or so tokens at a time).
	MaxBytes int64

	// unrollLoops unrolls every loop, as the compiler did before it kept
	// loops as loops: the tests hold the two against each other.
	unrollLoops bool
}

// Defaults for the zero values of Options.
const (
	DefaultMaxQubits         = 64
	DefaultMaxLoopIterations = 100_000
	DefaultMaxOps            = 2_000_000
	// DefaultMaxBytes holds a straight-line circuit of a million simple
	// gates (a standard gate on up to three qubits, without modifiers), or
	// fewer gates given by their matrices, expanded from definitions or
	// unrolled from loops, which cost more each.
	DefaultMaxBytes = 64 << 20
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
	return CompileContext(context.Background(), src, opts)
}

// CompileContext is Compile that gives up when ctx is done, at any stage:
// lexing, parsing or lowering look at ctx every millisecond or so of work.
// It then returns ctx.Err(), for which errors.Is(err, context.Canceled) or
// errors.Is(err, context.DeadlineExceeded) holds: the one error that is
// not an *Error, because the program is not at fault.
func CompileContext(ctx context.Context, src string, opts Options) (*sim.Circuit, error) {
	p, err := CompileProgramContext(ctx, src, opts)
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
func CompileProgram(src string, opts Options) (*Program, error) {
	return CompileProgramContext(context.Background(), src, opts)
}

// CompileProgramContext is CompileProgram that gives up when ctx is done,
// as CompileContext does.
func CompileProgramContext(ctx context.Context, src string, opts Options) (*Program, error) {
	prog, _, err := compileProgram(ctx, src, opts, streams(src), false)
	return prog, err
}

// compileProgram compiles and also reports the bytes charged against
// MaxBytes, for the tests that check the charges.
//
// stream compiles src as it is read (see streams), else parsed whole
// first; general parses it without the parser's shortcuts (see parser).
func compileProgram(ctx context.Context, src string, opts Options, stream, general bool) (prog *Program, charged int64, err error) {
	var c *compiler
	defer func() {
		if r := recover(); r != nil {
			prog = nil
			switch r := r.(type) {
			case bail:
				err = r.err
			case stopped:
				err = r.err
			default:
				// The last line of defence: a bug in the compiler must not
				// take the process down. The stack stays out: this message
				// reaches the program's author.
				err = &Error{Msg: fmt.Sprintf("internal error in the compiler: %v", r)}
			}
		}
		if c != nil {
			charged = c.cost
		}
	}()
	poll := newPoller(ctx)
	poll.check()
	if stream {
		c = newCompiler(opts, 3, poll)
		if err := compileStreaming(c, src, general); err != nil {
			return nil, c.cost, err
		}
	} else {
		stmts, version, phys, perr := parse(src, poll, general)
		if perr != nil {
			return nil, 0, perr
		}
		c = newCompiler(opts, version, poll)
		c.presize(statements(src))
		// Physical qubits keep their numbers: $n is qubit n, and declared
		// qubits come after the highest one.
		if phys.n > c.opts.MaxQubits {
			return nil, c.cost, errorf(phys.pos, "program uses physical qubit $%d, more than the limit of %d qubits", phys.n-1, c.opts.MaxQubits)
		}
		c.nq = phys.n
		c.checkInputs(stmts)
		c.lowerProgram(stmts)
	}
	circ := c.finish()
	return &Program{Circuit: circ, Version: c.version, OutputBits: c.nOut, Registers: c.registers}, c.cost, nil
}

// streams reports whether src can be compiled as it is read, a top-level
// statement at a time, so that its syntax tree never exists whole (a
// program of a million gates would hold hundreds of megabytes of it).
// Two things need the whole program before anything is lowered, and a
// program that may use them is parsed first: physical qubits ($n), since
// declared qubits are numbered after the highest one, and input
// declarations, whose missing values are reported together up front.
func streams(src string) bool {
	return !strings.Contains(src, "$") && !strings.Contains(src, "input")
}

// compileStreaming parses and lowers src a top-level statement at a time,
// reusing the parser's nodes after each. It reports errors as a compile of
// the whole parsed program would: a parse error anywhere before a lowering
// error, so after a lowering error (or an end statement) it parses the
// rest. A parse error panics, as the parser's errors do.
func compileStreaming(c *compiler, src string, general bool) *Error {
	p := newParser(src, c.poll, general)
	p.versionLine()
	c.version = p.version
	// Most statements end with a semicolon: their count sizes the
	// circuit, on both paths alike.
	c.presize(statements(src))
	for {
		s, k, lerr := c.lowerRun(p)
		if s == nil {
			return nil
		}
		recycle(p, s)
		if lerr != nil {
			if perr := drain(p); perr != nil {
				return perr
			}
			return lerr
		}
		if k != ctlNone {
			return drain(p)
		}
	}
}

// lowerRun parses and lowers top-level statements until the end (s nil),
// a lowering error or a statement that ends the program (k); s is the
// last statement, its nodes not yet recycled. Its one recover does for a
// catch around the lowering of each statement: a parse error panics on
// up, as the parser's errors do.
func (c *compiler) lowerRun(p *parser) (s stmt, k ctl, err *Error) {
	lowering := false
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bail)
			if !ok || !lowering {
				panic(r)
			}
			err = b.err
		}
	}()
	for {
		if c.fastGate(p) {
			continue
		}
		var ok bool
		if s, ok = p.topStatement(); !ok {
			return nil, ctlNone, nil
		}
		lowering = true
		k = c.lowerStmt(s)
		lowering = false
		if k != ctlNone {
			return s, k, nil
		}
		recycle(p, s)
	}
}

// recycle lets the parser reuse the nodes of s, once lowered, but for a
// definition's, which its symbol keeps.
func recycle(p *parser, s stmt) {
	switch s.(type) {
	case *sGateDef, *sDef:
		p.recycle(true)
	default:
		p.recycle(false)
	}
}

// drain parses the rest of the program for its first parse error.
func drain(p *parser) *Error {
	return catch(func() {
		for _, ok := p.topStatement(); ok; _, ok = p.topStatement() {
			p.recycle(false)
		}
	})
}

// catch runs f and returns the error it fails with (fail's bail), if any;
// other panics, a cancel's among them, go on up.
func catch(f func()) (err *Error) {
	defer func() {
		if r := recover(); r != nil {
			b, ok := r.(bail)
			if !ok {
				panic(r)
			}
			err = b.err
		}
	}()
	f()
	return nil
}

// dropDeadStores removes writes of constants to scratch bits that no
// condition ever reads. They come from classical code that was evaluated
// at compile time (a loop's local bit[32] sum = ...); left in, they would
// push a circuit off sim's sample-once fast path for nothing.
func (c *compiler) dropDeadStores() {
	read := map[int]bool{}
	w := newSimWalk(c.poll)
	for i := range c.ops {
		w.cond(c.ops[i].Cond())
		w.expr(c.ops[i].Expr())
	}
	w.run(func(bits []int) bool {
		for _, b := range bits {
			read[b] = true
		}
		return false
	})
	dead := func(op *sim.Op) bool {
		if op.Kind != sim.OpSetBits && op.Kind != sim.OpCompute {
			return false
		}
		for _, b := range op.Bits() {
			if b >= 0 || read[b] {
				return false
			}
		}
		return true
	}
	first := slices.IndexFunc(c.ops, func(op sim.Op) bool { return dead(&op) })
	if first < 0 {
		return
	}
	c.chargeN(position{}, len(c.ops)+1, 8)
	newIndex := make([]int, len(c.ops)+1)
	for i := range first {
		newIndex[i] = i
	}
	kept := c.ops[:first]
	for i := first; i < len(c.ops); i++ {
		c.poll.tick()
		newIndex[i] = len(kept)
		if !dead(&c.ops[i]) {
			kept = append(kept, c.ops[i])
		}
	}
	newIndex[len(c.ops)] = len(kept)
	for i := range kept {
		if kept[i].Kind == sim.OpJump {
			kept[i].SetJumpTarget(newIndex[kept[i].JumpTarget()])
		}
	}
	c.ops = kept
}

// statements counts src's statements about as lowering will meet them:
// its semicolons, and its pragmas, whose lines end without one.
func statements(src string) int {
	return strings.Count(src, ";") + strings.Count(src, "#pragma")
}

// presize sizes the circuit's slice for a program of n statements.
func (c *compiler) presize(n int) {
	// Most statements emit one operation; sizing for them up front saves
	// regrowing a slice of large elements, which would charge the old and
	// the new slice both: a straight-line program of a million gates fits
	// MaxBytes only so. A little more covers a final measure of a whole
	// register. The guess is capped: the slice is charged, and a
	// statement may emit nothing.
	n = min(n+1+64, c.opts.MaxOps, int(c.opts.MaxBytes/8*7/opBytes))
	c.chargeN(position{1, 1}, n, opBytes)
	c.ops = make([]sim.Op, 0, n)
}

func newCompiler(opts Options, version int, poll *poller) *compiler {
	if opts.MaxQubits <= 0 {
		opts.MaxQubits = DefaultMaxQubits
	}
	if opts.MaxLoopIterations <= 0 {
		opts.MaxLoopIterations = DefaultMaxLoopIterations
	}
	if opts.MaxOps <= 0 {
		opts.MaxOps = DefaultMaxOps
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	c := &compiler{opts: opts, version: version, poll: poll, writeDepth: math.MaxInt}
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
		c.ops[j].SetJumpTarget(end)
	}
	if c.stores > 0 {
		c.dropDeadStores() // which drops nothing else
	}
	if c.scratchMax == 0 && c.nPerm == 0 && len(c.knownCtr) == 0 {
		// no scratch bit was ever handed out, so no bit is negative and
		// remap below would change none: a million-gate circuit is not
		// walked for nothing
		return &sim.Circuit{NumQubits: c.nq, NumClbits: c.nOut, Ops: slices.Clip(c.ops)}
	}
	remap := func(b int) int {
		switch {
		case b <= permBase:
			return c.nOut + c.scratchMax + (permBase - b)
		case b <= ctrBase:
			return c.nOut + c.scratchMax + c.nPerm + (ctrBase - b)
		case b < 0:
			return c.nOut + (-b - 1)
		}
		return b
	}
	// One walk remaps the bits of every condition and expression; the
	// operations' own bits follow. remap is idempotent, so bits shared
	// between nodes and operations (a register read twice) come out right.
	w := newSimWalk(c.poll)
	for i := range c.ops {
		c.poll.tick()
		op := &c.ops[i]
		switch op.Kind {
		case sim.OpMeasure:
			op.SetBit(remap(op.Bit()))
		case sim.OpSetBits, sim.OpCompute:
			bits := op.Bits() // the compiler's own slice: remapped in place
			for j, b := range bits {
				bits[j] = remap(b)
			}
		}
		w.cond(op.Cond())
		w.expr(op.Expr())
	}
	w.run(func(bits []int) bool {
		for i, b := range bits {
			bits[i] = remap(b)
		}
		return false
	})
	return &sim.Circuit{NumQubits: c.nq, NumClbits: c.nOut + c.scratchMax + c.nPerm + len(c.knownCtr), Ops: slices.Clip(c.ops)}
}
