package stablehlo

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCost counts a program by hand: a 4x8 by 8x16 dot (2·64·8 flops), a
// bias add (64), an exp (64 transcendentals), a sum over the rows (64), a
// called function doubling its argument (64), and a case whose costlier
// branch (a 64-element multiply) counts; bytes are every op's operands and
// results, f32.
func TestCost(t *testing.T) {
	m := mustParse(t, `func.func @main(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %p: tensor<i32>) -> tensor<16xf32> {
  %d = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<4x8xf32>, tensor<8x16xf32>) -> tensor<4x16xf32>
  %s = stablehlo.add %d, %d : tensor<4x16xf32>
  %e = stablehlo.exponential %s : tensor<4x16xf32>
  %c = func.call @twice(%e) : (tensor<4x16xf32>) -> tensor<4x16xf32>
  %k = "stablehlo.case"(%p) ({
    %m = stablehlo.multiply %c, %c : tensor<4x16xf32>
    stablehlo.return %m : tensor<4x16xf32>
  }, {
    stablehlo.return %c : tensor<4x16xf32>
  }) : (tensor<i32>) -> tensor<4x16xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%k init: %z) applies stablehlo.add across dimensions = [0] : (tensor<4x16xf32>, tensor<f32>) -> tensor<16xf32>
  return %r : tensor<16xf32>
}
func.func private @twice(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %y = stablehlo.add %x, %x : tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}`)
	const v = 64 * 4 // bytes of a 4x16 f32
	want := Cost{
		Flops:           2*64*8 + 64 + 64 + 64 + 64,
		Transcendentals: 64,
		// dot, add, exp, the add of the call (inlined, as XLA inlines
		// calls), the case (predicate, result, and the multiply inside),
		// the reduce.
		BytesAccessed: (32*4 + 128*4 + v) + 3*v + 2*v + 3*v + (4 + v + 3*v) + (v + 4 + 16*4),
	}
	if got := m.Cost(); !cmp.Equal(got, want) {
		t.Errorf("Cost() = %+v, want %+v", got, want)
	}
}
