#include "textflag.h"

// func mulAdd4F32(dst, r0, r1, r2, r3 *float32, n int, a *[4]float32)
//
// For j < n rounded down to a multiple of 8:
// dst[j] = (((dst[j] + a[0]*r0[j]) + a[1]*r1[j]) + a[2]*r2[j]) + a[3]*r3[j],
// each product and sum rounded to float32 (no fused multiply-add), eight
// lanes at a time.
TEXT ·mulAdd4F32(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ r0+8(FP), SI
	MOVQ r1+16(FP), R8
	MOVQ r2+24(FP), R9
	MOVQ r3+32(FP), R10
	MOVQ n+40(FP), CX
	MOVQ a+48(FP), AX
	VBROADCASTSS 0(AX), Y0
	VBROADCASTSS 4(AX), Y1
	VBROADCASTSS 8(AX), Y2
	VBROADCASTSS 12(AX), Y3
	XORQ BX, BX
	SHRQ $3, CX
	JZ   done

loop:
	VMOVUPS (DI)(BX*1), Y4
	VMULPS  (SI)(BX*1), Y0, Y5
	VADDPS  Y5, Y4, Y4
	VMULPS  (R8)(BX*1), Y1, Y5
	VADDPS  Y5, Y4, Y4
	VMULPS  (R9)(BX*1), Y2, Y5
	VADDPS  Y5, Y4, Y4
	VMULPS  (R10)(BX*1), Y3, Y5
	VADDPS  Y5, Y4, Y4
	VMOVUPS Y4, (DI)(BX*1)
	ADDQ    $32, BX
	DECQ    CX
	JNZ     loop

done:
	VZEROUPPER
	RET

// func cpuHasAVX() bool
//
// CPUID leaf 1 says the processor has AVX (ECX bit 28) and the system
// saves the registers (OSXSAVE, bit 27); XCR0 says it saves the SSE and AVX
// state (bits 1 and 2).
TEXT ·cpuHasAVX(SB), NOSPLIT, $0-1
	MOVL $1, AX
	XORL CX, CX
	CPUID
	ANDL $0x18000000, CX
	CMPL CX, $0x18000000
	JNE  no
	XORL CX, CX
	XGETBV
	ANDL $6, AX
	CMPL AX, $6
	JNE  no
	MOVB $1, ret+0(FP)
	RET

no:
	MOVB $0, ret+0(FP)
	RET
