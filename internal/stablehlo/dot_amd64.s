#include "textflag.h"

// ADDRUN adds the eight float32 sums in y, widened to float64, to the eight
// float64 at off(R13).
#define ADDRUN(y, x, off) \
	VCVTPS2PD    x, Y8; \
	VADDPD       off(R13), Y8, Y8; \
	VMOVUPD      Y8, off(R13); \
	VEXTRACTF128 $1, y, X9; \
	VCVTPS2PD    X9, Y9; \
	VADDPD       off+32(R13), Y9, Y9; \
	VMOVUPD      Y9, off+32(R13)

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

// func runs4x16F32(wide *float64, ldw int, l *float32, ldl int, r *float32, ldr int, k int)
//
// For i < 4 and j < 16, each run of 64 terms l[i*ldl+kk]*r[kk*ldr+j]
// (fewer in the last) is summed from zero in kk order, each product and
// sum rounded to float32 (no fused multiply-add), and the run's sum is
// added to wide[i*ldw+j] in float64: the 64 float32 sums stay in eight
// registers while a run lasts.
TEXT ·runs4x16F32(SB), NOSPLIT, $0-56
	MOVQ wide+0(FP), DI
	MOVQ ldw+8(FP), BX
	SHLQ $3, BX
	MOVQ l+16(FP), SI
	MOVQ ldl+24(FP), AX
	SHLQ $2, AX
	LEAQ (SI)(AX*1), R8
	LEAQ (R8)(AX*1), R9
	LEAQ (R9)(AX*1), R10
	MOVQ r+32(FP), DX
	MOVQ ldr+40(FP), R11
	SHLQ $2, R11
	MOVQ k+48(FP), CX

run:
	TESTQ  CX, CX
	JZ     done
	MOVQ   $64, R12
	CMPQ   CX, R12
	CMOVQLT CX, R12
	SUBQ   R12, CX
	VXORPS Y0, Y0, Y0
	VXORPS Y1, Y1, Y1
	VXORPS Y2, Y2, Y2
	VXORPS Y3, Y3, Y3
	VXORPS Y4, Y4, Y4
	VXORPS Y5, Y5, Y5
	VXORPS Y6, Y6, Y6
	VXORPS Y7, Y7, Y7

term:
	VMOVUPS      (DX), Y8
	VMOVUPS      32(DX), Y9
	VBROADCASTSS (SI), Y10
	VMULPS       Y8, Y10, Y11
	VADDPS       Y11, Y0, Y0
	VMULPS       Y9, Y10, Y12
	VADDPS       Y12, Y1, Y1
	VBROADCASTSS (R8), Y13
	VMULPS       Y8, Y13, Y14
	VADDPS       Y14, Y2, Y2
	VMULPS       Y9, Y13, Y15
	VADDPS       Y15, Y3, Y3
	VBROADCASTSS (R9), Y10
	VMULPS       Y8, Y10, Y11
	VADDPS       Y11, Y4, Y4
	VMULPS       Y9, Y10, Y12
	VADDPS       Y12, Y5, Y5
	VBROADCASTSS (R10), Y13
	VMULPS       Y8, Y13, Y14
	VADDPS       Y14, Y6, Y6
	VMULPS       Y9, Y13, Y15
	VADDPS       Y15, Y7, Y7
	ADDQ         $4, SI
	ADDQ         $4, R8
	ADDQ         $4, R9
	ADDQ         $4, R10
	ADDQ         R11, DX
	DECQ         R12
	JNZ          term

	// wide[i][0:16] += float64(sums of row i), eight lanes as two halves each.
	MOVQ DI, R13
	ADDRUN(Y0, X0, 0)
	ADDRUN(Y1, X1, 64)
	ADDQ BX, R13
	ADDRUN(Y2, X2, 0)
	ADDRUN(Y3, X3, 64)
	ADDQ BX, R13
	ADDRUN(Y4, X4, 0)
	ADDRUN(Y5, X5, 64)
	ADDQ BX, R13
	ADDRUN(Y6, X6, 0)
	ADDRUN(Y7, X7, 64)
	JMP  run

done:
	VZEROUPPER
	RET
