package sim

// Vector kernels: the loops of kernel.go hand the long runs of amplitudes
// to assembly when the CPU has AVX2 and FMA or AVX-512 (simd_amd64.s), and
// keep the pure-Go loops for the rest of a run, for other CPUs and
// architectures, and under the purego build tag.

// simdLevel is the widest vector unit in use, chosen once at start from
// the CPU (simd_amd64.go); tests lower it to compare every path.
type simdLevel uint8

const (
	simdNone   simdLevel = iota // pure Go
	simdAVX2                    // ymm: 2 complex128, 4 complex64
	simdAVX512                  // zmm: 4 complex128, 8 complex64
)

func (l simdLevel) String() string {
	switch l {
	case simdAVX2:
		return "avx2"
	case simdAVX512:
		return "avx512"
	}
	return "none"
}

//go:generate go run ./internal/simdgen

// simd is the level the kernels use: the best the CPU offers.
var simd = bestSIMD

// SIMD names the vector instructions the kernels use on this machine:
// "avx512", "avx2" or "none" (pure Go).
func SIMD() string { return simd.String() }

// simdCoefs holds matrix entries laid out for the vector kernels: for each
// entry, 128 bytes, a register-wide copy of its real part then of
// (−imag, imag) pairs. d for double, s for single; the other is nil.
type simdCoefs struct {
	d []float64
	s []float32
}

// entrySize is an entry's length in d (16) and in s (32).
const (
	entryD = 16
	entryS = 32
)

func newSIMDCoefs(ms []complex128) simdCoefs {
	if bestSIMD == simdNone {
		return simdCoefs{}
	}
	c := simdCoefs{d: make([]float64, entryD*len(ms)), s: make([]float32, entryS*len(ms))}
	for e, m := range ms {
		d, s := c.d[e*entryD:], c.s[e*entryS:]
		for j := range entryD / 2 {
			d[j] = real(m)
			d[entryD/2+j] = imag(m)
			if j%2 == 0 {
				d[entryD/2+j] = -imag(m)
			}
		}
		for j := range entryS / 2 {
			s[j] = float32(real(m))
			s[entryS/2+j] = float32(imag(m))
			if j%2 == 0 {
				s[entryS/2+j] = -float32(imag(m))
			}
		}
	}
	return c
}

// vectorPairs applies the 2×2 matrix at entry 0 of v to the front of the
// runs x and y, as far as whole registers go, and returns how many
// amplitudes it did.
func vectorPairs[T amplitude](v *simdCoefs, x, y []T) int {
	if simd == simdNone || v.d == nil || len(x) == 0 {
		return 0
	}
	switch x := any(x).(type) {
	case []complex128:
		y := any(y).([]complex128)[:len(x)]
		if simd == simdAVX512 {
			n := len(x) &^ 3
			if n > 0 {
				pairs128AVX512(&x[0], &y[0], n, &v.d[0])
			}
			return n
		}
		n := len(x) &^ 1
		if n > 0 {
			pairs128AVX2(&x[0], &y[0], n, &v.d[0])
		}
		return n
	case []complex64:
		y := any(y).([]complex64)[:len(x)]
		if simd == simdAVX512 {
			n := len(x) &^ 7
			if n > 0 {
				pairs64AVX512(&x[0], &y[0], n, &v.s[0])
			}
			return n
		}
		n := len(x) &^ 3
		if n > 0 {
			pairs64AVX2(&x[0], &y[0], n, &v.s[0])
		}
		return n
	}
	return 0
}

// vectorScale multiplies the front of x by entry e of v and returns how
// many amplitudes it did.
func vectorScale[T amplitude](v *simdCoefs, e int, x []T) int {
	if simd == simdNone || v.d == nil || len(x) == 0 {
		return 0
	}
	switch x := any(x).(type) {
	case []complex128:
		n := len(x) &^ 1
		if simd == simdAVX512 {
			n = len(x) &^ 3
		}
		if n == 0 {
			return 0
		}
		if simd == simdAVX512 {
			scale128AVX512(&x[0], n, &v.d[e*entryD])
		} else {
			scale128AVX2(&x[0], n, &v.d[e*entryD])
		}
		return n
	case []complex64:
		n := len(x) &^ 3
		if simd == simdAVX512 {
			n = len(x) &^ 7
		}
		if n == 0 {
			return 0
		}
		if simd == simdAVX512 {
			scale64AVX512(&x[0], n, &v.s[e*entryS])
		} else {
			scale64AVX2(&x[0], n, &v.s[e*entryS])
		}
		return n
	}
	return 0
}

// vectorQuad applies the 4×4 matrix of v to the front of the four runs
// and returns how many amplitudes of each it did.
func vectorQuad[T amplitude](v *simdCoefs, x0, x1, x2, x3 []T) int {
	if simd == simdNone || v.d == nil || len(x0) == 0 {
		return 0
	}
	switch x0 := any(x0).(type) {
	case []complex128:
		x1, x2, x3 := any(x1).([]complex128)[:len(x0)], any(x2).([]complex128)[:len(x0)], any(x3).([]complex128)[:len(x0)]
		n := len(x0) &^ 1
		if simd == simdAVX512 {
			n = len(x0) &^ 3
		}
		if n == 0 {
			return 0
		}
		if simd == simdAVX512 {
			quad128AVX512(&x0[0], &x1[0], &x2[0], &x3[0], n, &v.d[0])
		} else {
			quad128AVX2(&x0[0], &x1[0], &x2[0], &x3[0], n, &v.d[0])
		}
		return n
	case []complex64:
		x1, x2, x3 := any(x1).([]complex64)[:len(x0)], any(x2).([]complex64)[:len(x0)], any(x3).([]complex64)[:len(x0)]
		n := len(x0) &^ 3
		if simd == simdAVX512 {
			n = len(x0) &^ 7
		}
		if n == 0 {
			return 0
		}
		if simd == simdAVX512 {
			quad64AVX512(&x0[0], &x1[0], &x2[0], &x3[0], n, &v.s[0])
		} else {
			quad64AVX2(&x0[0], &x1[0], &x2[0], &x3[0], n, &v.s[0])
		}
		return n
	}
	return 0
}

// posVectors lays out nvec vectors of coefficients that vary with the
// position p in a register (4 complex128 or 8 complex64), 128 bytes each:
// the real parts twice per position, then (−imag, imag) per position.
func posVectors(nvec int, coef func(v, p int) complex128) ([]float64, []float32) {
	d, s := make([]float64, entryD*nvec), make([]float32, entryS*nvec)
	for v := range nvec {
		for p := range entryD / 4 {
			c := coef(v, p)
			e := d[v*entryD:]
			e[2*p], e[2*p+1] = real(c), real(c)
			e[entryD/2+2*p], e[entryD/2+2*p+1] = -imag(c), imag(c)
		}
		for p := range entryS / 4 {
			c := coef(v, p)
			e := s[v*entryS:]
			e[2*p], e[2*p+1] = float32(real(c)), float32(real(c))
			e[entryS/2+2*p], e[entryS/2+2*p+1] = -float32(imag(c)), float32(imag(c))
		}
	}
	return d, s
}
