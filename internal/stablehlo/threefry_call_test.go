package stablehlo

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"
)

// TestThreefryKnownAnswers: Threefry-2x32 (20 rounds) gives the Random123
// known answers, which jax's threefry_2x32 gives too.
func TestThreefryKnownAnswers(t *testing.T) {
	for _, c := range []struct{ k0, k1, x0, x1, want0, want1 uint32 }{
		{0, 0, 0, 0, 0x6b200159, 0x99ba4efe},
		{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0x1cb996fc, 0xbb002be7},
		{0x13198a2e, 0x03707344, 0x243f6a88, 0x85a308d3, 0xc4923a9c, 0x483df7a0},
	} {
		if a, b := threefry2x32(c.x0, c.x1, c.k0, c.k1); a != c.want0 || b != c.want1 {
			t.Errorf("threefry2x32(key %#x %#x, counter %#x %#x) = %#x %#x, want %#x %#x", c.k0, c.k1, c.x0, c.x1, a, b, c.want0, c.want1)
		}
	}
}

// TestNativeThreefry: JAX's @threefry2x32 (in jax.random.normal's program)
// runs natively after its first call agreed, with the same results.
func TestNativeThreefry(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(goldenDir, "random_normal.mlir"))
	if err != nil {
		t.Fatal(err)
	}
	m := mustParse(t, string(src))
	f := m.funcs["threefry2x32"]
	if f == nil || f.threefry == nil {
		t.Fatal("@threefry2x32 is not marked to run natively")
	}
	key := literal(t, "tensor<2xui32>", "[0, 42]")
	var first []byte
	for run := range 3 {
		out, err := m.Run(context.Background(), []*Tensor{key})
		if err != nil {
			t.Fatal(err)
		}
		if run == 0 {
			first = out[0].Data
			if got := f.threefry.state.Load(); got != threefryAgrees {
				t.Fatalf("after the first call the native threefry is in state %d, want %d (agrees)", got, threefryAgrees)
			}
		} else if !bytes.Equal(out[0].Data, first) {
			t.Errorf("run %d gave %x, the first (interpreted) run %x", run, out[0].Data, first)
		}
	}
}

// TestThreefryImpostor: a function named threefry2x32 that computes
// something else keeps its own results.
func TestThreefryImpostor(t *testing.T) {
	m := mustParse(t, `func.func @main(%a: tensor<ui32>, %b: tensor<ui32>, %x: tensor<4xui32>, %y: tensor<4xui32>) -> (tensor<4xui32>, tensor<4xui32>) {
  %r:2 = call @threefry2x32(%a, %b, %x, %y) : (tensor<ui32>, tensor<ui32>, tensor<4xui32>, tensor<4xui32>) -> (tensor<4xui32>, tensor<4xui32>)
  return %r#0, %r#1 : tensor<4xui32>, tensor<4xui32>
}
func.func private @threefry2x32(%a: tensor<ui32>, %b: tensor<ui32>, %x: tensor<4xui32>, %y: tensor<4xui32>) -> (tensor<4xui32>, tensor<4xui32>) {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %w:3 = stablehlo.while(%i = %z, %u = %x, %v = %y) : tensor<i32>, tensor<4xui32>, tensor<4xui32>
  cond {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %c = stablehlo.compare LT, %i, %one, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %one = stablehlo.constant dense<1> : tensor<i32>
    %j = stablehlo.add %i, %one : tensor<i32>
    %ab = stablehlo.broadcast_in_dim %a, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %bb = stablehlo.broadcast_in_dim %b, dims = [] : (tensor<ui32>) -> tensor<4xui32>
    %u2 = stablehlo.add %u, %ab : tensor<4xui32>
    %v2 = stablehlo.xor %v, %bb : tensor<4xui32>
    stablehlo.return %j, %u2, %v2 : tensor<i32>, tensor<4xui32>, tensor<4xui32>
  }
  return %w#1, %w#2 : tensor<4xui32>, tensor<4xui32>
}`)
	f := m.funcs["threefry2x32"]
	if f.threefry == nil {
		t.Fatal("@threefry2x32 is not a candidate: the test checks nothing")
	}
	args := []*Tensor{literal(t, "tensor<ui32>", "1"), literal(t, "tensor<ui32>", "3"), literal(t, "tensor<4xui32>", "[10, 20, 30, 40]"), literal(t, "tensor<4xui32>", "[1, 2, 4, 8]")}
	want := []*Tensor{literal(t, "tensor<4xui32>", "[11, 21, 31, 41]"), literal(t, "tensor<4xui32>", "[2, 1, 7, 11]")}
	for run := range 2 {
		out, err := m.Run(context.Background(), args)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if !bytes.Equal(out[i].Data, want[i].Data) {
				t.Errorf("run %d: result %d is %x, want %x", run, i, out[i].Data, want[i].Data)
			}
		}
	}
	if got := f.threefry.state.Load(); got != threefryDiffers {
		t.Errorf("the impostor's state is %d, want %d (differs)", got, threefryDiffers)
	}
}
