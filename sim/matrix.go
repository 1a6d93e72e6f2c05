package sim

import (
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"sort"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/cblas128"
	"gonum.org/v1/gonum/mat"
)

// Matrix helpers work on square complex matrices stored row-major in a
// []complex128, the form Gate.Matrix uses. They are for building and checking
// gates, not for the per-amplitude loops.

// matDim returns the dimension of a square matrix held in m, or -1.
func matDim(m []complex128) int {
	d := int(math.Round(math.Sqrt(float64(len(m)))))
	if d*d != len(m) {
		return -1
	}
	return d
}

func general(m []complex128, d int) cblas128.General {
	return cblas128.General{Rows: d, Cols: d, Stride: d, Data: m}
}

// Identity returns the d×d identity matrix.
func Identity(d int) []complex128 {
	m := make([]complex128, d*d)
	for i := range d {
		m[i*d+i] = 1
	}
	return m
}

// MatMul returns the product a·b of two square matrices of the same size.
func MatMul(a, b []complex128) []complex128 {
	d := matDim(a)
	if d < 0 || len(a) != len(b) {
		panic(fmt.Sprintf("sim: MatMul of %d and %d entries", len(a), len(b)))
	}
	c := make([]complex128, d*d)
	cblas128.Gemm(blas.NoTrans, blas.NoTrans, 1, general(a, d), general(b, d), 0, general(c, d))
	return c
}

// Dagger returns the conjugate transpose of m: the inverse of a unitary.
func Dagger(m []complex128) []complex128 {
	d := matDim(m)
	out := make([]complex128, len(m))
	for i := range d {
		for j := range d {
			out[j*d+i] = cmplx.Conj(m[i*d+j])
		}
	}
	return out
}

// Kron returns the Kronecker product a ⊗ b. In the little-endian convention
// of Gate, b acts on the low targets and a on the high ones.
func Kron(a, b []complex128) []complex128 {
	da, db := matDim(a), matDim(b)
	d := da * db
	out := make([]complex128, d*d)
	for i := range da {
		for j := range da {
			x := a[i*da+j]
			if x == 0 {
				continue
			}
			for k := range db {
				for l := range db {
					out[(i*db+k)*d+j*db+l] = x * b[k*db+l]
				}
			}
		}
	}
	return out
}

// ControlledMatrix returns the matrix of m with nctrl controls on |1⟩, the
// controls being the high qubits: the identity except the last block.
func ControlledMatrix(m []complex128, nctrl int) []complex128 {
	dm := matDim(m)
	d := dm << nctrl
	out := Identity(d)
	off := d - dm
	for i := range dm {
		for j := range dm {
			out[(off+i)*d+off+j] = m[i*dm+j]
		}
	}
	return out
}

// UnitarityError is the largest entry of |m·m† − I|.
func UnitarityError(m []complex128) float64 {
	d := matDim(m)
	if d <= 0 {
		return math.Inf(1)
	}
	p := make([]complex128, d*d)
	cblas128.Gemm(blas.NoTrans, blas.ConjTrans, 1, general(m, d), general(m, d), 0, general(p, d))
	return identityError(p, d)
}

// identityError is the largest entry of |p − I| for the d×d matrix p.
func identityError(p []complex128, d int) float64 {
	worst := 0.0
	for i := range d {
		for j := range d {
			want := complex(0, 0)
			if i == j {
				want = 1
			}
			worst = math.Max(worst, cmplx.Abs(p[i*d+j]-want))
		}
	}
	return worst
}

// UnitaryTolerance is how far from unitary (see [UnitarityError]) a gate
// matrix may be. Matrices built from angles in float64 land near 1e-15.
const UnitaryTolerance = 1e-9

// IsUnitary reports whether m is a square unitary matrix within
// [UnitaryTolerance].
func IsUnitary(m []complex128) bool { return UnitarityError(m) <= UnitaryTolerance }

// MatPow returns m^k for a unitary m and any real k, using the principal
// branch of each eigenvalue's logarithm (arguments in (−π, π]). For an
// integer k this equals repeated multiplication (or of the inverse for k<0).
//
// Eigenvectors of a unitary come from gonum's symmetric eigensolver: U is
// normal, so its Hermitian parts A = (U+U†)/2 and B = (U−U†)/2i commute and
// share eigenvectors with U. A+cB, for a c that separates the eigenvalues, is
// Hermitian; its real 2d×2d embedding [[Re,−Im],[Im,Re]] is symmetric and
// its eigenspaces embed those of U.
func MatPow(m []complex128, k float64) ([]complex128, error) {
	d := matDim(m)
	if d <= 0 {
		return nil, errors.New("sim: matrix power of a matrix that is not square")
	}
	if !IsUnitary(m) {
		return nil, errors.New("sim: matrix power of a matrix that is not unitary")
	}
	if k == math.Trunc(k) && math.Abs(k) <= 64 {
		return intPow(m, int(k)), nil
	}
	for _, c := range []float64{0.5772156649, 1.6180339887, -0.7071067812, 2.7182818285} {
		if p, ok := powBySpectrum(m, d, k, c); ok {
			return p, nil
		}
	}
	return nil, errors.New("sim: matrix power: eigenvalues could not be separated")
}

func intPow(m []complex128, k int) []complex128 {
	if k < 0 {
		m, k = Dagger(m), -k
	}
	d := matDim(m)
	out := Identity(d)
	base := m
	for k > 0 {
		if k&1 == 1 {
			out = MatMul(out, base)
		}
		k >>= 1
		if k > 0 {
			base = MatMul(base, base)
		}
	}
	return out
}

func powBySpectrum(u []complex128, d int, k, c float64) ([]complex128, bool) {
	// H = A + cB with A = (U+U†)/2, B = (U−U†)/(2i).
	n := 2 * d
	sym := mat.NewSymDense(n, nil)
	for i := range d {
		for j := i; j < d; j++ {
			a := (u[i*d+j] + cmplx.Conj(u[j*d+i])) / 2
			b := (u[i*d+j] - cmplx.Conj(u[j*d+i])) / complex(0, 2)
			h := a + complex(c, 0)*b
			sym.SetSym(i, j, real(h))
			sym.SetSym(i+d, j+d, real(h))
			sym.SetSym(i, j+d, -imag(h))
			// the lower-left block is Im(H); Im(H) is antisymmetric, so its
			// (j, i) entry mirrors the (i, j+d) one.
			sym.SetSym(j, i+d, imag(h))
		}
	}
	var eig mat.EigenSym
	if !eig.Factorize(sym, true) {
		return nil, false
	}
	vals := eig.Values(nil)
	var vecs mat.Dense
	eig.VectorsTo(&vecs)

	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return vals[order[a]] < vals[order[b]] })

	out := make([]complex128, d*d)
	const groupTol = 1e-7
	for start := 0; start < n; {
		end := start + 1
		for end < n && vals[order[end]]-vals[order[start]] < groupTol {
			end++
		}
		// The real projector onto the group's eigenspace embeds the complex
		// projector P: P = R[0:d,0:d] + i·R[d:2d,0:d].
		p := make([]complex128, d*d)
		for i := range d {
			for j := range d {
				var re, im float64
				for _, col := range order[start:end] {
					re += vecs.At(i, col) * vecs.At(j, col)
					im += vecs.At(i+d, col) * vecs.At(j, col)
				}
				p[i*d+j] = complex(re, im)
			}
		}
		// λ = tr(P·U)/tr(P); check that U·P = λP, else c merged two
		// eigenvalues of U.
		up := MatMul(u, p)
		var trUP, trP complex128
		for i := range d {
			trUP += up[i*d+i]
			trP += p[i*d+i]
		}
		if real(trP) < 0.5 {
			return nil, false
		}
		lambda := trUP / trP
		for i := range up {
			if cmplx.Abs(up[i]-lambda*p[i]) > 1e-7 {
				return nil, false
			}
		}
		phase := cmplx.Phase(lambda)
		if phase < -math.Pi+1e-9 {
			phase = math.Pi // the principal branch is (−π, π]; −1 computed as −1−0i is still π
		}
		lk := cmplx.Exp(complex(0, k*phase))
		for i := range out {
			out[i] += lk * p[i]
		}
		start = end
	}
	return out, true
}
