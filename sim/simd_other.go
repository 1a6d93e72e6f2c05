//go:build purego || !amd64

package sim

// Without assembly every loop is pure Go: the kernels below are never
// called, since bestSIMD is simdNone.
const bestSIMD = simdNone

func pairs128AVX2(x, y *complex128, n int, m *float64)            { panic("no vector kernels") }
func pairs128AVX512(x, y *complex128, n int, m *float64)          { panic("no vector kernels") }
func pairs64AVX2(x, y *complex64, n int, m *float32)              { panic("no vector kernels") }
func pairs64AVX512(x, y *complex64, n int, m *float32)            { panic("no vector kernels") }
func scale128AVX2(x *complex128, n int, m *float64)               { panic("no vector kernels") }
func scale128AVX512(x *complex128, n int, m *float64)             { panic("no vector kernels") }
func scale64AVX2(x *complex64, n int, m *float32)                 { panic("no vector kernels") }
func scale64AVX512(x *complex64, n int, m *float32)               { panic("no vector kernels") }
func quad128AVX2(x0, x1, x2, x3 *complex128, n int, m *float64)   { panic("no vector kernels") }
func quad128AVX512(x0, x1, x2, x3 *complex128, n int, m *float64) { panic("no vector kernels") }
func quad64AVX2(x0, x1, x2, x3 *complex64, n int, m *float32)     { panic("no vector kernels") }
func quad64AVX512(x0, x1, x2, x3 *complex64, n int, m *float32)   { panic("no vector kernels") }
func low128AVX2t0(x *complex128, n int, m *float64)               { panic("no vector kernels") }
func low128AVX512t0(x *complex128, n int, m *float64)             { panic("no vector kernels") }
func low128AVX512t1(x *complex128, n int, m *float64)             { panic("no vector kernels") }
func low64AVX2t0(x *complex64, n int, m *float32)                 { panic("no vector kernels") }
func low64AVX2t1(x *complex64, n int, m *float32)                 { panic("no vector kernels") }
func low64AVX512t0(x *complex64, n int, m *float32)               { panic("no vector kernels") }
func low64AVX512t1(x *complex64, n int, m *float32)               { panic("no vector kernels") }
func low64AVX512t2(x *complex64, n int, m *float32)               { panic("no vector kernels") }
func lowPair128AVX2t0(x, y *complex128, n int, m *float64)        { panic("no vector kernels") }
func lowPair128AVX512t0(x, y *complex128, n int, m *float64)      { panic("no vector kernels") }
func lowPair128AVX512t1(x, y *complex128, n int, m *float64)      { panic("no vector kernels") }
func lowPair64AVX2t0(x, y *complex64, n int, m *float32)          { panic("no vector kernels") }
func lowPair64AVX2t1(x, y *complex64, n int, m *float32)          { panic("no vector kernels") }
func lowPair64AVX512t0(x, y *complex64, n int, m *float32)        { panic("no vector kernels") }
func lowPair64AVX512t1(x, y *complex64, n int, m *float32)        { panic("no vector kernels") }
func lowPair64AVX512t2(x, y *complex64, n int, m *float32)        { panic("no vector kernels") }
func lowBoth128AVX512t01(x *complex128, n int, m *float64)        { panic("no vector kernels") }
func lowBoth64AVX2t01(x *complex64, n int, m *float32)            { panic("no vector kernels") }
func lowBoth64AVX512t01(x *complex64, n int, m *float32)          { panic("no vector kernels") }
func lowBoth64AVX512t02(x *complex64, n int, m *float32)          { panic("no vector kernels") }
func lowBoth64AVX512t12(x *complex64, n int, m *float32)          { panic("no vector kernels") }
func mulSeq128AVX2(x *complex128, n int, m *float64)              { panic("no vector kernels") }
func mulSeq128AVX512(x *complex128, n int, m *float64)            { panic("no vector kernels") }
func mulSeq64AVX2(x *complex64, n int, m *float32)                { panic("no vector kernels") }
func mulSeq64AVX512(x *complex64, n int, m *float32)              { panic("no vector kernels") }
