package sim

import (
	"context"
	"math/bits"
	"slices"
)

// Gate fusion: before a circuit touches the state, runs of gates on few
// qubits are merged into one gate, so the state is swept once per block
// instead of once per gate. A block holds gates whose qubits (targets and
// controls) fit within a width; blocks on disjoint qubits stay open side by
// side, since their gates commute. All-diagonal blocks may grow wider: a
// diagonal costs one multiplication per amplitude whatever its width.
//
// Fusion runs on a client's circuit before anything else, so it must stay
// near-linear in the number of gates however they are arranged (a loop of a
// million gates on one qubit is a 300-byte program): a gate joins a block by
// an append, blocks that merge append the smaller gate lists onto the
// largest (each gate moves O(log n) times), and a block's matrix is built by
// applying its gates to it one by one, each at a cost bounded by the width.

const (
	// DefaultFusionWidth is the widest general block (qubits).
	DefaultFusionWidth = 2
	// DefaultDiagonalFusionWidth is the widest all-diagonal block.
	DefaultDiagonalFusionWidth = 8
	// maxFusionWidth clamps Options.FusionWidth. Folding a gate into a block
	// of k qubits costs up to 4^k·2^t operations (t its targets) and the
	// block's matrix has 4^k entries: past a few qubits a block costs more to
	// build than it saves (bench/README.md), and an absurd width would
	// allocate without bound.
	maxFusionWidth = 6
)

type block struct {
	qubits []int // sorted
	// gates in an order valid for the block: each gate after every gate it
	// does not commute with. Gates that came from different blocks act on
	// disjoint qubits and commute.
	gates []*Op
	diag  bool
	order int // creation order, so that blocks close in a stable order
}

// appendQubits appends g's qubits (targets and controls), sorted, to dst.
func appendQubits(dst []int, g *Op) []int {
	for j := range g.numQubits() {
		dst = append(dst, g.qubitAt(j))
	}
	slices.Sort(dst)
	return dst
}

// kernelOf is the kernel of one gate.
func kernelOf(op *Op) *kernel {
	g := op.gate()
	return newKernel(&g)
}

func isDiagonal(m []complex128) bool {
	d := matDim(m)
	for r := range d {
		for c := range d {
			if r != c && !isZero(m[r*d+c]) {
				return false
			}
		}
	}
	return true
}

// fuseGates merges gates into blocks of at most width qubits (diagWidth for
// all-diagonal blocks) and returns the kernels to apply, in a valid order. A
// width below 1 returns one kernel per gate. It checks ctx every few
// thousand gates.
func fuseGates(ctx context.Context, gates []*Op, width, diagWidth int) ([]*kernel, error) {
	if len(gates) == 0 {
		return nil, nil
	}
	enter("fuse")
	tick := ticker{ctx: ctx}
	var out []*kernel
	if width < 1 {
		for _, g := range gates {
			if err := tick.tick(); err != nil {
				return nil, err
			}
			out = append(out, kernelOf(g))
		}
		return out, nil
	}
	diagWidth = max(diagWidth, width)
	var open []*block // qubit → its open block, nil when none
	order := 0

	closeBlocks := func(bs []*block) error {
		slices.SortFunc(bs, func(a, b *block) int { return a.order - b.order })
		for _, b := range bs {
			k, err := b.kernel(&tick)
			if err != nil {
				return err
			}
			out = append(out, k)
			for _, q := range b.qubits {
				open[q] = nil
			}
		}
		return nil
	}

	var qs, union []int // scratch, reused gate after gate
	var touched []*block
	for _, g := range gates {
		if err := tick.tick(); err != nil {
			return nil, err
		}
		qs = appendQubits(qs[:0], g)
		if len(qs) == 0 {
			out = append(out, kernelOf(g)) // a global phase commutes with everything
			continue
		}
		for len(open) <= qs[len(qs)-1] {
			open = append(open, nil)
		}
		diag := g.isDiagonal()
		touched = touched[:0]
		for _, q := range qs {
			if b := open[q]; b != nil && !slices.Contains(touched, b) {
				touched = append(touched, b)
			}
		}
		union = append(union[:0], qs...)
		allDiag := diag
		for _, b := range touched {
			union = append(union, b.qubits...)
			allDiag = allDiag && b.diag
		}
		slices.Sort(union)
		union = slices.Compact(union)
		limit := width
		if allDiag {
			limit = diagWidth
		}
		if len(union) <= limit {
			nb := merge(touched)
			if nb == nil {
				nb = &block{order: order}
				order++
			}
			nb.gates = append(nb.gates, g)
			nb.qubits = append(nb.qubits[:0], union...)
			nb.diag = allDiag
			for _, q := range union {
				open[q] = nb
			}
			continue
		}
		// Too wide together: keep the largest touched block that the gate
		// still fits into and close only the others. Open blocks are on
		// disjoint qubits, so the closed ones' gates commute with the kept
		// one's; they all come before g. (In H+CX layers, h q then cx q-1,q
		// fuse so, where closing everything would leave cx alone.)
		if keep := keepOne(touched, qs, diag, width, diagWidth); keep != nil {
			touched = slices.DeleteFunc(touched, func(b *block) bool { return b == keep })
			if err := closeBlocks(touched); err != nil {
				return nil, err
			}
			keep.gates = append(keep.gates, g)
			union = append(append(union[:0], qs...), keep.qubits...)
			slices.Sort(union)
			keep.qubits = append(keep.qubits[:0], slices.Compact(union)...)
			keep.diag = keep.diag && diag
			for _, q := range keep.qubits {
				open[q] = keep
			}
			continue
		}
		if err := closeBlocks(touched); err != nil {
			return nil, err
		}
		own := width
		if diag {
			own = diagWidth
		}
		if len(qs) > own {
			out = append(out, kernelOf(g)) // too wide to start a block: apply alone
			continue
		}
		nb := &block{qubits: slices.Clone(qs), diag: diag, order: order, gates: []*Op{g}}
		order++
		for _, q := range qs {
			open[q] = nb
		}
	}
	var rest []*block
	for q, b := range open {
		if b != nil && b.qubits[0] == q { // each block once, at its lowest qubit
			rest = append(rest, b)
		}
	}
	if err := closeBlocks(rest); err != nil {
		return nil, err
	}
	return out, nil
}

// merge merges the open blocks bs into the one with the most gates and
// returns it (nil for none): the other blocks' gates are appended to its
// list, so a gate is copied only into a list at least twice the size of the
// one it leaves. The blocks act on disjoint qubits, so their gates commute
// and appending keeps the order valid. The merged block keeps the earliest
// creation order among them.
func merge(bs []*block) *block {
	if len(bs) == 0 {
		return nil
	}
	big := bs[0]
	for _, b := range bs[1:] {
		if len(b.gates) > len(big.gates) {
			big = b
		}
	}
	for _, b := range bs {
		if b != big {
			big.gates = append(big.gates, b.gates...)
			big.order = min(big.order, b.order)
			b.gates = nil
		}
	}
	return big
}

// kernel returns the block as one kernel: its only gate's, or that of the
// product of all of them on the block's qubits.
func (b *block) kernel(tick *ticker) (*kernel, error) {
	if len(b.gates) == 1 {
		return kernelOf(b.gates[0]), nil
	}
	if b.diag {
		diag, err := b.diagonal(tick)
		if err != nil {
			return nil, err
		}
		return newDiagKernel(b.qubits, diag), nil
	}
	m, err := b.matrix(tick)
	if err != nil {
		return nil, err
	}
	return newKernel(&Gate{Name: "fused", Matrix: m, Targets: b.qubits}), nil
}

// positions maps each of g's qubits to its bit in the block's index (bit j
// is b.qubits[j]): the bits of g's targets for every row r of g's matrix,
// and the mask and wanted value of its controls.
func (b *block) positions(g *Op, off []int) (ctrlMask, ctrlVal int) {
	for i := range g.NumControls() {
		c := g.ControlAt(i)
		bit := 1 << slices.Index(b.qubits, c.Qubit)
		ctrlMask |= bit
		if !c.Negated {
			ctrlVal |= bit
		}
	}
	for r := range off {
		o := 0
		for j := range g.NumTargets() {
			if r>>j&1 == 1 {
				o |= 1 << slices.Index(b.qubits, g.TargetAt(j))
			}
		}
		off[r] = o
	}
	return ctrlMask, ctrlVal
}

// matrix returns the product of the block's gates, row-major, on its
// qubits. It applies each gate to the columns of the product so far, as a
// gate is applied to a state: 4^k·2^t operations for a gate on t targets in
// a block of k qubits, against 8^k for a multiplication by its embedding.
func (b *block) matrix(tick *ticker) ([]complex128, error) {
	d := 1 << len(b.qubits)
	t := Identity(d) // column-major: t[c*d+r] is row r of column c
	offs := make([]int, d)
	buf := make([]complex128, d)
	for _, g := range b.gates {
		if err := tick.tick(); err != nil {
			return nil, err
		}
		gd := 1 << g.NumTargets()
		off := offs[:gd]
		ctrlMask, ctrlVal := b.positions(g, off)
		tmask := off[gd-1]
		gm := g.matrix()
		for base := range d {
			if base&tmask != 0 || base&ctrlMask != ctrlVal {
				continue
			}
			for c := range d {
				col := t[c*d : c*d+d]
				for r, o := range off {
					buf[r] = col[base|o]
				}
				for r, o := range off {
					row := gm[r*gd : r*gd+gd]
					var acc complex128
					for j, v := range buf[:gd] {
						acc += row[j] * v
					}
					col[base|o] = acc
				}
			}
		}
	}
	m := make([]complex128, d*d)
	for c := range d {
		for r := range d {
			m[r*d+c] = t[c*d+r]
		}
	}
	return m, nil
}

// diagonal returns the diagonal of the product of the block's diagonal
// gates. Gates on the same qubits are first multiplied together on those
// qubits alone (2^t entries for t qubits, however wide the block), and each
// distinct set of qubits is then spread over the block's 2^k entries once:
// a long run of phase gates costs little more than reading it.
func (b *block) diagonal(tick *ticker) ([]complex128, error) {
	d := 1 << len(b.qubits)
	bySupport := make([][]complex128, d) // by the mask of a gate's qubits' bits
	offs := make([]int, d)
	for _, g := range b.gates {
		if err := tick.tick(); err != nil {
			return nil, err
		}
		gd := 1 << g.NumTargets()
		off := offs[:gd]
		ctrlMask, ctrlVal := b.positions(g, off)
		support := ctrlMask | off[gd-1]
		gm := g.matrix()
		t := bySupport[support]
		if t == nil {
			t = make([]complex128, 1<<bits.OnesCount(uint(support)))
			for i := range t {
				t[i] = 1
			}
			bySupport[support] = t
		}
		for y := range t {
			x := deposit(y, support)
			if x&ctrlMask != ctrlVal {
				continue
			}
			r := 0 // the row of g's matrix: bit j is target j's bit, off[1<<j]
			for j := range g.NumTargets() {
				if x&off[1<<j] != 0 {
					r |= 1 << j
				}
			}
			t[y] *= gm[r*gd+r]
		}
	}
	diag := make([]complex128, d)
	for i := range diag {
		diag[i] = 1
	}
	for support, t := range bySupport {
		if t == nil {
			continue
		}
		if err := tick.step(d); err != nil {
			return nil, err
		}
		for x := range diag {
			diag[x] *= t[extract(x, support)]
		}
	}
	return diag, nil
}

// deposit spreads the low bits of y over the set bits of mask, lowest first.
func deposit(y, mask int) int {
	x := 0
	for b := 0; mask != 0; b++ {
		low := mask & -mask
		if y>>b&1 == 1 {
			x |= low
		}
		mask &^= low
	}
	return x
}

// extract gathers the bits of x at the set bits of mask into the low bits,
// lowest first: the inverse of deposit.
func extract(x, mask int) int {
	y := 0
	for b := 0; mask != 0; b++ {
		low := mask & -mask
		if x&low != 0 {
			y |= 1 << b
		}
		mask &^= low
	}
	return y
}

// keepOne returns the touched block with the most qubits whose union with
// qs fits its width, or nil.
func keepOne(touched []*block, qs []int, diag bool, width, diagWidth int) *block {
	var keep *block
	for _, b := range touched {
		limit := width
		if diag && b.diag {
			limit = diagWidth
		}
		n := len(b.qubits)
		for _, q := range qs {
			if !slices.Contains(b.qubits, q) {
				n++
			}
		}
		if n <= limit && (keep == nil || len(b.qubits) > len(keep.qubits)) {
			keep = b
		}
	}
	return keep
}
