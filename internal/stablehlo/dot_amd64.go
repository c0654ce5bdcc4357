package stablehlo

// haveMulAdd4F32 says the processor runs mulAdd4F32 (AVX).
var haveMulAdd4F32 = cpuHasAVX()

// mulAdd4F32 adds a[0]*r0[j] + ... + a[3]*r3[j] to dst[j], in that order,
// for the first n &^ 7 elements (dot_amd64.s).
//
//go:noescape
func mulAdd4F32(dst, r0, r1, r2, r3 *float32, n int, a *[4]float32)

// cpuHasAVX reports whether the processor and the system support AVX.
func cpuHasAVX() bool
