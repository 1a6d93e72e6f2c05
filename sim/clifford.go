package sim

import (
	"context"
	"fmt"
	"math/bits"
	"sync"
)

// Clifford gates: the stabilizer method runs a gate when its unitary U (up
// to a global phase) maps every Pauli to a Pauli under conjugation, and it
// needs nothing of U but those images. A gate is judged from its matrix,
// one at a time as written (decisions.md): u3(π/2, 0, π) is an H, t is not
// Clifford even when a tdg follows it, and a controlled gate, one with
// negated controls, an adjoint or a gate given by its matrix is judged by
// the unitary on all its qubits, controls included.
//
// A unitary on k qubits is Clifford exactly when U X_j U† and U Z_j U† are
// Paulis for j < k: those 2k generate the Pauli group, and conjugation is
// multiplicative. Each image costs a product of d×d matrices (d = 2^k),
// so gates on more than maxCliffordQubits qubits, which standard libraries
// use only for non-Clifford gates (ccx, cswap, c3x), are not judged and
// count as not Clifford.

// maxCliffordQubits is the widest gate, controls included, judged by its
// matrix.
const maxCliffordQubits = 3

// cliffordTolerance is how far an entry of U P U† may be from that of a
// Pauli times ±1. Standard gates at Clifford angles are off by rounding
// (1e-16); a gate that is not Clifford is off by the order of its angle's
// distance to one, so a gate within 1e-9 of a Clifford runs as that
// Clifford.
const cliffordTolerance = 1e-9

// localPauli is a Pauli on the k qubits of a gate, (−1)^neg · i^|x&z| ·
// X^x Z^z, bit j of x and z for the gate's qubit j: its Hermitian form,
// Y where both bits are set.
type localPauli struct {
	x, z uint8
	neg  bool
}

// cliffordGate is what the stabilizer method knows of a Clifford gate on
// k qubits (the op's targets, then its controls): the images of the
// generators X_0 … X_{k−1}, Z_0 … Z_{k−1}, generator j being X_j for
// j < k and Z_{j−k} after, under conjugation by U (fwd, for Pauli frames)
// and by U† (inv, for the inverse tableau).
type cliffordGate struct {
	k        int
	fwd, inv [2 * maxCliffordQubits]localPauli
	// frame[o] is the set of generators whose forward images hold
	// generator o: a frame's bit o after the gate is the parity of those
	// bits before it. frameIdentity: the gate leaves every frame as it is
	// (a Pauli, a phase).
	frame         [2 * maxCliffordQubits]uint8
	frameIdentity bool
	// cx is the control and target of a gate whose frame map is a CX's
	// (cx, or an equivalent such as cx with a phase), else 0, 0.
	cx [2]int8
}

// judgeUnitary returns the Clifford action of the unitary u on k qubits,
// or false when it is not a Clifford gate.
func judgeUnitary(u []complex128, k int) (*cliffordGate, bool) {
	g := &cliffordGate{k: k}
	ud := Dagger(u)
	for j := range 2 * k {
		var ok bool
		if g.fwd[j], ok = conjugatePauli(u, ud, k, j); !ok {
			return nil, false
		}
		if g.inv[j], ok = conjugatePauli(ud, u, k, j); !ok {
			return nil, false
		}
	}
	g.frameIdentity = true
	for o := range 2 * k {
		for j := range 2 * k {
			if generatorBits(g.fwd[j], k)>>o&1 == 1 {
				g.frame[o] |= 1 << j
			}
		}
		g.frameIdentity = g.frameIdentity && g.frame[o] == 1<<o
	}
	if k == 2 {
		for c := range 2 {
			t := 1 - c
			var want [2 * maxCliffordQubits]uint8
			want[t] = 1<<t | 1<<c
			want[c] = 1 << c
			want[2+t] = 1 << (2 + t)
			want[2+c] = 1<<(2+c) | 1<<(2+t)
			if g.frame == want {
				g.cx = [2]int8{int8(c), int8(t)}
			}
		}
	}
	return g, true
}

// generatorBits is p's x bits then its z bits, as generator indices.
func generatorBits(p localPauli, k int) uint {
	return uint(p.x) | uint(p.z)<<k
}

// conjugatePauli returns a·G·b, b = a†, for generator j of k qubits, when
// it is ± a Pauli.
func conjugatePauli(a, b []complex128, k, j int) (localPauli, bool) {
	d := 1 << k
	// G|c⟩ = ph(c)|c ^ xm⟩: X_j flips bit j, Z_j signs it.
	xm, zm := 0, 0
	if j < k {
		xm = 1 << j
	} else {
		zm = 1 << (j - k)
	}
	// aG[r][c] = a[r][c^xm]·ph(c); then m = aG·b.
	ag := make([]complex128, d*d)
	for r := range d {
		for c := range d {
			v := a[r*d+(c^xm)]
			if bits.OnesCount(uint(c&zm))&1 == 1 {
				v = -v
			}
			ag[r*d+c] = v
		}
	}
	m := make([]complex128, d*d)
	for r := range d {
		for c := range d {
			var s complex128
			for t := range d {
				s += ag[r*d+t] * b[t*d+c]
			}
			m[r*d+c] = s
		}
	}
	return asPauli(m, k)
}

// asPauli returns the Pauli m is, times ±1, within cliffordTolerance.
// ±i^|x&z|·X^x Z^z maps |c⟩ to ±i^|x&z|·(−1)^|z&c|·|c^x⟩: row 0 holds
// its one entry at column x, and column 2^b's entry, against column 0's,
// gives bit b of z.
func asPauli(m []complex128, k int) (localPauli, bool) {
	d := 1 << k
	x := -1
	for c := range d {
		if abs2(m[c]) > 0.5 {
			x = c
			break
		}
	}
	if x < 0 {
		return localPauli{}, false
	}
	v0 := m[x*d] // entry (x ^ 0, 0)
	z := 0
	for b := range k {
		c := 1 << b
		vb := m[(x^c)*d+c]
		if real(vb*conj(v0)) < 0 {
			z |= c
		}
	}
	// v0 = ±i^|x&z|: undo the power of i.
	s := v0
	for range bits.OnesCount(uint(x & z)) {
		s *= -1i
	}
	neg := real(s) < 0
	want := complex(1, 0)
	if neg {
		want = -1
	}
	for range bits.OnesCount(uint(x & z)) {
		want *= 1i
	}
	for r := range d {
		for c := range d {
			var e complex128
			if r == c^x {
				e = want
				if bits.OnesCount(uint(z&c))&1 == 1 {
					e = -e
				}
			}
			if abs2(m[r*d+c]-e) > cliffordTolerance*cliffordTolerance {
				return localPauli{}, false
			}
		}
	}
	return localPauli{x: uint8(x), z: uint8(z), neg: neg}, true
}

func conj(v complex128) complex128 { return complex(real(v), -imag(v)) }

// fullUnitary is the unitary of the gate op on its k qubits, its targets
// then its controls (bit j of the index for qubitAt(j)): the matrix where
// every control holds its wanted value, the identity elsewhere.
func fullUnitary(op *Op) []complex128 {
	m := op.matrix()
	nt, nc := op.NumTargets(), op.NumControls()
	k := nt + nc
	d, dt := 1<<k, 1<<nt
	want := 0 // the control bits, over the index's high bits, that enable m
	for i := range nc {
		if !op.ControlAt(i).Negated {
			want |= 1 << i
		}
	}
	u := make([]complex128, d*d)
	for c := range d {
		if c>>nt != want {
			u[c*d+c] = 1
			continue
		}
		hi := c &^ (dt - 1)
		for r := range dt {
			u[(hi|r)*d+c] = m[r*dt+(c&(dt-1))]
		}
	}
	return u
}

// cliffordKey identifies a gate's unitary for the judge's cache: a
// standard gate by its id, adjoint flag, controls and parameters; a gate
// given by its matrix by that matrix, which its copies share.
type cliffordKey struct {
	std, flags, nt, nc, neg uint8
	p                       [3]float64
	m                       *complex128
}

// maxCliffordCache bounds the gates a judge remembers: a circuit of a
// million rotations by different angles judges most of them anew.
const maxCliffordCache = 1 << 14

// cliffordJudge judges the gates of one run, remembering its answers: a
// circuit repeats a few gates many times.
type cliffordJudge struct {
	cache map[cliffordKey]*cliffordGate // nil entries: not Clifford
}

// stdClifford holds the action of each standard gate without parameters,
// as the standard gate and as its adjoint, built once: most gates of most
// circuits are these.
var stdClifford = sync.OnceValue(func() [][2]*cliffordGate {
	out := make([][2]*cliffordGate, len(stdTable))
	for i, s := range stdTable {
		if s.NumParams != 0 || s.NumQubits > maxCliffordQubits {
			continue
		}
		for adj := range 2 {
			qs := make([]int, s.NumQubits)
			for q := range qs {
				qs[q] = q
			}
			op, err := s.Op(nil, qs...)
			if err != nil {
				continue
			}
			if adj == 1 {
				op = op.Inverse()
			}
			if g, ok := judgeUnitary(fullUnitary(&op), s.NumQubits); ok {
				out[i][adj] = g
			}
		}
	}
	return out
})

// gate returns the Clifford action of the gate op, or false when it is
// not a Clifford gate (or too wide to judge).
func (j *cliffordJudge) gate(op *Op) (*cliffordGate, bool) {
	k := op.numQubits()
	if k > maxCliffordQubits || op.wide() {
		return nil, false
	}
	if op.std != 0 {
		s := &stdTable[op.std-1]
		if s.NumParams == 0 && int(op.nc) == s.NumControls && op.neg == 0 {
			g := stdClifford()[op.std-1][op.flags&flagAdjoint]
			return g, g != nil
		}
	}
	key := cliffordKey{std: op.std, flags: op.flags, nt: op.nt, nc: op.nc, neg: op.neg}
	if op.std != 0 {
		key.p = op.p
	} else if op.x != nil && len(op.x.matrix) > 0 {
		key.m = &op.x.matrix[0]
	}
	if g, ok := j.cache[key]; ok {
		return g, g != nil
	}
	g, ok := judgeUnitary(fullUnitary(op), k)
	if j.cache == nil {
		j.cache = make(map[cliffordKey]*cliffordGate)
	}
	if len(j.cache) < maxCliffordCache {
		j.cache[key] = g
	}
	return g, ok
}

// judgeWork is what judging a gate costs, in ticker units: building and
// multiplying its matrices, 4^k·2^k entries for each of 4k images.
func judgeWork(op *Op) int {
	k := min(op.numQubits(), maxCliffordQubits)
	return 1 + op.matrixEntries() + 4*k<<(3*k)/64
}

// stabilizerBlock says why the stabilizer method cannot run c: the first
// gate that is not Clifford or channel that is not a Pauli channel, with
// where the front end read it, or "" when it can. It checks ctx as it
// goes.
func stabilizerBlock(ctx context.Context, c *Circuit, j *cliffordJudge) (string, error) {
	tick := ticker{ctx: ctx}
	for i := range c.Ops {
		op := &c.Ops[i]
		switch op.Kind {
		case OpGate:
			if err := tick.step(judgeWork(op)); err != nil {
				return "", err
			}
			if _, ok := j.gate(op); !ok {
				what := "is not a Clifford gate"
				if op.numQubits() > maxCliffordQubits {
					what = fmt.Sprintf("acts on %d qubits and is not judged Clifford (at most %d are)", op.numQubits(), maxCliffordQubits)
				}
				return fmt.Sprintf("gate %s %s %s", op.GateName(), where(i, op), what), nil
			}
		case OpNoise:
			if err := tick.tick(); err != nil {
				return "", err
			}
			if ch := op.Channel(); ch == nil || !ch.IsPauli() {
				name := "?"
				if ch != nil {
					name = ch.String()
				}
				return fmt.Sprintf("channel %s %s is not a Pauli channel", name, where(i, op)), nil
			}
		}
	}
	return "", nil
}

// where is the position of operation i for a message: "at line:col" when
// the front end gave one, else its index.
func where(i int, op *Op) string {
	if line, col := op.Pos(); line > 0 {
		return fmt.Sprintf("at %d:%d", line, col)
	}
	return fmt.Sprintf("(operation %d)", i)
}

// judge works out sh.stabilizer for c when opts ask for a method that
// needs it (auto or stabilizer).
func (sh *shape) judge(ctx context.Context, c *Circuit, opts Options, j *cliffordJudge) error {
	if opts.Method != MethodAuto && opts.Method != MethodStabilizer {
		return nil
	}
	why, err := stabilizerBlock(ctx, c, j)
	if err != nil {
		return err
	}
	sh.judged, sh.stabilizerBlock = true, why
	return nil
}
