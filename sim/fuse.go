package sim

import (
	"slices"
)

// Gate fusion: before a circuit touches the state, runs of gates on few
// qubits are merged into one gate, so the state is swept once per block
// instead of once per gate. A block holds gates whose qubits (targets and
// controls) fit within a width; blocks on disjoint qubits stay open side by
// side, since their gates commute. All-diagonal blocks may grow wider: a
// diagonal costs one multiplication per amplitude whatever its width.

const (
	// DefaultFusionWidth is the widest general block (qubits).
	DefaultFusionWidth = 2
	// DefaultDiagonalFusionWidth is the widest all-diagonal block.
	DefaultDiagonalFusionWidth = 8
)

type block struct {
	qubits []int // sorted
	gates  []*Gate
	diag   bool
	order  int // creation order, so blocks close in a valid order
}

func gateQubits(g *Gate) []int {
	qs := slices.Clone(g.Targets)
	for _, c := range g.Controls {
		qs = append(qs, c.Qubit)
	}
	slices.Sort(qs)
	return qs
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
// all-diagonal blocks) and returns the gates to apply, in a valid order. A
// width below 1 returns the gates as they are.
func fuseGates(gates []*Gate, width, diagWidth int) []*Gate {
	if width < 1 {
		return gates
	}
	diagWidth = max(diagWidth, width)
	var out []*Gate
	open := map[int]*block{} // qubit → its open block
	order := 0

	closeBlocks := func(bs []*block) {
		slices.SortFunc(bs, func(a, b *block) int { return a.order - b.order })
		for _, b := range bs {
			out = append(out, b.gate())
			for _, q := range b.qubits {
				delete(open, q)
			}
		}
	}

	for _, g := range gates {
		qs := gateQubits(g)
		if len(qs) == 0 {
			out = append(out, g) // a global phase commutes with everything
			continue
		}
		diag := isDiagonal(g.Matrix)
		var touched []*block
		for _, q := range qs {
			if b := open[q]; b != nil && !slices.Contains(touched, b) {
				touched = append(touched, b)
			}
		}
		union := slices.Clone(qs)
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
			nb := &block{qubits: union, diag: allDiag, order: order}
			if len(touched) > 0 {
				slices.SortFunc(touched, func(a, b *block) int { return a.order - b.order })
				nb.order = touched[0].order
				for _, b := range touched {
					nb.gates = append(nb.gates, b.gates...)
				}
			}
			nb.gates = append(nb.gates, g)
			for _, q := range union {
				open[q] = nb
			}
			order++
			continue
		}
		closeBlocks(touched)
		if own := map[bool]int{false: width, true: diagWidth}[diag]; len(qs) > own {
			out = append(out, g) // too wide to start a block: apply alone
			continue
		}
		nb := &block{qubits: qs, diag: diag, order: order, gates: []*Gate{g}}
		order++
		for _, q := range qs {
			open[q] = nb
		}
	}
	var rest []*block
	for _, b := range open {
		if !slices.Contains(rest, b) {
			rest = append(rest, b)
		}
	}
	closeBlocks(rest)
	return out
}

// gate returns the block as one gate: its only gate unchanged, or the
// product of all of them on the block's qubits.
func (b *block) gate() *Gate {
	if len(b.gates) == 1 {
		return b.gates[0]
	}
	k := len(b.qubits)
	d := 1 << k
	if b.diag {
		diag := make([]complex128, d)
		for x := range d {
			diag[x] = 1
			for _, g := range b.gates {
				diag[x] *= diagonalEntry(g, b.qubits, x)
			}
		}
		m := make([]complex128, d*d)
		for x := range d {
			m[x*d+x] = diag[x]
		}
		return &Gate{Name: "fused", Matrix: m, Targets: b.qubits}
	}
	m := Identity(d)
	for _, g := range b.gates {
		m = MatMul(embed(g, b.qubits), m)
	}
	return &Gate{Name: "fused", Matrix: m, Targets: b.qubits}
}

// diagonalEntry is the diagonal entry of diagonal gate g at the basis state
// x of qubits (bit j of x is qubits[j]).
func diagonalEntry(g *Gate, qubits []int, x int) complex128 {
	bit := func(q int) int { return x >> slices.Index(qubits, q) & 1 }
	for _, c := range g.Controls {
		if (bit(c.Qubit) == 1) == c.Negated {
			return 1
		}
	}
	r := 0
	for j, t := range g.Targets {
		r |= bit(t) << j
	}
	return g.Matrix[r*g.Dim()+r]
}

// embed returns g's full unitary, controls included, on qubits (bit j of
// the index is qubits[j]).
func embed(g *Gate, qubits []int) []complex128 {
	k := len(qubits)
	d := 1 << k
	pos := make(map[int]int, k)
	for j, q := range qubits {
		pos[q] = j
	}
	gd := g.Dim()
	m := make([]complex128, d*d)
	for col := range d {
		on := true
		for _, c := range g.Controls {
			on = on && (col>>pos[c.Qubit]&1 == 1) != c.Negated
		}
		if !on {
			m[col*d+col] = 1
			continue
		}
		gc, rest := 0, col
		for j, t := range g.Targets {
			gc |= (col >> pos[t] & 1) << j
			rest &^= 1 << pos[t]
		}
		for gr := range gd {
			row := rest
			for j, t := range g.Targets {
				row |= (gr >> j & 1) << pos[t]
			}
			m[row*d+col] = g.Matrix[gr*gd+gc]
		}
	}
	return m
}
