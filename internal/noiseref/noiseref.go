// Package noiseref is a reference for the noise tests of the service: a
// density-matrix simulator in plain dense matrix algebra, written apart
// from package sim, whose results the service's counts are compared with.
// It keeps one unnormalised ρ per history of classical bits, so it runs
// programs with mid-circuit measurement, readout errors and classical
// control exactly. It is slow (8^n an operation) and obviously right.
//
// Matrices are row-major; qubit j of an operation is bit j of its
// matrix's index. The channels are written here from decisions.md, not
// taken from sim.
package noiseref

import (
	"fmt"
	"maps"
	"math"
	"math/cmplx"
	"slices"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// branch is the part of the state in which the classical bits read bits:
// its ρ carries the branch's probability as its trace.
type branch struct {
	bits uint64
	rho  []complex128
}

// Sim is a state of N qubits and up to 64 classical bits.
type Sim struct {
	N        int
	branches []branch
}

// New is |0…0⟩ with every bit 0.
func New(n int) *Sim {
	d := 1 << n
	rho := make([]complex128, d*d)
	rho[0] = 1
	return &Sim{N: n, branches: []branch{{rho: rho}}}
}

// Gate applies the unitary m to qubits.
func (s *Sim) Gate(m []complex128, qubits ...int) *Sim {
	return s.Channel([][]complex128{m}, qubits...)
}

// GateIf applies m to qubits in the branches where bit reads v.
func (s *Sim) GateIf(bit int, v bool, m []complex128, qubits ...int) *Sim {
	return s.ChannelIf(bit, v, [][]complex128{m}, qubits...)
}

// ChannelIf applies the channel in the branches where bit reads v.
func (s *Sim) ChannelIf(bit int, v bool, kraus [][]complex128, qubits ...int) *Sim {
	full := make([][]complex128, len(kraus))
	for i, k := range kraus {
		full[i] = s.embed(k, qubits)
	}
	for i := range s.branches {
		if b := &s.branches[i]; (b.bits>>bit&1 == 1) == v {
			b.rho = s.sandwich(full, b.rho)
		}
	}
	return s
}

// Channel applies ρ → Σ K ρ K† with the Kraus matrices kraus on qubits.
func (s *Sim) Channel(kraus [][]complex128, qubits ...int) *Sim {
	full := make([][]complex128, len(kraus))
	for i, k := range kraus {
		full[i] = s.embed(k, qubits)
	}
	for i := range s.branches {
		s.branches[i].rho = s.sandwich(full, s.branches[i].rho)
	}
	return s
}

// Measure measures qubit q into bit, recording the opposite outcome with
// probability readout; the qubit is left in the state found.
func (s *Sim) Measure(q, bit int, readout float64) *Sim {
	d := 1 << s.N
	var next []branch
	for _, b := range s.branches {
		for outcome := range 2 {
			rho := make([]complex128, d*d)
			for r := range d {
				for c := range d {
					if r>>q&1 == outcome && c>>q&1 == outcome {
						rho[r*d+c] = b.rho[r*d+c]
					}
				}
			}
			for recorded, p := range []float64{1 - readout, readout} {
				if p == 0 {
					continue
				}
				bits := b.bits&^(1<<bit) | uint64(outcome^recorded)<<bit
				scaled := slices.Clone(rho)
				for i := range scaled {
					scaled[i] *= complex(p, 0)
				}
				next = append(next, branch{bits: bits, rho: scaled})
			}
		}
	}
	s.branches = next
	return s
}

// Probabilities are the probabilities of the first nbits classical bits,
// keyed as counts are (bit 0 rightmost); outcomes of probability below
// 1e-15 are left out.
func (s *Sim) Probabilities(nbits int) map[string]float64 {
	out := map[string]float64{}
	d := 1 << s.N
	for _, b := range s.branches {
		var p float64
		for i := range d {
			p += real(b.rho[i*d+i])
		}
		if p > 1e-15 {
			out[BitString(b.bits, nbits)] += p
		}
	}
	return out
}

// FinalProbabilities are the probabilities of measuring every qubit at
// the end (a program without measurements), qubit q's bit flipped with
// probability readout[q] (missing: 0), keyed qubit 0 rightmost.
func (s *Sim) FinalProbabilities(readout map[int]float64) map[string]float64 {
	d := 1 << s.N
	out := map[string]float64{}
	for _, b := range s.branches {
		for i := range d {
			p := real(b.rho[i*d+i])
			if p < 1e-15 {
				continue
			}
			for j := range d { // j: the recorded bits
				pj := p
				for q := range s.N {
					r := readout[q]
					if (i^j)>>q&1 == 1 {
						pj *= r
					} else {
						pj *= 1 - r
					}
				}
				if pj > 0 {
					out[BitString(uint64(j), s.N)] += pj
				}
			}
		}
	}
	return out
}

// Rho is the state's density matrix, its classical bits traced out.
func (s *Sim) Rho() []complex128 {
	d := 1 << s.N
	out := make([]complex128, d*d)
	for _, b := range s.branches {
		for i := range out {
			out[i] += b.rho[i]
		}
	}
	return out
}

// BitString writes the low n bits of v, bit 0 rightmost.
func BitString(v uint64, n int) string {
	b := make([]byte, n)
	for i := range n {
		b[n-1-i] = '0' + byte(v>>i&1)
	}
	return string(b)
}

func (s *Sim) sandwich(full [][]complex128, rho []complex128) []complex128 {
	d := 1 << s.N
	out := make([]complex128, d*d)
	for _, k := range full {
		kr := Mul(k, rho, d)
		for r := range d {
			for c := range d {
				var v complex128
				for x := range d {
					v += kr[r*d+x] * cmplx.Conj(k[c*d+x])
				}
				out[r*d+c] += v
			}
		}
	}
	return out
}

// embed is the 2^N × 2^N matrix of m acting on qubits.
func (s *Sim) embed(m []complex128, qubits []int) []complex128 {
	d, k := 1<<s.N, 1<<len(qubits)
	if len(m) != k*k {
		panic(fmt.Sprintf("noiseref: a %d-entry matrix on %d qubits", len(m), len(qubits)))
	}
	mask := 0
	for _, q := range qubits {
		mask |= 1 << q
	}
	sub := func(i int) int {
		v := 0
		for j, q := range qubits {
			v |= (i >> q & 1) << j
		}
		return v
	}
	full := make([]complex128, d*d)
	for r := range d {
		for c := range d {
			if r&^mask == c&^mask {
				full[r*d+c] = m[sub(r)*k+sub(c)]
			}
		}
	}
	return full
}

// Mul is the product of the d×d matrices a and b.
func Mul(a, b []complex128, d int) []complex128 {
	out := make([]complex128, d*d)
	for r := range d {
		for k := range d {
			if a[r*d+k] == 0 {
				continue
			}
			for c := range d {
				out[r*d+c] += a[r*d+k] * b[k*d+c]
			}
		}
	}
	return out
}

// CheckCounts returns an error when counts, over shots, are not a sample
// of probs: an outcome of probability 0, or a chi-squared statistic past
// its 0.9999 quantile (a seeded test that passes once passes always).
func CheckCounts(counts map[string]int, probs map[string]float64, shots int) error {
	var x2 float64
	df := -1
	for k, n := range counts {
		if probs[k] == 0 {
			return fmt.Errorf("outcome %q of probability 0 seen %d times", k, n)
		}
	}
	for k, p := range probs {
		df++
		e := p * float64(shots)
		d := float64(counts[k]) - e
		x2 += d * d / e
	}
	if df < 1 {
		return nil
	}
	if limit := (distuv.ChiSquared{K: float64(df)}).Quantile(0.9999); x2 > limit {
		return fmt.Errorf("chi-squared %.1f over %d degrees of freedom exceeds %.1f\ncounts %v\nprobs  %s", x2, df, limit, counts, format(probs))
	}
	return nil
}

func format(p map[string]float64) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(p)) {
		fmt.Fprintf(&b, "%s:%.4f ", k, p[k])
	}
	return b.String()
}

var sq = math.Sqrt

// Scale is f·m.
func Scale(m []complex128, f float64) []complex128 {
	out := slices.Clone(m)
	for i := range out {
		out[i] *= complex(f, 0)
	}
	return out
}

// Kron is a ⊗ b, b on the low bits of the index (qubit 0).
func Kron(a, b []complex128) []complex128 {
	da, db := isqrt(len(a)), isqrt(len(b))
	d := da * db
	out := make([]complex128, d*d)
	for ar := range da {
		for ac := range da {
			for br := range db {
				for bc := range db {
					out[(ar*db+br)*d+ac*db+bc] = a[ar*da+ac] * b[br*db+bc]
				}
			}
		}
	}
	return out
}

func isqrt(n int) int { return int(math.Round(math.Sqrt(float64(n)))) }
