package qasm

import (
	"context"
	"fmt"
	"unsafe"

	"github.com/qjobs/quantum/sim"
)

// A compile is bounded in three ways: the context, polled every
// pollEvery steps of work (a token lexed, a node evaluated, an operation
// emitted); MaxBytes, charged before anything sized by the program is
// allocated; and the depth limits, which keep every recursion of the
// package shallow whatever the input.
//
// Recursion. A stack overflow kills the process, recover or not, so no
// recursion here goes deeper than a constant:
//
//   - The lexer is a loop. Every cycle of the parser's recursive descent
//     passes parser.enter: at each statement and block, unary operator,
//     right operand of **, measure and element type, maxDepth levels in
//     all. Chains of binary operators, of indices and of gate modifiers
//     are loops, and the tree a chain builds is kept to maxDepth high
//     (parser.tall), so every walk of an expression is as shallow.
//   - Every cycle of the lowering passes compiler.in (each statement,
//     expression node and operand resolved) or compiler.enter (each gate
//     expansion and subroutine call): maxNest levels in all.
//   - The walks over statements (hasJump, returnsInBranch,
//     promoteAssigned) go as deep as statements nest, maxDepth;
//     resolveType as deep as types nest, maxDepth; coerce, zeroOf and
//     setPath as deep as arrays, maxArrayDims (or the height of a literal).
//   - copyBits, computeInto and evalBinary call themselves at most once.
//   - Switch cases, else chains of a switch, modifiers and the walks over
//     sim's conditions and expressions (simWalk, deeper) are loops with
//     stacks of their own.
//
// TestDeepInputs compiles a million-fold instance of each construct in a
// child process whose stack is limited to 64 MB; the worst the compiler
// needs is about 8 MB (see maxNest).

// pollEvery is how many steps of work pass between two looks at the
// context: a step is well under a microsecond, so a cancelled compile
// stops within a millisecond or so.
const pollEvery = 1024

// poller watches the caller's context for the lexer, the parser and the
// compiler.
type poller struct {
	ctx   context.Context
	watch bool // ctx can be cancelled at all
	n     uint32
}

func newPoller(ctx context.Context) *poller {
	return &poller{ctx: ctx, watch: ctx.Done() != nil}
}

// tick counts a step. It is small enough to be inlined: the lexer ticks
// for every token.
func (p *poller) tick() {
	p.n++
	if p.n%pollEvery == 0 {
		p.look()
	}
}

// look is check, out of line.
//
//go:noinline
func (p *poller) look() { p.check() }

// tickN counts n steps at once (a run of blanks skipped, the tokens of a
// batch), n at most about pollEvery.
func (p *poller) tickN(n int) {
	before := p.n
	p.n += uint32(n)
	if p.watch && p.n/pollEvery != before/pollEvery {
		p.check()
	}
}

func (p *poller) check() {
	if p.watch {
		if err := p.ctx.Err(); err != nil {
			panic(stopped{err})
		}
	}
}

// Sizes the cost model charges, in bytes. Allocations the model does not
// list one by one (slice headers, map buckets, rounding to size classes)
// are covered by the margins in these figures; TestChargesCoverAllocations
// checks that the charges stay above what the compiler really allocates.
const (
	opBytes   = int64(unsafe.Sizeof(sim.Op{}))
	gateBytes = int64(unsafe.Sizeof(sim.Gate{}))
	// extBytes is sim.Op's extension with its allocation's rounding
	// (TestExtBytes checks it against sim.Op.Bytes)
	extBytes   = 192
	valueBytes = int64(unsafe.Sizeof(value{}))
	// a symbol with its map entry (and the map's growth)
	symbolBytes = int64(unsafe.Sizeof(symbol{})) + 128
	// a scope with its map, the first time; scopes are reused after
	scopeBytes = 512
	// one sim.Expr or sim.Condition with its Args, and its entries in the
	// tables of finish's walks over them
	nodeBytes = 256
	// what an operator applied to measured values builds at most: the
	// == of two conditions is five nodes
	runtimeOpBytes = 5 * nodeBytes
	// what a gate or subroutine call takes beyond its gates and its
	// operands
	callBytes = 32
	// a step of work that allocates nothing: a statement lowered, a node
	// evaluated, a bit examined. Charging it keeps MaxBytes a bound on
	// time as well as on memory.
	stepBytes = 1
)

// allocSize is what the allocator hands out for n bytes: Go's size
// classes round a small block up by at most an eighth, a large one to
// whole pages. The charges of slices of operations go through it (a
// slice of 64 Ops, 3,584 bytes, takes 4,096).
func allocSize(n int64) int64 {
	if n > 32<<10 {
		return n + 8<<10
	}
	return n + n/8 + 8
}

// extCost is what an operation holds beyond its own bytes when it is more
// than a standard gate on a few qubits (sim.Op's extension): the
// extension, n qubits in its lists and a matrix of m entries.
func extCost(n, m int) int64 { return extBytes + 24*int64(n) + 16*int64(m) }

// powCost bounds what sim.MatPow allocates for a d×d matrix (its
// eigensolver and one projector per distinct eigenvalue), and the
// compiler's own d×d products, measured with room to spare.
func powCost(d int64) int64 { return 32*d*d*d + 128*d*d + 8<<10 }

// charge counts n bytes against MaxBytes, before they are spent, and
// refuses the program at p once they pass it.
//
// Where the caller has no position at hand (a scope opened, a bit's
// knowledge recorded), the statement being lowered stands for it.
func (c *compiler) charge(p position, n int64) {
	if n < 0 || n > c.opts.MaxBytes-c.cost {
		if p == (position{}) {
			p = c.stmtPos
		}
		fail(p, "program expands to more than %s of operations and compile-time data (MaxBytes)", fmtBytes(c.opts.MaxBytes))
	}
	c.cost += n
	c.poll.tick()
}

// chargeN charges n items of size bytes each, refusing products that
// overflow.
func (c *compiler) chargeN(p position, n int, size int64) {
	if n < 0 || size > 0 && int64(n) > (c.opts.MaxBytes-c.cost)/size {
		c.charge(p, -1) // reports the limit
	}
	c.charge(p, int64(n)*size)
}

// fmtBytes writes a size the way a limit is set: 64 MiB, 512 KiB.
func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
