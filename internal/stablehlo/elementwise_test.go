package stablehlo

import (
	"math"
	"testing"
)

// TestElementwiseExact: add, subtract and multiply of float32 and float64
// arrays (AVX lanes where the processor has them, then without) give every
// element the bits of the scalar operation, with infinities, NaNs and
// subnormals among the values, for lengths around the lane counts and past
// one kernel call's chunk, and with the result written over an operand.
func TestElementwiseExact(t *testing.T) {
	withAndWithoutVectors(func() {
		next := awkwardFloats(7, 9)
		for _, n := range []int{0, 1, 3, 4, 7, 8, 9, 15, 16, 17, 33, vectorChunk + 13} {
			a32, b32 := make([]float32, n), make([]float32, n)
			a64, b64 := make([]float64, n), make([]float64, n)
			for i := range n {
				a32[i], b32[i] = next(), next()
				// float64 values that float32 cannot hold, and subnormals.
				a64[i], b64[i] = float64(a32[i])*(1+1e-12), float64(b32[i])*0x1p-1000
			}
			for _, kind := range []binaryKind{binAdd, binSub, binMul} {
				checkElementwise(t, kind, a32, b32)
				checkElementwise(t, kind, a64, b64)
			}
		}
	})
}

func checkElementwise[T float32 | float64](t *testing.T, kind binaryKind, a, b []T) {
	t.Helper()
	want := make([]T, len(a))
	for i := range a {
		switch kind {
		case binAdd:
			want[i] = a[i] + b[i]
		case binSub:
			want[i] = a[i] - b[i]
		default:
			want[i] = a[i] * b[i]
		}
	}
	got := make([]T, len(a))
	over := append([]T(nil), a...)
	if !binaryFloat(kind, got, a, b) || !binaryFloat(kind, over, over, b) {
		t.Fatalf("binaryFloat(%v) is not defined", kind)
	}
	for i := range want {
		for _, g := range []T{got[i], over[i]} {
			if math.Float64bits(float64(g)) != math.Float64bits(float64(want[i])) && !(g != g && want[i] != want[i]) {
				t.Fatalf("vectors %v, %T kind %v, n=%d: element %d is %v, want %v (%v, %v)", haveAVX, g, kind, len(a), i, g, want[i], a[i], b[i])
			}
		}
	}
}

// TestElementwiseNaNIndependentOfLength: with AVX, NaN op NaN carries the
// first operand's NaN in every element whatever the array's length, the
// partial last block included: a collective's fold and its fused pair
// (TestFoldPairMatchesFold) must give the same bits, and in scalar code the
// operand whose NaN survives depends on how the compiler ordered them.
func TestElementwiseNaNIndependentOfLength(t *testing.T) {
	if !haveAVX {
		t.Skip("the processor has no AVX: the scalar code runs")
	}
	first, second := math.Float32frombits(0x7fc00001), math.Float32frombits(0x7fc00002)
	for n := 0; n <= 20; n++ {
		a, b, dst := make([]float32, n), make([]float32, n), make([]float32, n)
		for i := range a {
			a[i], b[i] = first, second
		}
		for _, kind := range []binaryKind{binAdd, binSub, binMul} {
			binaryFloat(kind, dst, a, b)
			for i, x := range dst {
				if math.Float32bits(x) != 0x7fc00001 {
					t.Fatalf("kind %v, n=%d: element %d is %#x, want the first operand's NaN 0x7fc00001", kind, n, i, math.Float32bits(x))
				}
			}
		}
	}
}
