//go:build !purego

#include "textflag.h"

// Vector kernels for amd64: AVX2+FMA (ymm, 256 bits) and AVX-512F (zmm).
// A register holds 2 (ymm) or 4 (zmm) complex128, 4 or 8 complex64, as
// (re, im) pairs. A product m·a of a matrix entry m = (mr, mi) with the
// amplitudes a is a·R + swap(a)·I, where R = (mr, mr, …), I = (−mi, mi, …)
// and swap exchanges re and im within each pair: one permute, one multiply
// and one FMA per entry, or two FMAs when the product adds to a sum.
//
// Coefficients are laid out by simdCoefs (simd.go): entry e's R at byte
// e·128 and its I at e·128+64, 64 bytes each, so that a zmm load reads a
// whole vector and a ymm load its first half.
//
// n counts amplitudes and must be a multiple of the register's width; the
// Go side runs the rest.

// Swaps of re and im within every pair of a register.
#define SWAPD(src, dst) VPERMILPD $0x55, src, dst
#define SWAPS(src, dst) VPERMILPS $0xB1, src, dst

// acc = a·R_e + sw·I_e (MUL starts a sum, FMA adds to it). m is the
// coefficient base register, e the byte offset of the entry.
#define MULD(e, a, sw, acc) \
	VMULPD e(AX), a, acc \
	VFMADD231PD e+64(AX), sw, acc

#define FMAD(e, a, sw, acc) \
	VFMADD231PD e(AX), a, acc \
	VFMADD231PD e+64(AX), sw, acc

#define MULS(e, a, sw, acc) \
	VMULPS e(AX), a, acc \
	VFMADD231PS e+64(AX), sw, acc

#define FMAS(e, a, sw, acc) \
	VFMADD231PS e(AX), a, acc \
	VFMADD231PS e+64(AX), sw, acc

// 4×4 on four runs: x'_r = Σ_c m(4r+c)·x_c, for the quad kernels below.

#define QUAD(MOV, SWAP, MUL, FMA, A0, A1, A2, A3, S0, S1, S2, S3, O) \
	MOV  (DI), A0 \
	MOV  (SI), A1 \
	MOV  (R8), A2 \
	MOV  (R9), A3 \
	SWAP(A0, S0) \
	SWAP(A1, S1) \
	SWAP(A2, S2) \
	SWAP(A3, S3) \
	MUL(0, A0, S0, O) \
	FMA(128, A1, S1, O) \
	FMA(256, A2, S2, O) \
	FMA(384, A3, S3, O) \
	MOV  O, (DI) \
	MUL(512, A0, S0, O) \
	FMA(640, A1, S1, O) \
	FMA(768, A2, S2, O) \
	FMA(896, A3, S3, O) \
	MOV  O, (SI) \
	MUL(1024, A0, S0, O) \
	FMA(1152, A1, S1, O) \
	FMA(1280, A2, S2, O) \
	FMA(1408, A3, S3, O) \
	MOV  O, (R8) \
	MUL(1536, A0, S0, O) \
	FMA(1664, A1, S1, O) \
	FMA(1792, A2, S2, O) \
	FMA(1920, A3, S3, O) \
	MOV  O, (R9)

#define QUADARGS \
	MOVQ x0+0(FP), DI \
	MOVQ x1+8(FP), SI \
	MOVQ x2+16(FP), R8 \
	MOVQ x3+24(FP), R9 \
	MOVQ n+32(FP), CX \
	MOVQ m+40(FP), AX

#define ADVANCE(step) \
	ADDQ $step, DI \
	ADDQ $step, SI \
	ADDQ $step, R8 \
	ADDQ $step, R9

// 1-qubit gates on a low target, inside a register, for the low kernels
// at the end.
//
// When the target's stride is below a register's width, both amplitudes
// of a pair sit in one register. With P the register with each amplitude
// swapped for its partner (a shuffle that depends on the target), the gate
// is A⊙C1 + P⊙C2, where C1 holds m0 or m3 and C2 m1 or m2 by the target
// bit of each position: coefficients per position, laid out by lowCoefs
// as R1, I1, R2, I2 at bytes 0, 64, 128, 192.

// Shuffles that bring each amplitude's partner into its place, named by
// precision, register and target.
#define PD2T0(a, p) VPERM2F128 $0x01, a, a, p
#define PD5T0(a, p) VSHUFF64X2 $0xB1, a, a, p
#define PD5T1(a, p) VSHUFF64X2 $0x4E, a, a, p
#define PS2T0(a, p) VPERMILPD $0x05, a, p
#define PS2T1(a, p) VPERM2F128 $0x01, a, a, p
#define PS5T0(a, p) VPERMILPD $0x55, a, p
#define PS5T1(a, p) VSHUFF64X2 $0xB1, a, a, p
#define PS5T2(a, p) VSHUFF64X2 $0x4E, a, a, p

#define LOWSTEP(MOV, SWAP, MUL, FMA, PERM, A, S, P, Q, O, step) \
	MOV  (DI), A \
	PERM(A, P) \
	SWAP(A, S) \
	SWAP(P, Q) \
	MUL(0, A, S, O) \
	FMA(128, P, Q, O) \
	MOV  O, (DI) \
	ADDQ $step, DI

#define LOWARGS(shift) \
	MOVQ x+0(FP), DI \
	MOVQ n+8(FP), CX \
	MOVQ m+16(FP), AX \
	SHRQ $shift, CX

// A 2-qubit matrix on a low target (inside a register) and a high one
// (across the runs x and y): each output is a sum over x, P(x), y and P(y)
// with coefficients per position, laid out by newLowPairCoefs: x's four at
// bytes 0–384, y's at 512–896.
#define LOWPAIR(MOV, SWAP, MUL, FMA, PERM, A, B, PA, PB, SA, SB, SPA, SPB, O1, O2, step) \
	MOV  (DI), A \
	MOV  (SI), B \
	PERM(A, PA) \
	PERM(B, PB) \
	SWAP(A, SA) \
	SWAP(B, SB) \
	SWAP(PA, SPA) \
	SWAP(PB, SPB) \
	MUL(0, A, SA, O1) \
	FMA(128, PA, SPA, O1) \
	FMA(256, B, SB, O1) \
	FMA(384, PB, SPB, O1) \
	MUL(512, A, SA, O2) \
	FMA(640, PA, SPA, O2) \
	FMA(768, B, SB, O2) \
	FMA(896, PB, SPB, O2) \
	MOV  O1, (DI) \
	MOV  O2, (SI) \
	ADDQ $step, DI \
	ADDQ $step, SI

// A 2-qubit matrix on two targets inside a register: with PA and PB the
// register with each amplitude swapped for its partner across target a or
// b, and PAB across both, the gate is A⊙C0 + PA⊙C1 + PB⊙C2 + PAB⊙C3
// (newLowBothCoefs: vectors at bytes 0, 128, 256, 384).
#define LOWBOTH(MOV, SWAP, MUL, FMA, PERMA, PERMB, A, PA, PB, PAB, SA, SPA, SPB, SPAB, O, step) \
	MOV  (DI), A \
	PERMA(A, PA) \
	PERMB(A, PB) \
	PERMA(PB, PAB) \
	SWAP(A, SA) \
	SWAP(PA, SPA) \
	SWAP(PB, SPB) \
	SWAP(PAB, SPAB) \
	MUL(0, A, SA, O) \
	FMA(128, PA, SPA, O) \
	FMA(256, PB, SPB, O) \
	FMA(384, PAB, SPAB, O) \
	MOV  O, (DI) \
	ADDQ $step, DI

// ---- 2×2 on two runs: x' = m0·x + m1·y, y' = m2·x + m3·y ----

// func pairs128AVX2(x, y *complex128, n int, m *float64)
TEXT ·pairs128AVX2(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ m+24(FP), AX
	SHRQ $1, CX
	JZ   p128a2done

p128a2loop:
	VMOVUPD (DI), Y0
	VMOVUPD (SI), Y1
	SWAPD(Y0, Y2)
	SWAPD(Y1, Y3)
	MULD(0, Y0, Y2, Y4)
	FMAD(128, Y1, Y3, Y4)
	MULD(256, Y0, Y2, Y5)
	FMAD(384, Y1, Y3, Y5)
	VMOVUPD Y4, (DI)
	VMOVUPD Y5, (SI)
	ADDQ $32, DI
	ADDQ $32, SI
	DECQ CX
	JNZ  p128a2loop

p128a2done:
	VZEROUPPER
	RET

// func pairs128AVX512(x, y *complex128, n int, m *float64)
TEXT ·pairs128AVX512(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ m+24(FP), AX
	SHRQ $2, CX
	JZ   p128a5done

p128a5loop:
	VMOVUPD (DI), Z0
	VMOVUPD (SI), Z1
	SWAPD(Z0, Z2)
	SWAPD(Z1, Z3)
	MULD(0, Z0, Z2, Z4)
	FMAD(128, Z1, Z3, Z4)
	MULD(256, Z0, Z2, Z5)
	FMAD(384, Z1, Z3, Z5)
	VMOVUPD Z4, (DI)
	VMOVUPD Z5, (SI)
	ADDQ $64, DI
	ADDQ $64, SI
	DECQ CX
	JNZ  p128a5loop

p128a5done:
	VZEROUPPER
	RET

// func pairs64AVX2(x, y *complex64, n int, m *float32)
TEXT ·pairs64AVX2(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ m+24(FP), AX
	SHRQ $2, CX
	JZ   p64a2done

p64a2loop:
	VMOVUPS (DI), Y0
	VMOVUPS (SI), Y1
	SWAPS(Y0, Y2)
	SWAPS(Y1, Y3)
	MULS(0, Y0, Y2, Y4)
	FMAS(128, Y1, Y3, Y4)
	MULS(256, Y0, Y2, Y5)
	FMAS(384, Y1, Y3, Y5)
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, (SI)
	ADDQ $32, DI
	ADDQ $32, SI
	DECQ CX
	JNZ  p64a2loop

p64a2done:
	VZEROUPPER
	RET

// func pairs64AVX512(x, y *complex64, n int, m *float32)
TEXT ·pairs64AVX512(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ m+24(FP), AX
	SHRQ $3, CX
	JZ   p64a5done

p64a5loop:
	VMOVUPS (DI), Z0
	VMOVUPS (SI), Z1
	SWAPS(Z0, Z2)
	SWAPS(Z1, Z3)
	MULS(0, Z0, Z2, Z4)
	FMAS(128, Z1, Z3, Z4)
	MULS(256, Z0, Z2, Z5)
	FMAS(384, Z1, Z3, Z5)
	VMOVUPS Z4, (DI)
	VMOVUPS Z5, (SI)
	ADDQ $64, DI
	ADDQ $64, SI
	DECQ CX
	JNZ  p64a5loop

p64a5done:
	VZEROUPPER
	RET

// ---- one run times one entry: x' = m0·x ----

// func scale128AVX2(x *complex128, n int, m *float64)
TEXT ·scale128AVX2(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ m+16(FP), AX
	SHRQ $1, CX
	JZ   s128a2done

s128a2loop:
	VMOVUPD (DI), Y0
	SWAPD(Y0, Y2)
	MULD(0, Y0, Y2, Y4)
	VMOVUPD Y4, (DI)
	ADDQ $32, DI
	DECQ CX
	JNZ  s128a2loop

s128a2done:
	VZEROUPPER
	RET

// func scale128AVX512(x *complex128, n int, m *float64)
TEXT ·scale128AVX512(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ m+16(FP), AX
	SHRQ $2, CX
	JZ   s128a5done

s128a5loop:
	VMOVUPD (DI), Z0
	SWAPD(Z0, Z2)
	MULD(0, Z0, Z2, Z4)
	VMOVUPD Z4, (DI)
	ADDQ $64, DI
	DECQ CX
	JNZ  s128a5loop

s128a5done:
	VZEROUPPER
	RET

// func scale64AVX2(x *complex64, n int, m *float32)
TEXT ·scale64AVX2(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ m+16(FP), AX
	SHRQ $2, CX
	JZ   s64a2done

s64a2loop:
	VMOVUPS (DI), Y0
	SWAPS(Y0, Y2)
	MULS(0, Y0, Y2, Y4)
	VMOVUPS Y4, (DI)
	ADDQ $32, DI
	DECQ CX
	JNZ  s64a2loop

s64a2done:
	VZEROUPPER
	RET

// func scale64AVX512(x *complex64, n int, m *float32)
TEXT ·scale64AVX512(SB), NOSPLIT, $0-24
	MOVQ x+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ m+16(FP), AX
	SHRQ $3, CX
	JZ   s64a5done

s64a5loop:
	VMOVUPS (DI), Z0
	SWAPS(Z0, Z2)
	MULS(0, Z0, Z2, Z4)
	VMOVUPS Z4, (DI)
	ADDQ $64, DI
	DECQ CX
	JNZ  s64a5loop

s64a5done:
	VZEROUPPER
	RET

// ---- 4×4 on four runs ----

// func quad128AVX2(x0, x1, x2, x3 *complex128, n int, m *float64)
TEXT ·quad128AVX2(SB), NOSPLIT, $0-48
	QUADARGS
	SHRQ $1, CX
	JZ   q128a2done

q128a2loop:
	QUAD(VMOVUPD, SWAPD, MULD, FMAD, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8)
	ADVANCE(32)
	DECQ CX
	JNZ  q128a2loop

q128a2done:
	VZEROUPPER
	RET

// func quad128AVX512(x0, x1, x2, x3 *complex128, n int, m *float64)
TEXT ·quad128AVX512(SB), NOSPLIT, $0-48
	QUADARGS
	SHRQ $2, CX
	JZ   q128a5done

q128a5loop:
	QUAD(VMOVUPD, SWAPD, MULD, FMAD, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8)
	ADVANCE(64)
	DECQ CX
	JNZ  q128a5loop

q128a5done:
	VZEROUPPER
	RET

// func quad64AVX2(x0, x1, x2, x3 *complex64, n int, m *float32)
TEXT ·quad64AVX2(SB), NOSPLIT, $0-48
	QUADARGS
	SHRQ $2, CX
	JZ   q64a2done

q64a2loop:
	QUAD(VMOVUPS, SWAPS, MULS, FMAS, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8)
	ADVANCE(32)
	DECQ CX
	JNZ  q64a2loop

q64a2done:
	VZEROUPPER
	RET

// func quad64AVX512(x0, x1, x2, x3 *complex64, n int, m *float32)
TEXT ·quad64AVX512(SB), NOSPLIT, $0-48
	QUADARGS
	SHRQ $3, CX
	JZ   q64a5done

q64a5loop:
	QUAD(VMOVUPS, SWAPS, MULS, FMAS, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8)
	ADVANCE(64)
	DECQ CX
	JNZ  q64a5loop

q64a5done:
	VZEROUPPER
	RET

// ---- 1-qubit gates on a low target (macros at the top) ----

// func low128AVX2t0(x *complex128, n int, m *float64)
TEXT ·low128AVX2t0(SB), NOSPLIT, $0-24
	LOWARGS(1)
	JZ   low128AVX2t0done

low128AVX2t0loop:
	LOWSTEP(VMOVUPD, SWAPD, MULD, FMAD, PD2T0, Y0, Y1, Y2, Y3, Y4, 32)
	DECQ CX
	JNZ  low128AVX2t0loop

low128AVX2t0done:
	VZEROUPPER
	RET

// func low128AVX512t0(x *complex128, n int, m *float64)
TEXT ·low128AVX512t0(SB), NOSPLIT, $0-24
	LOWARGS(2)
	JZ   low128AVX512t0done

low128AVX512t0loop:
	LOWSTEP(VMOVUPD, SWAPD, MULD, FMAD, PD5T0, Z0, Z1, Z2, Z3, Z4, 64)
	DECQ CX
	JNZ  low128AVX512t0loop

low128AVX512t0done:
	VZEROUPPER
	RET

// func low128AVX512t1(x *complex128, n int, m *float64)
TEXT ·low128AVX512t1(SB), NOSPLIT, $0-24
	LOWARGS(2)
	JZ   low128AVX512t1done

low128AVX512t1loop:
	LOWSTEP(VMOVUPD, SWAPD, MULD, FMAD, PD5T1, Z0, Z1, Z2, Z3, Z4, 64)
	DECQ CX
	JNZ  low128AVX512t1loop

low128AVX512t1done:
	VZEROUPPER
	RET

// func low64AVX2t0(x *complex64, n int, m *float32)
TEXT ·low64AVX2t0(SB), NOSPLIT, $0-24
	LOWARGS(2)
	JZ   low64AVX2t0done

low64AVX2t0loop:
	LOWSTEP(VMOVUPS, SWAPS, MULS, FMAS, PS2T0, Y0, Y1, Y2, Y3, Y4, 32)
	DECQ CX
	JNZ  low64AVX2t0loop

low64AVX2t0done:
	VZEROUPPER
	RET

// func low64AVX2t1(x *complex64, n int, m *float32)
TEXT ·low64AVX2t1(SB), NOSPLIT, $0-24
	LOWARGS(2)
	JZ   low64AVX2t1done

low64AVX2t1loop:
	LOWSTEP(VMOVUPS, SWAPS, MULS, FMAS, PS2T1, Y0, Y1, Y2, Y3, Y4, 32)
	DECQ CX
	JNZ  low64AVX2t1loop

low64AVX2t1done:
	VZEROUPPER
	RET

// func low64AVX512t0(x *complex64, n int, m *float32)
TEXT ·low64AVX512t0(SB), NOSPLIT, $0-24
	LOWARGS(3)
	JZ   low64AVX512t0done

low64AVX512t0loop:
	LOWSTEP(VMOVUPS, SWAPS, MULS, FMAS, PS5T0, Z0, Z1, Z2, Z3, Z4, 64)
	DECQ CX
	JNZ  low64AVX512t0loop

low64AVX512t0done:
	VZEROUPPER
	RET

// func low64AVX512t1(x *complex64, n int, m *float32)
TEXT ·low64AVX512t1(SB), NOSPLIT, $0-24
	LOWARGS(3)
	JZ   low64AVX512t1done

low64AVX512t1loop:
	LOWSTEP(VMOVUPS, SWAPS, MULS, FMAS, PS5T1, Z0, Z1, Z2, Z3, Z4, 64)
	DECQ CX
	JNZ  low64AVX512t1loop

low64AVX512t1done:
	VZEROUPPER
	RET

// func low64AVX512t2(x *complex64, n int, m *float32)
TEXT ·low64AVX512t2(SB), NOSPLIT, $0-24
	LOWARGS(3)
	JZ   low64AVX512t2done

low64AVX512t2loop:
	LOWSTEP(VMOVUPS, SWAPS, MULS, FMAS, PS5T2, Z0, Z1, Z2, Z3, Z4, 64)
	DECQ CX
	JNZ  low64AVX512t2loop

low64AVX512t2done:
	VZEROUPPER
	RET

// ---- 2-qubit matrices with one target inside a register ----

// func lowPair128AVX2t0(x, y *complex128, n int, m *float64)
TEXT ·lowPair128AVX2t0(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ m+24(FP), AX
	SHRQ $1, CX
	JZ   lowPair128AVX2t0done

lowPair128AVX2t0loop:
	LOWPAIR(VMOVUPD, SWAPD, MULD, FMAD, PD2T0, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, 32)
	DECQ CX
	JNZ  lowPair128AVX2t0loop

lowPair128AVX2t0done:
	VZEROUPPER
	RET

// func lowPair128AVX512t0(x, y *complex128, n int, m *float64)
TEXT ·lowPair128AVX512t0(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ m+24(FP), AX
	SHRQ $2, CX
	JZ   lowPair128AVX512t0done

lowPair128AVX512t0loop:
	LOWPAIR(VMOVUPD, SWAPD, MULD, FMAD, PD5T0, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, 64)
	DECQ CX
	JNZ  lowPair128AVX512t0loop

lowPair128AVX512t0done:
	VZEROUPPER
	RET

// func lowPair128AVX512t1(x, y *complex128, n int, m *float64)
TEXT ·lowPair128AVX512t1(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ m+24(FP), AX
	SHRQ $2, CX
	JZ   lowPair128AVX512t1done

lowPair128AVX512t1loop:
	LOWPAIR(VMOVUPD, SWAPD, MULD, FMAD, PD5T1, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, 64)
	DECQ CX
	JNZ  lowPair128AVX512t1loop

lowPair128AVX512t1done:
	VZEROUPPER
	RET

// func lowPair64AVX2t0(x, y *complex64, n int, m *float32)
TEXT ·lowPair64AVX2t0(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ m+24(FP), AX
	SHRQ $2, CX
	JZ   lowPair64AVX2t0done

lowPair64AVX2t0loop:
	LOWPAIR(VMOVUPS, SWAPS, MULS, FMAS, PS2T0, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, 32)
	DECQ CX
	JNZ  lowPair64AVX2t0loop

lowPair64AVX2t0done:
	VZEROUPPER
	RET

// func lowPair64AVX2t1(x, y *complex64, n int, m *float32)
TEXT ·lowPair64AVX2t1(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ m+24(FP), AX
	SHRQ $2, CX
	JZ   lowPair64AVX2t1done

lowPair64AVX2t1loop:
	LOWPAIR(VMOVUPS, SWAPS, MULS, FMAS, PS2T1, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, Y9, 32)
	DECQ CX
	JNZ  lowPair64AVX2t1loop

lowPair64AVX2t1done:
	VZEROUPPER
	RET

// func lowPair64AVX512t0(x, y *complex64, n int, m *float32)
TEXT ·lowPair64AVX512t0(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ m+24(FP), AX
	SHRQ $3, CX
	JZ   lowPair64AVX512t0done

lowPair64AVX512t0loop:
	LOWPAIR(VMOVUPS, SWAPS, MULS, FMAS, PS5T0, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, 64)
	DECQ CX
	JNZ  lowPair64AVX512t0loop

lowPair64AVX512t0done:
	VZEROUPPER
	RET

// func lowPair64AVX512t1(x, y *complex64, n int, m *float32)
TEXT ·lowPair64AVX512t1(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ m+24(FP), AX
	SHRQ $3, CX
	JZ   lowPair64AVX512t1done

lowPair64AVX512t1loop:
	LOWPAIR(VMOVUPS, SWAPS, MULS, FMAS, PS5T1, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, 64)
	DECQ CX
	JNZ  lowPair64AVX512t1loop

lowPair64AVX512t1done:
	VZEROUPPER
	RET

// func lowPair64AVX512t2(x, y *complex64, n int, m *float32)
TEXT ·lowPair64AVX512t2(SB), NOSPLIT, $0-32
	MOVQ x+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ m+24(FP), AX
	SHRQ $3, CX
	JZ   lowPair64AVX512t2done

lowPair64AVX512t2loop:
	LOWPAIR(VMOVUPS, SWAPS, MULS, FMAS, PS5T2, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, Z9, 64)
	DECQ CX
	JNZ  lowPair64AVX512t2loop

lowPair64AVX512t2done:
	VZEROUPPER
	RET

// ---- 2-qubit matrices with both targets inside a register ----

// func lowBoth128AVX512t01(x *complex128, n int, m *float64)
TEXT ·lowBoth128AVX512t01(SB), NOSPLIT, $0-24
	LOWARGS(2)
	JZ   lowBoth128AVX512t01done

lowBoth128AVX512t01loop:
	LOWBOTH(VMOVUPD, SWAPD, MULD, FMAD, PD5T0, PD5T1, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, 64)
	DECQ CX
	JNZ  lowBoth128AVX512t01loop

lowBoth128AVX512t01done:
	VZEROUPPER
	RET

// func lowBoth64AVX2t01(x *complex64, n int, m *float32)
TEXT ·lowBoth64AVX2t01(SB), NOSPLIT, $0-24
	LOWARGS(2)
	JZ   lowBoth64AVX2t01done

lowBoth64AVX2t01loop:
	LOWBOTH(VMOVUPS, SWAPS, MULS, FMAS, PS2T0, PS2T1, Y0, Y1, Y2, Y3, Y4, Y5, Y6, Y7, Y8, 32)
	DECQ CX
	JNZ  lowBoth64AVX2t01loop

lowBoth64AVX2t01done:
	VZEROUPPER
	RET

// func lowBoth64AVX512t01(x *complex64, n int, m *float32)
TEXT ·lowBoth64AVX512t01(SB), NOSPLIT, $0-24
	LOWARGS(3)
	JZ   lowBoth64AVX512t01done

lowBoth64AVX512t01loop:
	LOWBOTH(VMOVUPS, SWAPS, MULS, FMAS, PS5T0, PS5T1, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, 64)
	DECQ CX
	JNZ  lowBoth64AVX512t01loop

lowBoth64AVX512t01done:
	VZEROUPPER
	RET

// func lowBoth64AVX512t02(x *complex64, n int, m *float32)
TEXT ·lowBoth64AVX512t02(SB), NOSPLIT, $0-24
	LOWARGS(3)
	JZ   lowBoth64AVX512t02done

lowBoth64AVX512t02loop:
	LOWBOTH(VMOVUPS, SWAPS, MULS, FMAS, PS5T0, PS5T2, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, 64)
	DECQ CX
	JNZ  lowBoth64AVX512t02loop

lowBoth64AVX512t02done:
	VZEROUPPER
	RET

// func lowBoth64AVX512t12(x *complex64, n int, m *float32)
TEXT ·lowBoth64AVX512t12(SB), NOSPLIT, $0-24
	LOWARGS(3)
	JZ   lowBoth64AVX512t12done

lowBoth64AVX512t12loop:
	LOWBOTH(VMOVUPS, SWAPS, MULS, FMAS, PS5T1, PS5T2, Z0, Z1, Z2, Z3, Z4, Z5, Z6, Z7, Z8, 64)
	DECQ CX
	JNZ  lowBoth64AVX512t12loop

lowBoth64AVX512t12done:
	VZEROUPPER
	RET

// ---- amplitudes times coefficients of their own (a diagonal's pattern) ----
//
// x[i] ·= c[i] for n amplitudes, c laid out by posVectors: 128 bytes per 4
// complex128 or 8 complex64, R then I. A ymm takes half a chunk, so the
// AVX2 loops do two registers per chunk; n is a multiple of a chunk.

// func mulSeq128AVX2(x *complex128, n int, m *float64)
TEXT ·mulSeq128AVX2(SB), NOSPLIT, $0-24
	LOWARGS(2)
	JZ   ms128a2done

ms128a2loop:
	VMOVUPD (DI), Y0
	VMOVUPD 32(DI), Y1
	SWAPD(Y0, Y2)
	SWAPD(Y1, Y3)
	VMULPD  (AX), Y0, Y4
	VFMADD231PD 64(AX), Y2, Y4
	VMULPD  32(AX), Y1, Y5
	VFMADD231PD 96(AX), Y3, Y5
	VMOVUPD Y4, (DI)
	VMOVUPD Y5, 32(DI)
	ADDQ $64, DI
	ADDQ $128, AX
	DECQ CX
	JNZ  ms128a2loop

ms128a2done:
	VZEROUPPER
	RET

// func mulSeq128AVX512(x *complex128, n int, m *float64)
TEXT ·mulSeq128AVX512(SB), NOSPLIT, $0-24
	LOWARGS(2)
	JZ   ms128a5done

ms128a5loop:
	VMOVUPD (DI), Z0
	SWAPD(Z0, Z2)
	MULD(0, Z0, Z2, Z4)
	VMOVUPD Z4, (DI)
	ADDQ $64, DI
	ADDQ $128, AX
	DECQ CX
	JNZ  ms128a5loop

ms128a5done:
	VZEROUPPER
	RET

// func mulSeq64AVX2(x *complex64, n int, m *float32)
TEXT ·mulSeq64AVX2(SB), NOSPLIT, $0-24
	LOWARGS(3)
	JZ   ms64a2done

ms64a2loop:
	VMOVUPS (DI), Y0
	VMOVUPS 32(DI), Y1
	SWAPS(Y0, Y2)
	SWAPS(Y1, Y3)
	VMULPS  (AX), Y0, Y4
	VFMADD231PS 64(AX), Y2, Y4
	VMULPS  32(AX), Y1, Y5
	VFMADD231PS 96(AX), Y3, Y5
	VMOVUPS Y4, (DI)
	VMOVUPS Y5, 32(DI)
	ADDQ $64, DI
	ADDQ $128, AX
	DECQ CX
	JNZ  ms64a2loop

ms64a2done:
	VZEROUPPER
	RET

// func mulSeq64AVX512(x *complex64, n int, m *float32)
TEXT ·mulSeq64AVX512(SB), NOSPLIT, $0-24
	LOWARGS(3)
	JZ   ms64a5done

ms64a5loop:
	VMOVUPS (DI), Z0
	SWAPS(Z0, Z2)
	MULS(0, Z0, Z2, Z4)
	VMOVUPS Z4, (DI)
	ADDQ $64, DI
	ADDQ $128, AX
	DECQ CX
	JNZ  ms64a5loop

ms64a5done:
	VZEROUPPER
	RET
