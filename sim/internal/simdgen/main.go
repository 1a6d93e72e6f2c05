// Command simdgen writes the vector kernels of package sim for amd64:
// simd_amd64.s (the assembly, spelled out register by register),
// simd_kernels_amd64.go (their Go declarations) and simd_kernels_other.go
// (stubs for other architectures and -tags purego). Run it from sim/ with
// `go generate` (see simd.go); the files it writes are not to be edited.
//
// A register holds 2 (ymm) or 4 (zmm) complex128, 4 or 8 complex64, as
// (re, im) pairs. The product m·a of a matrix entry m = (mr, mi) with
// amplitudes a is a·R + swap(a)·I with R = (mr, mr, …), I = (−mi, mi, …)
// and swap exchanging re and im in each pair: one permute, then a multiply
// and an FMA, or two FMAs when the product adds to a sum. Coefficients are
// laid out by sim's posVectors and seqVectors: 128 bytes an entry, R at
// +0 and I at +64, 64 bytes each, so that a zmm load reads a whole vector
// and a ymm load its first half.
package main

import (
	"bytes"
	"flag"
	"fmt"
	"go/format"
	"log"
	"os"
	"path/filepath"
	"strings"
)

// isa is a register width: the register letter, its bytes, and its
// name in function names.
type isa struct {
	name  string
	reg   string // "Y" or "Z"
	bytes int
}

var (
	avx2   = isa{"AVX2", "Y", 32}
	avx512 = isa{"AVX512", "Z", 64}
)

// prec is a precision: the suffix of its function names, its Go types,
// and its instructions.
type prec struct {
	suffix      string // "128" or "64"
	goType      string
	coefType    string
	ampBytes    int
	mov, mul    string
	fma, swapOp string
}

var (
	double = prec{"128", "complex128", "float64", 16, "VMOVUPD", "VMULPD", "VFMADD231PD", "VPERMILPD $0x55"}
	single = prec{"64", "complex64", "float32", 8, "VMOVUPS", "VMULPS", "VFMADD231PS", "VPERMILPS $0xB1"}
)

// shift is log2 of the amplitudes a register holds.
func (p prec) shift(i isa) int {
	n := i.bytes / p.ampBytes
	s := 0
	for n > 1 {
		n >>= 1
		s++
	}
	return s
}

// perm is the shuffle that swaps each amplitude with its partner across
// target t, inside a register: "" when t is not inside one.
func perm(p prec, i isa, t int) func(a, dst string) string {
	var f string
	switch {
	case p == double && i == avx2 && t == 0:
		f = "VPERM2F128 $0x01, %[1]s, %[1]s, %[2]s"
	case p == double && i == avx512 && t == 0:
		f = "VSHUFF64X2 $0xB1, %[1]s, %[1]s, %[2]s"
	case p == double && i == avx512 && t == 1:
		f = "VSHUFF64X2 $0x4E, %[1]s, %[1]s, %[2]s"
	case p == single && i == avx2 && t == 0:
		f = "VPERMILPD $0x05, %[1]s, %[2]s"
	case p == single && i == avx2 && t == 1:
		f = "VPERM2F128 $0x01, %[1]s, %[1]s, %[2]s"
	case p == single && i == avx512 && t == 0:
		f = "VPERMILPD $0x55, %[1]s, %[2]s"
	case p == single && i == avx512 && t == 1:
		f = "VSHUFF64X2 $0xB1, %[1]s, %[1]s, %[2]s"
	case p == single && i == avx512 && t == 2:
		f = "VSHUFF64X2 $0x4E, %[1]s, %[1]s, %[2]s"
	default:
		return nil
	}
	return func(a, dst string) string { return fmt.Sprintf(f, a, dst) }
}

// gen accumulates the three files.
type gen struct {
	asm, decl, stub bytes.Buffer
	table           map[prec]*bytes.Buffer // mat kernels' entries
	blk128, blk64   bytes.Buffer           // block kernels' entries
}

func (g *gen) ins(format string, args ...any) {
	fmt.Fprintf(&g.asm, "\t"+format+"\n", args...)
}

// fn starts a function: its assembly header and its declarations.
func (g *gen) fn(name, params string, frame int, doc string) {
	g.fnFrame(name, params, 0, frame, doc)
}

// fnFrame is fn with locals bytes of stack frame (from 0(SP)).
func (g *gen) fnFrame(name, params string, locals, frame int, doc string) {
	fmt.Fprintf(&g.asm, "\n// func %s(%s)\nTEXT ·%s(SB), NOSPLIT, $%d-%d\n", name, params, name, locals, frame)
	fmt.Fprintf(&g.decl, "\n// %s\n//\n//go:noescape\nfunc %s(%s)\n", doc, name, params)
	fmt.Fprintf(&g.stub, "func %s(%s) { panic(\"no vector kernels\") }\n", name, params)
}

// endRuns closes the loops of a kernel over runs: the inner one over CX
// vectors of a run, the outer one over R12 runs stride bytes apart (R13
// the run's start), then the return.
func (g *gen) endRuns(name string) {
	g.ins("DECQ CX")
	g.ins("JNZ  %sloop", name)
	fmt.Fprintf(&g.asm, "\n%snext:\n", name)
	g.ins("MOVQ R13, DI")
	g.ins("ADDQ stride+32(FP), DI")
	g.ins("DECQ R12")
	g.ins("JNZ  %souter", name)
	fmt.Fprintf(&g.asm, "\n%sdone:\n", name)
	g.ins("VZEROUPPER")
	g.ins("RET")
}

// loop emits the loop over CX iterations around body, then the return.
func (g *gen) loop(name string, body func()) {
	g.ins("JZ   %sdone", name)
	fmt.Fprintf(&g.asm, "\n%sloop:\n", name)
	body()
	g.ins("DECQ CX")
	g.ins("JNZ  %sloop", name)
	fmt.Fprintf(&g.asm, "\n%sdone:\n", name)
	g.ins("VZEROUPPER")
	g.ins("RET")
}

// mulAcc emits acc = a·R + sw·I (first) or acc += a·R + sw·I, with the
// entry at byte off from base.
func (g *gen) mulAcc(p prec, first bool, off int, base, a, sw, acc string) {
	if first {
		g.ins("%s %d(%s), %s, %s", p.mul, off, base, a, acc)
	} else {
		g.ins("%s %d(%s), %s, %s", p.fma, off, base, a, acc)
	}
	g.ins("%s %d(%s), %s, %s", p.fma, off+64, base, sw, acc)
}

func (g *gen) swap(p prec, a, dst string) { g.ins("%s, %s, %s", p.swapOp, a, dst) }

func r(i isa, n int) string { return fmt.Sprintf("%s%d", i.reg, n) }

// pairs: x' = m0·x + m1·y, y' = m2·x + m3·y on two runs.
func (g *gen) pairs(p prec, i isa) {
	name := "pairs" + p.suffix + i.name
	g.fn(name, fmt.Sprintf("x, y *%s, n int, m *%s", p.goType, p.coefType), 32, name+" applies a 2×2 matrix to the runs x and y.")
	g.ins("MOVQ x+0(FP), DI")
	g.ins("MOVQ y+8(FP), SI")
	g.ins("MOVQ n+16(FP), CX")
	g.ins("MOVQ m+24(FP), AX")
	g.ins("SHRQ $%d, CX", p.shift(i))
	g.loop(name, func() {
		g.ins("%s (DI), %s", p.mov, r(i, 0))
		g.ins("%s (SI), %s", p.mov, r(i, 1))
		g.swap(p, r(i, 0), r(i, 2))
		g.swap(p, r(i, 1), r(i, 3))
		g.mulAcc(p, true, 0, "AX", r(i, 0), r(i, 2), r(i, 4))
		g.mulAcc(p, false, 128, "AX", r(i, 1), r(i, 3), r(i, 4))
		g.mulAcc(p, true, 256, "AX", r(i, 0), r(i, 2), r(i, 5))
		g.mulAcc(p, false, 384, "AX", r(i, 1), r(i, 3), r(i, 5))
		g.ins("%s %s, (DI)", p.mov, r(i, 4))
		g.ins("%s %s, (SI)", p.mov, r(i, 5))
		g.ins("ADDQ $%d, DI", i.bytes)
		g.ins("ADDQ $%d, SI", i.bytes)
	})
}

// scale: x' = m0·x, one entry for the whole run; seq: x' = c·x with a
// coefficient of its own for each amplitude (a diagonal's pattern).
func (g *gen) scale(p prec, i isa, seq bool) {
	name := "scale" + p.suffix + i.name
	doc := name + " multiplies the run x by one entry."
	shift := p.shift(i)
	if seq {
		name = "mulSeq" + p.suffix + i.name
		doc = name + " multiplies each amplitude of x by its own coefficient, 128 bytes of them a chunk of 4 complex128 or 8 complex64."
		shift = p.shift(avx512) // a loop step is a whole chunk
	}
	g.fn(name, fmt.Sprintf("x *%s, n int, m *%s", p.goType, p.coefType), 24, doc)
	g.ins("MOVQ x+0(FP), DI")
	g.ins("MOVQ n+8(FP), CX")
	g.ins("MOVQ m+16(FP), AX")
	g.ins("SHRQ $%d, CX", shift)
	g.loop(name, func() {
		regs := 1
		if seq && i == avx2 {
			regs = 2 // a ymm is half a chunk
		}
		for k := range regs {
			a, sw, acc := r(i, 3*k), r(i, 3*k+1), r(i, 3*k+2)
			g.ins("%s %d(DI), %s", p.mov, k*i.bytes, a)
			g.swap(p, a, sw)
			g.ins("%s %d(AX), %s, %s", p.mul, k*i.bytes, a, acc)
			g.ins("%s %d(AX), %s, %s", p.fma, 64+k*i.bytes, sw, acc)
			g.ins("%s %s, %d(DI)", p.mov, acc, k*i.bytes)
		}
		g.ins("ADDQ $%d, DI", regs*i.bytes)
		if seq {
			g.ins("ADDQ $128, AX")
		}
	})
}

// quad: the 4×4 matrix on four runs.
func (g *gen) quad(p prec, i isa) {
	name := "quad" + p.suffix + i.name
	g.fn(name, fmt.Sprintf("x0, x1, x2, x3 *%s, n int, m *%s", p.goType, p.coefType), 48, name+" applies a 4×4 matrix to the runs x0…x3.")
	ptrs := []string{"DI", "SI", "R8", "R9"}
	for k, ptr := range ptrs {
		g.ins("MOVQ x%d+%d(FP), %s", k, 8*k, ptr)
	}
	g.ins("MOVQ n+32(FP), CX")
	g.ins("MOVQ m+40(FP), AX")
	g.ins("SHRQ $%d, CX", p.shift(i))
	g.loop(name, func() {
		for k, ptr := range ptrs {
			g.ins("%s (%s), %s", p.mov, ptr, r(i, k))
		}
		for k := range ptrs {
			g.swap(p, r(i, k), r(i, 4+k))
		}
		for row, ptr := range ptrs {
			for col := range 4 {
				g.mulAcc(p, col == 0, (4*row+col)*128, "AX", r(i, col), r(i, 4+col), r(i, 8))
			}
			g.ins("%s %s, (%s)", p.mov, r(i, 8), ptr)
		}
		for _, ptr := range ptrs {
			g.ins("ADDQ $%d, %s", i.bytes, ptr)
		}
	})
}

// mat: a dense matrix on h high targets (2^h runs at the byte offsets
// offs from x) and the low targets lows (inside the register). Each output
// register o is Σ over input runs i and flips f of the low targets of
// C(o,i,f) ⊙ P_f(x_i), with C at vector ((o·2^h + i)·2^|lows| + f).
func (g *gen) mat(p prec, i isa, h int, lows []int) {
	ls := ""
	for _, t := range lows {
		ls += fmt.Sprint(t)
	}
	name := fmt.Sprintf("mat%s%sh%dl%s", p.suffix, i.name, h, ls)
	locals := 0
	if i == avx2 && len(lows) == 0 && h > 3 {
		locals = 512 // matSplit copies the inputs onto the stack
	}
	g.fnFrame(name, fmt.Sprintf("x *%s, offs *int, n, outer, stride int, m *%s", p.goType, p.coefType), locals, 48,
		fmt.Sprintf("%s applies a dense matrix on %d high and %d low targets to the runs at offs from x: n amplitudes from x, then from x+stride bytes, outer times.", name, h, len(lows)))
	g.matHead(p, i, name)
	runs, flips := 1<<h, 1<<len(lows)
	fmt.Fprintf(g.table[p], "\t{%s, %d, %q, false}: %s,\n", map[isa]string{avx2: "simdAVX2", avx512: "simdAVX512"}[i], h, ls, name)
	if i == avx512 && len(lows) == 0 {
		g.matBroadcast(p, name, runs, false)
		// A real matrix (H, CX, RY and their products) needs neither the
		// swaps nor the imaginary products: half the FMAs.
		rname := name + "r"
		g.fn(rname, fmt.Sprintf("x *%s, offs *int, n, outer, stride int, m *%s", p.goType, p.coefType), 48,
			fmt.Sprintf("%s is %s for a real matrix, m holding one scalar an entry.", rname, name))
		g.matHead(p, i, rname)
		g.matBroadcast(p, rname, runs, true)
		fmt.Fprintf(g.table[p], "\t{simdAVX512, %d, \"\", true}: %s,\n", h, rname)
		return
	}
	if i == avx2 && len(lows) == 0 {
		g.matSplit(p, name, runs, false)
		g.matRealAVX2(p, name, h, runs)
		return
	}
	g.matLows(p, i, name, lows, runs, flips, false)
	// A real matrix with targets inside the register: its coefficients
	// (posVectors) have no imaginary parts, so neither the swaps nor their
	// FMAs are needed.
	rname := name + "r"
	g.fn(rname, fmt.Sprintf("x *%s, offs *int, n, outer, stride int, m *%s", p.goType, p.coefType), 48,
		fmt.Sprintf("%s is %s for a real matrix (the same coefficients, their imaginary parts unread).", rname, name))
	g.matHead(p, i, rname)
	g.matLows(p, i, rname, lows, runs, flips, true)
	fmt.Fprintf(g.table[p], "\t{%s, %d, %q, true}: %s,\n", map[isa]string{avx2: "simdAVX2", avx512: "simdAVX512"}[i], h, ls, rname)
}

// lowAccs is how many registers each output of an AVX-512 kernel with
// low targets sums into, added at the end: with few outputs (one or two
// high runs) an output is one chain of 16 to 32 dependent FMAs, which
// waits on each FMA's latency where independent chains would keep both
// FMA pipes busy. As many as the registers the inputs leave, up to four.
// AVX2 keeps one: its 16 registers leave none to spare for most shapes,
// and its tables were measured that way.
func lowAccs(i isa, runs, inputs int) int {
	if i != avx512 {
		return 1
	}
	a := 1
	for a < 4 && runs*2*a+inputs <= 32 {
		a *= 2
	}
	return a
}

// matLows is the body of a mat kernel with coefficients by position
// (posVectors): the generic form, every low target shuffled inside the
// register; real skips the swaps and the imaginary FMAs.
func (g *gen) matLows(p prec, i isa, name string, lows []int, runs, flips int, real bool) {
	inputs := 2 * flips
	if real {
		inputs = flips
	}
	terms := runs * flips * 2 // an output's products
	if real {
		terms = runs * flips
	}
	accs := min(lowAccs(i, runs, inputs), terms)
	in := func(f int) string { return r(i, runs*accs+f) }
	sw := func(f int) string { return r(i, runs*accs+flips+f) }
	// acc is output o's register j; term t of an output goes to register
	// t mod accs, the first of each a multiplication.
	acc := func(o, j int) string { return r(i, o*accs+j) }
	term := func(o, t int, op string, off int, a string) {
		if t < accs {
			op = p.mul
		}
		g.ins("%s %d(AX), %s, %s", op, off, a, acc(o, t%accs))
	}
	g.ins("JZ   %snext", name)
	fmt.Fprintf(&g.asm, "\n%sloop:\n", name)
	func() {
		for run := range runs {
			g.ins("MOVQ %d(BX), R11", 8*run)
			g.ins("%s (DI)(R11*1), %s", p.mov, in(0))
			// P_f for every subset f of the low targets: flip one more
			// target of an already flipped register.
			for f := 1; f < flips; f++ {
				hi := 0
				for f>>(hi+1) != 0 {
					hi++
				}
				g.ins("%s", perm(p, i, lows[hi])(in(f&^(1<<hi)), in(f)))
			}
			for f := range flips {
				if !real {
					g.swap(p, in(f), sw(f))
				}
			}
			for o := range runs {
				for f := range flips {
					v := (o*runs+run)*flips + f
					if real {
						term(o, run*flips+f, p.fma, v*128, in(f))
						continue
					}
					t := 2 * (run*flips + f)
					term(o, t, p.fma, v*128, in(f))
					term(o, t+1, p.fma, v*128+64, sw(f))
				}
			}
		}
		add := map[prec]string{double: "VADDPD", single: "VADDPS"}[p]
		for o := range runs {
			for step := 1; step < accs; step *= 2 {
				for j := 0; j < accs; j += 2 * step {
					g.ins("%s %s, %s, %s", add, acc(o, j+step), acc(o, j), acc(o, j))
				}
			}
			g.ins("MOVQ %d(BX), R11", 8*o)
			g.ins("%s %s, (DI)(R11*1)", p.mov, acc(o, 0))
		}
		g.ins("ADDQ $%d, DI", i.bytes)
	}()
	g.endRuns(name)
}

// matRealAVX2 writes the AVX2 kernel of a real matrix on h high targets
// beside name: one FMA an entry where a complex one takes two and a swap.
func (g *gen) matRealAVX2(p prec, name string, h, runs int) {
	rname := name + "r"
	frame := 0
	if runs > 8 {
		frame = 512
	}
	g.fnFrame(rname, fmt.Sprintf("x *%s, offs *int, n, outer, stride int, m *%s", p.goType, p.coefType), frame, 48,
		fmt.Sprintf("%s is %s for a real matrix, m holding each entry over a whole register (32 bytes).", rname, name))
	g.matHead(p, avx2, rname)
	g.matSplit(p, rname, runs, true)
	fmt.Fprintf(g.table[p], "\t{simdAVX2, %d, \"\", true}: %s,\n", h, rname)
}

// matSplit is the body of an AVX2 mat kernel without low targets. Each
// output register sums, over the input runs, the input times its entry:
// a complex entry as a·R + swap(a)·I (64 bytes an entry, the ymm halves
// of posVectors' R and I: a 4-qubit matrix's 16 KiB stay in L1 beside the
// state), a real one as a·R (32 bytes an entry). Sixteen outputs do not
// fit the sixteen ymm registers with an input beside them: the kernel
// then copies the inputs onto the stack (512 bytes of frame), since the
// outputs overwrite them, and makes two sweeps over them there, eight
// outputs each.
func (g *gen) matSplit(p prec, name string, runs int, real bool) {
	in, sw := r(avx2, 8), r(avx2, 9)
	g.ins("JZ   %snext", name)
	fmt.Fprintf(&g.asm, "\n%sloop:\n", name)
	halves := max(1, runs/8)
	per := runs / halves
	if halves > 1 {
		// The inputs first onto the stack: sixteen runs at offsets
		// that are multiples of 4 KiB (targets from qubit 8 up in
		// double) share one set of the 8-way L1, and two sweeps over
		// them there would miss on every load.
		for run := range runs {
			g.ins("MOVQ %d(BX), R11", 8*run)
			g.ins("%s (DI)(R11*1), %s", p.mov, r(avx2, run%8))
			g.ins("%s %s, %d(SP)", p.mov, r(avx2, run%8), 32*run)
		}
	}
	for hf := range halves {
		for run := range runs {
			if halves > 1 {
				g.ins("%s %d(SP), %s", p.mov, 32*run, in)
			} else {
				g.ins("MOVQ %d(BX), R11", 8*run)
				g.ins("%s (DI)(R11*1), %s", p.mov, in)
			}
			if !real {
				g.swap(p, in, sw)
			}
			for o := hf * per; o < (hf+1)*per; o++ {
				acc := r(avx2, o-hf*per)
				v := o*runs + run
				if real {
					op := p.fma
					if run == 0 {
						op = p.mul
					}
					g.ins("%s %d(AX), %s, %s", op, 32*v, in, acc)
					continue
				}
				// 64 bytes an entry: R, then I (compactVectors).
				if run == 0 {
					g.ins("%s %d(AX), %s, %s", p.mul, 64*v, in, acc)
				} else {
					g.ins("%s %d(AX), %s, %s", p.fma, 64*v, in, acc)
				}
				g.ins("%s %d(AX), %s, %s", p.fma, 64*v+32, sw, acc)
			}
		}
		for j := range per {
			g.ins("MOVQ %d(BX), R11", 8*(hf*per+j))
			g.ins("%s %s, (DI)(R11*1)", p.mov, r(avx2, j))
		}
	}
	g.ins("ADDQ $%d, DI", avx2.bytes)
	g.endRuns(name)
}

// matHead loads a mat kernel's arguments and starts its outer loop.
func (g *gen) matHead(p prec, i isa, name string) {
	g.ins("MOVQ x+0(FP), DI")
	g.ins("MOVQ offs+8(FP), BX")
	g.ins("MOVQ outer+24(FP), R12")
	g.ins("MOVQ m+40(FP), AX")
	g.ins("TESTQ R12, R12")
	g.ins("JZ   %sdone", name)
	fmt.Fprintf(&g.asm, "\n%souter:\n", name)
	g.ins("MOVQ DI, R13")
	g.ins("MOVQ n+16(FP), CX")
	g.ins("SHRQ $%d, CX", p.shift(i))
}

// matBroadcast is the body of an AVX-512 mat kernel without low targets:
// a matrix entry is the same for every position, so the kernel reads it as
// two scalars (mr, mi) broadcast into the FMA, 16 or 8 bytes where a
// vector of coefficients is 128. Each input's swap is multiplied once by
// the signs (−1, +1, …) at the table's start, and each output sums the
// real and the imaginary products in two registers (while they fit),
// added at the end: half the length of the chains of dependent FMAs.
func (g *gen) matBroadcast(p prec, name string, runs int, real bool) {
	split := 2*runs+2 <= 32 && !real
	fs := p.ampBytes / 2 // bytes of a scalar
	acc := runs          // accumulator registers
	if split {
		acc = 2 * runs
	}
	in, sw := r(avx512, acc), r(avx512, acc+1)
	accR := func(o int) string { return r(avx512, o) }
	accI := func(o int) string {
		if split {
			return r(avx512, runs+o)
		}
		return accR(o)
	}
	mulB, fmaB := p.mul+".BCST", p.fma+".BCST"
	g.ins("JZ   %snext", name)
	fmt.Fprintf(&g.asm, "\n%sloop:\n", name)
	for run := range runs {
		g.ins("MOVQ %d(BX), R11", 8*run)
		g.ins("%s (DI)(R11*1), %s", p.mov, in)
		if real {
			for o := range runs {
				op := fmaB
				if run == 0 {
					op = mulB
				}
				g.ins("%s %d(AX), %s, %s", op, (o*runs+run)*fs, in, accR(o))
			}
			continue
		}
		g.swap(p, in, sw)
		g.ins("%s (AX), %s, %s", p.mul, sw, sw)
		for o := range runs {
			off := 64 + (o*runs+run)*2*fs
			if run == 0 {
				g.ins("%s %d(AX), %s, %s", mulB, off, in, accR(o))
			} else {
				g.ins("%s %d(AX), %s, %s", fmaB, off, in, accR(o))
			}
			if run == 0 && split {
				g.ins("%s %d(AX), %s, %s", mulB, off+fs, sw, accI(o))
			} else {
				g.ins("%s %d(AX), %s, %s", fmaB, off+fs, sw, accI(o))
			}
		}
	}
	add := map[prec]string{double: "VADDPD", single: "VADDPS"}[p]
	for o := range runs {
		if split {
			g.ins("%s %s, %s, %s", add, accI(o), accR(o), accR(o))
		}
		g.ins("MOVQ %d(BX), R11", 8*o)
		g.ins("%s %s, (DI)(R11*1)", p.mov, accR(o))
	}
	g.ins("ADDQ $%d, DI", avx512.bytes)
	g.endRuns(name)
}

// block writes the AVX-512 kernel of a matrix on high targets that
// falls apart into independent blocks (matkernels.go, blockPlan): the
// runs it reads, each output register a sum over the m inputs of its
// block only, m of R instead of all R. offs holds R offsets to read, in
// the blocks' order, then R to write, which may name the runs in another
// order (the block's rows are those of a permuted matrix): every input is
// read into a register before the first store. Entries are scalars
// broadcast into the FMAs, block by block, row by row; a complex matrix's
// table starts with the signs (−1, +1, …) over 64 bytes, as
// matBroadcast's.
func (g *gen) block(p prec, R, m int, real bool) {
	name := fmt.Sprintf("blk%sAVX512n%dm%d", p.suffix, R, m)
	doc := fmt.Sprintf("%s applies a matrix of %d independent %d×%d blocks to %d runs at offs from x (reads, then writes): n amplitudes from x, then from x+stride bytes, outer times.", name, R/m, m, m, R)
	if real {
		name += "r"
		doc = fmt.Sprintf("%s is %s for a real matrix, m holding one scalar an entry.", name, strings.TrimSuffix(name, "r"))
	}
	g.fn(name, fmt.Sprintf("x *%s, offs *int, n, outer, stride int, m *%s", p.goType, p.coefType), 48, doc)
	g.matHead(p, avx512, name)
	fs := p.ampBytes / 2 // bytes of a scalar
	in := func(c int) string { return r(avx512, c) }
	tmp := r(avx512, R)
	split := !real && R+1+2*m <= 32
	accR := func(j int) string { return r(avx512, R+1+j) }
	accI := func(j int) string {
		if split {
			return r(avx512, R+1+m+j)
		}
		return accR(j)
	}
	mulB, fmaB := p.mul+".BCST", p.fma+".BCST"
	add := map[prec]string{double: "VADDPD", single: "VADDPS"}[p]
	g.ins("JZ   %snext", name)
	fmt.Fprintf(&g.asm, "\n%sloop:\n", name)
	for c := range R {
		g.ins("MOVQ %d(BX), R11", 8*c)
		g.ins("%s (DI)(R11*1), %s", p.mov, in(c))
	}
	for b := range R / m {
		for c := range m {
			if !real {
				g.swap(p, in(b*m+c), tmp)
				g.ins("%s (AX), %s, %s", p.mul, tmp, tmp)
			}
			for j := range m {
				e := (b*m+j)*m + c
				if real {
					op := fmaB
					if c == 0 {
						op = mulB
					}
					g.ins("%s %d(AX), %s, %s", op, e*fs, in(b*m+c), accR(j))
					continue
				}
				off := 64 + 2*e*fs
				op := fmaB
				if c == 0 {
					op = mulB
				}
				g.ins("%s %d(AX), %s, %s", op, off, in(b*m+c), accR(j))
				if c == 0 && split {
					g.ins("%s %d(AX), %s, %s", mulB, off+fs, tmp, accI(j))
				} else {
					g.ins("%s %d(AX), %s, %s", fmaB, off+fs, tmp, accI(j))
				}
			}
		}
		for j := range m {
			if split {
				g.ins("%s %s, %s, %s", add, accI(j), accR(j), accR(j))
			}
			g.ins("MOVQ %d(BX), R11", 8*(R+b*m+j))
			g.ins("%s %s, (DI)(R11*1)", p.mov, accR(j))
		}
	}
	g.ins("ADDQ $%d, DI", avx512.bytes)
	g.endRuns(name)
	table := map[prec]*bytes.Buffer{double: &g.blk128, single: &g.blk64}[p]
	fmt.Fprintf(table, "\t{%d, %d, %v}: %s,\n", R, m, real, name)
}

func main() {
	dir := flag.String("dir", ".", "where to write the files")
	flag.Parse()
	g := gen{table: map[prec]*bytes.Buffer{double: {}, single: {}}}
	g.asm.WriteString("// Code generated by simdgen; DO NOT EDIT.\n\n//go:build !purego\n\n#include \"textflag.h\"\n")
	g.decl.WriteString("// Code generated by simdgen; DO NOT EDIT.\n\n//go:build !purego\n\npackage sim\n\n// The kernels of simd_amd64.s (see internal/simdgen). n counts\n// amplitudes, a multiple of what one loop step takes; m points at the\n// coefficients laid out by posVectors or seqVectors.\n")
	g.stub.WriteString("// Code generated by simdgen; DO NOT EDIT.\n\n//go:build purego || !amd64\n\npackage sim\n\n// Without assembly every loop is pure Go: bestSIMD is simdNone and these\n// are never called.\n\n")
	for _, p := range []prec{double, single} {
		for _, i := range []isa{avx2, avx512} {
			g.pairs(p, i)
			g.scale(p, i, false)
			g.scale(p, i, true)
			g.quad(p, i)
		}
	}
	// Dense matrices of 2 to 4 targets: h across runs, the low ones (up to
	// three, in a zmm of complex64) inside the register, as far as the
	// ISA's registers go.
	for _, p := range []prec{double, single} {
		for _, i := range []isa{avx2, avx512} {
			var lowSets [][]int
			for mask := range 8 {
				var ls []int
				ok := true
				for t := range 3 {
					if mask>>t&1 == 1 {
						ls = append(ls, t)
						ok = ok && perm(p, i, t) != nil
					}
				}
				if ok {
					lowSets = append(lowSets, ls)
				}
			}
			regs := map[isa]int{avx2: 16, avx512: 32}[i]
			for h := 0; h <= 4; h++ {
				for _, ls := range lowSets {
					k := h + len(ls)
					// AVX2 without low targets sweeps the inputs twice for
					// sixteen outputs (matSplit).
					split := i == avx2 && len(ls) == 0
					if k < 1 || k > 4 || 1<<h+2<<len(ls) > regs && !split {
						continue
					}
					g.mat(p, i, h, ls)
				}
			}
		}
	}
	// Matrices on high targets that fall apart into blocks: R runs read
	// (up to 16), blocks of m (the runs of 2 to 4 targets cut into
	// blocks of 2 to 8; a permutation with phases, m = 1, reads only the
	// runs it moves or scales).
	for _, p := range []prec{double, single} {
		for _, real := range []bool{false, true} {
			for R := 1; R <= 16; R++ {
				g.block(p, R, 1, real)
			}
			for R := 4; R <= 16; R *= 2 {
				for m := 2; m < R; m *= 2 {
					g.block(p, R, m, real)
				}
			}
		}
	}
	fmt.Fprintf(&g.decl, "\n// The mat kernels by level, number of high targets, low targets and\n// whether the matrix is real.\n\nvar mat128Kernels = map[matKey]func(*complex128, *int, int, int, int, *float64){\n%s}\n\nvar mat64Kernels = map[matKey]func(*complex64, *int, int, int, int, *float32){\n%s}\n", g.table[double], g.table[single])
	fmt.Fprintf(&g.decl, "\n// The block kernels (AVX-512) by runs read, block size and whether the\n// matrix is real.\n\nvar blk128Kernels = map[blkKey]func(*complex128, *int, int, int, int, *float64){\n%s}\n\nvar blk64Kernels = map[blkKey]func(*complex64, *int, int, int, int, *float32){\n%s}\n", &g.blk128, &g.blk64)
	g.stub.WriteString("\nvar (\n\tmat128Kernels map[matKey]func(*complex128, *int, int, int, int, *float64)\n\tmat64Kernels  map[matKey]func(*complex64, *int, int, int, int, *float32)\n\tblk128Kernels map[blkKey]func(*complex128, *int, int, int, int, *float64)\n\tblk64Kernels  map[blkKey]func(*complex64, *int, int, int, int, *float32)\n)\n")
	write := func(name string, b *bytes.Buffer) {
		out := []byte(strings.TrimRight(b.String(), "\n") + "\n")
		if strings.HasSuffix(name, ".go") {
			var err error
			if out, err = format.Source(out); err != nil {
				log.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(*dir, name), out, 0o644); err != nil {
			log.Fatal(err)
		}
	}
	write("simd_amd64.s", &g.asm)
	write("simd_kernels_amd64.go", &g.decl)
	write("simd_kernels_other.go", &g.stub)
}
