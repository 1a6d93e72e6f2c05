//go:build !purego

#include "textflag.h"

// func gatherQuads(x, t *complex128, lo, hi, n int)
//
// For each s from lo to hi by 4: Y2 holds the sums of configurations s
// and s+1, Y3 those of s+2 and s+3. Within the four, flipping the lowest
// two atoms swaps (s, s+1) and (s+2, s+3): Y2 = [x1+x2, x0+x3] and
// Y3 = [x3+x0, x2+x1]. Each further atom k adds x[s^2^k … +3].
TEXT ·gatherQuads(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), SI
	MOVQ t+8(FP), DI
	MOVQ lo+16(FP), AX
	MOVQ hi+24(FP), BX
	MOVQ n+32(FP), CX
	SUBQ $2, CX                 // the atoms past the first two

gatherQuadsLoop:
	CMPQ AX, BX
	JGE  gatherQuadsDone
	MOVQ AX, DX
	SHLQ $4, DX                 // s in bytes
	VMOVUPD (SI)(DX*1), Y0      // x[s], x[s+1]
	VMOVUPD 32(SI)(DX*1), Y1    // x[s+2], x[s+3]
	VPERMPD $0x4e, Y0, Y2       // x[s+1], x[s]
	VPERMPD $0x4e, Y1, Y3       // x[s+3], x[s+2]
	VADDPD  Y1, Y2, Y2
	VADDPD  Y0, Y3, Y3
	MOVQ $4, R9                 // 2^k, k = 2
	MOVQ CX, R8

gatherQuadsFlip:
	TESTQ R8, R8
	JZ    gatherQuadsStore
	MOVQ  AX, R10
	XORQ  R9, R10
	SHLQ  $4, R10               // s^2^k in bytes
	VADDPD (SI)(R10*1), Y2, Y2
	VADDPD 32(SI)(R10*1), Y3, Y3
	SHLQ  $1, R9
	DECQ  R8
	JMP   gatherQuadsFlip

gatherQuadsStore:
	VMOVUPD Y2, (DI)
	VMOVUPD Y3, 32(DI)
	ADDQ $64, DI
	ADDQ $4, AX
	JMP  gatherQuadsLoop

gatherQuadsDone:
	VZEROUPPER
	RET
