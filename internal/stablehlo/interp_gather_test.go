package stablehlo

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGatherBlocksMatchesElementWalk runs the gathers JAX emits for take,
// row lookups, multi-indexing, vmapped lookups and dynamic slices, with
// indices out of range on both sides, through the block path and the
// spec's element walk.
func TestGatherBlocksMatchesElementWalk(t *testing.T) {
	cases := []struct {
		operand, indices, result []int64
		dims                     string
		sizes                    string
		indexRange               int64
	}{
		{[]int64{16}, []int64{37, 1}, []int64{37}, "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1", "1", 16},
		{[]int64{16}, []int64{37}, []int64{37}, "collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1", "1", 16},
		{[]int64{9, 5}, []int64{4, 3, 1}, []int64{4, 3, 5}, "offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2", "1, 5", 9},
		{[]int64{4, 6, 3}, []int64{11, 2}, []int64{11, 3}, "offset_dims = [1], collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1", "1, 1, 3", 6},
		{[]int64{5, 7, 2}, []int64{5, 1}, []int64{5, 2}, "offset_dims = [1], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 1", "1, 1, 2", 7},
		{[]int64{3, 8}, []int64{6, 1}, []int64{6, 3, 3}, "offset_dims = [1, 2], start_index_map = [1], index_vector_dim = 1", "3, 3", 8},
		{[]int64{3, 8}, []int64{6, 1}, []int64{6, 2, 3}, "offset_dims = [1, 2], start_index_map = [1], index_vector_dim = 1", "3, 3", 8},
	}
	r := rand.New(rand.NewPCG(5, 1))
	for _, c := range cases {
		ot := TensorType{Elem: F32, Shape: c.operand}
		it := TensorType{Elem: I32, Shape: c.indices}
		rt := TensorType{Elem: F32, Shape: c.result}
		src := fmt.Sprintf(`func.func @main(%%x: %s, %%i: %s) -> %s {
  %%0 = "stablehlo.gather"(%%x, %%i) <{dimension_numbers = #stablehlo.gather<%s>, indices_are_sorted = false, slice_sizes = array<i64: %s>}> : (%s, %s) -> %s
  return %%0 : %s
}`, ot, it, rt, c.dims, c.sizes, ot, it, rt, rt)
		m := mustParse(t, src)
		op := m.main.body.ops[0]
		operand, indices := newArray(ot), newArray(it)
		for k := range operand.f32 {
			operand.f32[k] = float32(k)
		}
		for k := range indices.i {
			indices.i[k] = r.Int64N(c.indexRange+6) - 3
		}
		p, err := planGather(op, ot, it)
		if err != nil {
			t.Fatalf("%s: %v", c.dims, err)
		}
		if !batchesFirst(p.batchDims) {
			t.Fatalf("%s: the case does not take the block path", c.dims)
		}
		ev := &evaluator{ctx: context.Background()}
		want, err := ev.gatherElements(p, operand, indices)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ev.gatherBlocks(p, operand, indices)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.f32, got.f32); diff != "" {
			t.Errorf("gather %s of %v by %v: block path differs (-walk +blocks):\n%s", c.dims, c.operand, c.indices, diff)
		}
	}
}

func TestGatherRefusesMismatchedBatch(t *testing.T) {
	m := mustParse(t, `func.func @main(%x: tensor<16xf32>, %i: tensor<8x1xi32>) -> tensor<4xf32> {
  %0 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<16xf32>, tensor<8x1xi32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}`)
	x := &Tensor{Type: TensorType{Elem: F32, Shape: []int64{16}}, Data: make([]byte, 64)}
	i := &Tensor{Type: TensorType{Elem: I32, Shape: []int64{8, 1}}, Data: make([]byte, 32)}
	_, err := m.Run(context.Background(), []*Tensor{x, i})
	var e *Error
	if !errors.As(err, &e) || e.Code() != InvalidArgument {
		t.Fatalf("Run = %v, want an InvalidArgument *Error", err)
	}
}
