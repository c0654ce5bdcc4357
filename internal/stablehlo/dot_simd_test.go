package stablehlo

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestMulAddRowsF32Exact: the float32 row kernel (eight lanes at a time
// where the processor has AVX) gives every element the bits of the scalar
// order, each product and sum rounded to float32, for lengths around the
// lane count and with infinities, NaNs and subnormals among the values.
// It runs once with the vector kernel turned off.
func TestMulAddRowsF32Exact(t *testing.T) {
	for _, vector := range []bool{haveMulAdd4F32, false} {
		saved := haveMulAdd4F32
		haveMulAdd4F32 = vector
		checkMulAddRowsF32(t)
		haveMulAdd4F32 = saved
	}
}

func checkMulAddRowsF32(t *testing.T) {
	t.Helper()
	rng := rand.New(rand.NewPCG(1, 2))
	special := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-40, float32(math.Copysign(0, -1)), math.MaxFloat32}
	value := func() float32 {
		if rng.IntN(16) == 0 {
			return special[rng.IntN(len(special))]
		}
		return float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3)))
	}
	for _, n := range []int{0, 1, 7, 8, 9, 15, 16, 17, 31, 64, 100} {
		for k := range 10 {
			dst, a, r := make([]float32, n), make([]float32, k), make([]float32, k*n)
			for _, s := range [][]float32{dst, a, r} {
				for i := range s {
					s[i] = value()
				}
			}
			want := make([]float32, n)
			for j := range want {
				v := dst[j]
				for i := range k {
					v = float32(v + float32(a[i]*r[i*n+j]))
				}
				want[j] = v
			}
			mulAddRows(dst, a, r)
			for j := range want {
				if math.Float32bits(dst[j]) != math.Float32bits(want[j]) && !(want[j] != want[j] && dst[j] != dst[j]) {
					t.Fatalf("vector kernel %v, n=%d k=%d: element %d is %v (%#x), want %v (%#x)", haveMulAdd4F32, n, k, j, dst[j], math.Float32bits(dst[j]), want[j], math.Float32bits(want[j]))
				}
			}
		}
	}
}
