package sim

import (
	"bytes"
	"context"
	"fmt"
	"math/cmplx"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/qjobs/quantum/internal/testenv"
)

// simdLevels are the vector levels this CPU runs, pure Go first.
func simdLevels() []simdLevel {
	out := []simdLevel{simdNone}
	for l := simdAVX2; l <= bestSIMD; l++ {
		out = append(out, l)
	}
	return out
}

func randomComplex(rng *rand.Rand) complex128 {
	return complex(rng.Float64()*2-1, rng.Float64()*2-1)
}

func randomMatrix(rng *rand.Rand, d int) []complex128 {
	m := make([]complex128, d*d)
	for i := range m {
		m[i] = randomComplex(rng)
	}
	return m
}

func realMatrix(rng *rand.Rand, d int) []complex128 {
	m := make([]complex128, d*d)
	for i := range m {
		m[i] = complex(rng.Float64()*2-1, 0)
	}
	return m
}

// simdCases are gates of every kernel the vector code serves, on every
// qubit position of n qubits: targets low (inside a register) and high
// (across registers), with controls below, between and above.
func simdCases(rng *rand.Rand, n int) []Gate {
	var gs []Gate
	diag := func(d int) []complex128 {
		m := make([]complex128, d*d)
		for i := range d {
			m[i*d+i] = randomComplex(rng)
		}
		return m
	}
	for t := range n {
		anti := []complex128{0, randomComplex(rng), randomComplex(rng), 0}
		real1 := []complex128{complex(rng.Float64(), 0), complex(rng.Float64(), 0), complex(rng.Float64(), 0), complex(rng.Float64(), 0)}
		for _, m := range [][]complex128{randomMatrix(rng, 2), diag(2), anti, real1} {
			gs = append(gs, Gate{Name: "1q", Matrix: m, Targets: []int{t}})
			for _, c := range []int{0, n / 2, n - 1} {
				if c != t {
					gs = append(gs, Gate{Name: "c1q", Matrix: m, Targets: []int{t}, Controls: []Control{{Qubit: c, Negated: c == 0}}})
				}
			}
		}
		// cp: only the |1⟩ half of the target changes.
		if c := (t + 1) % n; c != t {
			gs = append(gs, Gate{Name: "cp", Matrix: []complex128{1, 0, 0, cmplx.Exp(complex(0, rng.Float64()))}, Targets: []int{t}, Controls: []Control{{Qubit: c}}})
		}
		gs = append(gs, Gate{Name: "phase", Matrix: []complex128{randomComplex(rng)}, Controls: []Control{{Qubit: t}}})
		for u := range n {
			if u == t {
				continue
			}
			gs = append(gs, Gate{Name: "2q", Matrix: randomMatrix(rng, 4), Targets: []int{t, u}})
			if u+1 < n && u+1 != t {
				gs = append(gs, Gate{Name: "diag3", Matrix: diag(8), Targets: []int{t, u, u + 1}})
			}
		}
	}
	for t := range n {
		three := []int{t, (t + 1) % n, (t + 3) % n}
		four := []int{t, (t + 2) % n, (t + 4) % n, (t + 5) % n}
		gs = append(gs, Gate{Name: "3q", Matrix: randomMatrix(rng, 8), Targets: three})
		gs = append(gs, Gate{Name: "4q", Matrix: randomMatrix(rng, 16), Targets: four})
		// Real matrices (H, CX and their products) have kernels of their own.
		gs = append(gs, Gate{Name: "2q real", Matrix: realMatrix(rng, 4), Targets: []int{t, (t + 3) % n}})
		gs = append(gs, Gate{Name: "3q real", Matrix: realMatrix(rng, 8), Targets: three})
		gs = append(gs, Gate{Name: "4q real", Matrix: realMatrix(rng, 16), Targets: four})
	}
	// Every target above a register of 4 complex64 (AVX2's 4-qubit
	// kernels sweep their inputs twice), complex and real.
	for _, ts := range [][]int{{2, 3, 4, 5}, {6, 3, 5, 2}, {2, 4, 6}, {5, 3}} {
		d := 1 << len(ts)
		gs = append(gs, Gate{Name: fmt.Sprintf("%dq high", len(ts)), Matrix: randomMatrix(rng, d), Targets: ts})
		gs = append(gs, Gate{Name: fmt.Sprintf("%dq high real", len(ts)), Matrix: realMatrix(rng, d), Targets: ts})
	}
	// Every target inside a register of 8 complex64.
	gs = append(gs, Gate{Name: "3q", Matrix: randomMatrix(rng, 8), Targets: []int{2, 0, 1}})
	gs = append(gs, Gate{Name: "4q", Matrix: randomMatrix(rng, 16), Targets: []int{1, 0, n - 2, 2}})
	gs = append(gs, Gate{Name: "diag2 controlled", Matrix: diag(4), Targets: []int{0, n - 2}, Controls: []Control{{Qubit: 3}}})
	gs = append(gs, Gate{Name: "2q controlled", Matrix: randomMatrix(rng, 4), Targets: []int{n - 1, 1}, Controls: []Control{{Qubit: 0}}})
	return gs
}

func randomVector[T amplitude](rng *rand.Rand, n int) *vec[T] {
	v := newVec[T](n)
	for i := range v.a {
		v.a[i] = T(randomComplex(rng))
	}
	return v
}

// maxDiff is the largest difference between a and b relative to b's
// largest amplitude: the random matrices are not unitary, and a long run
// of them scales the state far from 1.
func maxDiff[T amplitude](a, b []T) float64 {
	d, scale := 0.0, 0.0
	for i := range a {
		d = max(d, cmplx.Abs(complex128(a[i])-complex128(b[i])))
		scale = max(scale, cmplx.Abs(complex128(b[i])))
	}
	return d / scale
}

// TestVectorKernelsMatchPureGo applies each gate with every vector level
// to the same random state and compares with the pure-Go loops.
func TestVectorKernelsMatchPureGo(t *testing.T) {
	t.Cleanup(func() { simd = bestSIMD })
	t.Logf("vector kernels on this CPU: %s", bestSIMD)
	rng := rand.New(rand.NewPCG(17, 4))
	const n = 7 // runs of 1 to 64 amplitudes
	for _, g := range simdCases(rng, n) {
		k := newKernel(&g)
		name := fmt.Sprintf("%s%v%v", g.Name, g.Targets, g.Controls)
		checkLevels(t, name, n, 1e-12, func(v *vec[complex128]) error { return v.apply(context.Background(), k, n, 1) }, rng)
		checkLevels(t, name+"/single", n, 2e-6, func(v *vec[complex64]) error { return v.apply(context.Background(), k, n, 1) }, rng)
		// Shares of the counters that do not fall on a register or a
		// stretch, as an odd number of workers cuts them.
		for _, cut := range []int{1, 3, k.groups(n) / 3} {
			checkLevels(t, fmt.Sprintf("%s/cut %d", name, cut), n, 1e-12, func(v *vec[complex128]) error {
				applyKernel(k, &k.c128, v.a, 0, cut, v.scratch(0, len(k.off)))
				applyKernel(k, &k.c128, v.a, cut, k.groups(n), v.scratch(0, len(k.off)))
				return nil
			}, rng)
		}
	}
}

// blockMatrix is a d×d matrix of d/m blocks of m×m, random (real when
// real), its rows and columns permuted at random: the shape of a fused
// block whose qubits only control, or of a permutation (m = 1). With m =
// 1, fixed leaves the first runs as they are (entry 1 on the diagonal), as
// a swap leaves two of its four.
func blockMatrix(rng *rand.Rand, d, m, fixed int, real bool) []complex128 {
	entry := func() complex128 {
		if real {
			return complex(rng.Float64()*2-1, 0)
		}
		return randomComplex(rng)
	}
	rows, cols := rng.Perm(d), rng.Perm(d)
	if m == 1 {
		// the first fixed rows keep their columns; the others are
		// shuffled among themselves
		copy(cols, rows)
		rest := cols[fixed:]
		rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	}
	a := make([]complex128, d*d)
	for b := range d / m {
		for j := range m {
			for k := range m {
				v := entry()
				if m == 1 && b < fixed {
					v = 1
				}
				a[rows[b*m+j]*d+cols[b*m+k]] = v
			}
		}
	}
	return a
}

// Matrices on targets above the register that fall apart into blocks
// (permutations with phases, swaps, blocks of 2 to 8, the identity) run
// on the block kernels on AVX-512, and give what the pure-Go loops give,
// in both precisions, real and complex, on shares cut anywhere.
func TestBlockKernelsMatchPureGo(t *testing.T) {
	t.Cleanup(func() { simd = bestSIMD })
	rng := rand.New(rand.NewPCG(21, 5))
	const n = 8 // targets from 3 up lie above a register in both precisions
	for h := 1; h <= 4; h++ {
		d := 1 << h
		for m := 1; m < d; m *= 2 {
			for _, real := range []bool{false, true} {
				fixes := []int{0}
				if m == 1 {
					// d−1 of d runs moved or scaled down to one, and none
					fixes = []int{0, 1, d / 2, d - 1, d}
				}
				for _, fixed := range fixes {
					for _, low := range []bool{false, true} {
						ts := rng.Perm(n - 3)[:h]
						for i := range ts {
							ts[i] += 3
						}
						if low {
							// the same shape with a target inside the
							// register: the mat kernels with low targets
							ts[rng.IntN(h)] = rng.IntN(3)
						}
						checkBlockShape(t, rng, n, ts, d, m, fixed, real, low)
					}
				}
			}
		}
	}
}

// Block-shaped matrices on qubits above the register and inside a cache
// block run through the cache-blocked path too (kernels renamed onto a
// block, two workers), and give what the pure-Go loops give.
func TestBlockKernelsBlocked(t *testing.T) {
	t.Cleanup(func() { simd = bestSIMD })
	rng := rand.New(rand.NewPCG(22, 7))
	const n = blockBits + 2
	var ks []*kernel
	for _, c := range []struct {
		ts       []int
		m, fixed int
		real     bool
	}{
		{[]int{3, 4}, 1, 2, true},         // a swap
		{[]int{5, 3, 9}, 2, 0, true},      // H+CX-like, one qubit controls
		{[]int{3, 4, 5, 6}, 8, 0, true},   // two 8×8 blocks
		{[]int{7, 3, 12, 4}, 4, 0, false}, // four complex 4×4 blocks
		{[]int{4, 6, 8, 10}, 1, 5, false}, // a permutation with phases
		{[]int{blockBits - 1, 3}, 1, 0, false},
	} {
		d := 1 << len(c.ts)
		ks = append(ks, newKernel(&Gate{Matrix: blockMatrix(rng, d, c.m, c.fixed, c.real), Targets: c.ts}))
	}
	checkLevels(t, "blocked", n, 1e-9, func(v *vec[complex128]) error { return v.applyBlocked(context.Background(), ks, n, 2) }, rng)
	checkLevels(t, "blocked/single", n, 1e-4, func(v *vec[complex64]) error { return v.applyBlocked(context.Background(), ks, n, 2) }, rng)
}

// checkBlockShape applies a blockMatrix on targets ts (at least one inside
// the register when low) with every level, both precisions, and on shares
// cut anywhere, against the pure-Go loops; without a low target, on
// AVX-512, the plan must be a block kernel.
func checkBlockShape(t *testing.T, rng *rand.Rand, n int, ts []int, d, m, fixed int, real, low bool) {
	t.Helper()
	g := Gate{Matrix: blockMatrix(rng, d, m, fixed, real), Targets: ts}
	k := newKernel(&g)
	name := fmt.Sprintf("%v blocks of %d, %d fixed, real %v", ts, m, fixed, real)
	// (a diagonal has kernels of its own, without a matrix plan)
	if bestSIMD == simdAVX512 && k.mats != nil && !low {
		for _, double := range []bool{false, true} {
			rb := 3
			if double {
				rb = 2
			}
			if p := newMatPlan(k, double, simdAVX512, rb); p == nil || p.blockRuns == 0 && !p.identity {
				t.Errorf("%s: not a block kernel (double %v)", name, double)
			}
		}
	}
	checkLevels(t, name, n, 1e-12, func(v *vec[complex128]) error { return v.apply(context.Background(), k, n, 1) }, rng)
	checkLevels(t, name+"/single", n, 2e-6, func(v *vec[complex64]) error { return v.apply(context.Background(), k, n, 1) }, rng)
	for _, cut := range []int{1, 3, k.groups(n) / 3} {
		checkLevels(t, fmt.Sprintf("%s/cut %d", name, cut), n, 1e-12, func(v *vec[complex128]) error {
			applyKernel(k, &k.c128, v.a, 0, cut, v.scratch(0, len(k.off)))
			applyKernel(k, &k.c128, v.a, cut, k.groups(n), v.scratch(0, len(k.off)))
			return nil
		}, rng)
	}
}

// TestVectorKernelsBlocked runs kernels on low qubits through the cache
// blocked path, on more qubits than a block and on two workers.
func TestVectorKernelsBlocked(t *testing.T) {
	t.Cleanup(func() { simd = bestSIMD })
	rng := rand.New(rand.NewPCG(5, 9))
	const n = blockBits + 2
	var ks []*kernel
	for _, g := range simdCases(rng, blockBits) {
		if len(g.Targets) <= 2 {
			ks = append(ks, newKernel(&g))
		}
	}
	checkLevels(t, "blocked", n, 1e-9, func(v *vec[complex128]) error { return v.applyBlocked(context.Background(), ks, n, 2) }, rng)
	checkLevels(t, "blocked/single", n, 1e-3, func(v *vec[complex64]) error { return v.applyBlocked(context.Background(), ks, n, 2) }, rng)
}

// TestBlockedRunsTakeDiagonals runs diagonals on qubits above a cache
// block inside blocked runs (rangeDiagonal), between kernels on low
// qubits, and compares with each kernel applied alone in pure Go.
func TestBlockedRunsTakeDiagonals(t *testing.T) {
	t.Cleanup(func() { simd = bestSIMD })
	rng := rand.New(rand.NewPCG(6, 1))
	const n = blockBits + 2
	hi := blockBits + 1
	diag := func(d int) []complex128 {
		m := make([]complex128, d)
		for i := range m {
			m[i] = cmplx.Exp(complex(0, rng.Float64()*6))
		}
		return m
	}
	var ks []*kernel
	for _, ts := range [][]int{{2, 9, hi}, {7, 13, hi}, {hi, 6}, {3, 5, 8, 10, 12, blockBits, hi, 1}, {0, hi}, {blockBits}} {
		ks = append(ks, newDiagKernel(ts, diag(1<<len(ts))))
		ks = append(ks, newKernel(&Gate{Matrix: randomMatrix(rng, 4), Targets: []int{rng.IntN(blockBits), 0}}))
	}
	ks[len(ks)-1] = newKernel(&Gate{Matrix: []complex128{diag(1)[0], 0, 0, diag(1)[0]}, Targets: []int{hi}})
	// Without vector kernels a diagonal with a target below patternBits
	// has no patterns and keeps its own pass; the run is compared all the
	// same (applyBlocked takes what it is given).
	if m := lowRun(ks); m != len(ks) && bestSIMD != simdNone {
		t.Fatalf("a blocked run takes %d of %d kernels", m, len(ks))
	}
	for _, l := range simdLevels() {
		simd = l
		start := randomVector[complex128](rng, n)
		want := &vec[complex128]{a: append([]complex128(nil), start.a...)}
		got := &vec[complex128]{a: append([]complex128(nil), start.a...)}
		start64 := randomVector[complex64](rng, n)
		want64 := &vec[complex64]{a: append([]complex64(nil), start64.a...)}
		got64 := &vec[complex64]{a: append([]complex64(nil), start64.a...)}
		simd = simdNone
		for _, k := range ks {
			if err := want.apply(context.Background(), k, n, 1); err != nil {
				t.Fatal(err)
			}
			if err := want64.apply(context.Background(), k, n, 1); err != nil {
				t.Fatal(err)
			}
		}
		simd = l
		if err := got.applyBlocked(context.Background(), ks, n, 2); err != nil {
			t.Fatal(err)
		}
		if err := got64.applyBlocked(context.Background(), ks, n, 2); err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(got.a, want.a); !(d <= 1e-12) {
			t.Errorf("%s: a blocked run with diagonals differs by %.3g", l, d)
		}
		if d := maxDiff(got64.a, want64.a); !(d <= 1e-5) {
			t.Errorf("%s, single: a blocked run with diagonals differs by %.3g", l, d)
		}
	}
}

func checkLevels[T amplitude](t *testing.T, name string, n int, tol float64, apply func(*vec[T]) error, rng *rand.Rand) {
	t.Helper()
	start := randomVector[T](rng, n)
	var want []T
	for _, l := range simdLevels() {
		simd = l
		v := &vec[T]{a: append([]T(nil), start.a...)}
		if err := apply(v); err != nil {
			t.Fatal(err)
		}
		if l == simdNone {
			want = v.a
			continue
		}
		if d := maxDiff(v.a, want); !(d <= tol) {
			t.Errorf("%s with %s: differs from pure Go by %.3g (relative)", name, l, d)
		}
	}
	simd = bestSIMD
}

// TestGeneratedKernelsUpToDate regenerates the kernels into a temporary
// directory and compares them with the files in the package, so that an
// edit of the generator without `go generate` fails here.
func TestGeneratedKernelsUpToDate(t *testing.T) {
	if testing.Short() {
		testenv.Optional(t, "-short: builds and runs the generator")
	}
	dir := t.TempDir()
	out, err := exec.Command("go", "run", "./internal/simdgen", "-dir", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("simdgen: %v\n%s", err, out)
	}
	for _, name := range []string{"simd_amd64.s", "simd_kernels_amd64.go", "simd_kernels_other.go"} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from what internal/simdgen writes: run go generate in sim/", name)
		}
	}
}

// Every dense shape without low targets has a kernel of its own at every
// level this CPU runs, for complex and for real matrices, in both
// precisions: none falls back to the pure-Go loop, which the comparisons
// above would not notice.
func TestMatKernelsForEveryHighShape(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, l := range simdLevels()[1:] {
		for h := 1; h <= 4; h++ {
			ts := []int{3, 4, 5, 6}[:h]
			for _, real := range []bool{false, true} {
				m := randomMatrix(rng, 1<<h)
				if real {
					m = realMatrix(rng, 1<<h)
				}
				k := newKernel(&Gate{Matrix: m, Targets: ts})
				for _, double := range []bool{true, false} {
					rb := 2
					if double && l == simdAVX2 {
						rb = 1
					} else if !double && l == simdAVX512 {
						rb = 3
					}
					p := newMatPlan(k, double, l, rb)
					if p == nil {
						t.Errorf("%s: no mat kernel for %d high targets (real %v, double %v)", l, h, real, double)
					}
				}
			}
		}
	}
}

// Both levels run real matrices with targets inside the register on
// kernels of their own too (half the FMAs): every shape their complex
// kernels take, and newMatPlan picks them for a real matrix.
func TestRealKernelsWithLowTargets(t *testing.T) {
	for key := range mat128Kernels {
		if key.lows != "" && !key.real {
			if r := (matKey{key.level, key.high, key.lows, true}); mat128Kernels[r] == nil {
				t.Errorf("no real double kernel for %+v", key)
			}
		}
	}
	for key := range mat64Kernels {
		if key.lows != "" && !key.real {
			if r := (matKey{key.level, key.high, key.lows, true}); mat64Kernels[r] == nil {
				t.Errorf("no real single kernel for %+v", key)
			}
		}
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for _, l := range simdLevels()[1:] {
		for _, double := range []bool{false, true} {
			// log2 of the amplitudes a register holds (regBits)
			rb := map[simdLevel]int{simdAVX2: 2, simdAVX512: 3}[l]
			if double {
				rb--
			}
			k := newKernel(&Gate{Matrix: realMatrix(rng, 8), Targets: []int{0, rb, rb + 2}})
			p := newMatPlan(k, double, l, rb)
			want := matKey{l, 2, "0", true}
			var got, wantFn uintptr
			if double {
				got, wantFn = reflect.ValueOf(p.f128).Pointer(), reflect.ValueOf(mat128Kernels[want]).Pointer()
			} else {
				got, wantFn = reflect.ValueOf(p.f64).Pointer(), reflect.ValueOf(mat64Kernels[want]).Pointer()
			}
			if got != wantFn {
				t.Errorf("%s, double %v: a real matrix on a low target and two high ones does not run on the kernel %+v", l, double, want)
			}
		}
	}
}

// A controlled gate expanded into a matrix on its targets and controls
// (withoutControls) acts as the controlled gate does.
func TestExpandedControls(t *testing.T) {
	t.Cleanup(func() { simd = bestSIMD })
	rng := rand.New(rand.NewPCG(8, 8))
	const n = 7
	for trial := range 200 {
		qs := rng.Perm(n)
		nt, nc := 1+rng.IntN(2), 1+rng.IntN(2)
		g := Gate{Matrix: randomMatrix(rng, 1<<nt), Targets: qs[:nt]}
		for _, q := range qs[nt : nt+nc] {
			g.Controls = append(g.Controls, Control{Qubit: q, Negated: rng.IntN(2) == 0})
		}
		start := randomVector[complex128](rng, n)
		want := &vec[complex128]{a: append([]complex128(nil), start.a...)}
		got := &vec[complex128]{a: append([]complex128(nil), start.a...)}
		simd = simdNone
		if err := want.apply(context.Background(), newGateKernel(&g, false), n, 1); err != nil {
			t.Fatal(err)
		}
		simd = bestSIMD
		if err := got.apply(context.Background(), newGateKernel(withoutControls(&g), true), n, 1); err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(got.a, want.a); !(d <= 1e-12) {
			t.Errorf("trial %d, %v controlled by %v: differs by %.3g", trial, g.Targets, g.Controls, d)
		}
	}
}
