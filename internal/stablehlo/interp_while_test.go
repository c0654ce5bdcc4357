package stablehlo

import (
	"context"
	"fmt"
	"runtime"
	"testing"
)

// A while that hands back a value it was given (unchanged, or as a reshape
// of it) keeps that value after a later op, the value's last reader, would
// have written its result into the value's storage.
func TestWhileResultKeepsItsValue(t *testing.T) {
	for _, c := range []struct{ name, carry string }{
		{"unchanged", `stablehlo.return %a, %n : tensor<4xf32>, tensor<i32>`},
		{"reshaped", `%r = stablehlo.reshape %a : (tensor<4xf32>) -> tensor<4xf32>
    stablehlo.return %r, %n : tensor<4xf32>, tensor<i32>`},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := mustParse(t, `func.func @main(%x0: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %one = stablehlo.constant dense<1.0> : tensor<4xf32>
  %x = stablehlo.add %x0, %one : tensor<4xf32>
  %c0 = stablehlo.constant dense<0> : tensor<i32>
  %w:2 = stablehlo.while(%a = %x, %i = %c0) : tensor<4xf32>, tensor<i32>
  cond {
    %c2 = stablehlo.constant dense<2> : tensor<i32>
    %lt = stablehlo.compare LT, %i, %c2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %c1 = stablehlo.constant dense<1> : tensor<i32>
    %n = stablehlo.add %i, %c1 : tensor<i32>
    `+c.carry+`
  }
  %y = stablehlo.multiply %x, %x : tensor<4xf32>
  return %w#0, %y : tensor<4xf32>, tensor<4xf32>
}`)
			out, err := m.Run(context.Background(), []*Tensor{literal(t, "tensor<4xf32>", "[1, 2, 3, 4]")})
			if err != nil {
				t.Fatal(err)
			}
			if msg := compareTensors(out[0], literal(t, "tensor<4xf32>", "[2, 3, 4, 5]"), 0, 0); msg != "" {
				t.Errorf("while result: %s", msg)
			}
			if msg := compareTensors(out[1], literal(t, "tensor<4xf32>", "[4, 9, 16, 25]"), 0, 0); msg != "" {
				t.Errorf("x * x: %s", msg)
			}
		})
	}
}

// A loop that sets one element of a buffer per iteration (x.at[i].set(v),
// a scatter) writes it in place, also when an inner loop reads the buffer
// first and hands it back unread: the loop allocates far less than a copy of
// the buffer per iteration.
func TestScatterInLoopWritesInPlace(t *testing.T) {
	const n, iterations = 256, 64
	buf := fmt.Sprintf("tensor<%dx%dxf32>", n, n)
	m := mustParse(t, fmt.Sprintf(`func.func @main(%%b0: %[1]s) -> %[1]s {
  %%c0 = stablehlo.constant dense<0> : tensor<i32>
  %%w:2 = stablehlo.while(%%b = %%b0, %%i = %%c0) : %[1]s, tensor<i32>
  cond {
    %%lim = stablehlo.constant dense<%[2]d> : tensor<i32>
    %%lt = stablehlo.compare LT, %%i, %%lim, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %%lt : tensor<i1>
  } do {
    %%c1 = stablehlo.constant dense<1> : tensor<i32>
    %%n = stablehlo.add %%i, %%c1 : tensor<i32>
    %%inner:2 = stablehlo.while(%%r = %%b, %%k = %%c0) : %[1]s, tensor<i32>
    cond {
      %%lt = stablehlo.compare LT, %%k, %%c1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %%lt : tensor<i1>
    } do {
      %%k1 = stablehlo.add %%k, %%c1 : tensor<i32>
      stablehlo.return %%r, %%k1 : %[1]s, tensor<i32>
    }
    %%v = stablehlo.convert %%i : (tensor<i32>) -> tensor<f32>
    %%idx = stablehlo.broadcast_in_dim %%i, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %%s = "stablehlo.scatter"(%%b, %%idx, %%v) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0, 1], scatter_dims_to_operand_dims = [0, 1]>, unique_indices = true}> ({
    ^bb0(%%p: tensor<f32>, %%q: tensor<f32>):
      stablehlo.return %%q : tensor<f32>
    }) : (%[1]s, tensor<2xi32>, tensor<f32>) -> %[1]s
    stablehlo.return %%s, %%n : %[1]s, tensor<i32>
  }
  return %%w#0 : %[1]s
}`, buf, iterations))
	arg := &Tensor{Type: TensorType{Elem: F32, Shape: []int64{n, n}}, Data: make([]byte, 4*n*n)}
	run := func() []*Tensor {
		out, err := m.Run(context.Background(), []*Tensor{arg})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	run() // warm: constants, caches
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	out := run()
	runtime.ReadMemStats(&after)
	// One copy of the argument (the caller's), then in place: a copy per
	// iteration would be iterations × 256 KiB.
	if grew := after.TotalAlloc - before.TotalAlloc; grew > 8*4*n*n {
		t.Errorf("the loop allocated %d bytes; a buffer is %d, so it copied it about %d times", grew, 4*n*n, grew/(4*n*n))
	}
	got := decodeTensor(out[0])
	for i := range iterations {
		if v := got.f32[i*n+i]; v != float32(i) {
			t.Fatalf("element (%d, %d) = %v, want %d", i, i, v, i)
		}
	}
	if got.f32[1] != 0 {
		t.Errorf("element (0, 1) = %v, want 0", got.f32[1])
	}
}
