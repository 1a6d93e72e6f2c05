package quil

import (
	"context"
	"fmt"
	"strings"
	"unsafe"

	"github.com/qjobs/quantum/sim"
)

// Options bound a compile.
type Options struct {
	// MaxQubits refuses a program that names a qubit index of MaxQubits or
	// more; 0 means DefaultMaxQubits.
	MaxQubits int
	// MaxOps caps the operations of the lowered circuit; 0 means
	// DefaultMaxOps.
	MaxOps int
	// MaxBytes bounds what the compiler allocates for a program: the
	// operations (56 bytes each), gate matrices, definitions' bodies,
	// memory; each charged before it is allocated. 0 means
	// DefaultMaxBytes.
	MaxBytes int64
}

// Defaults for the zero values of Options, as package qasm's.
const (
	DefaultMaxQubits       = 64
	DefaultMaxOps          = 2_000_000
	DefaultMaxBytes  int64 = 64 << 20
)

// Program is a compiled program.
type Program struct {
	Circuit *sim.Circuit
	// ResultBits are the classical bits the counts read: bits 0 to
	// ResultBits−1, ro's (or every BIT region's); the rest hold the other
	// regions.
	ResultBits int
}

// Compile compiles src. It checks ctx as it goes and returns ctx's error
// when the caller gives up; every other error is an *Error.
func Compile(ctx context.Context, src string, opts Options) (*Program, error) {
	p, _, err := compile(ctx, src, opts)
	return p, err
}

// compile is Compile, and what it charged against MaxBytes.
func compile(ctx context.Context, src string, opts Options) (prog *Program, charged int64, err error) {
	return compileWith(ctx, src, opts, false)
}

func compileWith(ctx context.Context, src string, opts Options, general bool) (prog *Program, charged int64, err error) {
	if opts.MaxQubits <= 0 {
		opts.MaxQubits = DefaultMaxQubits
	}
	if opts.MaxOps <= 0 {
		opts.MaxOps = DefaultMaxOps
	}
	if opts.MaxBytes <= 0 {
		opts.MaxBytes = DefaultMaxBytes
	}
	defer func() {
		if r := recover(); r != nil {
			prog = nil
			switch r := r.(type) {
			case bail:
				err = r.err
			case stopped:
				err = r.err
			default:
				// A bug in the compiler must not take the process down.
				err = &Error{Msg: fmt.Sprintf("internal error in the compiler: %v", r)}
			}
		}
	}()
	c := &compiler{ctx: ctx, opts: opts, defs: map[string]*defgate{}, regions: map[string]*region{}, labels: map[string]int{}}
	c.progEnv.read = c.readMemory
	c.general = general
	c.scan(src)
	total, result := layout(c.order)
	if total > maxMemoryBits {
		c.fail(c.order[len(c.order)-1].line, 1, "the declared memory takes %d classical bits, more than %d", total, maxMemoryBits)
	}
	c.nbits = total
	// Most instructions are one operation each: the circuit is allocated
	// once for them, and grows only where definitions and modifiers expand.
	if n := min(c.instructions, c.opts.MaxOps); n > 0 {
		c.charge(1, int64(n)*opBytes)
		c.ops = make([]sim.Op, 0, n)
	}
	c.lower(src)
	circ := &sim.Circuit{NumQubits: c.nqubits, NumClbits: max(c.nbits, 0), Ops: c.ops}
	return &Program{Circuit: circ, ResultBits: result}, c.cost, nil
}

// compiler is one compile's state.
type compiler struct {
	ctx   context.Context
	opts  Options
	cost  int64
	lines int
	// instructions counts the program's instructions, in the first pass.
	instructions int

	defs    map[string]*defgate
	regions map[string]*region
	order   []*region // declaration order
	nbits   int       // classical bits: the regions', then scratch ones
	nqubits int

	ops    []sim.Op
	labels map[string]int // label → the operation it stands before
	jumps  []pendingJump  // jumps whose labels are resolved at the end
	halts  []int          // HALTs: jumps to the end

	// hasLabels says the program has labels: from the first one on, a
	// REAL cell the program writes anywhere is no longer known.
	hasLabels  bool
	writesReal map[string]bool
	expanding  map[string]bool // the sequences being expanded, for cycles
	depth      int

	// progEnv is what a gate parameter of the program may name: memory.
	progEnv env
	// general turns the fast paths off, for the test that compares them
	// with the general one.
	general bool
}

type pendingJump struct {
	op    int
	label string
	line  int32
	col   int32
}

func (c *compiler) fail(ln, col int32, format string, args ...any) {
	panic(bail{errorf(ln, col, format, args...)})
}

// charge counts n bytes against MaxBytes before they are spent.
func (c *compiler) charge(ln int32, n int64) {
	if n < 0 || n > c.opts.MaxBytes-c.cost {
		c.fail(ln, 1, "the program expands to more than %d MiB of operations and compile-time data (MaxBytes)", c.opts.MaxBytes>>20)
	}
	c.cost += n
}

// poll checks the caller's context every few thousand lines.
func (c *compiler) poll() {
	if c.lines++; c.lines%4096 == 0 {
		if err := c.ctx.Err(); err != nil {
			panic(stopped{err})
		}
	}
}

const opBytes = int64(unsafe.Sizeof(sim.Op{}))

// emit appends an operation, charging it (and its slice's growth).
func (c *compiler) emit(ln int32, op sim.Op) { *c.place(ln) = op }

// place appends a zero operation for the caller to fill, charging the
// slice's growth before it happens.
func (c *compiler) place(ln int32) *sim.Op {
	if len(c.ops) >= c.opts.MaxOps {
		c.fail(ln, 1, "the program expands to more than %d operations (MaxOps)", c.opts.MaxOps)
	}
	if len(c.ops) == cap(c.ops) {
		n := max(2*cap(c.ops), 64)
		c.charge(ln, int64(n)*opBytes)
		grown := make([]sim.Op, len(c.ops), n)
		copy(grown, c.ops)
		c.ops = grown
	}
	c.ops = c.ops[:len(c.ops)+1]
	return &c.ops[len(c.ops)-1]
}

// scan is the first pass: the memory regions, the definitions (with
// their bodies) and what the known values of REAL memory depend on.
func (c *compiler) scan(src string) {
	lx := &lexer{src: src}
	var def *defgate
	c.writesReal = map[string]bool{}
	for {
		text, ok := lx.nextText()
		if !ok {
			break
		}
		c.poll()
		if def == nil && plainInstruction(text) {
			c.instructions++ // the second pass reads it
			continue
		}
		ln, ok := lx.lineOf(text)
		if !ok {
			continue
		}
		if ln.indented && def != nil {
			c.charge(ln.no, int64(len(ln.toks))*int64(unsafe.Sizeof(token{}))+64)
			ln.toks = append([]token(nil), ln.toks...)
			def.body = append(def.body, ln)
			continue
		}
		if def != nil {
			c.checkBody(def)
			def = nil
		}
		for _, t := range ln.toks {
			if t.kind == tEOL {
				c.instructions++
			}
		}
		head := ln.toks[0]
		if head.kind != tIdent {
			continue // the second pass says what is wrong
		}
		switch head.text {
		case "DECLARE":
			c.declare(ln)
		case "DEFGATE":
			d := c.readDefgate(ln)
			if _, ok := c.defs[d.name]; ok {
				c.fail(ln.no, head.col, "DEFGATE %s: the gate is defined twice", d.name)
			}
			c.charge(ln.no, 256)
			c.defs[d.name] = d
			def = d
		case "LABEL":
			c.hasLabels = true
		default:
			c.notePlainWrites(ln.toks)
		}
	}
	if def != nil {
		c.checkBody(def)
	}
}

// plainInstruction reports whether a line is one instruction the first
// pass has nothing to learn from: it starts with a name other than the
// directives and classical instructions the first pass reads, and holds no
// semicolon. Most lines of a large program are such gates, and this spares
// the first pass reading them into tokens.
func plainInstruction(text string) bool {
	if text == "" || !isIdentStart(text[0]) || strings.IndexByte(text, ';') >= 0 {
		return false
	}
	j := 1
	for j < len(text) && isIdentPart(text[j]) {
		j++
	}
	switch text[:j] {
	case "DECLARE", "DEFGATE", "LABEL", "MOVE", "EXCHANGE", "CONVERT", "ADD", "SUB", "MUL", "DIV", "NEG", "LOAD", "STORE":
		return false
	}
	return true
}

// declare reads DECLARE name TYPE[len].
func (c *compiler) declare(ln line) {
	r := &cursor{c: c, ln: ln.no, toks: ln.toks, i: 1}
	name := r.ident("the region's name after DECLARE")
	if _, ok := c.regions[name.text]; ok {
		r.failAt(name, "%s is declared twice", name.text)
	}
	tt := r.ident("a type, BIT, OCTET, INTEGER or REAL")
	typ, ok := memTypes[tt.text]
	if !ok {
		r.failAt(tt, "expected a type, BIT, OCTET, INTEGER or REAL, got %s", tt.describe())
	}
	length := int64(1)
	if r.punct("[") {
		n := r.next()
		if n.kind != tInt || n.ival < 1 {
			r.failAt(n, "expected the region's length, a positive integer, got %s", n.describe())
		}
		if n.ival > maxMemoryBits {
			r.failAt(n, "a region of %d cells; memory holds at most %d bits", n.ival, maxMemoryBits)
		}
		length = n.ival
		r.expectPunct("]")
	}
	if t := r.peek(); t.kind == tIdent && t.text == "SHARING" {
		r.failAt(t, "DECLARE … SHARING is not supported: declare a region of its own")
	}
	r.end()
	reg := &region{name: name.text, typ: typ, length: length, line: ln.no}
	if typ == memReal {
		c.charge(ln.no, 9*length)
		reg.values, reg.known = make([]float64, length), make([]bool, length)
		for i := range reg.known {
			reg.known[i] = true // memory starts at zero
		}
	}
	c.charge(ln.no, 128)
	c.regions[name.text] = reg
	c.order = append(c.order, reg)
}

// notePlainWrites notes the REAL regions an instruction may write: after
// the first label, their values are no longer known at compile time.
// A line may hold several instructions, between semicolons.
func (c *compiler) notePlainWrites(toks []token) {
	for i, t := range toks {
		if i > 0 && toks[i-1].kind != tEOL || t.kind != tIdent {
			continue
		}
		switch t.text {
		case "MOVE", "EXCHANGE", "CONVERT", "ADD", "SUB", "MUL", "DIV", "NEG", "LOAD", "STORE":
			for _, w := range toks[i+1:] {
				if w.kind == tEOL {
					break
				}
				if w.kind == tIdent {
					c.writesReal[w.text] = true // the first names what is written; EXCHANGE writes both
					if t.text != "EXCHANGE" {
						break
					}
				}
			}
		}
	}
}

// lower is the second pass: every instruction, in order, to operations.
func (c *compiler) lower(src string) {
	lx := &lexer{src: src}
	inDef := false
	for {
		text, ok := lx.nextText()
		if !ok {
			break
		}
		c.poll()
		if !c.general && c.plainGate(lx.no, text) {
			inDef = false
			continue
		}
		ln, ok := lx.lineOf(text)
		if !ok {
			continue
		}
		if ln.indented {
			if !inDef {
				c.fail(ln.no, 1, "an indented line outside a DEFGATE's body")
			}
			continue
		}
		inDef = false
		head := ln.toks[0]
		if head.kind == tIdent && head.text == "DEFGATE" {
			inDef = true
			continue
		}
		// A line holds one or more instructions, between semicolons.
		start := 0
		for start < len(ln.toks) {
			end := start
			for ln.toks[end].kind != tEOL {
				end++
			}
			if end > start {
				c.instruction(line{no: ln.no, toks: ln.toks[start : end+1]})
			}
			start = end + 1
		}
	}
	for _, j := range c.jumps {
		target, ok := c.labels[j.label]
		if !ok {
			c.fail(j.line, j.col, "no LABEL @%s in the program", j.label)
		}
		c.ops[j.op].SetJumpTarget(target)
	}
	for _, h := range c.halts {
		c.ops[h].SetJumpTarget(len(c.ops))
	}
}

// qubit checks a qubit index against the device.
func (c *compiler) qubit(ln int32, t token) int {
	if t.kind != tInt || t.ival < 0 {
		c.fail(ln, t.col, "expected a qubit, a non-negative integer, got %s", t.describe())
	}
	if t.ival >= int64(c.opts.MaxQubits) {
		c.fail(ln, t.col, "qubit %d is past the device's %d qubits (0 to %d)", t.ival, c.opts.MaxQubits, c.opts.MaxQubits-1)
	}
	q := int(t.ival)
	c.nqubits = max(c.nqubits, q+1)
	return q
}
