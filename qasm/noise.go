package qasm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/qjobs/quantum/sim"
)

// Noise pragmas: "#pragma braket noise channel(params) qubits", the line
// Amazon Braket's simulators read, applies a channel of package sim where
// it stands (decisions.md, "Noise"). The lexer hands the whole line over
// as one token; noisePragma lexes it again, a lexer of its own over the
// line, and parses it with the parser's own functions, so that parameters
// and operands are the expressions they are everywhere else.

// noiseKind is a channel a pragma may name.
type noiseKind struct {
	name   string
	params []string // their names, in Braket's order
	qubits int      // 1 or 2; 0 for kraus, whose matrices say
	build  func(p []float64) (*sim.Channel, error)
	// cost bounds what building the channel allocates (measured, with
	// room to spare); kraus's is krausCost.
	cost int64
}

// noiseKinds are the channels in the order messages list them.
var noiseKinds = []noiseKind{
	{"bit_flip", []string{"p"}, 1, func(p []float64) (*sim.Channel, error) { return sim.BitFlip(p[0]) }, 4 << 10},
	{"phase_flip", []string{"p"}, 1, func(p []float64) (*sim.Channel, error) { return sim.PhaseFlip(p[0]) }, 4 << 10},
	{"pauli_channel", []string{"px", "py", "pz"}, 1, func(p []float64) (*sim.Channel, error) { return sim.PauliChannel(p[0], p[1], p[2]) }, 4 << 10},
	{"depolarizing", []string{"p"}, 1, func(p []float64) (*sim.Channel, error) { return sim.Depolarizing(p[0]) }, 4 << 10},
	{"two_qubit_depolarizing", []string{"p"}, 2, func(p []float64) (*sim.Channel, error) { return sim.TwoQubitDepolarizing(p[0]) }, 24 << 10},
	{"two_qubit_dephasing", []string{"p"}, 2, func(p []float64) (*sim.Channel, error) { return sim.TwoQubitDephasing(p[0]) }, 8 << 10},
	{"amplitude_damping", []string{"gamma"}, 1, func(p []float64) (*sim.Channel, error) { return sim.AmplitudeDamping(p[0]) }, 4 << 10},
	{"phase_damping", []string{"gamma"}, 1, func(p []float64) (*sim.Channel, error) { return sim.PhaseDamping(p[0]) }, 4 << 10},
	{"generalized_amplitude_damping", []string{"gamma", "p"}, 1, func(p []float64) (*sim.Channel, error) {
		return sim.GeneralizedAmplitudeDamping(p[0], p[1])
	}, 4 << 10},
	{name: "kraus"},
}

func lookupNoise(name string) *noiseKind {
	for i := range noiseKinds {
		if noiseKinds[i].name == name {
			return &noiseKinds[i]
		}
	}
	return nil
}

func noiseNames() string {
	names := make([]string, len(noiseKinds))
	for i, k := range noiseKinds {
		names[i] = k.name
	}
	return strings.Join(names, ", ")
}

// krausCost bounds what sim.Kraus allocates for m matrices of d×d: it
// works out the channel's Pauli form, 4^k Pauli matrices against each.
func krausCost(d, m int) int64 {
	if d == 2 {
		return 2<<10 + 1<<10*int64(m)
	}
	return 16<<10 + 8<<10*int64(m)
}

// noiseKey names a channel with parameters: a loop that applies the same
// channel a million times shares one.
type noiseKey struct {
	name string
	p    [3]float64
}

// noiseKeyBytes is an entry of compiler.channels, with the map's growth.
const noiseKeyBytes = 128

// noiseArgs reports whether text, a pragma's line, is a noise pragma
// ("#pragma braket noise ..." or "pragma braket noise ..."), and where
// what follows "noise" starts. Any other pragma is ignored, as Braket's
// verbatim and the pragmas of other tools are.
func noiseArgs(text string) (int, bool) {
	i := 0
	if strings.HasPrefix(text, "#") {
		i++
	}
	for _, w := range []string{"pragma", "braket", "noise"} {
		if !strings.HasPrefix(text[i:], w) {
			return 0, false
		}
		i += len(w)
		// a whole word: "#pragma braket noisy" is someone else's
		if i < len(text) && (byteClass[text[i]] == cIdent || byteClass[text[i]] == cDigit || text[i] >= utf8.RuneSelf) {
			return 0, false
		}
		for i < len(text) && byteClass[text[i]] == cBlank {
			i++
		}
	}
	return i, true
}

// noisePragma parses the pragma t when it is a noise pragma of an
// OpenQASM 3 program, and returns nil for any other, which stays ignored:
// an OpenQASM 2 program gets noise only from a device's noise model.
//
// The line's tokens are read through the parser's own buffer, swapped
// for the line's while it parses them, so that the parser's functions
// read them and its nodes come from its slabs.
func (p *parser) noisePragma(t token) stmt {
	if p.version == 2 {
		return nil
	}
	off, ok := noiseArgs(t.text)
	if !ok {
		return nil
	}
	// What comes before off is ASCII, a column a byte.
	p.pragmaLx = lexer{src: t.text, i: off, line: t.pos.Line, col: t.pos.Col + int32(off), poll: p.lx.poll, end: "the end of the pragma's line"}
	toks, i, outer, lexErr := p.toks, p.i, p.lx, p.lexErr
	p.toks, p.i, p.lx, p.lexErr = p.pragmaToks[:0], 0, &p.pragmaLx, nil
	defer func() {
		p.pragmaToks = p.toks
		p.toks, p.i, p.lx, p.lexErr = toks, i, outer, lexErr
	}()
	return p.noise(t.pos)
}

// noise parses the rest of a noise pragma's line: the channel, its
// parameters or Kraus matrices, and the qubits.
func (p *parser) noise(pos position) *sNoise {
	name := p.ident("for the channel after \"#pragma braket noise\"")
	kind := lookupNoise(name.text)
	if kind == nil {
		fail(name.pos, "unknown noise channel %q; the channels are %s", name.text, noiseNames())
	}
	s := p.noises.new()
	*s = sNoise{P: pos, Name: name.text, NamePos: name.pos}
	p.expect("(", "after the noise channel "+quote(name.text))
	if kind.qubits == 0 {
		s.Mats = p.krausMatrices()
	} else {
		s.Params = p.noiseParams(kind)
	}
	if t := p.peek(); t.kind == tEOF {
		fail(t.pos, "expected the qubits %s acts on, got %s", name.text, t.describe())
	}
	var buf [4]expr
	list := buf[:0]
	for {
		list = append(list, p.operand())
		if !p.accept(",") {
			break
		}
	}
	s.Qubits = p.exprs.many(list)
	p.accept(";") // tolerated, though Braket writes none
	if t := p.peek(); t.kind != tEOF {
		fail(t.pos, "expected the end of the pragma's line after the qubits, got %s (a pragma takes its whole line)", t.describe())
	}
	return s
}

// noiseParams parses a channel's parameters, after the "(", and checks
// their number.
func (p *parser) noiseParams(kind *noiseKind) []expr {
	var buf [4]expr
	list := buf[:0]
	var closing token
	for {
		if t := p.peek(); t.is(")") {
			closing = p.next()
			break
		}
		list = append(list, p.param())
		if !p.accept(",") {
			closing = p.expect(")", "after the parameters of "+quote(kind.name))
			break
		}
	}
	if n := len(kind.params); len(list) != n {
		// too many: the first one too many; too few: where more belong
		at := closing.pos
		if len(list) > n {
			at = startOf(list[n])
		}
		fail(at, "noise channel %q takes %s (%s), got %d", kind.name, plural(n, "parameter"), strings.Join(kind.params, ", "), len(list))
	}
	return p.exprs.many(list)
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// startOf is where an expression's text starts: a binary operation's
// node sits at its operator, an index's at its "[".
func startOf(e expr) position {
	for {
		switch x := e.(type) {
		case *xBinary:
			e = x.X
		case *xIndex:
			e = x.X
		default:
			return e.at()
		}
	}
}

// krausMatrices parses kraus's matrices, after the "(", up to the ")".
// Their shapes are checked as they are read, so that a pragma holds at
// most 16 matrices of at most 4×4 whatever its line holds.
func (p *parser) krausMatrices() []krausMatrix {
	var mats []krausMatrix
	for {
		m := p.krausMatrix(len(mats) + 1)
		if len(mats) > 0 && m.D != mats[0].D {
			fail(m.P, "Kraus matrix %d is %d×%d, matrix 1 is %d×%d: the matrices of a channel act on the same qubits", len(mats)+1, m.D, m.D, mats[0].D, mats[0].D)
		}
		if len(mats) == m.D*m.D {
			fail(m.P, "kraus takes at most %d matrices of %d×%d (any channel on %s has a Kraus form that short)", m.D*m.D, m.D, m.D, plural(m.D/2, "qubit"))
		}
		mats = append(mats, m)
		if !p.accept(",") {
			p.expect(")", "after the Kraus matrices")
			return mats
		}
	}
}

// krausMatrix parses the n-th Kraus matrix: rows of entries in brackets,
// [[a, b], [c, d]], 2×2 for one qubit or 4×4 for two.
func (p *parser) krausMatrix(n int) krausMatrix {
	open := p.expect("[", "to open a Kraus matrix, such as [[1, 0], [0, 1]]")
	var buf [16]complex128
	size, rows, width := 0, 0, 0
	for {
		row := p.expect("[", "to open a row of a Kraus matrix")
		if rows > 0 && rows == width {
			fail(row.pos, "Kraus matrix %d has more rows than its %d columns: it must be square, 2×2 for one qubit or 4×4 for two", n, width)
		}
		cols := 0
		for {
			if cols == 4 {
				fail(p.peek().pos, "a row of a Kraus matrix has at most 4 entries (4×4 for two qubits)")
			}
			buf[size] = p.matrixEntry()
			size++
			cols++
			if !p.accept(",") {
				p.expect("]", "after the entries of a row of a Kraus matrix")
				break
			}
		}
		if rows == 0 {
			width = cols
		} else if cols != width {
			fail(row.pos, "row %d of Kraus matrix %d has %d entries, row 1 has %d", rows+1, n, cols, width)
		}
		rows++
		if !p.accept(",") {
			p.expect("]", "to close the Kraus matrix")
			break
		}
	}
	if rows != width {
		fail(open.pos, "Kraus matrix %d has %s of %d entries: it must be square, 2×2 for one qubit or 4×4 for two", n, plural(rows, "row"), width)
	}
	if width != 2 && width != 4 {
		fail(open.pos, "Kraus matrix %d is %d×%d: kraus takes 2×2 matrices (one qubit) or 4×4 (two qubits)", n, width, width)
	}
	return krausMatrix{P: open.pos, D: width, M: slices.Clone(buf[:size])}
}

// matrixEntry parses an entry of a Kraus matrix as Braket writes one: a
// real or imaginary number, maybe negated, or a real and an imaginary part
// joined by + or − (0.3 + 0.4im, -0.5 - 0.1im).
func (p *parser) matrixEntry() complex128 {
	neg := p.accept("-")
	t := p.next()
	v := entryNumber(t)
	if neg {
		v = -v
	}
	if op := p.peek(); t.kind != tImag && (op.is("+") || op.is("-")) {
		p.next()
		minus := op.is("-") != p.accept("-")
		u := p.next()
		if u.kind != tImag {
			fail(u.pos, "expected the imaginary part of a complex entry, such as 0.4im, got %s", u.describe())
		}
		im := entryNumber(u)
		if minus {
			im = -im
		}
		v += im
	}
	return v
}

// entryNumber is the value of a number token in a Kraus matrix.
func entryNumber(t token) complex128 {
	var x float64
	switch t.kind {
	case tInt:
		v, err := parseInt(t.text)
		if err != nil {
			fail(t.pos, "integer %s is too large", t.text)
		}
		x = float64(uint64(v)) // a literal is never negative
	case tFloat, tImag:
		text := strings.ReplaceAll(strings.TrimSuffix(t.text, "im"), "_", "")
		v, err := strconv.ParseFloat(text, 64)
		if err != nil && !errors.Is(err, strconv.ErrRange) {
			fail(t.pos, "bad number %s", t.text)
		}
		if math.IsInf(v, 0) {
			fail(t.pos, "number %s is out of range", t.text)
		}
		x = v
	default:
		fail(t.pos, "expected a number for an entry of a Kraus matrix (such as 0.5, -0.2im or 0.3 + 0.4im), got %s", t.describe())
	}
	if t.kind == tImag {
		return complex(0, x)
	}
	return complex(x, 0)
}

// lowerNoise applies a noise pragma's channel: a one-qubit channel to each
// qubit its operands name, in order, a two-qubit channel to the two they
// name.
func (c *compiler) lowerNoise(s *sNoise) {
	c.inGateBody(s.P, "a noise pragma")
	ch := c.noiseChannel(s)
	k := ch.NumQubits()
	var qbuf [4]int
	qs := qbuf[:0]
	third := -1 // the operand that names a two-qubit channel's third qubit
	var one [1]int
	for i, e := range s.Qubits {
		named := one[:0]
		if q, ok := c.namedQubit(e); ok {
			named = append(named, q)
		} else {
			named, _ = c.qubitsOf(e)
		}
		if len(named) == 0 {
			fail(startOf(e), "empty register in a noise pragma")
		}
		c.chargeN(e.at(), len(named)-1, 16) // qs past qbuf, doubling as it grows
		for _, q := range named {
			// at most MaxQubits distinct qubits: a repeat comes soon
			c.charge(e.at(), int64(len(qs))*stepBytes)
			if slices.Contains(qs, q) {
				fail(startOf(e), "noise channel %q uses the same qubit twice", s.Name)
			}
			qs = append(qs, q)
			if len(qs) == 3 && third < 0 {
				third = i
			}
		}
	}
	line, col := int(s.P.Line), int(s.P.Col)
	if k == 1 {
		for _, q := range qs {
			c.emit(s.P, c.noiseOp(s.P, ch, q, -1).WithPos(line, col))
		}
		return
	}
	if len(qs) != 2 {
		at := startOf(s.Qubits[0])
		if third >= 0 {
			at = startOf(s.Qubits[third])
		}
		what := quote(s.Name)
		if s.Mats != nil {
			what += " with 4×4 matrices"
		}
		fail(at, "noise channel %s acts on 2 qubits, the pragma names %d", what, len(qs))
	}
	// Braket's two-qubit matrices take the first qubit named as the high
	// bit of their index; sim's NoiseOp takes its first qubit as the low
	// bit.
	c.emit(s.P, c.noiseOp(s.P, ch, qs[1], qs[0]).WithPos(line, col))
}

// namedQubit reads an operand that names one qubit of a register by a
// literal index, q[3], the common case, without the lists qubitsOf
// makes; ok is false for any other operand, which qubitsOf reads.
func (c *compiler) namedQubit(e expr) (int, bool) {
	x, ok := e.(*xIndex)
	if !ok || len(x.Items) != 1 {
		return 0, false
	}
	reg, ok := x.X.(*xIdent)
	if !ok {
		return 0, false
	}
	i, ok := x.Items[0].(*xInt)
	if !ok {
		return 0, false
	}
	sym := c.lookup(reg.Name)
	if sym == nil || sym.kind != symQubits || sym.single || i.V < 0 || i.V >= int64(len(sym.qubits)) {
		return 0, false // qubitsOf says what is wrong
	}
	return sym.qubits[i.V], true
}

// noiseOpKey names a noise operation: its channel and its qubits (b is
// -1 for a one-qubit channel).
type noiseOpKey struct {
	ch   *sim.Channel
	a, b int
}

// noiseOpBytes is what noiseOps holds for an operation besides its
// extension: the map's entry, its key and the Op.
const noiseOpBytes = 160

// noiseOp returns the noise operation of ch on a (and b, unless -1),
// made once for all the pragmas that apply it: its copies share the
// extension that holds the channel and the qubits, so a pragma costs
// an operation's 56 bytes, as a noise model's channels do.
func (c *compiler) noiseOp(p position, ch *sim.Channel, a, b int) sim.Op {
	key := noiseOpKey{ch, a, b}
	if op, ok := c.noiseOps[key]; ok {
		return op
	}
	var op sim.Op
	if b < 0 {
		c.charge(p, extCost(1, 0)+noiseOpBytes)
		op = sim.NoiseOp(ch, a)
	} else {
		c.charge(p, extCost(2, 0)+noiseOpBytes)
		op = sim.NoiseOp(ch, a, b)
	}
	if c.noiseOps == nil {
		c.charge(p, scopeBytes)
		c.noiseOps = map[noiseOpKey]sim.Op{}
	}
	c.noiseOps[key] = op
	return op
}

// noiseChannel builds, or finds built, the channel a pragma names.
func (c *compiler) noiseChannel(s *sNoise) *sim.Channel {
	if s.Mats != nil {
		return c.krausChannel(s)
	}
	kind := lookupNoise(s.Name)
	key := noiseKey{name: kind.name}
	for i, e := range s.Params {
		// + 0 makes −0 a 0: the two share a channel, which prints as 0
		key.p[i] = c.noiseParam(s, i, e) + 0
	}
	if ch, ok := c.channels[key]; ok {
		return ch
	}
	c.charge(s.NamePos, kind.cost+noiseKeyBytes)
	params := key.p // which escapes, and key would with it
	ch, err := kind.build(params[:len(s.Params)])
	if err != nil {
		at := s.NamePos
		var pe *sim.ChannelParamError
		if errors.As(err, &pe) && len(s.Params) > 0 {
			// a sum of parameters (Index −1) is pointed at by its first
			at = startOf(s.Params[max(pe.Index, 0)])
		}
		fail(at, "%v", err)
	}
	if c.channels == nil {
		c.charge(s.NamePos, scopeBytes)
		c.channels = map[noiseKey]*sim.Channel{}
	}
	c.channels[key] = ch
	return ch
}

// noiseParam evaluates parameter i of a pragma's channel: a real number
// known at compile time.
func (c *compiler) noiseParam(s *sNoise, i int, e expr) float64 {
	if x, ok := c.constParam(e, 0); ok {
		return x
	}
	v := c.eval(e)
	if v.k == vFloat || v.k == vInt {
		return v.asFloat(e.at(), "")
	}
	// the message, only now that it is needed
	return v.asFloat(startOf(e), fmt.Sprintf("parameter %s of noise channel %q", lookupNoise(s.Name).params[i], s.Name))
}

// krausChannel builds a kraus pragma's channel, once for every pragma
// that gives the same matrices: they are constants.
func (c *compiler) krausChannel(s *sNoise) *sim.Channel {
	if s.kraus != nil {
		return s.kraus
	}
	key := krausKey(s.Mats)
	if ch, ok := c.krausChannels[key]; ok {
		s.kraus = ch
		return ch
	}
	c.charge(s.NamePos, krausCost(s.Mats[0].D, len(s.Mats))+int64(len(s.Mats))*24+int64(len(key))+noiseKeyBytes)
	mats := make([][]complex128, len(s.Mats))
	for i := range s.Mats {
		mats[i] = s.Mats[i].M
	}
	ch, err := sim.Kraus(mats...)
	if err != nil {
		fail(s.NamePos, "%v", err)
	}
	if c.krausChannels == nil {
		c.charge(s.NamePos, scopeBytes)
		c.krausChannels = map[string]*sim.Channel{}
	}
	c.krausChannels[key] = ch
	s.kraus = ch
	return ch
}

// krausKey is the matrices' entries, bit for bit, as a map key.
func krausKey(mats []krausMatrix) string {
	n := 0
	for _, m := range mats {
		n += 1 + 16*len(m.M)
	}
	b := make([]byte, 0, n)
	for _, m := range mats {
		b = append(b, byte(m.D))
		for _, v := range m.M {
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(real(v)))
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(imag(v)))
		}
	}
	return string(b)
}
