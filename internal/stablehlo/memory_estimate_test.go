package stablehlo

import "testing"

// TestTempBytes counts by hand what programs hold at once besides their
// arguments and results.
func TestTempBytes(t *testing.T) {
	for _, c := range []struct {
		name, program string
		want          int64
	}{{
		// The transpose (4 KiB) is live while the dot makes its 256 KiB; the
		// reduce's result is the program's.
		name: "straight line",
		program: `func.func @main(%a: tensor<256x4xf32>) -> tensor<256xf32> {
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<256x4xf32>) -> tensor<4x256xf32>
  %d = stablehlo.dot_general %a, %t, contracting_dims = [1] x [0] : (tensor<256x4xf32>, tensor<4x256xf32>) -> tensor<256x256xf32>
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = stablehlo.reduce(%d init: %z) applies stablehlo.add across dimensions = [1] : (tensor<256x256xf32>, tensor<f32>) -> tensor<256xf32>
  return %r : tensor<256xf32>
}`,
		want: 4*256*4 + 256*256*4,
	}, {
		// Each iteration broadcasts its carry to 8x1024 (32 KiB) and sums it
		// back; the loop's counter (4 bytes) outlives it, unread.
		name: "loop",
		program: `func.func @main(%a: tensor<1024xf32>) -> tensor<1024xf32> {
  %i0 = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = stablehlo.while(%i = %i0, %x = %a) : tensor<i32>, tensor<1024xf32>
  cond {
    %n = stablehlo.constant dense<3> : tensor<i32>
    %p = stablehlo.compare LT, %i, %n, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %big = stablehlo.broadcast_in_dim %x, dims = [1] : (tensor<1024xf32>) -> tensor<8x1024xf32>
    %z = stablehlo.constant dense<0.0> : tensor<f32>
    %s = stablehlo.reduce(%big init: %z) applies stablehlo.add across dimensions = [0] : (tensor<8x1024xf32>, tensor<f32>) -> tensor<1024xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    stablehlo.return %j, %s : tensor<i32>, tensor<1024xf32>
  }
  return %w#1 : tensor<1024xf32>
}`,
		want: 4 + 8*1024*4,
	}, {
		// Each transpose (16 KiB) is released once the next one is made:
		// two are live at once.
		name: "chain",
		program: `func.func @main(%a: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %t1 = stablehlo.transpose %a, dims = [1, 0] : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %t2 = stablehlo.transpose %t1, dims = [1, 0] : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %t3 = stablehlo.transpose %t2, dims = [1, 0] : (tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = stablehlo.transpose %t3, dims = [1, 0] : (tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}`,
		want: 2 * 64 * 64 * 4,
	}, {
		// Only returned values: nothing besides the result.
		name: "pass through",
		program: `func.func @main(%a: tensor<16xf32>) -> tensor<16xf32> {
  %b = stablehlo.negate %a : tensor<16xf32>
  return %b : tensor<16xf32>
}`,
		want: 0,
	}} {
		if got := mustParse(t, c.program).TempBytes(); got != c.want {
			t.Errorf("%s: TempBytes() = %d, want %d", c.name, got, c.want)
		}
	}
}
