#include "textflag.h"

// ELEMENTWISE sets dst = a OP b for blocks of 32 bytes (eight float32 or
// four float64), a being the instruction's first source as in the scalar
// code, so that each lane rounds as the scalar operation does.
#define ELEMENTWISE(OP) \
	MOVQ dst+0(FP), DI; \
	MOVQ a+8(FP), SI; \
	MOVQ b+16(FP), DX; \
	MOVQ blocks+24(FP), CX; \
	XORQ BX, BX; \
	TESTQ CX, CX; \
	JZ done; \
loop: \
	VMOVUPS (SI)(BX*1), Y0; \
	OP (DX)(BX*1), Y0, Y0; \
	VMOVUPS Y0, (DI)(BX*1); \
	ADDQ $32, BX; \
	DECQ CX; \
	JNZ loop; \
done: \
	VZEROUPPER; \
	RET

// func addVecF32(dst, a, b *float32, blocks int)
TEXT ·addVecF32(SB), NOSPLIT, $0-32
	ELEMENTWISE(VADDPS)

// func subVecF32(dst, a, b *float32, blocks int)
TEXT ·subVecF32(SB), NOSPLIT, $0-32
	ELEMENTWISE(VSUBPS)

// func mulVecF32(dst, a, b *float32, blocks int)
TEXT ·mulVecF32(SB), NOSPLIT, $0-32
	ELEMENTWISE(VMULPS)

// func addVecF64(dst, a, b *float64, blocks int)
TEXT ·addVecF64(SB), NOSPLIT, $0-32
	ELEMENTWISE(VADDPD)

// func subVecF64(dst, a, b *float64, blocks int)
TEXT ·subVecF64(SB), NOSPLIT, $0-32
	ELEMENTWISE(VSUBPD)

// func mulVecF64(dst, a, b *float64, blocks int)
TEXT ·mulVecF64(SB), NOSPLIT, $0-32
	ELEMENTWISE(VMULPD)
