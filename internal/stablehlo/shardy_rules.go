package stablehlo

import (
	"slices"
	"strings"
)

// ruleOf builds n's sharding rule as Shardy's registry does, or nil.
func (e *sdyEngine) ruleOf(n *sdyNode, in, out [][]int64) *sdyRule {
	op := n.op
	r := newSdyRule(in, out)
	pass := func(int) sdyFactorKind { return factorPassThrough }
	sameRank := func() bool {
		for _, s := range append(slices.Clone(in), out...) {
			if len(s) != 0 && !slices.Equal(s, out[0]) {
				return false
			}
		}
		return len(out) == 1
	}
	_, isBinary := binaryOps[n.name]
	_, isUnary := unaryOps[n.name]
	switch {
	case n.name == "chlo.top_k":
		// XLA's mhlo.topk custom call: the batch dimensions pass through,
		// the sorted one needs replication.
		if len(in) != 1 || len(out) != 2 || len(out[0]) != len(in[0]) || !slices.Equal(out[0], out[1]) {
			return nil
		}
		for d, size := range in[0] {
			if size == out[0][d] {
				r.factor(size, factorPassThrough, false, []int{d}, []int{d, d})
			} else {
				r.factor(size, factorNeedReplication, true, []int{d}, []int{d, d})
			}
		}
	case strings.HasPrefix(n.name, "chlo."):
		return nil // XLA expands these before propagation
	case isBinary || isUnary || n.name == "sdy.sharding_constraint" || n.name == "convert" || n.name == "data_flow_edge" ||
		n.name == "compare" || n.name == "select" || n.name == "clamp" || n.name == "fma" || n.name == "reduce_precision" ||
		n.name == "is_finite" || (n.name == "bitcast_convert" && len(in) == 1 && len(out) == 1 && slices.Equal(in[0], out[0])):
		if !sameRank() {
			return nil
		}
		n.ewise, n.passOp = true, true
		r.pointwise(out[0], pass)
	case n.name == "transpose":
		perm, err := op.ints("permutation", "dims")
		if err != nil || len(in) != 1 || len(out) != 1 || len(perm) != len(in[0]) || len(out[0]) != len(perm) {
			return nil
		}
		n.passOp = true
		for o, i := range perm {
			if i < 0 || int(i) >= len(in[0]) {
				return nil
			}
			r.factor(in[0][i], factorPassThrough, false, []int{int(i)}, []int{o})
		}
	case n.name == "reshape":
		if len(in) != 1 || len(out) != 1 || !reshapeRule(r, in[0], out[0]) {
			return nil
		}
		n.passOp = true
	case n.name == "broadcast_in_dim":
		dims, err := op.ints("broadcast_dimensions", "dims")
		if err != nil || len(in) != 1 || len(out) != 1 || len(dims) != len(in[0]) {
			return nil
		}
		n.bcast = true
		outToIn := make([]int, len(out[0]))
		for i := range outToIn {
			outToIn[i] = -1
		}
		for i, d := range dims {
			if d < 0 || int(d) >= len(out[0]) {
				return nil
			}
			outToIn[d] = i
		}
		for o, size := range out[0] {
			i := outToIn[o]
			if i >= 0 && in[0][i] == 1 && size != 1 {
				r.factor(1, factorPassThrough, false, []int{i}, []int{-1})
				i = -1
			} else if i >= 0 && in[0][i] != size {
				return nil
			}
			r.factor(size, factorPassThrough, false, []int{i}, []int{o})
		}
	case n.name == "reduce":
		dims, err := op.ints("dimensions")
		k := len(out)
		if err != nil || k == 0 || len(in) != 2*k || checkAxes(dims, len(in[0]), "") != nil {
			return nil
		}
		for i := 0; i < k; i++ {
			if !slices.Equal(in[i], in[0]) || len(in[k+i]) != 0 {
				return nil
			}
		}
		o := 0
		for d, size := range in[0] {
			ins := make([]int, 2*k)
			outs := make([]int, k)
			for i := range ins {
				ins[i] = -1
				if i < k {
					ins[i] = d
				}
			}
			if containsInt(dims, int64(d)) {
				for i := range outs {
					outs[i] = -1
				}
				r.factor(size, factorReduction, false, ins, outs)
				continue
			}
			for i := range outs {
				if o >= len(out[i]) || out[i][o] != size {
					return nil
				}
				outs[i] = o
			}
			o++
			r.factor(size, factorPassThrough, false, ins, outs)
		}
	case n.name == "dot_general":
		d, err := dotDimensions(op)
		if err != nil || len(in) != 2 || len(out) != 1 || len(d.lhsBatch) != len(d.rhsBatch) || len(d.lhsContract) != len(d.rhsContract) ||
			checkAxes(append(slices.Clone(d.lhsBatch), d.lhsContract...), len(in[0]), "") != nil ||
			checkAxes(append(slices.Clone(d.rhsBatch), d.rhsContract...), len(in[1]), "") != nil {
			return nil
		}
		o := 0
		for i := range d.lhsBatch {
			r.factor(in[0][d.lhsBatch[i]], factorPassThrough, false, []int{int(d.lhsBatch[i]), int(d.rhsBatch[i])}, []int{o})
			o++
		}
		for side := 0; side < 2; side++ {
			batch, contract := d.lhsBatch, d.lhsContract
			if side == 1 {
				batch, contract = d.rhsBatch, d.rhsContract
			}
			for i := range in[side] {
				if containsInt(batch, int64(i)) || containsInt(contract, int64(i)) {
					continue
				}
				dims := []int{-1, -1}
				dims[side] = i
				r.factor(in[side][i], factorPassThrough, false, dims, []int{o})
				o++
			}
		}
		for i := range d.lhsContract {
			r.factor(in[0][d.lhsContract[i]], factorReduction, false, []int{int(d.lhsContract[i]), int(d.rhsContract[i])}, []int{-1})
		}
		if o != len(out[0]) {
			return nil
		}
	case n.name == "slice" || n.name == "dynamic_slice":
		if len(in) < 1 || len(out) != 1 || len(in[0]) != len(out[0]) {
			return nil
		}
		for _, s := range in[1:] {
			if len(s) != 0 {
				return nil
			}
		}
		kind := factorPermutation
		if n.name == "dynamic_slice" {
			kind = factorNeedReplication
			n.dynamic = true
		}
		for d, size := range in[0] {
			if size == out[0][d] {
				r.factor(size, factorPassThrough, false, []int{d}, []int{d})
			} else {
				r.factor(size, kind, n.dynamic, []int{d}, []int{d})
			}
		}
	case n.name == "pad" || n.name == "reverse":
		if len(out) != 1 || len(in) < 1 || len(in[0]) != len(out[0]) {
			return nil
		}
		rev, err := op.optInts("dimensions", "dims")
		if err != nil || (n.name == "pad" && len(in) != 2) {
			return nil
		}
		for d, size := range in[0] {
			switch {
			case n.name == "pad" && size != out[0][d]:
				r.factor(size, factorPermutation, false, []int{d}, []int{d})
			case containsInt(rev, int64(d)) && n.name == "reverse":
				r.factor(size, factorPermutation, false, []int{d}, []int{d})
			default:
				r.factor(size, factorPassThrough, false, []int{d}, []int{d})
			}
		}
	case n.name == "concatenate":
		dim, err := op.int1("dimension", "dim")
		if err != nil || len(out) != 1 || dim < 0 || int(dim) >= len(out[0]) {
			return nil
		}
		for _, s := range in {
			if len(s) != len(out[0]) {
				return nil
			}
		}
		// Shardy: kPermutation for concat(slice(x), ...) patterns, else
		// kNeedReplication along the concatenated dimension.
		before := func(s int) int {
			if d := e.vals[s].def; d != nil && d.name == "slice" {
				return d.operands[0]
			}
			return s
		}
		allSlices, sameBase, anySlice := true, true, false
		for _, s := range n.operands {
			isSlice := e.vals[s].def != nil && e.vals[s].def.name == "slice"
			allSlices = allSlices && isSlice
			anySlice = anySlice || isSlice
			sameBase = sameBase && before(s) == before(n.operands[0])
		}
		r.pointwise(out[0], func(d int) sdyFactorKind {
			switch {
			case d != int(dim):
				return factorPassThrough
			case allSlices || (sameBase && anySlice):
				return factorPermutation
			}
			return factorNeedReplication
		})
	case n.name == "sort":
		if len(out) != len(in) || len(in) == 0 {
			return nil
		}
		for _, s := range append(slices.Clone(in), out...) {
			if !slices.Equal(s, in[0]) {
				return nil
			}
		}
		dim := int64(-1)
		if a := op.attr("dimension"); a != nil {
			dim = a.Int
		}
		if dim < 0 {
			dim += int64(len(in[0]))
		}
		blocked := true
		for d, size := range in[0] {
			blocked = blocked && (int64(d) == dim || size == 1)
		}
		for d, size := range in[0] {
			all := make([]int, len(in))
			for i := range all {
				all[i] = d
			}
			if int64(d) == dim {
				r.factor(size, factorNeedReplication, blocked, all, all)
			} else {
				r.factor(size, factorPassThrough, false, all, all)
			}
		}
	case n.name == "reduce_window":
		k := len(out)
		if k == 0 || len(in) != 2*k {
			return nil
		}
		rank := len(out[0])
		window, err1 := op.optInts("window_dimensions")
		strides, err2 := op.optInts("window_strides")
		pad, err3 := op.optInts("padding")
		if err1 != nil || err2 != nil || err3 != nil || (pad != nil && len(pad) != 2*rank) ||
			(window != nil && len(window) != rank) || (strides != nil && len(strides) != rank) {
			return nil
		}
		for i := 0; i < k; i++ {
			if len(in[i]) != rank || len(in[k+i]) != 0 || !slices.Equal(out[i], out[0]) {
				return nil
			}
		}
		r.pointwise(out[0], func(d int) sdyFactorKind {
			if (pad == nil || (pad[2*d] == 0 && pad[2*d+1] == 0)) &&
				(strides == nil || strides[d] == 1) && (window == nil || window[d] == 1) {
				return factorPassThrough
			}
			return factorPermutation
		})
	case n.name == "select_and_scatter":
		// Operand, source and init value; the result is placed as the
		// operand. Shardy: pointwise over the source's windows, a
		// permutation where a dimension is windowed.
		if len(in) != 3 || len(out) != 1 || len(in[1]) != len(in[0]) || !slices.Equal(out[0], in[0]) || len(in[2]) != 0 {
			return nil
		}
		r.pointwise(in[1], func(d int) sdyFactorKind {
			if in[1][d] == in[0][d] {
				return factorPassThrough
			}
			return factorPermutation
		})
	case n.name == "gather":
		if len(in) != 2 || len(out) != 1 || !gatherRule(r, op, in[0], in[1], out[0]) {
			return nil
		}
	case n.name == "scatter":
		k := len(out)
		if k == 0 || len(in) != 2*k+1 || !scatterRule(r, op, k, in[0], in[k], in[k+1]) {
			return nil
		}
	case n.name == "convolution":
		if len(in) != 2 || len(out) != 1 || !convolutionRule(r, op, in[0], in[1], out[0]) {
			return nil
		}
	case n.name == "dynamic_update_slice":
		if len(in) < 2 || len(out) != 1 || len(in[0]) != len(in[1]) || !slices.Equal(in[0], out[0]) {
			return nil
		}
		// Shardy: operand and result share each dimension; the update
		// shares those it spans whole, and is replicated along the others.
		none := func() []int { return slices.Repeat([]int{-1}, len(in)) }
		for d, size := range in[0] {
			operands := none()
			operands[0] = d
			if in[1][d] == size {
				operands[1] = d
			}
			r.factor(size, factorPassThrough, false, operands, []int{d})
			if in[1][d] != size {
				update := none()
				update[1] = d
				r.factor(in[1][d], factorNeedReplication, false, update, []int{-1})
			}
		}
	default:
		return nil
	}
	return r
}

// reshapeRule factors a reshape as Shardy does: common factors where the
// input and output dimensions share them, one factor per size-1 dimension.
func reshapeRule(r *sdyRule, in, out []int64) bool {
	prod := func(s []int64) int64 {
		n := int64(1)
		for _, v := range s {
			n *= v
		}
		return n
	}
	if prod(in) != prod(out) || prod(in) == 0 {
		return false
	}
	inDim, outDim := 0, 0
	dimsIn, dimsOut := int64(1), int64(1)
	facIn, facOut := int64(1), int64(1)
	for inDim < len(in) || outDim < len(out) {
		if inDim < len(in) && in[inDim] == 1 {
			r.factor(1, factorPassThrough, false, []int{inDim}, []int{-1})
			inDim++
			continue
		}
		if outDim < len(out) && out[outDim] == 1 {
			r.factor(1, factorPassThrough, false, []int{-1}, []int{outDim})
			outDim++
			continue
		}
		if inDim < len(in) && dimsIn == facIn {
			dimsIn *= in[inDim]
		}
		if outDim < len(out) && dimsOut == facOut {
			dimsOut *= out[outDim]
		}
		nextIn, nextOut := dimsIn/facIn, dimsOut/facOut
		g := gcd64(nextIn, nextOut)
		diverged := func(next, smaller, larger int64) int64 {
			if larger%smaller == 0 && next%(larger/smaller) == 0 {
				return larger / smaller
			}
			if next > g {
				return next / g
			}
			return next
		}
		inAt, outAt := inDim, outDim
		if inAt >= len(in) {
			inAt = -1
		}
		if outAt >= len(out) {
			outAt = -1
		}
		switch {
		case facIn == facOut && g > 1:
			r.factor(g, factorPassThrough, false, []int{inAt}, []int{outAt})
			facIn *= g
			facOut *= g
		case facIn == facOut:
			if nextIn <= 1 || nextOut <= 1 {
				return false
			}
			r.factor(nextIn, factorPassThrough, false, []int{inAt}, []int{-1})
			facIn *= nextIn
			r.factor(nextOut, factorPassThrough, false, []int{-1}, []int{outAt})
			facOut *= nextOut
		case facIn < facOut:
			nextIn = diverged(nextIn, facIn, facOut)
			r.factor(nextIn, factorPassThrough, false, []int{inAt}, []int{-1})
			facIn *= nextIn
		default:
			nextOut = diverged(nextOut, facOut, facIn)
			r.factor(nextOut, factorPassThrough, false, []int{-1}, []int{outAt})
			facOut *= nextOut
		}
		if inDim < len(in) && dimsIn == facIn {
			inDim++
		}
		if outDim < len(out) && dimsOut == facOut {
			outDim++
		}
		if len(r.sizes) > 4*(len(in)+len(out))+8 {
			return false
		}
	}
	return true
}

func gcd64(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// gatherRule factors a gather as Shardy does (addGatherScatterFactors).
func gatherRule(r *sdyRule, op *operation, input, indices, slicesShape []int64) bool {
	g, err := readGatherDims(op)
	if err != nil {
		return false
	}
	return gatherScatterRule(r, false, g, input, indices, slicesShape,
		func(inputDim, indicesDim, slicesDim int, size int64, kind sdyFactorKind, blocked bool) {
			r.factor(size, kind, blocked, []int{inputDim, indicesDim}, []int{slicesDim})
		})
}

// scatterRule factors a scatter of n inputs as Shardy does: its operands
// are the n inputs, the indices and the n updates; the results are placed
// as the inputs.
func scatterRule(r *sdyRule, op *operation, n int, input, indices, updates []int64) bool {
	g, err := readScatterDims(op)
	if err != nil {
		return false
	}
	return gatherScatterRule(r, true, g, input, indices, updates,
		func(inputDim, indicesDim, slicesDim int, size int64, kind sdyFactorKind, blocked bool) {
			operands := make([]int, 0, 2*n+1)
			results := make([]int, 0, n)
			for range n {
				operands = append(operands, inputDim)
				results = append(results, inputDim)
			}
			operands = append(operands, indicesDim)
			for range n {
				operands = append(operands, slicesDim)
			}
			r.factor(size, kind, blocked, operands, results)
		})
}

// gatherScatterRule adds a gather's or scatter's factors through add, as
// Shardy's addGatherScatterFactors does: slices are a gather's result or a
// scatter's updates.
func gatherScatterRule(r *sdyRule, scatter bool, g gatherDims, input, indices, slicesShape []int64,
	add func(inputDim, indicesDim, slicesDim int, size int64, kind sdyFactorKind, blocked bool)) bool {
	ivd := int(g.indexVectorDim)
	inputDim, batchPos := 0, 0
	for sd, size := range slicesShape {
		if containsInt(g.offsetDims, int64(sd)) {
			for containsInt(g.collapsed, int64(inputDim)) || containsInt(g.operandBatch, int64(inputDim)) {
				inputDim++
			}
			if inputDim >= len(input) {
				return false
			}
			inSize := input[inputDim]
			switch {
			case inSize == size:
				add(inputDim, -1, sd, inSize, factorPassThrough, false)
			case scatter:
				add(inputDim, -1, -1, inSize, factorPassThrough, false)
				add(-1, -1, sd, size, factorNeedReplication, false)
			case size == 1:
				add(inputDim, -1, -1, inSize, factorReduction, false)
				add(-1, -1, sd, size, factorNeedReplication, false)
			default:
				add(inputDim, -1, sd, inSize, factorNeedReplication, true)
			}
			inputDim++
			continue
		}
		id := batchPos
		if batchPos >= ivd {
			id++
		}
		if id >= len(indices) {
			return false
		}
		inBatch := -1
		if k := slices.Index(g.indicesBatch, int64(id)); k >= 0 && k < len(g.operandBatch) {
			inBatch = int(g.operandBatch[k])
		}
		kind := factorPassThrough
		if scatter && inBatch < 0 {
			kind = factorReduction // the scatter's results are all-reduced
		}
		add(inBatch, id, sd, size, kind, false)
		batchPos++
	}
	for _, c := range g.collapsed {
		if c < 0 || int(c) >= len(input) {
			return false
		}
		kind := factorReduction
		switch {
		case scatter:
			kind = factorPassThrough
		case input[c] == 1:
			kind = factorNeedReplication
		}
		add(int(c), -1, -1, input[c], kind, false)
	}
	if ivd < len(indices) {
		add(-1, ivd, -1, indices[ivd], factorNeedReplication, false)
	}
	return true
}

// convolutionRule factors a convolution as Shardy does when propagation is
// not conservative: batch and feature groups, the batch, each spatial
// dimension as its number of windows (input ↔ output) and its window size
// (input ↔ kernel, a reduction), the larger one major, the input features
// (a reduction) and the output features.
func convolutionRule(r *sdyRule, op *operation, lhs, rhs, out []int64) bool {
	a := op.attr("dimension_numbers", "dim_numbers")
	if a == nil {
		return false
	}
	d, err := parseConvDims(a.Raw)
	ns := len(d.inSpatial)
	if err != nil || len(lhs) != ns+2 || len(rhs) != ns+2 || len(out) != ns+2 || len(d.kSpatial) != ns || len(d.outSpatial) != ns {
		return false
	}
	groups, batchGroups := int64(1), int64(1)
	if g := op.attrs["feature_group_count"]; g != nil {
		groups = g.Int
	}
	if g := op.attrs["batch_group_count"]; g != nil {
		batchGroups = g.Int
	}
	if groups < 1 || batchGroups < 1 || out[d.outFeature]%(groups*batchGroups) != 0 {
		return false
	}
	if batchGroups > 1 {
		r.factor(batchGroups, factorPassThrough, false, []int{d.inBatch, d.kOut}, []int{d.outBatch})
	}
	r.factor(out[d.outBatch], factorPassThrough, false, []int{d.inBatch, -1}, []int{d.outBatch})
	for i := range ns {
		lhsDim, rhsDim, outDim := d.inSpatial[i], d.kSpatial[i], d.outSpatial[i]
		windows, size, remaining := out[outDim], rhs[rhsDim], lhs[lhsDim]
		spatial := func(f int64, contracting bool) {
			if f = min(remaining, f); f <= 1 {
				return
			}
			if contracting {
				r.factor(f, factorReduction, false, []int{lhsDim, rhsDim}, []int{-1})
			} else {
				r.factor(f, factorPermutation, false, []int{lhsDim, -1}, []int{outDim})
			}
			remaining /= f
		}
		if windows >= size {
			spatial(windows, false)
			spatial(size, true)
		} else {
			spatial(size, true)
			spatial(windows, false)
		}
	}
	if groups > 1 {
		r.factor(groups, factorPassThrough, false, []int{d.inFeature, d.kOut}, []int{d.outFeature})
	}
	r.factor(rhs[d.kIn], factorReduction, false, []int{d.inFeature, d.kIn}, []int{-1})
	r.factor(out[d.outFeature]/(groups*batchGroups), factorPassThrough, false, []int{-1, d.kOut}, []int{d.outFeature})
	return true
}
