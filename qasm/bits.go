package qasm

import (
	"github.com/qjobs/quantum/sim"
)

// Classical bits carry what is known about them at compile time: a bit
// written with a constant on every path is known, a measured one is not.
// Conditions on known bits fold away, so only control flow that really
// depends on measurements reaches the circuit.

const (
	unknown int8 = -1
	// permBase is the id of the first permanent scratch bit; permanent
	// ids count down from it, below every stack scratch id.
	permBase = -(1 << 30)
	// ctrBase is the id of the first bit of the kept loops' counters
	// (loops.go), which count down from it, between the stack scratch
	// ids and the permanent ones.
	ctrBase = -(1 << 29)
)

// knownBit is what is known of a bit: its value or unknown, as of epoch.
// forgetAll starts a new epoch, which makes every bit unknown at once.
type knownBit struct {
	v     int8
	epoch uint32
}

type journalEntry struct {
	bit int
	old knownBit
}

func (c *compiler) knownSlot(b int) *knownBit {
	switch {
	case b <= permBase:
		return &c.knownPerm[permBase-b]
	case b <= ctrBase:
		return &c.knownCtr[ctrBase-b]
	case b < 0:
		return &c.knownScr[-b-1]
	}
	return &c.knownOut[b]
}

func (c *compiler) known(b int) int8 {
	k := c.knownSlot(b)
	if k.epoch != c.epoch {
		return unknown
	}
	return k.v
}

func (c *compiler) setKnown(b int, v int8) {
	slot := c.knownSlot(b)
	c.knownWrites++
	if c.rt > 0 {
		// the entry, the journal's growth, and the entry unwind makes
		c.charge(position{}, 2*16+48)
		c.journal = grow(c.journal, 1)
		c.journal = append(c.journal, journalEntry{b, *slot})
	}
	*slot = knownBit{v, c.epoch}
}

// forgetAll makes every bit unknown: at the head of a loop that runs a
// number of times only known at run time. Entries journaled before this
// point carry the old epoch, so undoing a branch around the loop restores
// them as unknown too: dropping knowledge is always safe.
func (c *compiler) forgetAll() {
	c.charge(position{}, stepBytes)
	c.epoch++
}

func (c *compiler) checkClbits(p position, n int) {
	if n < 0 || c.nOut+c.scratchMax+c.nPerm+len(c.knownCtr)+n > maxClbits {
		fail(p, "program needs more than %d classical bits", maxClbits)
	}
}

// bitsCost is what n bits take: their indices, and what is known of them
// (in slices that grow by doubling: twice their size in all).
func bitsCost(n int) int64 { return 8*int64(n) + 2*8*int64(n) + 64 }

// grow makes room for n more elements in s, doubling its capacity when it
// has to grow: appending one at a time to a large slice grows it by a
// quarter, which allocates five times its size over its life.
func grow[T any](s []T, n int) []T {
	if cap(s)-len(s) >= n {
		return s
	}
	t := make([]T, len(s), max(2*cap(s), len(s)+n, 16))
	copy(t, s)
	return t
}

// allocOut gives a register declared at the top level its bits.
func (c *compiler) allocOut(p position, n int) []int {
	c.checkClbits(p, n)
	c.charge(p, bitsCost(n))
	bits := make([]int, n)
	for i := range bits {
		bits[i] = c.nOut + i
	}
	c.nOut += n
	c.knownOut = grow(c.knownOut, n)
	for range n {
		c.knownOut = append(c.knownOut, knownBit{0, c.epoch}) // every shot starts with zeros
	}
	return bits
}

// allocScratch gives n bits that are freed when the current scope closes.
func (c *compiler) allocScratch(p position, n int) []int {
	if c.scratchTop+n > c.scratchMax {
		c.checkClbits(p, c.scratchTop+n-c.scratchMax)
	}
	c.charge(p, bitsCost(n))
	bits := make([]int, n)
	for i := range bits {
		bits[i] = -(c.scratchTop + i + 1)
	}
	c.scratchTop += n
	c.knownScr = grow(c.knownScr, c.scratchTop-c.scratchMax)
	for c.scratchMax < c.scratchTop {
		c.scratchMax++
		c.knownScr = append(c.knownScr, knownBit{c.freshBit(), c.epoch})
	}
	return bits
}

// allocPerm gives n bits that are never freed.
func (c *compiler) allocPerm(p position, n int) []int {
	c.checkClbits(p, n)
	c.charge(p, bitsCost(n))
	c.knownPerm = grow(c.knownPerm, n)
	bits := make([]int, n)
	for i := range bits {
		bits[i] = permBase - c.nPerm
		c.nPerm++
		c.knownPerm = append(c.knownPerm, knownBit{c.freshBit(), c.epoch})
	}
	return bits
}

// freshBit is what is known of a bit never used before: zero, as every
// shot starts, unless a loop that runs again at run time encloses it.
func (c *compiler) freshBit() int8 {
	if c.inLoop > 0 {
		return unknown
	}
	return 0
}

// emit appends an operation to the circuit. The circuit's slice grows by
// doubling, charged as it grows; what an operation holds beyond its slot
// (a gate's matrix, a condition) was charged when it was built.
func (c *compiler) emit(p position, op sim.Op) int {
	if c.emitted >= c.opts.MaxOps {
		fail(p, "program expands to more than %d operations (MaxOps)", c.opts.MaxOps)
	}
	c.emitted++
	if len(c.ops) == cap(c.ops) {
		// Doubling, but never into more than half of the budget left: a
		// circuit near the limit grows by smaller steps rather than fail
		// for a doubling it would not have filled.
		n := max(2*cap(c.ops), 64)
		if room := (c.opts.MaxBytes - c.cost) / (2 * opBytes); int64(n-cap(c.ops)) > room {
			n = cap(c.ops) + max(int(room), 1)
		}
		// exactly n: slices.Grow would round up past what is charged
		c.chargeN(p, n, opBytes)
		c.charge(p, 8<<10) // the allocator's rounding of a large block to pages
		ops := make([]sim.Op, len(c.ops), n)
		copy(ops, c.ops)
		c.ops = ops
	}
	// finish's walk over the operation's bits
	c.charge(p, 8*int64(len(op.Bits())+len(op.Qubits())))
	if op.Kind == sim.OpSetBits || op.Kind == sim.OpCompute {
		c.stores++
	}
	c.ops = append(c.ops, op)
	return len(c.ops) - 1
}

// readBits is the value of the bits: known at compile time when every one
// of them is (and they fit 64 bits), else a run-time value.
func (c *compiler) readBits(bits []int) value {
	if len(bits) <= 64 {
		c.charge(position{}, int64(len(bits))*stepBytes)
		var v int64
		all := true
		for i, b := range bits {
			switch c.known(b) {
			case 1:
				v |= 1 << i
			case unknown:
				all = false
			}
		}
		if all {
			return value{k: vBits, i: v, w: len(bits)}
		}
	}
	return value{k: vRT, bits: bits, w: len(bits)}
}

// setConst writes a constant to bits, skipping bits already known to hold
// it.
func (c *compiler) setConst(p position, bits []int, v uint64) {
	c.charge(p, int64(len(bits))*stepBytes)
	var todo []int
	var val uint64
	for i, b := range bits {
		bit := int8(0)
		if i < 64 && v>>i&1 == 1 {
			bit = 1
		}
		if c.known(b) == bit {
			continue
		}
		if bit == 1 {
			val |= 1 << len(todo)
		}
		c.charge(p, 16)
		todo = append(todo, b)
		c.setKnown(b, bit)
		if len(todo) == 64 {
			c.emit(p, sim.SetBitsOp(todo, val))
			todo, val = nil, 0
		}
	}
	if len(todo) > 0 {
		c.emit(p, sim.SetBitsOp(todo, val))
	}
}

// copyBits copies src into dst at run time, zero-extending src.
func (c *compiler) copyBits(p position, dst, src []int) {
	if len(src) > len(dst) {
		src = src[:len(dst)]
	}
	c.charge(p, 64*int64(len(src))+int64(len(dst))*stepBytes)
	at := make(map[int]int, len(src))
	for i, b := range src {
		at[b] = i
	}
	overlap := false
	for i, d := range dst {
		if j, ok := at[d]; ok && j != i {
			overlap = true
		}
	}
	if overlap {
		// fresh bits overlap nothing: this recursion is one level deep
		tmp := c.allocPerm(p, len(src))
		c.copyBits(p, tmp, src)
		src = tmp
	}
	// Known bits are constants; the others move in one computation.
	var from, to []int
	for i, d := range dst {
		if i >= len(src) {
			c.setConst(p, []int{d}, 0)
			continue
		}
		s := src[i]
		if s == d {
			continue
		}
		if k := c.known(s); k != unknown {
			c.setConst(p, []int{d}, uint64(k))
			continue
		}
		from, to = append(from, s), append(to, d)
		if len(from) == 64 {
			c.computeInto(p, to, sim.BitsOf(from, false))
			from, to = nil, nil
		}
	}
	if len(from) > 0 {
		c.computeInto(p, to, sim.BitsOf(from, false))
	}
}

// computeInto writes the value of ex to bits at run time: its low bits,
// and its sign (0 or -1) beyond the 64th.
func (c *compiler) computeInto(p position, bits []int, ex *sim.Expr) {
	if len(bits) > 64 {
		// ex may read the bits it writes: compute it once, aside (in 64
		// bits, so this recursion is one level deep).
		tmp := c.allocScratch(p, 64)
		c.computeInto(p, tmp, ex)
		ex = sim.BitsOf(tmp, true)
	}
	n := min(len(bits), 64)
	c.charge(p, 2*nodeBytes)
	c.emit(p, sim.ComputeOp(bits[:n:n], ex))
	for _, b := range bits[:n] {
		c.setKnown(b, unknown)
	}
	if len(bits) > 64 {
		sign := sim.Compare(ex, sim.Lt, sim.Const(0))
		for rest := bits[64:]; len(rest) > 0; rest = rest[min(len(rest), 64):] {
			c.emit(p, sim.ComputeOp(rest[:min(len(rest), 64)], sim.Unary(sim.Neg, sign)))
			for _, b := range rest[:min(len(rest), 64)] {
				c.setKnown(b, unknown)
			}
		}
	}
}

// setFromCond writes the truth of cond into bit d at run time.
func (c *compiler) setFromCond(p position, d int, cond *sim.Condition) {
	c.charge(p, 4*nodeBytes)
	if !c.condUses(cond, d) {
		c.emit(p, sim.SetBitsOp([]int{d}, 1).WithIf(cond))
		c.emit(p, sim.SetBitsOp([]int{d}, 0).WithIf(sim.Not(cond)))
	} else {
		// cond reads d: decide once, then write.
		j := c.emit(p, sim.JumpOp(0).WithIf(cond))
		c.emit(p, sim.SetBitsOp([]int{d}, 0))
		k := c.emit(p, sim.JumpOp(0))
		c.ops[j].SetJumpTarget(len(c.ops))
		c.emit(p, sim.SetBitsOp([]int{d}, 1))
		c.ops[k].SetJumpTarget(len(c.ops))
	}
	c.setKnown(d, unknown)
}

// writes reports the classical bits op may write.
func writes(op *sim.Op) []int {
	switch op.Kind {
	case sim.OpMeasure:
		return []int{op.Bit()}
	case sim.OpSetBits, sim.OpCompute:
		return op.Bits()
	}
	return nil
}
