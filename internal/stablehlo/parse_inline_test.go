package stablehlo

import (
	"encoding/binary"
	"math"
	"runtime"
	"testing"
)

// scanProgram is lax.scan(lambda c, x: (c + x, c * x), zeros(64), xs) for
// xs f32[512, 64] as jax 0.12 lowers it: the stacked output is written by
// a call to a helper inside the loop body.
const scanProgram = `module @jit__lambda {
  func.func public @main(%arg0: tensor<512x64xf32>) -> (tensor<64xf32>, tensor<512x64xf32>) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<64xf32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<512x64xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2:4 = stablehlo.while(%iterArg = %arg0, %iterArg_1 = %c, %iterArg_2 = %0, %iterArg_3 = %1) : tensor<512x64xf32>, tensor<i32>, tensor<64xf32>, tensor<512x64xf32>
    cond {
      %c_4 = stablehlo.constant dense<512> : tensor<i32>
      %3 = stablehlo.compare LT, %iterArg_1, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    } do {
      %3 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_1) : (tensor<512x64xf32>, tensor<i32>) -> tensor<64xf32>
      %4 = stablehlo.add %iterArg_2, %3 : tensor<64xf32>
      %5 = stablehlo.multiply %iterArg_2, %3 : tensor<64xf32>
      %6 = func.call @dynamic_update_index_in_dim(%iterArg_3, %5, %iterArg_1) : (tensor<512x64xf32>, tensor<64xf32>, tensor<i32>) -> tensor<512x64xf32>
      %c_4 = stablehlo.constant dense<1> : tensor<i32>
      %7 = stablehlo.add %iterArg_1, %c_4 : tensor<i32>
      stablehlo.return %iterArg, %7, %4, %6 : tensor<512x64xf32>, tensor<i32>, tensor<64xf32>, tensor<512x64xf32>
    }
    return %2#2, %2#3 : tensor<64xf32>, tensor<512x64xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<512x64xf32>, %arg1: tensor<i32>) -> tensor<64xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 64] : (tensor<512x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1x64xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x64xf32>) -> tensor<64xf32>
    return %1 : tensor<64xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<512x64xf32>, %arg1: tensor<64xf32>, %arg2: tensor<i32>) -> tensor<512x64xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<64xf32>) -> tensor<1x64xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<512x64xf32>, tensor<1x64xf32>, tensor<i32>, tensor<i32>) -> tensor<512x64xf32>
    return %1 : tensor<512x64xf32>
  }
}`

// TestScanWritesItsOutputInPlace runs scanProgram: its outputs must be
// scan's (with xs all 1, step k writes c = k), and the stacked output must
// not be copied every step (128 KiB a step, 64 MiB in all, before calls
// were inlined).
func TestScanWritesItsOutputInPlace(t *testing.T) {
	m := mustParse(t, scanProgram)
	xs := &Tensor{Type: TensorType{Elem: F32, Shape: []int64{512, 64}}, Data: make([]byte, 512*64*4)}
	for k := range 512 * 64 {
		binary.LittleEndian.PutUint32(xs.Data[4*k:], math.Float32bits(1))
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out, err := runMain(t, m, xs)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatal(err)
	}
	for j := range 64 {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(out[0].Data[4*j:])); got != 512 {
			t.Fatalf("carry element %d = %v, want 512", j, got)
		}
	}
	for k := range 512 {
		for j := range 64 {
			if got := math.Float32frombits(binary.LittleEndian.Uint32(out[1].Data[4*(k*64+j):])); got != float32(k) {
				t.Fatalf("stacked output [%d, %d] = %v, want %d", k, j, got, k)
			}
		}
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<20 {
		t.Errorf("the scan allocated %d MiB for a 128 KiB output: it is copied every step", n>>20)
	}
}

// TestInliningKeepsCallsItCannotInline: a public callee, one returning its
// parameter and one returning a value twice stay calls, and every program
// still computes what its calls say; small private helpers, nested ones
// among them, are gone from @main.
func TestInliningKeepsCallsItCannotInline(t *testing.T) {
	m := mustParse(t, `func.func @main(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = func.call @outer(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = func.call @same(%a) : (tensor<4xf32>) -> tensor<4xf32>
  %c:2 = func.call @twice(%b) : (tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>)
  %d = func.call @pub(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %c#0, %c#1, %d, %x : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}
func.func private @outer(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @double(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %z = func.call @double(%y) : (tensor<4xf32>) -> tensor<4xf32>
  return %z : tensor<4xf32>
}
func.func private @double(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = stablehlo.add %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func private @same(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
func.func private @twice(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %y = stablehlo.negate %x : tensor<4xf32>
  return %y, %y : tensor<4xf32>, tensor<4xf32>
}
func.func public @pub(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = stablehlo.multiply %x, %x : tensor<4xf32>
  return %y : tensor<4xf32>
}`)
	var calls []string
	for _, op := range m.Main().body.ops {
		if op.Name == "func.call" {
			calls = append(calls, op.callee)
		}
	}
	if want := []string{"same", "twice", "pub"}; len(calls) != len(want) || calls[0] != want[0] || calls[1] != want[1] || calls[2] != want[2] {
		t.Errorf("calls left in @main: %v, want %v", calls, want)
	}
	x := &Tensor{Type: TensorType{Elem: F32, Shape: []int64{4}}, Data: make([]byte, 16)}
	for k := range 4 {
		binary.LittleEndian.PutUint32(x.Data[4*k:], math.Float32bits(float32(k+1)))
	}
	out, err := runMain(t, m, x)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 4 {
		v := float32(k + 1)
		for i, want := range []float32{-4 * v, -4 * v, 16 * v * v, v} {
			if got := math.Float32frombits(binary.LittleEndian.Uint32(out[i].Data[4*k:])); got != want {
				t.Errorf("result %d element %d = %v, want %v", i, k, got, want)
			}
		}
	}
}

// TestInliningRecursionParses parses functions that call each other twice
// over: inlining must not unfold them (2^depth copies), and the module
// parses at once.
func TestInliningRecursionParses(t *testing.T) {
	m := mustParse(t, `func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %y : tensor<4xf32>
}
func.func private @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = func.call @g(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = func.call @g(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %b : tensor<4xf32>
}
func.func private @g(%x: tensor<4xf32>) -> tensor<4xf32> {
  %a = func.call @f(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = func.call @f(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %b : tensor<4xf32>
}`)
	if n := len(m.Func("f").body.ops) + len(m.Func("g").body.ops); n > 8 {
		t.Errorf("the recursive functions grew to %d ops", n)
	}
}
