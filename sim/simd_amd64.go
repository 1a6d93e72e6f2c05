//go:build !purego

package sim

import "golang.org/x/sys/cpu"

// bestSIMD is the widest vector unit this CPU and OS support. x/sys/cpu
// reports AVX2 and AVX-512 only when the OS saves their registers.
var bestSIMD = func() simdLevel {
	switch {
	case cpu.X86.HasAVX512F && cpu.X86.HasFMA:
		return simdAVX512
	case cpu.X86.HasAVX2 && cpu.X86.HasFMA:
		return simdAVX2
	}
	return simdNone
}()

// The kernels of simd_amd64.s. n is a multiple of the register's width in
// amplitudes; m points at simdCoefs.

//go:noescape
func pairs128AVX2(x, y *complex128, n int, m *float64)

//go:noescape
func pairs128AVX512(x, y *complex128, n int, m *float64)

//go:noescape
func pairs64AVX2(x, y *complex64, n int, m *float32)

//go:noescape
func pairs64AVX512(x, y *complex64, n int, m *float32)

//go:noescape
func scale128AVX2(x *complex128, n int, m *float64)

//go:noescape
func scale128AVX512(x *complex128, n int, m *float64)

//go:noescape
func scale64AVX2(x *complex64, n int, m *float32)

//go:noescape
func scale64AVX512(x *complex64, n int, m *float32)

//go:noescape
func quad128AVX2(x0, x1, x2, x3 *complex128, n int, m *float64)

//go:noescape
func quad128AVX512(x0, x1, x2, x3 *complex128, n int, m *float64)

//go:noescape
func quad64AVX2(x0, x1, x2, x3 *complex64, n int, m *float32)

//go:noescape
func quad64AVX512(x0, x1, x2, x3 *complex64, n int, m *float32)

// Low-target kernels: x holds whole pairs; m points at lowCoefs.

//go:noescape
func low128AVX2t0(x *complex128, n int, m *float64)

//go:noescape
func low128AVX512t0(x *complex128, n int, m *float64)

//go:noescape
func low128AVX512t1(x *complex128, n int, m *float64)

//go:noescape
func low64AVX2t0(x *complex64, n int, m *float32)

//go:noescape
func low64AVX2t1(x *complex64, n int, m *float32)

//go:noescape
func low64AVX512t0(x *complex64, n int, m *float32)

//go:noescape
func low64AVX512t1(x *complex64, n int, m *float32)

//go:noescape
func low64AVX512t2(x *complex64, n int, m *float32)

// 2-qubit kernels with one low target: m points at lowPairCoefs.

//go:noescape
func lowPair128AVX2t0(x, y *complex128, n int, m *float64)

//go:noescape
func lowPair128AVX512t0(x, y *complex128, n int, m *float64)

//go:noescape
func lowPair128AVX512t1(x, y *complex128, n int, m *float64)

//go:noescape
func lowPair64AVX2t0(x, y *complex64, n int, m *float32)

//go:noescape
func lowPair64AVX2t1(x, y *complex64, n int, m *float32)

//go:noescape
func lowPair64AVX512t0(x, y *complex64, n int, m *float32)

//go:noescape
func lowPair64AVX512t1(x, y *complex64, n int, m *float32)

//go:noescape
func lowPair64AVX512t2(x, y *complex64, n int, m *float32)

// 2-qubit kernels with both targets low: m points at lowBothCoefs.

//go:noescape
func lowBoth128AVX512t01(x *complex128, n int, m *float64)

//go:noescape
func lowBoth64AVX2t01(x *complex64, n int, m *float32)

//go:noescape
func lowBoth64AVX512t01(x *complex64, n int, m *float32)

//go:noescape
func lowBoth64AVX512t02(x *complex64, n int, m *float32)

//go:noescape
func lowBoth64AVX512t12(x *complex64, n int, m *float32)

// Amplitudes times a pattern of their own coefficients.

//go:noescape
func mulSeq128AVX2(x *complex128, n int, m *float64)

//go:noescape
func mulSeq128AVX512(x *complex128, n int, m *float64)

//go:noescape
func mulSeq64AVX2(x *complex64, n int, m *float32)

//go:noescape
func mulSeq64AVX512(x *complex64, n int, m *float32)
