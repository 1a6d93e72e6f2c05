package sim

import "math/bits"

// The stabilizer state C|0…0⟩ of n qubits, C a Clifford, is held as the
// inverse tableau (as Stim holds it): the Paulis T X_j T† and T Z_j T† for
// T = C†, each a row of n x bits, n z bits and a sign. Holding the inverse
// makes the common operations cheap:
//
//   - a gate G after C makes T' = T·G†, and row P of T' is T (G† P G) T†,
//     a product of the rows of G's qubits: G costs a few row products,
//     ⌈n/64⌉ words each, where the forward tableau rewrites a bit of
//     every row;
//   - measuring Z_q reads row Z_q: ⟨Z_q⟩ = ⟨0|T Z_q T†|0⟩, so the outcome
//     is deterministic exactly when that row has no x bit, and then its
//     sign; only a random outcome rewrites all 2n rows (collapse).
//
// A row (−1)^s · Π_j P_j has P_j = I, X, Z or Y for (x_j, z_j) = (0,0),
// (1,0), (0,1), (1,1): the Hermitian form of Aaronson and Gottesman.

// tableau is an inverse tableau on n qubits.
type tableau struct {
	n, w int // qubits, words of a row's x bits (and of its z bits)
	// rows holds 2n rows of 2w words, x bits then z bits: row j is
	// T X_j T†, row n+j is T Z_j T†.
	rows  []uint64
	signs []uint64 // bit r is row r's sign
	// scratch holds a gate's old rows (2·maxCliffordQubits) and the
	// product being built, or the collapse's mask.
	scratch []uint64
}

// tableauWords is the words of a tableau on n qubits: its rows, signs and
// scratch.
func tableauWords(n int) int64 {
	w := int64(n+63) / 64
	return 2*int64(n)*2*w + (2*int64(n)+63)/64 + (2*maxCliffordQubits+1)*2*w
}

// newTableau returns the tableau of |0…0⟩: T = I.
func newTableau(n int) *tableau {
	w := (n + 63) / 64
	// One allocation for the three (tableauWords).
	nr, ns := 2*n*2*w, (2*n+63)/64
	words := make([]uint64, nr+ns+(2*maxCliffordQubits+1)*2*w)
	t := &tableau{n: n, w: w, rows: words[:nr:nr], signs: words[nr : nr+ns : nr+ns], scratch: words[nr+ns:]}
	t.identity()
	return t
}

// identity makes T the identity again: |0…0⟩.
func (t *tableau) identity() {
	clear(t.rows)
	clear(t.signs)
	for j := range t.n {
		t.row(j)[j>>6] = 1 << (j & 63)
		t.row(t.n + j)[t.w+j>>6] = 1 << (j & 63)
	}
}

// copyFrom makes t a copy of u, a tableau of as many qubits.
func (t *tableau) copyFrom(u *tableau) {
	copy(t.rows, u.rows)
	copy(t.signs, u.signs)
}

func (t *tableau) row(r int) []uint64 { return t.rows[r*2*t.w : (r+1)*2*t.w] }

func (t *tableau) sign(r int) bool { return t.signs[r>>6]>>(r&63)&1 == 1 }

func (t *tableau) flipSign(r int) { t.signs[r>>6] ^= 1 << (r & 63) }

func (t *tableau) setSign(r int, v bool) {
	if t.sign(r) != v {
		t.flipSign(r)
	}
}

// mulPhase multiplies the Pauli acc by src in place (acc·src), both 2w
// words of x bits then z bits, and returns the power of i the product of
// their Hermitian forms carries, mod 4: per qubit XY = iZ, YZ = iX,
// ZX = iY and the reverse orders −i.
func mulPhase(acc, src []uint64, w int) int {
	plus, minus := 0, 0
	ax, az := acc[:w], acc[w:2*w]
	sx, sz := src[:w], src[w:2*w]
	for i := range ax {
		x1, z1, x2, z2 := ax[i], az[i], sx[i], sz[i]
		if x2|z2 == 0 {
			continue
		}
		// +i: X·Y, Y·Z, Z·X; −i: Y·X, Z·Y, X·Z.
		p := x1&^z1&x2&z2 | x1&z1&^x2&z2 | ^x1&z1&x2&^z2
		m := x1&z1&x2&^z2 | ^x1&z1&x2&z2 | x1&^z1&^x2&z2
		plus += bits.OnesCount64(p)
		minus += bits.OnesCount64(m)
		ax[i] = x1 ^ x2
		az[i] = z1 ^ z2
	}
	return (plus - minus) & 3
}

// apply applies the Clifford gate g to qubits qs (its qubit j on qs[j]):
// every row of g's generators becomes the product of the old rows its
// image under U† names.
func (t *tableau) apply(g *cliffordGate, qs []int) {
	k, rw := g.k, 2*t.w
	gen := func(j int) int { // the row of generator j
		if j < k {
			return qs[j]
		}
		return t.n + qs[j-k]
	}
	var oldSign [2 * maxCliffordQubits]bool
	for j := range 2 * k {
		copy(t.scratch[j*rw:(j+1)*rw], t.row(gen(j)))
		oldSign[j] = t.sign(gen(j))
	}
	acc := t.scratch[2*k*rw : (2*k+1)*rw]
	for j := range 2 * k {
		img := g.inv[j]
		bitsOf := generatorBits(img, k)
		if bitsOf == 1<<j && !img.neg {
			continue // the row stays
		}
		clear(acc)
		e := bits.OnesCount8(img.x & img.z)
		if img.neg {
			e += 2
		}
		for a := range 2 * k {
			if bitsOf>>a&1 == 1 {
				if oldSign[a] {
					e += 2
				}
				e += mulPhase(acc, t.scratch[a*rw:(a+1)*rw], t.w)
			}
		}
		r := gen(j)
		copy(t.row(r), acc)
		// e is even: the images are Hermitian.
		t.setSign(r, e&2 != 0)
	}
}

// applyPauli applies the Pauli of index idx (PauliName's numbering) on
// qubits qs: rows that anticommute with it change sign.
func (t *tableau) applyPauli(idx int, qs []int) {
	for j, q := range qs {
		f := idx >> (2 * j) & 3
		if f == 1 || f == 2 { // an X part anticommutes with Z_q
			t.flipSign(t.n + q)
		}
		if f == 2 || f == 3 { // a Z part with X_q
			t.flipSign(q)
		}
	}
}

// deterministic reports whether measuring qubit q has a certain outcome,
// and which: row Z_q without x bits.
func (t *tableau) deterministic(q int) (random, outcome bool) {
	r := t.row(t.n + q)
	for _, v := range r[:t.w] {
		if v != 0 {
			return true, false
		}
	}
	return false, t.sign(t.n + q)
}

// collapse projects the state onto Z_q = (−1)^m when row Z_q has x bits.
// Writing P = T Z_q T†, the state after is C(1 ± P)|0⟩: the Clifford W of
// CXs from the first qubit p of P's x bits to the others, which leaves
// |0…0⟩ alone, takes P to (X_p or Y_p)·(Z's), and a one-qubit U on p
// whose U|0⟩ is the eigenstate wanted then ends in C·W·U|0⟩. T becomes
// U†·W·T: every row conjugated by W, then by U†, column operations on
// all 2n rows.
func (t *tableau) collapse(q int, m bool) {
	w := t.w
	zq := t.row(t.n + q)
	mask := t.scratch[:w] // P's x bits but p's: the CXs' targets
	copy(mask, zq[:w])
	p := -1
	for i, v := range mask {
		if v != 0 {
			p = i*64 + bits.TrailingZeros64(v)
			break
		}
	}
	pw, pb := p>>6, uint(p&63)
	mask[pw] &^= 1 << pb
	// The words of the mask that are not zero: P is often sparse.
	var nz []int
	for i, v := range mask {
		if v != 0 {
			nz = append(nz, i)
		}
	}
	for r := range 2 * t.n {
		row := t.row(r)
		x, z := row[:w], row[w:]
		a := x[pw] >> pb & 1
		n0, n1 := 0, 0
		for _, i := range nz {
			zk := z[i] & mask[i]
			n0 += bits.OnesCount64(zk &^ x[i])
			n1 += bits.OnesCount64(zk & x[i])
		}
		par := (n0 + n1) & 1
		if a == 1 {
			// Conjugating by W: the row's Y count changes by
			// Δ = (1−2z_p)·par + n0 − n1; its sign by Δ/2.
			b := int(z[pw] >> pb & 1)
			if d := (1-2*b)*par + n0 - n1; d&3 == 2 {
				t.flipSign(r)
			}
			for _, i := range nz {
				x[i] ^= mask[i]
			}
		}
		z[pw] ^= uint64(par) << pb
	}
	// P is now ±(X_p or Y_p)·(Z's): U = H for X_p, H_YZ for Y_p, each
	// followed by X_p when the sign is not the outcome wanted.
	yp := zq[w+pw]>>pb&1 == 1
	flip := t.sign(t.n+q) != m
	for r := range 2 * t.n {
		row := t.row(r)
		x, z := row[pw]>>pb&1, row[w+pw]>>pb&1
		var s uint64
		if yp {
			// H_YZ: X → −X, Y → Z, Z → Y.
			s = x &^ z
			row[pw] ^= z << pb
		} else {
			// H: X ↔ Z, Y → −Y.
			s = x & z
			row[pw] = row[pw]&^(1<<pb) | z<<pb
			row[w+pw] = row[w+pw]&^(1<<pb) | x<<pb
		}
		if flip {
			s ^= row[w+pw] >> pb & 1 // X_p anticommutes with the new Z part
		}
		if s == 1 {
			t.flipSign(r)
		}
	}
}
