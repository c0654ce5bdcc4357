package stablehlo

import (
	"encoding/binary"
	"math"
	"runtime"
	"strings"
	"testing"
)

// TestDynamicUpdateSliceInLoopWritesInPlace fills 256 rows of a 1024x64
// buffer in a while loop, as fori_loop code writes results or a cache: the
// rows must land, and the buffer must not be copied every iteration (it
// was: 64 MiB of copies for 256 KiB of buffer).
func TestDynamicUpdateSliceInLoopWritesInPlace(t *testing.T) {
	m := mustParse(t, `func.func @main(%buf: tensor<1024x64xf32>, %row: tensor<1x64xf32>) -> tensor<1024x64xf32> {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<256> : tensor<i32>
  %r:2 = stablehlo.while(%i = %c0, %b = %buf) : tensor<i32>, tensor<1024x64xf32>
  cond {
    %lt = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %u = stablehlo.dynamic_update_slice %b, %row, %i, %z : (tensor<1024x64xf32>, tensor<1x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1024x64xf32>
    %i1 = stablehlo.add %i, %c1 : tensor<i32>
    stablehlo.return %i1, %u : tensor<i32>, tensor<1024x64xf32>
  }
  return %r#1 : tensor<1024x64xf32>
}`)
	buf := &Tensor{Type: TensorType{Elem: F32, Shape: []int64{1024, 64}}, Data: make([]byte, 1024*64*4)}
	row := &Tensor{Type: TensorType{Elem: F32, Shape: []int64{1, 64}}, Data: make([]byte, 64*4)}
	for j := range 64 {
		binary.LittleEndian.PutUint32(row.Data[4*j:], math.Float32bits(float32(j+1)))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := runMain(t, m, buf, row)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	for r := range 1024 {
		for j := range 64 {
			want := float32(0)
			if r < 256 {
				want = float32(j + 1)
			}
			if got := math.Float32frombits(binary.LittleEndian.Uint32(out[0].Data[4*(r*64+j):])); got != want {
				t.Fatalf("element [%d, %d] = %v, want %v", r, j, got, want)
			}
		}
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
		t.Errorf("the loop allocated %d MiB for a 256 KiB buffer: the buffer is copied every iteration", n>>20)
	}
}

// TestLoopCarriesWrittenInPlaceStayApart runs loops whose bodies write
// their carries in place, where the storage is not the loop's alone: an
// initial value read again after the loop, one value passed as two
// carries, a body that returns one value as two carries, and one that
// returns an outer value. Each result must be what copying gives. (The
// scalar op between the carries' ops keeps them apart, unfused: a fused op
// writes new arrays.)
func TestLoopCarriesWrittenInPlaceStayApart(t *testing.T) {
	const loop = `func.func @main(%x: tensor<4096xf32>) -> (tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>) {
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %c1 = stablehlo.constant dense<1> : tensor<i32>
  %n = stablehlo.constant dense<3> : tensor<i32>
  %one = stablehlo.constant dense<1.0> : tensor<f32>
  %ones = stablehlo.broadcast_in_dim %one, dims = [] : (tensor<f32>) -> tensor<4096xf32>
  %init = stablehlo.add %x, %ones : tensor<4096xf32>
  %r:3 = stablehlo.while(%i = %c0, %a = %init, %b = %init) : tensor<i32>, tensor<4096xf32>, tensor<4096xf32>
  cond {
    %lt = stablehlo.compare LT, %i, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %a1 = stablehlo.add %a, %a : tensor<4096xf32>
    %i1 = stablehlo.add %i, %c1 : tensor<i32>
    BODY
    stablehlo.return %i1, RETS : tensor<i32>, tensor<4096xf32>, tensor<4096xf32>
  }
  %after = stablehlo.multiply %init, %ones : tensor<4096xf32>
  return %r#1, %r#2, %after : tensor<4096xf32>, tensor<4096xf32>, tensor<4096xf32>
}`
	x := &Tensor{Type: TensorType{Elem: F32, Shape: []int64{4096}}, Data: make([]byte, 4*4096)}
	for k := range 4096 {
		binary.LittleEndian.PutUint32(x.Data[4*k:], math.Float32bits(1))
	}
	for _, c := range []struct {
		name, body, rets string
		a, b             float32 // every element of the results, from init = 2
	}{
		{"two carries of one value", "%b1 = stablehlo.multiply %b, %b : tensor<4096xf32>", "%a1, %b1", 16, 256},
		{"one value returned twice", "", "%a1, %a1", 16, 16},
		{"an outer value returned", "%b1 = stablehlo.add %b, %b : tensor<4096xf32>", "%a1, %x", 16, 1},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := mustParse(t, strings.NewReplacer("BODY", c.body, "RETS", c.rets).Replace(loop))
			out, err := runMain(t, m, x)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range []float32{c.a, c.b, 2} {
				for k := range 4096 {
					if got := math.Float32frombits(binary.LittleEndian.Uint32(out[i].Data[4*k:])); got != want {
						t.Fatalf("result %d element %d = %v, want %v", i, k, got, want)
					}
				}
			}
			if got := math.Float32frombits(binary.LittleEndian.Uint32(x.Data)); got != 1 {
				t.Fatalf("the argument changed to %v", got)
			}
		})
	}
}
