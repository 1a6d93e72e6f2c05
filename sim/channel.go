package sim

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"strconv"
	"strings"
)

// Noise: a channel maps the density matrix ρ of the qubits it names to
// Σ K ρ K†, for Kraus matrices K with Σ K†K = I. The constructors are the
// channels of Amazon Braket, with its parameters and ranges
// (decisions.md, "Noise"); Kraus takes any channel on one or two qubits.
//
// A channel is built once and never changed, so that one *Channel can sit
// in every operation of a noise model and be read by concurrent runs. What
// the runners need is worked out when it is built:
//
//   - the Pauli probabilities when the channel is Σ p_P PρP (its process
//     matrix in the Pauli basis is diagonal): the stabilizer method can
//     only run such channels, and needs p_P, not Kraus matrices;
//   - for trajectories, the channel as a mixture of unitaries with fixed
//     probabilities when every K†K is a multiple of I (a Pauli channel is
//     written so), which a shot samples without reading the state;
//     otherwise every K†K, whose expectations give the branches'
//     probabilities on the state of the shot.

// ErrInvalidChannel is wrapped by the errors of the channel constructors:
// a parameter outside its range ([ChannelParamError]), Kraus matrices of
// the wrong shape or that do not preserve the trace.
var ErrInvalidChannel = errors.New("invalid channel")

// KrausTolerance is how far from the identity (the largest entry of
// |Σ K†K − I|) the Kraus matrices of a channel may sum.
const KrausTolerance = 1e-9

// sumTolerance is how far past 1 pauli_channel's probabilities may add up:
// rounding, not a wrong program.
const sumTolerance = 1e-12

// pauliTolerance is the largest off-diagonal entry of a channel's process
// matrix for which it counts as a Pauli channel. The entries of a channel
// that is not one are of the order of its parameters; rounding leaves
// 1e-16 on those that are.
const pauliTolerance = 1e-12

// Channel is a noise channel on one or two qubits. Build it with a
// constructor (BitFlip, …, Kraus) and apply it with NoiseOp.
type Channel struct {
	name   string
	params []float64
	k      int            // qubits
	kraus  [][]complex128 // 2^k × 2^k each, little-endian in the targets
	// pauli are the Pauli probabilities (see PauliProbabilities), nil when
	// the channel is not a Pauli channel.
	pauli []float64
	// mix is the channel as unitaries drawn with fixed probabilities, nil
	// when some K†K is not a multiple of I.
	mix []mixBranch
	// general are the Kraus matrices that are not zero, with their K†K,
	// when mix is nil: a shot draws one with probability ⟨ψ|K†K|ψ⟩.
	general []krausBranch
	// diagonal: every K†K of general is diagonal (the damping channels),
	// so their expectations need only the probabilities of the targets'
	// basis states.
	diagonal bool
}

// krausBranch is a Kraus matrix of a channel and its K†K.
type krausBranch struct{ k, kdk []complex128 }

// mixBranch is a unitary of a channel and its probability; a nil matrix
// is the identity.
type mixBranch struct {
	p float64
	m []complex128
}

// ChannelParamError is the error of a channel parameter outside its range.
type ChannelParamError struct {
	Channel string  // bit_flip, …
	Param   string  // its name: p, gamma, px, …; "px + py + pz" for a sum
	Index   int     // its position among the channel's arguments, −1 for a sum
	Value   float64 // what was given
	Min     float64 // the range, closed
	Max     float64
}

func (e *ChannelParamError) Error() string {
	return fmt.Sprintf("%s: %s = %v is outside [%v, %v]", e.Channel, e.Param, e.Value, e.Min, e.Max)
}

// Unwrap makes the error an ErrInvalidChannel.
func (e *ChannelParamError) Unwrap() error { return ErrInvalidChannel }

// inRange checks parameter i of channel name.
func inRange(channel, param string, i int, v, lo, hi float64) error {
	if v >= lo && v <= hi { // false for NaN
		return nil
	}
	return &ChannelParamError{Channel: channel, Param: param, Index: i, Value: v, Min: lo, Max: hi}
}

// The Pauli matrices, by index: I, X, Y, Z.
var paulis = [4][]complex128{
	{1, 0, 0, 1},
	{0, 1, 1, 0},
	{0, -1i, 1i, 0},
	{1, 0, 0, -1},
}

// pauliMatrix is the Pauli of index i on k qubits (see
// PauliProbabilities), little-endian: the factor of target 0 acts on the
// low bit of the index.
func pauliMatrix(i, k int) []complex128 {
	m := paulis[i&3]
	for j := 1; j < k; j++ {
		m = Kron(paulis[i>>(2*j)&3], m)
	}
	return m
}

// PauliName is the Pauli of index i on k qubits as Braket writes it, the
// factor of target 0 first: "X", "IZ" (Z on target 1).
func PauliName(i, k int) string {
	var b strings.Builder
	for j := range k {
		b.WriteByte("IXYZ"[i>>(2*j)&3])
	}
	return b.String()
}

// pauliChannel builds the channel Σ p_P PρP from its probabilities by
// Pauli index, with Kraus matrices √p_P·P for every P of probability above
// 0.
func pauliChannel(name string, params []float64, k int, probs []float64) *Channel {
	ch := &Channel{name: name, params: params, k: k, pauli: probs}
	for i, p := range probs {
		if p <= 0 {
			continue
		}
		m := pauliMatrix(i, k)
		ch.kraus = append(ch.kraus, scaled(m, math.Sqrt(p)))
		b := mixBranch{p: p}
		if i != 0 {
			b.m = m
		}
		ch.mix = append(ch.mix, b)
	}
	return ch
}

func scaled(m []complex128, s float64) []complex128 {
	out := make([]complex128, len(m))
	for i, v := range m {
		out[i] = v * complex(s, 0)
	}
	return out
}

// BitFlip is bit_flip(p): (1−p)ρ + p·XρX, p in [0, 1/2].
func BitFlip(p float64) (*Channel, error) {
	if err := inRange("bit_flip", "p", 0, p, 0, 0.5); err != nil {
		return nil, err
	}
	return pauliChannel("bit_flip", []float64{p}, 1, []float64{1 - p, p, 0, 0}), nil
}

// PhaseFlip is phase_flip(p): (1−p)ρ + p·ZρZ, p in [0, 1/2].
func PhaseFlip(p float64) (*Channel, error) {
	if err := inRange("phase_flip", "p", 0, p, 0, 0.5); err != nil {
		return nil, err
	}
	return pauliChannel("phase_flip", []float64{p}, 1, []float64{1 - p, 0, 0, p}), nil
}

// PauliChannel is pauli_channel(px, py, pz): (1−px−py−pz)ρ + px·XρX +
// py·YρY + pz·ZρZ, each in [0, 1] and their sum at most 1.
func PauliChannel(px, py, pz float64) (*Channel, error) {
	for i, p := range []float64{px, py, pz} {
		if err := inRange("pauli_channel", []string{"px", "py", "pz"}[i], i, p, 0, 1); err != nil {
			return nil, err
		}
	}
	// A sum written in decimals may round past 1 (0.1 + 0.2 + 0.7):
	// sumTolerance lets it through.
	if sum := px + py + pz; !(sum <= 1+sumTolerance) {
		return nil, &ChannelParamError{Channel: "pauli_channel", Param: "px + py + pz", Index: -1, Value: sum, Min: 0, Max: 1}
	}
	return pauliChannel("pauli_channel", []float64{px, py, pz}, 1, []float64{max(1-px-py-pz, 0), px, py, pz}), nil
}

// Depolarizing is depolarizing(p) on one qubit: (1−p)ρ + (p/3)(XρX + YρY +
// ZρZ), p in [0, 3/4].
func Depolarizing(p float64) (*Channel, error) {
	if err := inRange("depolarizing", "p", 0, p, 0, 0.75); err != nil {
		return nil, err
	}
	return pauliChannel("depolarizing", []float64{p}, 1, []float64{1 - p, p / 3, p / 3, p / 3}), nil
}

// TwoQubitDepolarizing is two_qubit_depolarizing(p): (1−p)ρ + (p/15)·ΣPρP
// over the 15 two-qubit Paulis other than I⊗I, p in [0, 15/16].
func TwoQubitDepolarizing(p float64) (*Channel, error) {
	if err := inRange("two_qubit_depolarizing", "p", 0, p, 0, 15.0/16); err != nil {
		return nil, err
	}
	probs := make([]float64, 16)
	probs[0] = 1 - p
	for i := 1; i < 16; i++ {
		probs[i] = p / 15
	}
	return pauliChannel("two_qubit_depolarizing", []float64{p}, 2, probs), nil
}

// TwoQubitDephasing is two_qubit_dephasing(p): (1−p)ρ + (p/3)(Z₁ρZ₁ +
// Z₂ρZ₂ + Z₁Z₂ρZ₁Z₂), p in [0, 3/4].
func TwoQubitDephasing(p float64) (*Channel, error) {
	if err := inRange("two_qubit_dephasing", "p", 0, p, 0, 0.75); err != nil {
		return nil, err
	}
	probs := make([]float64, 16)
	probs[0] = 1 - p
	for _, zz := range []int{3, 3 << 2, 3 | 3<<2} { // ZI, IZ, ZZ
		probs[zz] = p / 3
	}
	return pauliChannel("two_qubit_dephasing", []float64{p}, 2, probs), nil
}

// AmplitudeDamping is amplitude_damping(γ): K0 = [[1,0],[0,√(1−γ)]],
// K1 = [[0,√γ],[0,0]], γ in [0, 1].
func AmplitudeDamping(gamma float64) (*Channel, error) {
	if err := inRange("amplitude_damping", "gamma", 0, gamma, 0, 1); err != nil {
		return nil, err
	}
	s, g := math.Sqrt(1-gamma), math.Sqrt(gamma)
	return newChannel("amplitude_damping", []float64{gamma}, 1, [][]complex128{
		{1, 0, 0, complex(s, 0)},
		{0, complex(g, 0), 0, 0},
	}), nil
}

// PhaseDamping is phase_damping(γ): K0 = [[1,0],[0,√(1−γ)]],
// K1 = [[0,0],[0,√γ]], γ in [0, 1]. It is a Pauli channel (a phase flip
// of probability (1−√(1−γ))/2), and reports its Pauli probabilities.
func PhaseDamping(gamma float64) (*Channel, error) {
	if err := inRange("phase_damping", "gamma", 0, gamma, 0, 1); err != nil {
		return nil, err
	}
	s, g := math.Sqrt(1-gamma), math.Sqrt(gamma)
	return newChannel("phase_damping", []float64{gamma}, 1, [][]complex128{
		{1, 0, 0, complex(s, 0)},
		{0, 0, 0, complex(g, 0)},
	}), nil
}

// GeneralizedAmplitudeDamping is generalized_amplitude_damping(γ, p), γ
// first as Braket writes it: K0 = √p·[[1,0],[0,√(1−γ)]],
// K1 = √p·[[0,√γ],[0,0]], K2 = √(1−p)·[[√(1−γ),0],[0,1]],
// K3 = √(1−p)·[[0,0],[√γ,0]], both in [0, 1].
func GeneralizedAmplitudeDamping(gamma, p float64) (*Channel, error) {
	const name = "generalized_amplitude_damping"
	if err := inRange(name, "gamma", 0, gamma, 0, 1); err != nil {
		return nil, err
	}
	if err := inRange(name, "p", 1, p, 0, 1); err != nil {
		return nil, err
	}
	s, g := complex(math.Sqrt(1-gamma), 0), complex(math.Sqrt(gamma), 0)
	a, b := complex(math.Sqrt(p), 0), complex(math.Sqrt(1-p), 0)
	return newChannel(name, []float64{gamma, p}, 1, [][]complex128{
		{a, 0, 0, a * s},
		{0, a * g, 0, 0},
		{b * s, 0, 0, b},
		{0, 0, b * g, 0},
	}), nil
}

// Kraus is the channel ρ → Σ K ρ K† of the matrices mats, on one qubit
// (2×2 matrices, 4 entries row-major) or two (4×4): at least one, at most
// 4^k (any channel on k qubits has a Kraus form that short), all of one
// size, with Σ K†K = I within KrausTolerance. As Gate.Matrix, a matrix's
// row and column indices are little-endian in the targets NoiseOp gives:
// bit j is the state of target j. Braket writes two-qubit matrices with
// its first qubit as the most significant bit; give its qubits to NoiseOp
// in reverse order.
//
// The matrices are copied. A channel that is a Pauli channel however its
// matrices write it (√0.9·I and √0.1·X; phase damping) reports its Pauli
// probabilities.
func Kraus(mats ...[]complex128) (*Channel, error) {
	if len(mats) == 0 {
		return nil, fmt.Errorf("%w: kraus: no matrices", ErrInvalidChannel)
	}
	d := 0
	switch len(mats[0]) {
	case 4:
		d = 2
	case 16:
		d = 4
	default:
		return nil, fmt.Errorf("%w: kraus: matrix 0 has %d entries; want 2×2 (one qubit) or 4×4 (two qubits)", ErrInvalidChannel, len(mats[0]))
	}
	if len(mats) > d*d {
		return nil, fmt.Errorf("%w: kraus: %d matrices of %d×%d, at most %d (any channel on %d qubit(s) has a Kraus form that short)", ErrInvalidChannel, len(mats), d, d, d*d, d/2)
	}
	kraus := make([][]complex128, len(mats))
	for i, m := range mats {
		if len(m) != d*d {
			return nil, fmt.Errorf("%w: kraus: matrix %d has %d entries, matrix 0 has %d", ErrInvalidChannel, i, len(m), d*d)
		}
		for _, v := range m {
			if cmplx.IsNaN(v) || cmplx.IsInf(v) {
				return nil, fmt.Errorf("%w: kraus: matrix %d has the entry %v, not a finite number", ErrInvalidChannel, i, v)
			}
		}
		kraus[i] = append([]complex128(nil), m...)
	}
	if e := completenessError(kraus); e > KrausTolerance {
		return nil, fmt.Errorf("%w: kraus: Σ K†K is not the identity (largest entry of |Σ K†K − I| is %.3g, over %g): the channel does not preserve the trace", ErrInvalidChannel, e, KrausTolerance)
	}
	return newChannel("kraus", nil, d/2, kraus), nil
}

// completenessError is the largest entry of |Σ K†K − I|.
func completenessError(kraus [][]complex128) float64 {
	d := matDim(kraus[0])
	sum := make([]complex128, d*d)
	for _, k := range kraus {
		for i, v := range adjointProduct(k) {
			sum[i] += v
		}
	}
	return identityError(sum, d)
}

// adjointProduct is K†K.
func adjointProduct(k []complex128) []complex128 { return MatMul(Dagger(k), k) }

// newChannel builds a channel from its Kraus matrices (valid ones) and
// works out what the runners need.
func newChannel(name string, params []float64, k int, kraus [][]complex128) *Channel {
	ch := &Channel{name: name, params: params, k: k, kraus: kraus}
	ch.pauli = pauliProbabilities(kraus, k)
	if ch.pauli != nil {
		// Sampled as the Pauli channel it is: a phase damping is a phase
		// flip, whatever matrices wrote it.
		for i, p := range ch.pauli {
			if p > 0 {
				b := mixBranch{p: p}
				if i != 0 {
					b.m = pauliMatrix(i, k)
				}
				ch.mix = append(ch.mix, b)
			}
		}
		return ch
	}
	ch.mix = unitaryMixture(kraus)
	if ch.mix == nil {
		ch.diagonal = true
		for _, m := range kraus {
			if kdk := adjointProduct(m); !isZeroMatrix(kdk) {
				ch.general = append(ch.general, krausBranch{k: m, kdk: kdk})
				ch.diagonal = ch.diagonal && isDiagonal(kdk)
			}
		}
	}
	return ch
}

func isZeroMatrix(m []complex128) bool {
	for _, v := range m {
		if cmplx.Abs(v) > pauliTolerance {
			return false
		}
	}
	return true
}

// pauliProbabilities returns p_P when the channel of the Kraus matrices is
// Σ p_P PρP, else nil. Writing each K = Σ c_P P (c_P = tr(PK)/2^k), the
// channel is Σ χ_PQ PρQ with χ_PQ = Σ_K c_P conj(c_Q): a Pauli channel
// exactly when χ is diagonal, and p_P = χ_PP.
func pauliProbabilities(kraus [][]complex128, k int) []float64 {
	np := 1 << (2 * k)
	d := 1 << k
	coef := make([][]complex128, len(kraus)) // coef[i][P] = c_P of K_i
	for i, m := range kraus {
		coef[i] = make([]complex128, np)
		for p := range np {
			pm := pauliMatrix(p, k)
			var tr complex128
			for r := range d {
				for c := range d {
					tr += pm[r*d+c] * m[c*d+r]
				}
			}
			coef[i][p] = tr / complex(float64(d), 0)
		}
	}
	probs := make([]float64, np)
	for p := range np {
		for q := range np {
			var chi complex128
			for _, c := range coef {
				chi += c[p] * cmplx.Conj(c[q])
			}
			if p == q {
				probs[p] = max(real(chi), 0)
			} else if cmplx.Abs(chi) > pauliTolerance {
				return nil
			}
		}
	}
	return probs
}

// unitaryMixture returns the channel as unitaries K/√c drawn with
// probability c when every K†K = c·I, else nil.
func unitaryMixture(kraus [][]complex128) []mixBranch {
	var mix []mixBranch
	for _, m := range kraus {
		kdk := adjointProduct(m)
		d := matDim(kdk)
		c := real(kdk[0])
		for r := range d {
			for col := range d {
				want := complex(0, 0)
				if r == col {
					want = complex(c, 0)
				}
				if cmplx.Abs(kdk[r*d+col]-want) > pauliTolerance {
					return nil
				}
			}
		}
		if c <= pauliTolerance {
			continue
		}
		u := scaled(m, 1/math.Sqrt(c))
		if isIdentity(u) {
			u = nil
		}
		mix = append(mix, mixBranch{p: c, m: u})
	}
	return mix
}

func isIdentity(m []complex128) bool { return identityError(m, matDim(m)) <= pauliTolerance }

// Name is the channel's name as Braket writes it: bit_flip, kraus, ….
func (ch *Channel) Name() string { return ch.name }

// Params are the channel's parameters in Braket's order (nil for kraus).
func (ch *Channel) Params() []float64 { return append([]float64(nil), ch.params...) }

// NumQubits is the number of qubits the channel acts on: 1 or 2.
func (ch *Channel) NumQubits() int { return ch.k }

// Kraus returns copies of the channel's Kraus matrices, row-major,
// little-endian in the targets (see Kraus): for a Pauli channel built by
// its constructor, √p_P·P for each Pauli it names.
func (ch *Channel) Kraus() [][]complex128 {
	out := make([][]complex128, len(ch.kraus))
	for i, m := range ch.kraus {
		out[i] = append([]complex128(nil), m...)
	}
	return out
}

// PauliProbabilities returns, when the channel is a Pauli channel
// Σ p_P PρP, the 4^k probabilities p_P by Pauli index: the Pauli of index i
// has on target j the factor "IXYZ"[(i >> 2j) & 3] (see PauliName). ok is
// false for a channel that is not a Pauli channel (amplitude damping), whose
// probabilities would depend on the state.
func (ch *Channel) PauliProbabilities() (probs []float64, ok bool) {
	if ch.pauli == nil {
		return nil, false
	}
	return append([]float64(nil), ch.pauli...), true
}

// IsPauli reports whether the channel is a Pauli channel: one the
// stabilizer method can run.
func (ch *Channel) IsPauli() bool { return ch.pauli != nil }

// String is the channel as a Braket pragma writes it, without its qubits:
// depolarizing(0.1), kraus(2 matrices).
func (ch *Channel) String() string {
	if ch.name == "kraus" {
		return fmt.Sprintf("kraus(%d matrices)", len(ch.kraus))
	}
	ps := make([]string, len(ch.params))
	for i, p := range ch.params {
		ps[i] = strconv.FormatFloat(p, 'g', -1, 64)
	}
	return ch.name + "(" + strings.Join(ps, ", ") + ")"
}

// Bytes is about what the channel holds in memory: its matrices and what
// the runners need from them. NoiseOp shares the channel rather than
// copying it, and Op.Bytes does not count it.
func (ch *Channel) Bytes() int64 {
	n := int64(128 + 8*len(ch.params) + 8*len(ch.pauli))
	for _, m := range ch.kraus {
		n += 24 + 16*int64(len(m))
	}
	for _, b := range ch.mix {
		n += 32 + 16*int64(len(b.m))
	}
	for _, b := range ch.general {
		n += 56 + 16*int64(len(b.kdk))
	}
	return n
}

// superoperator is the channel as a matrix on the vector of its density
// matrix: Σ conj(K) ⊗ K, on the targets' row bits (low) then their column
// bits (high), as the density-matrix method holds ρ (density.go).
func (ch *Channel) superoperator() []complex128 {
	var s []complex128
	for _, m := range ch.kraus {
		t := Kron(conjugate(m), m)
		if s == nil {
			s = t
			continue
		}
		for i, v := range t {
			s[i] += v
		}
	}
	return s
}

func conjugate(m []complex128) []complex128 {
	out := make([]complex128, len(m))
	for i, v := range m {
		out[i] = cmplx.Conj(v)
	}
	return out
}

// resetChannel is reset as a channel, |0⟩⟨0| and |0⟩⟨1|: how the
// density-matrix method applies a reset.
var resetChannel = newChannel("reset", nil, 1, [][]complex128{{1, 0, 0, 0}, {0, 1, 0, 0}})
