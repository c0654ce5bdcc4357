package stablehlo

import (
	"math"
	"slices"
)

// A float convolution as matrix products (im2col): for each feature group,
// the input windows of a run of output positions are laid out as the rows
// of a patch matrix, [positions, window × input features], which is
// multiplied by the kernel laid out as [window × input features, output
// features]. Each output sums its products in the same order as the
// reference loop (window positions, then input features), so results are
// the same but for the float64 runs matmulF32 adds over long windows.

// convWindow is a convolution's layout and window, as evalConvolution
// read them.
type convWindow struct {
	d                                    convDims
	stride, pad, lhsDil, rhsDil, reverse []int64
	groups                               int64
}

// convPatchRows bounds the output positions of one patch matrix, so that it
// stays a few MiB however large the convolution.
const convPatchRows = 1024

// asMatmul computes the convolution of lhs and rhs into out (zeroed) and
// reports whether it could: float32 and float64 only, and a kernel of finite
// values (the reference skips padding, where a product with an infinite
// weight would be NaN here).
func (w *convWindow) asMatmul(ev *evaluator, lhs, rhs, out *array) bool {
	switch out.t.Elem.class() {
	case classF32:
		if !allFinite(rhs.f32) {
			return false
		}
		convMatmul(ev, w, lhs.f32, rhs.f32, out.f32, lhs.t.Shape, rhs.t.Shape, out.t.Shape, func(out, l, r []float32, M, N, K int) {
			matmulF32(out, l, r, 1, M, N, K)
		})
		roundNarrow(out.t.Elem, out.f32)
	case classF64:
		if !allFinite(rhs.f64) {
			return false
		}
		convMatmul(ev, w, lhs.f64, rhs.f64, out.f64, lhs.t.Shape, rhs.t.Shape, out.t.Shape, func(out, l, r []float64, M, N, K int) {
			clear(out)
			matmul(out, l, r, 1, M, N, K)
		})
	default:
		return false
	}
	return true
}

func allFinite[T float32 | float64](v []T) bool {
	for _, x := range v {
		if math.IsInf(float64(x), 0) || math.IsNaN(float64(x)) {
			return false
		}
	}
	return true
}

func convMatmul[T float32 | float64](ev *evaluator, w *convWindow, lhs, rhs, out []T, ls, ks, os []int64, mm func(out, l, r []T, M, N, K int)) {
	d := w.d
	ns := len(d.inSpatial)
	kst, ost := strides(ks), strides(os)
	lhs, lst := featuresLast(lhs, ls, d)
	kShape := make([]int64, ns)
	oShape := make([]int64, ns+1) // batch, then the output's spatial dims
	oShape[0] = os[d.outBatch]
	for i := range ns {
		kShape[i] = ks[d.kSpatial[i]]
		oShape[i+1] = os[d.outSpatial[i]]
	}
	cPerGroup := ks[d.kIn]
	oPerGroup := os[d.outFeature] / w.groups
	windows := 1
	for _, k := range kShape {
		windows *= int(k)
	}
	L := windows * int(cPerGroup)
	O := int(oPerGroup)

	// Where each window position reads from (a spatial offset per dim) and
	// its kernel offset.
	kOff := make([]int, 0, windows)
	kPos := make([][]int64, 0, windows)
	forEachIndex(kShape, func(k []int64) {
		off := 0
		for i, ki := range k {
			if w.reverse[i] != 0 {
				ki = kShape[i] - 1 - ki
			}
			off += int(ki) * kst[d.kSpatial[i]]
		}
		kOff = append(kOff, off)
		kPos = append(kPos, append([]int64(nil), k...))
	})

	kmat := make([]T, L*O)
	positions := 1
	for _, n := range oShape {
		positions *= int(n)
	}
	rows := min(positions, convPatchRows)
	patch := make([]T, rows*L)
	prod := make([]T, rows*O)
	outBase := make([]int, rows)
	for g := int64(0); g < w.groups; g++ {
		for wi, off := range kOff {
			for ci := range int(cPerGroup) {
				row := kmat[(wi*int(cPerGroup)+ci)*O : (wi*int(cPerGroup)+ci+1)*O]
				for o := range row {
					row[o] = rhs[off+ci*kst[d.kIn]+(int(g)*O+o)*kst[d.kOut]]
				}
			}
		}
		for p0 := 0; p0 < positions; p0 += rows {
			if ev.ctx.Err() != nil {
				return // evalConvolution reports it
			}
			n := min(rows, positions-p0)
			forRowRanges(n, L, func(lo, hi int) {
				idx := make([]int64, ns+1)
				unravel(idx, oShape, p0+lo)
				for r := lo; r < hi; r++ {
					fillPatch(w, patch[r*L:(r+1)*L], lhs, idx, kPos, ls, lst, int(g*cPerGroup))
					outBase[r] = int(idx[0])*ost[d.outBatch] + int(g)*O*ost[d.outFeature]
					for i := range ns {
						outBase[r] += int(idx[i+1]) * ost[d.outSpatial[i]]
					}
					nextIndex(idx, oShape)
				}
			})
			mm(prod[:n*O], patch[:n*L], kmat, n, O, L)
			for r := range n {
				for o, v := range prod[r*O : (r+1)*O] {
					out[outBase[r]+o*ost[d.outFeature]] = v
				}
			}
		}
	}
}

// fillPatch writes the input window of the output position at (batch, then
// spatial indices) into patch: window positions outer, the group's input
// features (from c0) inner, zero where the window reads padding or a
// dilation hole.
func fillPatch[T float32 | float64](w *convWindow, patch, lhs []T, at []int64, kPos [][]int64, ls []int64, lst []int, c0 int) {
	d := w.d
	c := len(patch) / len(kPos)
	for wi, k := range kPos {
		dst := patch[wi*c : (wi+1)*c]
		off, inside := int(at[0])*lst[d.inBatch], true
		for i, ki := range k {
			p := at[i+1]*w.stride[i] + ki*w.rhsDil[i] - w.pad[2*i]
			if p < 0 || p%w.lhsDil[i] != 0 || p/w.lhsDil[i] >= ls[d.inSpatial[i]] {
				inside = false
				break
			}
			off += int(p/w.lhsDil[i]) * lst[d.inSpatial[i]]
		}
		if !inside {
			clear(dst)
			continue
		}
		copy(dst, lhs[off+c0:]) // featuresLast: the features are contiguous
	}
}

// featuresLast returns lhs laid out as [batch, spatial..., feature], where
// an input window's features are one contiguous run, and its strides by
// the original dimensions. The patch matrix copies each input element once
// per window position: it costs one pass over lhs to make those copies runs.
func featuresLast[T float32 | float64](lhs []T, ls []int64, d convDims) ([]T, []int) {
	order := append(append([]int{d.inBatch}, d.inSpatial...), d.inFeature)
	lst := make([]int, len(ls)) // by the original dimensions
	step := 1
	for i := len(order) - 1; i >= 0; i-- {
		lst[order[i]] = step
		step *= int(ls[order[i]])
	}
	if slices.Equal(lst, strides(ls)) {
		return lhs, lst
	}
	from := strides(ls)
	shape := make([]int64, len(order))
	src := make([]int, len(order)) // source stride of each destination dim
	for i, dim := range order {
		shape[i], src[i] = ls[dim], from[dim]
	}
	out := make([]T, len(lhs))
	idx := make([]int64, len(order))
	for k := range out {
		at := 0
		for i, x := range idx {
			at += int(x) * src[i]
		}
		out[k] = lhs[at]
		nextIndex(idx, shape)
	}
	return out, lst
}

// unravel sets idx to the row-major index of element k of shape.
func unravel(idx, shape []int64, k int) {
	for i := len(shape) - 1; i >= 0; i-- {
		idx[i] = int64(k) % shape[i]
		k /= int(shape[i])
	}
}

// nextIndex advances idx to the next index of shape in row-major order.
func nextIndex(idx, shape []int64) {
	for i := len(idx) - 1; i >= 0; i-- {
		idx[i]++
		if idx[i] < shape[i] {
			return
		}
		idx[i] = 0
	}
}
