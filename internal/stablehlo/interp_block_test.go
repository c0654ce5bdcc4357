package stablehlo

import (
	"fmt"
	"testing"
)

// sliceBlock and placeBlock copy whole rows; each element must land where
// its multi-index says, for blocks of every rank (rank 3 and up carry over
// two dimensions at once), at every offset, of empty and scalar shapes too.
func TestBlockCopies(t *testing.T) {
	for _, tc := range []struct {
		shape, start, limit []int64
	}{
		{[]int64{}, []int64{}, []int64{}},
		{[]int64{7}, []int64{2}, []int64{6}},
		{[]int64{4, 6}, []int64{1, 2}, []int64{3, 5}},
		{[]int64{3, 4, 5}, []int64{1, 1, 2}, []int64{3, 4, 4}},
		{[]int64{2, 3, 4, 5}, []int64{0, 1, 1, 0}, []int64{2, 3, 3, 5}},
		{[]int64{3, 4, 5}, []int64{1, 2, 2}, []int64{1, 3, 4}}, // empty
	} {
		t.Run(fmt.Sprint(tc.shape, tc.start, tc.limit), func(t *testing.T) {
			full := newArray(TensorType{Elem: F32, Shape: tc.shape})
			for k := range full.f32 {
				full.f32[k] = float32(k)
			}
			block := sliceBlock(full, tc.start, tc.limit)
			st := strides(tc.shape)
			forEachIndex(block.t.Shape, func(idx []int64) {
				at, k := 0, 0
				bst := strides(block.t.Shape)
				for d := range idx {
					at += int(idx[d]+tc.start[d]) * st[d]
					k += int(idx[d]) * bst[d]
				}
				if block.f32[k] != full.f32[at] {
					t.Errorf("sliceBlock: element %v is %v, want %v", idx, block.f32[k], full.f32[at])
				}
			})
			back := newArray(full.t)
			placeBlock(back, tc.start, block)
			forEachIndex(tc.shape, func(idx []int64) {
				at, inside := 0, true
				for d := range idx {
					at += int(idx[d]) * st[d]
					inside = inside && idx[d] >= tc.start[d] && idx[d] < tc.limit[d]
				}
				want := float32(0)
				if inside {
					want = full.f32[at]
				}
				if back.f32[at] != want {
					t.Errorf("placeBlock: element %v is %v, want %v", idx, back.f32[at], want)
				}
			})
		})
	}
}
