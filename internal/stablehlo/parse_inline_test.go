package stablehlo

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
	xs := f32Rows(512, 64, func(int) float32 { return 1 })
	out, allocated := runCountingBytes(t, m, xs)
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
	if allocated > 16<<20 {
		t.Errorf("the scan allocated %d MiB for a 128 KiB output: it is copied every step", allocated>>20)
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

// scanBodyProgram is a four-step loop whose body is a call to
// @closed_call, as JAX writes a scan's body: the callee has regions (a
// reduce, and an if whose branches read a value of the callee's frame).
// @main also calls it twice outside the loop.
const scanBodyProgram = `func.func @main(%xs: tensor<4x3xf32>) -> (tensor<3xf32>, tensor<4xf32>, tensor<3xf32>, tensor<f32>) {
  %c0 = stablehlo.constant dense<0.0> : tensor<3xf32>
  %o0 = stablehlo.constant dense<0.0> : tensor<4xf32>
  %k0 = stablehlo.constant dense<0> : tensor<i32>
  %w:3 = stablehlo.while(%c = %c0, %k = %k0, %o = %o0) : tensor<3xf32>, tensor<i32>, tensor<4xf32>
  cond {
    %n = stablehlo.constant dense<4> : tensor<i32>
    %p = stablehlo.compare LT, %k, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
    %z = stablehlo.constant dense<0> : tensor<i32>
    %row = stablehlo.dynamic_slice %xs, %k, %z, sizes = [1, 3] : (tensor<4x3xf32>, tensor<i32>, tensor<i32>) -> tensor<1x3xf32>
    %x = stablehlo.reshape %row : (tensor<1x3xf32>) -> tensor<3xf32>
    %r:2 = func.call @closed_call(%c, %x) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>)
    %s = stablehlo.reshape %r#1 : (tensor<f32>) -> tensor<1xf32>
    %o2 = stablehlo.dynamic_update_slice %o, %s, %k : (tensor<4xf32>, tensor<1xf32>, tensor<i32>) -> tensor<4xf32>
    %one = stablehlo.constant dense<1> : tensor<i32>
    %k2 = stablehlo.add %k, %one : tensor<i32>
    stablehlo.return %r#0, %k2, %o2 : tensor<3xf32>, tensor<i32>, tensor<4xf32>
  }
  %a:2 = func.call @closed_call(%c0, %c0) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>)
  %b:2 = func.call @closed_call(%w#0, %a#0) : (tensor<3xf32>, tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>)
  return %w#0, %w#2, %b#0, %b#1 : tensor<3xf32>, tensor<4xf32>, tensor<3xf32>, tensor<f32>
}
func.func private @closed_call(%c: tensor<3xf32>, %x: tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>) {
  %y = stablehlo.add %c, %x : tensor<3xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%y init: %zero) applies stablehlo.add across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
  %p = stablehlo.compare GT, %s, %zero : (tensor<f32>, tensor<f32>) -> tensor<i1>
  %r = "stablehlo.if"(%p) ({
    stablehlo.return %y : tensor<3xf32>
  }, {
    %n = stablehlo.negate %y : tensor<3xf32>
    stablehlo.return %n : tensor<3xf32>
  }) : (tensor<i1>) -> tensor<3xf32>
  return %r, %s : tensor<3xf32>, tensor<f32>
}`

// TestInliningCopiesRegions runs scanBodyProgram: no call may be left (the
// callee's regions are copied with it, three times), and the results must
// be the loop's as the callee defines it.
func TestInliningCopiesRegions(t *testing.T) {
	m := mustParse(t, scanBodyProgram)
	if calls := callsIn(m.Main().body); len(calls) != 0 {
		t.Errorf("calls left in @main: %v", calls)
	}
	rows := [4][3]float32{{1, -2, 0.5}, {-4, 1, 0}, {2, 2, -1}, {-0.25, 3, 1}}
	xs := &Tensor{Type: TensorType{Elem: F32, Shape: []int64{4, 3}}, Data: make([]byte, 48)}
	for k, row := range rows {
		for j, v := range row {
			binary.LittleEndian.PutUint32(xs.Data[4*(3*k+j):], math.Float32bits(v))
		}
	}
	body := func(c, x [3]float32) ([3]float32, float32) {
		var y [3]float32
		var s float32
		for j := range y {
			y[j] = c[j] + x[j]
			s += y[j]
		}
		if s <= 0 {
			for j := range y {
				y[j] = -y[j]
			}
		}
		return y, s
	}
	var c [3]float32
	var sums [4]float32
	for k, row := range rows {
		c, sums[k] = body(c, row)
	}
	a, _ := body([3]float32{}, [3]float32{})
	b, bs := body(c, a)
	out, err := runMain(t, m, xs)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]float32{c[:], sums[:], b[:], {bs}}
	for i, w := range want {
		for j, v := range w {
			if got := math.Float32frombits(binary.LittleEndian.Uint32(out[i].Data[4*j:])); got != v {
				t.Errorf("result %d element %d = %v, want %v", i, j, got, v)
			}
		}
	}
}

// TestInliningLargeFunctionsOnlyWhereCalledOnce: a function of more than
// maxInlinedOps ops (a region among them) is inlined where it has one call
// site, and stays a call where it has two; a threefry2x32 function stays a
// call even with one (it may run natively).
func TestInliningLargeFunctionsOnlyWhereCalledOnce(t *testing.T) {
	var large strings.Builder
	large.WriteString("func.func private @large(%v0: tensor<4xf32>) -> tensor<f32> {\n")
	for k := range maxInlinedOps {
		fmt.Fprintf(&large, "  %%v%d = stablehlo.negate %%v%d : tensor<4xf32>\n", k+1, k)
	}
	fmt.Fprintf(&large, `  %%zero = stablehlo.constant dense<0.0> : tensor<f32>
  %%s = stablehlo.reduce(%%v%d init: %%zero) applies stablehlo.add across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
  return %%s : tensor<f32>
}
func.func private @threefry2x32(%%k1: tensor<ui32>, %%k2: tensor<ui32>, %%x1: tensor<2xui32>, %%x2: tensor<2xui32>) -> (tensor<2xui32>, tensor<2xui32>) {
  %%a = stablehlo.add %%x1, %%x2 : tensor<2xui32>
  %%b = stablehlo.xor %%x1, %%x2 : tensor<2xui32>
  return %%a, %%b : tensor<2xui32>, tensor<2xui32>
}
`, maxInlinedOps)
	once := mustParse(t, `func.func @main(%x: tensor<4xf32>) -> tensor<f32> {
  %s = func.call @large(%x) : (tensor<4xf32>) -> tensor<f32>
  return %s : tensor<f32>
}
`+large.String())
	if got := callsIn(once.Main().body); len(got) != 0 {
		t.Errorf("calls left in @main with one call of @large: %v", got)
	}
	threefry := mustParse(t, `func.func @main(%k: tensor<ui32>, %u: tensor<2xui32>) -> tensor<2xui32> {
  %t:2 = func.call @threefry2x32(%k, %k, %u, %u) : (tensor<ui32>, tensor<ui32>, tensor<2xui32>, tensor<2xui32>) -> (tensor<2xui32>, tensor<2xui32>)
  return %t#0 : tensor<2xui32>
}
`+large.String())
	if got, want := callsIn(threefry.Main().body), []string{"threefry2x32"}; !cmp.Equal(got, want) {
		t.Errorf("calls left in @main with one call of @threefry2x32: %v, want %v", got, want)
	}
	twice := mustParse(t, `func.func @main(%x: tensor<4xf32>) -> (tensor<f32>, tensor<f32>) {
  %s = func.call @large(%x) : (tensor<4xf32>) -> tensor<f32>
  %t = func.call @large(%x) : (tensor<4xf32>) -> tensor<f32>
  return %s, %t : tensor<f32>, tensor<f32>
}
`+large.String())
	if got, want := callsIn(twice.Main().body), []string{"large", "large"}; !cmp.Equal(got, want) {
		t.Errorf("calls left in @main with two calls of @large: %v, want %v", got, want)
	}
	x := &Tensor{Type: TensorType{Elem: F32, Shape: []int64{4}}, Data: make([]byte, 16)}
	for k := range 4 {
		binary.LittleEndian.PutUint32(x.Data[4*k:], math.Float32bits(float32(k+1)))
	}
	for _, m := range []*Module{once, twice} {
		out, err := runMain(t, m, x)
		if err != nil {
			t.Fatal(err)
		}
		// An even number of negations: the sum of 1..4.
		for i := range out {
			if got := math.Float32frombits(binary.LittleEndian.Uint32(out[i].Data)); got != 10 {
				t.Errorf("result %d = %v, want 10", i, got)
			}
		}
	}
}

// callsIn lists the callees of the calls in r and its regions, in order.
func callsIn(r *region) []string {
	var calls []string
	eachOp(r, func(op *operation) {
		if op.Name == "func.call" {
			calls = append(calls, op.callee)
		}
	})
	return calls
}

// TestScanBodyCallWritesItsCarryInPlace: a loop whose body is a call (JAX's
// @closed_call) with a region in it must still update its 128 KiB carry in
// place, 512 times: a call's parameters belong to the caller, so before such
// calls were inlined each step copied the carry (64 MiB in all).
func TestScanBodyCallWritesItsCarryInPlace(t *testing.T) {
	m := mustParse(t, rowLoop(`    %r:2 = func.call @closed_call(%b, %k) : (tensor<512x64xf32>, tensor<i32>) -> (tensor<512x64xf32>, tensor<i32>)
    stablehlo.return %r#0, %r#1 : tensor<512x64xf32>, tensor<i32>
`)+`
func.func private @closed_call(%b: tensor<512x64xf32>, %k: tensor<i32>) -> (tensor<512x64xf32>, tensor<i32>) {
  %z = stablehlo.constant dense<0> : tensor<i32>
  %row = stablehlo.dynamic_slice %b, %k, %z, sizes = [1, 64] : (tensor<512x64xf32>, tensor<i32>, tensor<i32>) -> tensor<1x64xf32>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %s = stablehlo.reduce(%row init: %zero) applies stablehlo.add across dimensions = [0, 1] : (tensor<1x64xf32>, tensor<f32>) -> tensor<f32>
  %v = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<1x64xf32>
  %b2 = stablehlo.dynamic_update_slice %b, %v, %k, %z : (tensor<512x64xf32>, tensor<1x64xf32>, tensor<i32>, tensor<i32>) -> tensor<512x64xf32>
  %one = stablehlo.constant dense<1> : tensor<i32>
  %k2 = stablehlo.add %k, %one : tensor<i32>
  return %b2, %k2 : tensor<512x64xf32>, tensor<i32>
}`)
	buf := f32Rows(512, 64, func(k int) float32 { return float32(k) })
	out, allocated := runCountingBytes(t, m, buf)
	// Row k holds 64 k's before its step and 64 * 64k after.
	for k := range 512 {
		if got := f32At(out[0], 64*k); got != float32(64*k) {
			t.Fatalf("row %d = %v, want %d", k, got, 64*k)
		}
	}
	if allocated > 16<<20 {
		t.Errorf("the loop allocated %d MiB for a 128 KiB carry: it is copied every step", allocated>>20)
	}
}

// rowLoop is a @main that runs body 512 times over a loop of %k from 0 with
// the carry %b, an f32[512, 64] that starts as the argument; body ends with
// the stablehlo.return of the next %b and %k.
func rowLoop(body string) string {
	return `func.func @main(%buf: tensor<512x64xf32>) -> tensor<512x64xf32> {
  %k0 = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = stablehlo.while(%b = %buf, %k = %k0) : tensor<512x64xf32>, tensor<i32>
  cond {
    %n = stablehlo.constant dense<512> : tensor<i32>
    %p = stablehlo.compare LT, %k, %n : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %p : tensor<i1>
  } do {
` + body + `  }
  return %w#0 : tensor<512x64xf32>
}`
}
