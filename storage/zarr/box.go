package zarr

import (
	"iter"

	"github.com/openpathways/pathways/ifrt"
)

// boxIndices yields every index in [first, last) in row-major order, each a
// fresh slice; one empty index for rank 0.
func boxIndices(first, last []int64) iter.Seq[[]int64] {
	return func(yield func([]int64) bool) {
		for i := range first {
			if first[i] >= last[i] {
				return
			}
		}
		idx := append([]int64(nil), first...)
		for {
			if !yield(append([]int64(nil), idx...)) {
				return
			}
			d := len(idx) - 1
			for ; d >= 0; d-- {
				if idx[d]++; idx[d] < last[d] {
					break
				}
				idx[d] = first[d]
			}
			if d < 0 {
				return
			}
		}
	}
}

// copyBox copies the elements of box (global indices) from src, the dense
// row-major elements of srcDomain, into dst, the dense row-major elements of
// the box of shape dstShape at dstOrigin. box lies within both.
func copyBox(dst []byte, dstOrigin, dstShape []int64, src []byte, srcDomain, box ifrt.IndexDomain, elem int64) {
	rank := len(box)
	if rank == 0 {
		copy(dst[:elem], src[:elem])
		return
	}
	for _, r := range box {
		if r.Len() <= 0 {
			return
		}
	}
	srcShape := srcDomain.Shape()
	stride := func(shape []int64) []int64 {
		s := make([]int64, rank)
		acc := elem
		for i := rank - 1; i >= 0; i-- {
			s[i] = acc
			acc *= shape[i]
		}
		return s
	}
	ds, ss := stride(dstShape), stride(srcShape)
	row := box[rank-1].Len() * elem
	first, last := make([]int64, rank-1), make([]int64, rank-1)
	for i := range rank - 1 {
		first[i], last[i] = box[i].Start, box[i].End
	}
	for idx := range boxIndices(first, last) {
		var do, so int64
		for i, v := range idx {
			do += (v - dstOrigin[i]) * ds[i]
			so += (v - srcDomain[i].Start) * ss[i]
		}
		do += (box[rank-1].Start - dstOrigin[rank-1]) * elem
		so += (box[rank-1].Start - srcDomain[rank-1].Start) * elem
		copy(dst[do:do+row], src[so:so+row])
	}
}
