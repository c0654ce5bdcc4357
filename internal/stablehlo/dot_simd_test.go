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
func TestMulAddRowsF32Exact(t *testing.T) { withAndWithoutVectors(func() { checkMulAddRowsF32(t) }) }

// withAndWithoutVectors runs check with the vector kernels the processor
// has, then with none.
func withAndWithoutVectors(check func()) {
	saved := haveAVX
	defer func() { haveAVX = saved }()
	for _, vector := range []bool{saved, false} {
		haveAVX = vector
		check()
	}
}

// awkwardFloats returns random float32s of several magnitudes, one in
// oneIn of them an infinity, a NaN, a subnormal, -0 or the largest float.
func awkwardFloats(seed uint64, oneIn int) func() float32 {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	special := []float32{float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()), 1e-40, float32(math.Copysign(0, -1)), math.MaxFloat32}
	return func() float32 {
		if rng.IntN(oneIn) == 0 {
			return special[rng.IntN(len(special))]
		}
		return float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3)))
	}
}

func checkMulAddRowsF32(t *testing.T) {
	t.Helper()
	value := awkwardFloats(1, 16)
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
				if !sameFloat32(dst[j], want[j]) {
					t.Fatalf("vector kernel %v, n=%d k=%d: element %d is %v (%#x), want %v (%#x)", haveAVX, n, k, j, dst[j], math.Float32bits(dst[j]), want[j], math.Float32bits(want[j]))
				}
			}
		}
	}
}

// TestMatmulF32Exact: the float32 product, four rows at a time in registers
// where the processor has AVX, gives every element the bits of its
// definition: runs of dotBlock products summed in float32 from zero, in k
// order, the runs added in float64. Shapes around the block sizes (4 rows
// of one batch, 16 columns, dotBlock products), with infinities, NaNs and
// subnormals among the values. It runs once with the vector kernels off.
func TestMatmulF32Exact(t *testing.T) { withAndWithoutVectors(func() { checkMatmulF32(t) }) }

func checkMatmulF32(t *testing.T) {
	t.Helper()
	value := awkwardFloats(3, 64)
	for _, s := range []struct{ B, M, N, K int }{
		{1, 4, 16, 1}, {1, 5, 16, 64}, {2, 3, 17, 65}, {3, 6, 33, 130}, {1, 9, 40, 7}, {2, 4, 8, 70}, {1, 1, 48, 200}, {1, 8, 16, 0}, {1, 0, 16, 4}, {2, 4, 0, 5}, {0, 4, 16, 8},
	} {
		l, r := make([]float32, s.B*s.M*s.K), make([]float32, s.B*s.K*s.N)
		for _, v := range [][]float32{l, r} {
			for i := range v {
				v[i] = value()
			}
		}
		got := make([]float32, s.B*s.M*s.N)
		matmulF32(got, l, r, s.B, s.M, s.N, s.K)
		for b := range s.B {
			for i := range s.M {
				for j := range s.N {
					total := 0.0
					for k0 := 0; k0 < s.K; k0 += dotBlock {
						var run float32
						for k := k0; k < min(s.K, k0+dotBlock); k++ {
							run = float32(run + float32(l[(b*s.M+i)*s.K+k]*r[(b*s.K+k)*s.N+j]))
						}
						total += float64(run)
					}
					want, g := float32(total), got[(b*s.M+i)*s.N+j]
					if !sameFloat32(g, want) {
						t.Fatalf("vector kernels %v, %+v: element [%d,%d,%d] is %v (%#x), want %v (%#x)", haveAVX, s, b, i, j, g, math.Float32bits(g), want, math.Float32bits(want))
					}
				}
			}
		}
	}
}

// sameFloat32 reports whether x and y have the same bits, or are both NaN.
func sameFloat32(x, y float32) bool {
	return math.Float32bits(x) == math.Float32bits(y) || x != x && y != y
}
