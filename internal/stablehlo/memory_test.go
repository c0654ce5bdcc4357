package stablehlo

import (
	"context"
	"errors"
	"math"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"
)

// Under a memory limit, a result that would take the values past it fails
// with ResourceExhausted and the next run that fits goes on; garbage left
// by earlier runs is collected rather than counted.
func TestResultsOverTheMemoryLimit(t *testing.T) {
	fill := func(n int) *Module {
		return mustParse(t, `func.func @main(%x: tensor<f32>) -> tensor<`+strconv.Itoa(n)+`xf32> {
  %0 = stablehlo.broadcast_in_dim %x, dims = [] : (tensor<f32>) -> tensor<`+strconv.Itoa(n)+`xf32>
  return %0 : tensor<`+strconv.Itoa(n)+`xf32>
}`)
	}
	one := &Tensor{Type: TensorType{Elem: F32}, Data: []byte{0, 0, 128, 63}}
	ctx := context.Background()
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))

	// 32 MiB results, 64 MiB of room above what the heap holds.
	runtime.GC()
	room := heapObjectBytes() + 64<<20
	debug.SetMemoryLimit(room)
	for i := range 6 { // 192 MiB in all: the garbage of earlier runs must go
		if _, err := fill(8<<20).Run(ctx, []*Tensor{one}); err != nil {
			t.Fatalf("run %d of a 32 MiB result under a limit 64 MiB above the heap: %v", i, err)
		}
	}
	_, err := fill(32<<20).Run(ctx, []*Tensor{one})
	var e *Error
	if !errors.As(err, &e) || e.Code() != ResourceExhausted {
		t.Fatalf("a 128 MiB result under a limit 64 MiB above the heap: %v, want ResourceExhausted", err)
	}
	debug.SetMemoryLimit(math.MaxInt64)
	if _, err := fill(32<<20).Run(ctx, []*Tensor{one}); err != nil {
		t.Fatalf("the same result without a limit: %v", err)
	}
}
