//go:build !amd64

package stablehlo

var haveMulAdd4F32 = false

func mulAdd4F32(dst, r0, r1, r2, r3 *float32, n int, a *[4]float32) {
	panic("stablehlo: mulAdd4F32 without AVX")
}
