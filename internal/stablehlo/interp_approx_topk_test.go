package stablehlo

import (
	"slices"
	"testing"
)

// TestApproxTopK runs the ApproxTopK custom calls JAX emits for
// lax.approx_max_k along the last dimension and approx_min_k along the
// first, with a tie, and checks them against chlo.top_k of the same values
// (negated and transposed for the minimum).
func TestApproxTopK(t *testing.T) {
	m := mustParse(t, `func.func @gt(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>) -> tensor<i1> {
  %0 = stablehlo.compare GT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
  stablehlo.return %0 : tensor<i1>
}
func.func @lt(%a: tensor<f32>, %b: tensor<f32>, %c: tensor<i32>, %d: tensor<i32>) -> tensor<i1> {
  %0 = stablehlo.compare LT, %a, %b : (tensor<f32>, tensor<f32>) -> tensor<i1>
  stablehlo.return %0 : tensor<i1>
}
func.func public @main(%x: tensor<3x6xf32>) -> (tensor<3x2xf32>, tensor<3x2xi32>, tensor<3x2xf32>, tensor<3x2xi32>, tensor<2x6xf32>, tensor<2x6xi32>, tensor<6x2xf32>, tensor<6x2xi32>) {
  %i1 = stablehlo.iota dim = 1 : tensor<3x6xi32>
  %i0 = stablehlo.iota dim = 0 : tensor<3x6xi32>
  %c = stablehlo.constant dense<-1> : tensor<i32>
  %lo = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %hi = stablehlo.constant dense<0x7F800000> : tensor<f32>
  %max:2 = stablehlo.custom_call @ApproxTopK(%x, %i1, %lo, %c) {backend_config = "", called_computations = [@gt], mhlo.backend_config = {aggregate_to_topk = true, is_fallback = true, recall_target = 0.949999988 : f32, reduction_dim = 1 : i64, reduction_input_size_override = -1 : i64, top_k = 2 : i64}} : (tensor<3x6xf32>, tensor<3x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<3x2xf32>, tensor<3x2xi32>)
  %tv, %ti = chlo.top_k(%x, k = 2) : tensor<3x6xf32> -> (tensor<3x2xf32>, tensor<3x2xi32>)
  %min:2 = stablehlo.custom_call @ApproxTopK(%x, %i0, %hi, %c) {backend_config = "", called_computations = [@lt], mhlo.backend_config = {aggregate_to_topk = true, is_fallback = true, recall_target = 0.949999988 : f32, reduction_dim = 0 : i64, reduction_input_size_override = -1 : i64, top_k = 2 : i64}} : (tensor<3x6xf32>, tensor<3x6xi32>, tensor<f32>, tensor<i32>) -> (tensor<2x6xf32>, tensor<2x6xi32>)
  %n = stablehlo.negate %x : tensor<3x6xf32>
  %t = stablehlo.transpose %n, dims = [1, 0] : (tensor<3x6xf32>) -> tensor<6x3xf32>
  %mv, %mi = chlo.top_k(%t, k = 2) : tensor<6x3xf32> -> (tensor<6x2xf32>, tensor<6x2xi32>)
  return %max#0, %max#1, %tv, %ti, %min#0, %min#1, %mv, %mi : tensor<3x2xf32>, tensor<3x2xi32>, tensor<3x2xf32>, tensor<3x2xi32>, tensor<2x6xf32>, tensor<2x6xi32>, tensor<6x2xf32>, tensor<6x2xi32>
}`)
	x := literal(t, "tensor<3x6xf32>", "[[0.5, 3.0, -1.0, 3.0, 2.0, 0.0], [9.0, -2.0, 4.0, 1.0, 8.0, 7.0], [-5.0, 6.0, 6.5, -3.0, 0.25, 1.5]]")
	out, err := runMain(t, m, x)
	if err != nil {
		t.Fatal(err)
	}
	dec := func(i int) *array { return decodeTensor(out[i]) }
	if !slices.Equal(dec(0).f32, dec(2).f32) || !slices.Equal(dec(1).i, dec(3).i) {
		t.Errorf("approx_max_k = %v %v, top_k = %v %v", dec(0).f32, dec(1).i, dec(2).f32, dec(3).i)
	}
	if got := dec(1).i[:2]; !slices.Equal(got, []int64{1, 3}) {
		t.Errorf("a tie: indices %v, want [1 3] (the lower index first)", got)
	}
	minV, minI, refV, refI := dec(4), dec(5), dec(6), dec(7)
	for c := range 6 {
		for r := range 2 {
			if minV.f32[r*6+c] != -refV.f32[c*2+r] || minI.i[r*6+c] != refI.i[c*2+r] {
				t.Fatalf("approx_min_k along dimension 0: values %v indices %v, want the transpose of %v %v negated", minV.f32, minI.i, refV.f32, refI.i)
			}
		}
	}
}
