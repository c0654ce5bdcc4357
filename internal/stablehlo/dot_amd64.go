package stablehlo

// haveAVX says the processor runs the AVX kernels: mulAdd4F32,
// runs4x16F32 and the elementwise ones (elementwise_amd64.go).
var haveAVX = cpuHasAVX()

// mulAdd4F32 adds a[0]*r0[j] + ... + a[3]*r3[j] to dst[j], in that order,
// for the first n &^ 7 elements (dot_amd64.s).
//
//go:noescape
func mulAdd4F32(dst, r0, r1, r2, r3 *float32, n int, a *[4]float32)

// runs4x16F32 adds to the 4×16 block at wide (rows ldw apart) the products
// of the 4 rows of l (ldl apart) with k rows of r (ldr apart), as
// matmulF32 sums them: each run of dotBlock products summed in float32,
// from zero in order, each product and sum rounded, then added in float64
// (dot_amd64.s).
//
//go:noescape
func runs4x16F32(wide *float64, ldw int, l *float32, ldl int, r *float32, ldr int, k int)

// cpuHasAVX reports whether the processor and the system support AVX.
func cpuHasAVX() bool

// runs4x16F32 sums runs of 64 products, as matmulF32 does: dotBlock must be
// 64 (these fail to compile otherwise).
const (
	_ uint = dotBlock - 64
	_ uint = 64 - dotBlock
)
