//go:build !amd64

package stablehlo

var haveAVX = false

func mulAdd4F32(dst, r0, r1, r2, r3 *float32, n int, a *[4]float32) {
	panic("stablehlo: mulAdd4F32 without AVX")
}

func runs4x16F32(wide *float64, ldw int, l *float32, ldl int, r *float32, ldr int, k int) {
	panic("stablehlo: runs4x16F32 without AVX")
}
