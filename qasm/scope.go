package qasm

import (
	"github.com/qjobs/quantum/sim"
)

type symKind uint8

const (
	symQubits symKind = iota + 1
	symBits           // a bit register (or a bool that holds a run-time value)
	symVar            // a compile-time classical variable
	symGate
	symDef
	symExtern
)

type symbol struct {
	kind    symKind
	name    string
	pos     position
	qubits  []int
	single  bool  // one qubit or one bit, not a register
	bits    []int // symBits: storage
	ty      *ctype
	val     value // symVar
	isConst bool
	// level is the compiler's run-time nesting when the symbol was
	// declared; a compile-time variable cannot change in a branch that
	// only some shots take.
	level int
	// depth is the scope the symbol was declared in (0 the program's):
	// a loop's body may keep it as a loop only while it writes no
	// compile-time variable of a scope around it (loops.go).
	depth int
	// loopVar marks a for loop's variable, and read that a lookup found
	// it: an iteration that never read it lowers as any other would.
	loopVar, read bool
	gate          *sGateDef
	def           *sDef
}

type scope struct {
	syms map[string]*symbol
	// isolated scopes (gate and subroutine bodies) see only the global
	// scope beyond themselves; a gate body sees only its classical values
	// and gates there (the specification allows only constants, but
	// programs use inputs in gates too, and a gate is expanded where it
	// is called, so the value is well defined).
	isolated bool
	gateBody bool
	// scratchMark is where the scratch bits stood when the scope opened.
	scratchMark int
}

// push opens a scope. Scopes that closed are reused, so that a loop
// unrolled 100,000 times does not allocate a scope and its map each time.
func (c *compiler) push(isolated, gateBody bool) {
	var s *scope
	if n := len(c.freeScopes); n > 0 {
		s = c.freeScopes[n-1]
		c.freeScopes = c.freeScopes[:n-1]
	} else {
		c.charge(position{}, scopeBytes)
		s = &scope{syms: map[string]*symbol{}}
	}
	s.isolated, s.gateBody, s.scratchMark = isolated, gateBody, c.scratchTop
	c.scopes = append(c.scopes, s)
	c.looked.clear()
}

func (c *compiler) pop() {
	s := c.scopes[len(c.scopes)-1]
	c.scopes = c.scopes[:len(c.scopes)-1]
	c.looked.clear()
	c.scratchTop = s.scratchMark
	if len(s.syms) > 64 {
		s.syms = map[string]*symbol{} // a big map would stay big
	} else {
		clear(s.syms)
	}
	c.freeScopes = append(c.freeScopes, s)
}

func (c *compiler) lookup(name string) *symbol {
	sym, ok := c.looked.get(name)
	if !ok {
		sym = c.lookupScopes(name)
		c.looked.put(name, sym)
	}
	if sym != nil && sym.loopVar {
		sym.read = true
	}
	return sym
}

// lookedUp remembers the last few lookups and what they found (nil
// too): a straight-line program looks up the same few names, its register
// and its gates, at every statement. Every change to the scopes clears
// it, and moves gen on: fastGate's own memory of names holds while gen
// stays.
type lookedUp struct {
	names [8]string
	syms  [8]*symbol
	n     int // entries in use
	next  int // the entry put replaces
	gen   uint64
}

func (l *lookedUp) get(name string) (*symbol, bool) {
	for i := range l.n {
		if sameName(l.names[i], name) {
			return l.syms[i], true
		}
	}
	return nil, false
}

// sameName is a == b for the short names of a program, compared a byte
// at a time without a call: the caches of names compare them at every
// statement, and most differ in their first byte.
func sameName(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	if len(a) > 4 {
		return a == b
	}
	for i := range len(a) {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (l *lookedUp) put(name string, sym *symbol) {
	l.names[l.next], l.syms[l.next] = name, sym
	l.next = (l.next + 1) % len(l.names)
	l.n = min(l.n+1, len(l.names))
}

func (l *lookedUp) clear() { l.n, l.next, l.gen = 0, 0, l.gen+1 }

func (c *compiler) lookupScopes(name string) *symbol {
	for i := len(c.scopes) - 1; i >= 0; i-- {
		s := c.scopes[i]
		if sym, ok := s.syms[name]; ok {
			return sym
		}
		if s.isolated && i > 0 {
			g, ok := c.scopes[0].syms[name]
			if !ok {
				return nil
			}
			if s.gateBody && g.kind != symGate && g.kind != symVar {
				return nil
			}
			return g
		}
	}
	return nil
}

func (c *compiler) declare(sym *symbol) {
	c.charge(sym.pos, symbolBytes)
	c.bind(sym)
}

// bind is declare for a symbol already paid for.
func (c *compiler) bind(sym *symbol) {
	s := c.scopes[len(c.scopes)-1]
	if prev, ok := s.syms[sym.name]; ok {
		fail(sym.pos, "%q is already declared (at %d:%d)", sym.name, prev.pos.Line, prev.pos.Col)
	}
	if sym.kind == symGate {
		if _, builtin := c.builtinGate(sym.name); builtin && c.libraryGate(sym.name) {
			fail(sym.pos, "%q is already defined by the included standard library", sym.name)
		}
	}
	sym.level, sym.depth = c.rt, len(c.scopes)-1
	s.syms[sym.name] = sym
	c.looked.clear()
}

func (c *compiler) atTop() bool { return len(c.scopes) == 1 }

// compiler is the state of one lowering.
type compiler struct {
	looked   lookedUp
	builtins builtins
	opts     Options
	version  int
	ops      []sim.Op
	emitted  int // operations emitted so far, against MaxOps
	// stores counts the writes of bits emitted (OpSetBits, OpCompute),
	// the only operations dropDeadStores drops, some maybe since removed
	stores  int
	cost    int64 // bytes charged so far, against MaxBytes
	poll    *poller
	stmtPos position // the statement being lowered

	nq int

	// Classical bits: the program's registers take 0..nOut-1; scratch
	// bits (locals, temporaries, measured values returned by subroutines)
	// are numbered -1, -2, ... during lowering and moved after them at
	// the end. Scratch bits are reused stack-wise as scopes close.
	nOut       int
	scratchTop int
	scratchMax int
	nPerm      int // scratch bits that are never freed (storage given to bool variables)
	knownPerm  []knownBit
	knownOut   []knownBit
	knownScr   []knownBit
	epoch      uint32 // see knownBit
	journal    []journalEntry

	scopes     []*scope
	freeScopes []*scope
	// rt counts the enclosing branches and loops that only some shots run.
	rt int
	// inLoop counts the enclosing loops that run again at run time: a
	// bit first allocated inside one is not zero on its second pass.
	inLoop  int
	collect *[]sim.Op // non-nil while expanding a gate body
	loops   []*loopCtx
	fns     []*fnCtx
	depth   int // nested gate expansions and subroutine calls
	// nest counts the compiler's own recursion: statements within
	// statements, expression nodes within nodes, and calls, across every
	// call being expanded (see maxNest).
	nest int

	included  string // "qelib1.inc" or "stdgates.inc" once included
	registers []Register
	endJumps  []int
	// channels are the noise pragmas' channels built so far, shared by
	// every operation that applies one
	channels map[noiseKey]*sim.Channel
	// noiseOps are the noise operations emitted so far, by channel and
	// qubits: every later one is a copy sharing its extension.
	noiseOps map[noiseOpKey]sim.Op
	// krausChannels are the kraus pragmas' channels, by their matrices.
	krausChannels map[string]*sim.Channel

	// Loops kept as loops (loops.go): the for loops around the one being
	// lowered, the counters of kept loops by that depth and what is known
	// of their bits (nothing), the shallowest scope a compile-time
	// variable was written in since the innermost iteration on trial
	// began, and the writes of what is known of bits so far.
	forDepth    int
	counters    [][]int
	knownCtr    []knownBit
	writeDepth  int
	knownWrites uint64

	fast *fastNames // made when fastGate first meets a gate
	// fastPlaced counts the calls fastGate placed, for the tests
	fastPlaced int
}
