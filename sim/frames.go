package sim

import (
	"context"
	bin "encoding/binary"
	"math"
	"math/bits"
	"math/rand/v2"
)

// Pauli frames (Gidney, "Stim: a fast stabilizer circuit simulator",
// 2021): a circuit without classical control is run once on the tableau,
// noise left out and each random outcome taken as 0, for a reference
// sample. Every shot is that run with a Pauli F, its frame, applied: a
// Clifford U takes F to U F U†, a measurement of q reads the reference
// outcome flipped by F's x bit at q, a channel multiplies F by a Pauli
// drawn for the shot. The randomness of the outcomes comes from Z parts
// drawn uniformly where they change nothing (on |0⟩ at the start, on a
// qubit just measured or reset): a gate that turns them into X parts
// makes the later outcomes random with the right correlations. Frames are
// bits, 64 shots a word, so a gate on N shots costs N/64 word operations.

// frames holds the frames of a batch of 64·w shots: the x and z bits of
// each qubit, bit s of word i for shot 64i+s.
type frames struct {
	w    int
	x, z [][]uint64
	// pendingZ: the qubit's z bits are to be drawn before a gate next
	// reads them (they were set aside at the start, a measurement or a
	// reset; until a gate acts they change nothing).
	pendingZ []bool
	rng      *rand.Rand
}

func newFrames(n, w int, rng *rand.Rand) *frames {
	// One allocation for the rows and one for the words: a small
	// program's run is a handful of allocations in all.
	rows, words := make([][]uint64, 2*n), make([]uint64, 2*n*w)
	f := &frames{w: w, x: rows[:n:n], z: rows[n:], pendingZ: make([]bool, n), rng: rng}
	for q := range 2 * n {
		rows[q] = words[q*w : (q+1)*w : (q+1)*w]
	}
	return f
}

// start begins a batch of 64·w shots (w at most the frames' words).
func (f *frames) start(w int) {
	f.w = w
	for q := range f.x {
		clear(f.x[q][:w])
		f.pendingZ[q] = true
	}
}

// randomZ draws qubit q's z bits if they are pending.
func (f *frames) randomZ(q int) {
	if !f.pendingZ[q] {
		return
	}
	f.pendingZ[q] = false
	z := f.z[q][:f.w]
	for i := range z {
		z[i] = f.rng.Uint64()
	}
}

// apply takes every frame F to U F U† for the Clifford g on qubits qs.
func (f *frames) apply(g *cliffordGate, qs []int) {
	k := g.k
	var in [2 * maxCliffordQubits][]uint64
	for j, q := range qs[:k] {
		f.randomZ(q)
		in[j], in[k+j] = f.x[q][:f.w], f.z[q][:f.w]
	}
	switch {
	case k == 1 && g.frame[0] == 2 && g.frame[1] == 1: // H-like: x ↔ z
		f.x[qs[0]], f.z[qs[0]] = f.z[qs[0]], f.x[qs[0]]
		return
	case g.cx[0] != g.cx[1]: // x_t ^= x_c, z_c ^= z_t
		c, t := g.cx[0], g.cx[1]
		xc, xt, zc, zt := in[c], in[t], in[k+int(c)], in[k+int(t)]
		for i := range xc {
			xt[i] ^= xc[i]
			zc[i] ^= zt[i]
		}
		return
	}
	var v [2 * maxCliffordQubits]uint64
	for i := range f.w {
		for o := range 2 * k {
			var s uint64
			for m := g.frame[o]; m != 0; m &= m - 1 {
				s ^= in[bits.TrailingZeros8(m)][i]
			}
			v[o] = s
		}
		for o := range 2 * k {
			in[o][i] = v[o]
		}
	}
}

// measure writes qubit q's outcomes, the reference's ref flipped by the
// frames' x bits, to rec (nil: a bit no key holds), and sets the qubit's
// z bits aside.
func (f *frames) measure(q int, ref bool, rec []uint64) {
	if rec != nil {
		x := f.x[q][:f.w]
		var m uint64
		if ref {
			m = ^uint64(0)
		}
		for i := range rec[:f.w] {
			rec[i] = x[i] ^ m
		}
	}
	f.pendingZ[q] = true
}

// reset returns qubit q to the reference's |0⟩ in every shot.
func (f *frames) reset(q int) {
	clear(f.x[q][:f.w])
	f.pendingZ[q] = true
}

// noise multiplies the frames by Paulis drawn from ch.
func (f *frames) noise(ch *stabChannel, qs []int) {
	hits(f.rng, ch.total, 64*f.w, func(s int) {
		idx := ch.draw(f.rng.Float64())
		i, b := s>>6, uint64(1)<<(s&63)
		for j, q := range qs {
			p := idx >> (2 * j) & 3
			if p == 1 || p == 2 {
				f.x[q][i] ^= b
			}
			if p == 2 || p == 3 {
				f.z[q][i] ^= b // pending z bits are drawn over anyway
			}
		}
	})
}

// flip flips each of the first 64·w bits of rec with probability p: a
// readout error.
func (f *frames) flip(rec []uint64, p float64) {
	hits(f.rng, p, 64*f.w, func(s int) { rec[s>>6] ^= 1 << (s & 63) })
}

// hits calls hit for each of shots 0 … n−1 that an event of probability
// p strikes, in order, skipping between them by geometric draws: O(p·n)
// draws, not n.
func hits(rng *rand.Rand, p float64, n int, hit func(int)) {
	switch {
	case p <= 0:
		return
	case p >= 1:
		for s := range n {
			hit(s)
		}
		return
	}
	l := math.Log1p(-p)
	for s := 0; ; s++ {
		// P(gap ≥ g) = (1−p)^g.
		gap := math.Floor(math.Log(1-rng.Float64()) / l)
		if gap >= float64(n-s) {
			return
		}
		s += int(gap)
		hit(s)
	}
}

// stabChannel is a Pauli channel as the stabilizer method draws it: the
// probability of any Pauli but I, and which one given that.
type stabChannel struct {
	total float64
	cum   []float64 // cumulative probabilities of idx[i], given not I
	idx   []int
}

func newStabChannel(ch *Channel) *stabChannel {
	s := &stabChannel{}
	for i, p := range ch.pauli {
		if i != 0 && p > 0 {
			s.total += p
			s.idx = append(s.idx, i)
			s.cum = append(s.cum, s.total)
		}
	}
	for i := range s.cum {
		s.cum[i] /= s.total
	}
	s.total = min(s.total, 1)
	return s
}

// draw picks the Pauli of a hit for a uniform u in [0, 1).
func (s *stabChannel) draw(u float64) int {
	for i, c := range s.cum {
		if u < c {
			return s.idx[i]
		}
	}
	return s.idx[len(s.idx)-1]
}

// transpose64 transposes the 64×64 bit matrix a: bit j of a[i] becomes
// bit i of a[j]. Each round swaps the off-diagonal blocks of every
// 2s×2s block, halving s from 32.
func transpose64(a *[64]uint64) {
	m := uint64(0x00000000ffffffff)
	for s := 32; s > 0; s >>= 1 {
		for i := 0; i < 64; i = (i + s + 1) &^ s {
			t := (a[i]>>s ^ a[i+s]) & m
			a[i+s] ^= t
			a[i] ^= t << s
		}
		m ^= m << (s / 2)
	}
}

// packedTally counts outcomes keyed by their live bits (those some
// measurement writes) packed 8 to a byte, and turns them into Run's keys
// at the end: a key of a thousand bits hashes as 125 bytes, not 1000.
// Keys of at most denseTallyBits bits are counted in an array instead,
// indexed by the key: no hashing at all.
type packedTally struct {
	dense []int
	index map[string]int
	keys  []string
	n     []int
	lim   outcomeLimit
	width int   // live bits
	full  int   // Run's key width
	live  []int // live bit j is bit live[j] of Run's key
	// A batch's keys: shot s's in words s·kw …, and one as bytes.
	shotKeys []uint64
	buf      []byte
}

// popcountTallyBits is the widest key counted outcome by outcome, each
// with one popcount a word of 64 shots: 2^bits · bits operations a word,
// less than the transpose costs up to here.
const popcountTallyBits = 4

// tallyByPopcount counts the shots of each outcome k of a few bits as the
// ones of the AND of every key bit's row, or its complement where k's bit
// is 0. Keys this narrow are counted in the array.
func (t *packedTally) tallyByPopcount(ctx context.Context, rec [][]uint64, w, shots int) error {
	for i := range w {
		if err := ctx.Err(); err != nil {
			return err
		}
		valid := ^uint64(0)
		if n := shots - 64*i; n < 64 {
			valid = 1<<n - 1
		}
		for k := range t.dense {
			m := valid
			for b, r := range rec[:t.width] {
				if k>>b&1 == 1 {
					m &= r[i]
				} else {
					m &^= r[i]
				}
			}
			t.dense[k] += bits.OnesCount64(m)
		}
	}
	return nil
}

// denseTallyBits is the widest key counted in an array (8 KiB of counts).
const denseTallyBits = 10

func newPackedTally(width, full int, live []int, lim outcomeLimit) *packedTally {
	t := &packedTally{lim: lim, width: width, full: full, live: live}
	if width > popcountTallyBits {
		// The transpose's buffers: narrower keys are counted without it.
		kw := (width + 63) / 64
		t.shotKeys, t.buf = make([]uint64, 64*kw), make([]byte, 8*kw)
	}
	if width <= denseTallyBits {
		t.dense = make([]int, 1<<width)
	} else {
		t.index = make(map[string]int)
	}
	return t
}

// fromDense moves the array's counts into keys and n, in key order.
func (t *packedTally) fromDense() error {
	for k, c := range t.dense {
		if c == 0 {
			continue
		}
		if len(t.n) >= t.lim.max {
			return t.lim.err()
		}
		var b [2]byte
		bin.LittleEndian.PutUint16(b[:], uint16(k))
		t.keys = append(t.keys, string(b[:(t.width+7)/8]))
		t.n = append(t.n, c)
	}
	t.dense = nil
	return nil
}

func (t *packedTally) add(key []byte) error {
	if i, ok := t.index[string(key)]; ok {
		t.n[i]++
		return nil
	}
	if len(t.n) >= t.lim.max {
		return t.lim.err()
	}
	s := string(key)
	t.index[s] = len(t.n)
	t.keys = append(t.keys, s)
	t.n = append(t.n, 1)
	return nil
}

// counts returns the counts by Run's keys: bit b of a key is character
// full−1−b, 0 unless live.
func (t *packedTally) counts(ctx context.Context) (map[string]int, error) {
	enter("count")
	if t.dense != nil {
		if err := t.fromDense(); err != nil {
			return nil, err
		}
	}
	tick := ticker{ctx: ctx}
	out := make(map[string]int, len(t.n))
	buf := make([]byte, t.full)
	for i := range buf {
		buf[i] = '0'
	}
	for i, k := range t.keys {
		if err := tick.step(1 + t.full/64); err != nil {
			return nil, err
		}
		for j, b := range t.live {
			buf[t.full-1-b] = '0' + k[j>>3]>>(j&7)&1
		}
		out[string(buf)] = t.n[i]
	}
	return out, nil
}

// tallyBatch counts the first shots of a batch whose key bits are rec
// (bit b of the key in rec[b], w words of 64 shots), 64 shots at a time
// through a transpose per 64 key bits.
func (t *packedTally) tallyBatch(ctx context.Context, rec [][]uint64, w, shots int) error {
	if t.width <= popcountTallyBits {
		return t.tallyByPopcount(ctx, rec, w, shots)
	}
	kw := (t.width + 63) / 64
	keys, buf := t.shotKeys, t.buf
	nb := (t.width + 7) / 8
	var blk [64]uint64
	for i := range w {
		if err := ctx.Err(); err != nil {
			return err
		}
		for kb := range kw {
			for j := range 64 {
				blk[j] = 0
				if b := kb*64 + j; b < t.width {
					blk[j] = rec[b][i]
				}
			}
			transpose64(&blk)
			for s := range 64 {
				keys[s*kw+kb] = blk[s]
			}
		}
		if t.dense != nil {
			for s := range min(64, shots-64*i) {
				t.dense[keys[s]]++
			}
			continue
		}
		for s := range min(64, shots-64*i) {
			for kb := range kw {
				bin.LittleEndian.PutUint64(buf[8*kb:], keys[s*kw+kb])
			}
			if err := t.add(buf[:nb]); err != nil {
				return err
			}
		}
	}
	return nil
}
