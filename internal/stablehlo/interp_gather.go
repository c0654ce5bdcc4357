package stablehlo

// gather and scatter with general dimension numbers, following the
// StableHLO spec's index arithmetic (including batching dimensions).

type gatherDims struct {
	offsetDims, collapsed, operandBatch, indicesBatch, startIndexMap []int64
	indexVectorDim                                                   int64
}

func readGatherDims(op *operation) (gatherDims, error) {
	return readDimNumbers(op.attrs["dimension_numbers"], "offset_dims", "collapsed_slice_dims",
		"operand_batching_dims", "start_indices_batching_dims", "start_index_map")
}

// readScatterDims reads a scatter's dimension numbers into the gather's
// fields they mirror: update_window_dims as offsetDims,
// inserted_window_dims as collapsed, input_batching_dims as operandBatch,
// scatter_indices_batching_dims as indicesBatch and
// scatter_dims_to_operand_dims as startIndexMap.
func readScatterDims(op *operation) (gatherDims, error) {
	return readDimNumbers(op.attrs["scatter_dimension_numbers"], "update_window_dims", "inserted_window_dims",
		"input_batching_dims", "scatter_indices_batching_dims", "scatter_dims_to_operand_dims")
}

// readDimNumbers reads the fields of a gather's or scatter's dimension
// numbers a, named in gatherDims order, and index_vector_dim (0 when
// absent).
func readDimNumbers(a *Attr, names ...string) (gatherDims, error) {
	var g gatherDims
	var ivd []int64
	dsts := []*[]int64{&g.offsetDims, &g.collapsed, &g.operandBatch, &g.indicesBatch, &g.startIndexMap, &ivd}
	var err error
	for i, name := range append(names, "index_vector_dim") {
		if *dsts[i], err = dialectInts(a, name); err != nil {
			return g, err
		}
	}
	if len(ivd) == 1 {
		g.indexVectorDim = ivd[0]
	}
	return g, nil
}

// indexVector reads the start index vector at batch position bi of the
// indices array (bi excludes index_vector_dim).
func indexVector(out []int64, indices *array, st []int, bi []int64, ivd int64) []int64 {
	n := len(out)
	shape := indices.t.Shape
	base := 0
	j := 0
	for d := range shape {
		if int64(d) == ivd {
			continue
		}
		base += int(bi[j]) * st[d]
		j++
	}
	for k := 0; k < n; k++ {
		p := base
		if int(ivd) < len(shape) {
			p += k * st[ivd]
		}
		out[k] = indices.intAt(p)
	}
	return out
}

// batchDimOf maps a dimension of the indices array to its position in the
// batch index (which skips index_vector_dim).
func batchDimOf(d, ivd int64) int64 {
	if d < ivd {
		return d
	}
	return d - 1
}

// gatherPlan is a gather's checked dimension numbers.
type gatherPlan struct {
	g     gatherDims
	sizes []int64
	// batchDims are the result's dimensions that index into indices;
	// offsetOperandDims the operand's dimensions that receive offsets, in
	// increasing order.
	batchDims, offsetOperandDims []int
	nIdx                         int // the length of a start index vector
	result                       TensorType
}

func evalGather(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 2 {
		return nil, invalidf("gather needs an operand and indices")
	}
	p, err := planGather(op, in[0].t, in[1].t)
	if err != nil {
		return nil, err
	}
	var out *array
	if batchesFirst(p.batchDims) && int(p.g.indexVectorDim) >= len(in[1].t.Shape)-1 {
		out, err = ev.gatherBlocks(p, in[0], in[1])
	} else {
		out, err = ev.gatherElements(p, in[0], in[1])
	}
	if err != nil {
		return nil, err
	}
	return []*array{out}, nil
}

// planGather checks op's attributes against its operand and indices types.
func planGather(op *operation, operandType, indicesType TensorType) (gatherPlan, error) {
	rt := op.resultTypes[0]
	g, err := readGatherDims(op)
	if err != nil {
		return gatherPlan{}, err
	}
	sizes, err := op.ints("slice_sizes")
	if err != nil {
		return gatherPlan{}, err
	}
	orank := len(operandType.Shape)
	if len(sizes) != orank || rt.Elem != operandType.Elem {
		return gatherPlan{}, invalidf("slice_sizes %v do not match operand %s", sizes, operandType)
	}
	for d, s := range sizes {
		if s < 0 || s > operandType.Shape[d] {
			return gatherPlan{}, invalidf("slice size %d out of range", s)
		}
	}
	irank := len(indicesType.Shape)
	if g.indexVectorDim < 0 || int(g.indexVectorDim) > irank {
		return gatherPlan{}, invalidf("bad index_vector_dim")
	}
	nIdx := 1
	if int(g.indexVectorDim) < irank {
		nIdx = int(indicesType.Shape[g.indexVectorDim])
	}
	if len(g.startIndexMap) != nIdx || checkAxes(g.startIndexMap, orank, "start_index_map") != nil ||
		checkAxes(g.offsetDims, len(rt.Shape), "offset_dims") != nil ||
		checkAxes(append(append([]int64(nil), g.collapsed...), g.operandBatch...), orank, "collapsed dims") != nil ||
		len(g.operandBatch) != len(g.indicesBatch) {
		return gatherPlan{}, invalidf("bad gather dimension numbers")
	}
	var batchDims []int
	for d := range rt.Shape {
		if !containsInt(g.offsetDims, int64(d)) {
			batchDims = append(batchDims, d)
		}
	}
	var offsetOperandDims []int
	for d := 0; d < orank; d++ {
		if !containsInt(g.collapsed, int64(d)) && !containsInt(g.operandBatch, int64(d)) {
			offsetOperandDims = append(offsetOperandDims, d)
		}
	}
	if len(offsetOperandDims) != len(g.offsetDims) || len(batchDims) != irank-boolToInt(int(g.indexVectorDim) < irank) {
		return gatherPlan{}, invalidf("gather result %s does not match the dimension numbers", rt)
	}
	for i, d := range offsetOperandDims {
		if rt.Shape[g.offsetDims[i]] > sizes[d] {
			return gatherPlan{}, invalidf("gather result %s does not match slice_sizes", rt)
		}
	}
	for j, d := range batchDims {
		if rt.Shape[d] != indicesType.Shape[dimSkipping(j, g.indexVectorDim)] {
			return gatherPlan{}, invalidf("gather result %s does not match the indices' batch dimensions %v", rt, indicesType.Shape)
		}
	}
	return gatherPlan{g: g, sizes: sizes, batchDims: batchDims, offsetOperandDims: offsetOperandDims, nIdx: nIdx, result: rt}, nil
}

// gatherElements computes a gather element by element, as the spec defines it.
func (ev *evaluator) gatherElements(p gatherPlan, operand, indices *array) (*array, error) {
	g := p.g
	out := newArray(p.result)
	ost := strides(operand.t.Shape)
	bi := make([]int64, len(p.batchDims))
	full := make([]int64, len(operand.t.Shape))
	startBuf := make([]int64, p.nIdx)
	indexStrides := strides(indices.t.Shape)
	k := 0
	err := ev.forEach(p.result.Shape, func(ri []int64) {
		for j, d := range p.batchDims {
			bi[j] = ri[d]
		}
		start := indexVector(startBuf, indices, indexStrides, bi, g.indexVectorDim)
		clear(full)
		for i, d := range g.startIndexMap {
			full[d] = min(max(start[i], 0), operand.t.Shape[d]-p.sizes[d])
		}
		for i, d := range g.operandBatch {
			full[d] += bi[batchDimOf(g.indicesBatch[i], g.indexVectorDim)]
		}
		for i, d := range p.offsetOperandDims {
			full[d] += ri[g.offsetDims[i]]
		}
		pos := 0
		for d := range full {
			pos += int(full[d]) * ost[d]
		}
		copyElem(out, k, operand, pos)
		k++
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// dimSkipping maps batch position j to the indices dimension, skipping ivd.
func dimSkipping(j int, ivd int64) int {
	if int64(j) < ivd {
		return j
	}
	return j + 1
}

func boolToInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// batchesFirst reports whether a gather's batch dimensions are the result's
// leading ones, so that each batch position's slice is one block of the result.
func batchesFirst(batchDims []int) bool {
	for j, d := range batchDims {
		if d != j {
			return false
		}
	}
	return true
}

// gatherBlocks computes a gather whose batch dimensions lead the result and
// whose index vectors are the indices' innermost dimension (jnp.take,
// x[i], embedding lookups, vmapped lookups): batch position b's start index
// vector is indices[b*nIdx:], and its slice, one strided block of the
// operand, is copied in runs. It polls ev's context every few thousand
// positions.
func (ev *evaluator) gatherBlocks(p gatherPlan, operand, indices *array) (*array, error) {
	g, out := p.g, newArray(p.result)
	nb := len(p.batchDims)
	batchShape, blockShape := out.t.Shape[:nb], out.t.Shape[nb:]
	ost := strides(operand.t.Shape)
	blockStep := make([]int, len(p.offsetOperandDims))
	block := 1
	for i, d := range p.offsetOperandDims {
		blockStep[i] = ost[d]
		block *= int(blockShape[i])
	}
	if block == 1 && len(g.startIndexMap) == 1 && len(g.operandBatch) == 0 && indices.t.Elem.class() == classInt {
		d := g.startIndexMap[0]
		return out, ev.lookup(out, operand, indices.i, p.nIdx, operand.t.Shape[d]-p.sizes[d], ost[d])
	}
	bi := make([]int64, nb)
	for b := range int(out.t.NumElements()) / max(block, 1) {
		if b%4096 == 0 {
			if err := ev.ctx.Err(); err != nil {
				return nil, err
			}
		}
		pos := 0
		for i, d := range g.startIndexMap {
			start := indices.intAt(b*p.nIdx + i)
			pos += int(min(max(start, 0), operand.t.Shape[d]-p.sizes[d])) * ost[d]
		}
		for i, d := range g.operandBatch {
			pos += int(bi[batchDimOf(g.indicesBatch[i], g.indexVectorDim)]) * ost[d]
		}
		if block == 1 {
			copyElem(out, b, operand, pos)
		} else {
			copyStrided(out, b*block, operand, blockShape, blockStep, pos)
		}
		for d := nb - 1; d >= 0; d-- {
			if bi[d]++; bi[d] < batchShape[d] {
				break
			}
			bi[d] = 0
		}
	}
	return out, nil
}

// lookup is gatherBlocks for single elements picked by one index each
// (jnp.take of a vector, searchsorted's probes): out[b] = operand[clamp(
// idx[b*nIdx]) * stride], in typed loops, polling ev's context between
// chunks.
func (ev *evaluator) lookup(out, operand *array, idx []int64, nIdx int, hi int64, stride int) error {
	n := out.size()
	for lo := 0; lo < n; lo += 1 << 16 {
		if err := ev.ctx.Err(); err != nil {
			return err
		}
		hiB := min(lo+1<<16, n)
		switch operand.t.Elem.class() {
		case classF32:
			lookupRange(out.f32, operand.f32, idx, nIdx, hi, stride, lo, hiB)
		case classF64:
			lookupRange(out.f64, operand.f64, idx, nIdx, hi, stride, lo, hiB)
		case classInt:
			lookupRange(out.i, operand.i, idx, nIdx, hi, stride, lo, hiB)
		case classUint:
			lookupRange(out.u, operand.u, idx, nIdx, hi, stride, lo, hiB)
		case classComplex:
			lookupRange(out.c, operand.c, idx, nIdx, hi, stride, lo, hiB)
		default:
			lookupRange(out.b, operand.b, idx, nIdx, hi, stride, lo, hiB)
		}
	}
	return nil
}

func lookupRange[T any](dst, src []T, idx []int64, nIdx int, hi int64, stride, lo, end int) {
	for b := lo; b < end; b++ {
		dst[b] = src[int(min(max(idx[b*nIdx], 0), hi))*stride]
	}
}

func evalScatter(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	n := (len(in) - 1) / 2
	if n == 0 || len(in) != 2*n+1 || len(op.regions) != 1 {
		return nil, invalidf("scatter needs N inputs, indices, N updates and a body")
	}
	inputs, indices, updates := in[:n], in[n], in[n+1:]
	g, err := readScatterDims(op)
	if err != nil {
		return nil, err
	}
	uwd, iwd, ibd, sibd, sdod, ivd := g.offsetDims, g.collapsed, g.operandBatch, g.indicesBatch, g.startIndexMap, g.indexVectorDim
	shape := inputs[0].t.Shape
	orank := len(shape)
	irank := len(indices.t.Shape)
	if ivd < 0 || int(ivd) > irank || len(ibd) != len(sibd) {
		return nil, invalidf("bad scatter dimension numbers")
	}
	nIdx := 1
	if int(ivd) < irank {
		nIdx = int(indices.t.Shape[ivd])
	}
	if len(sdod) != nIdx || checkAxes(sdod, orank, "scatter_dims_to_operand_dims") != nil ||
		checkAxes(append(append([]int64(nil), iwd...), ibd...), orank, "inserted dims") != nil {
		return nil, invalidf("bad scatter dimension numbers")
	}
	var windowOperandDims []int
	for d := 0; d < orank; d++ {
		if !containsInt(iwd, int64(d)) && !containsInt(ibd, int64(d)) {
			windowOperandDims = append(windowOperandDims, d)
		}
	}
	ushape := updates[0].t.Shape
	if len(windowOperandDims) != len(uwd) || checkAxes(uwd, len(ushape), "update_window_dims") != nil {
		return nil, invalidf("scatter updates do not match the dimension numbers")
	}
	var scatterDims []int
	for d := range ushape {
		if !containsInt(uwd, int64(d)) {
			scatterDims = append(scatterDims, d)
		}
	}
	if len(scatterDims) != irank-boolToInt(int(ivd) < irank) {
		return nil, invalidf("scatter updates do not match the indices")
	}
	results := make([]*array, n)
	for i := 0; i < n; i++ {
		if !shapesEqual(inputs[i].t.Shape, shape) || !shapesEqual(updates[i].t.Shape, ushape) {
			return nil, invalidf("scatter operand shapes do not match")
		}
		// Written in place when the input dies here: a loop setting one
		// element a step (x.at[i].set(v)) would otherwise copy all of x
		// every iteration.
		if ownsOperand(op, in, i) {
			c := *inputs[i]
			results[i] = &c
		} else {
			results[i] = inputs[i].clone()
		}
	}
	body := op.regions[0]
	// A body returning its second argument is plain assignment (x.at[i].set).
	assign := len(body.ops) == 0 && n == 1 && len(body.rets) == 1 && len(body.args) == 2 && body.rets[0] == body.args[1]
	var red *reducer
	if !assign {
		if red, err = newReducer(ev, body, n); err != nil {
			return nil, err
		}
	}
	// XLA drops a whole update window when it does not fit in the operand,
	// rather than clipping it element by element.
	winSize := make([]int64, orank)
	for d := range winSize {
		winSize[d] = 1
	}
	for i, d := range windowOperandDims {
		winSize[d] = ushape[uwd[i]]
	}
	// Each scatter index (a position of the updates' scatter dimensions)
	// places one window; the window's last dimension, where it is the last
	// of both the operand and the updates, is a run of contiguous elements
	// on both sides. Contributions to one element keep the updates'
	// row-major order.
	st, ust := strides(shape), strides(ushape)
	scatterShape := make([]int64, len(scatterDims))
	for j, d := range scatterDims {
		scatterShape[j] = ushape[d]
	}
	windowShape := make([]int64, len(uwd))
	for i, d := range uwd {
		windowShape[i] = ushape[d]
	}
	run := 1
	if last := len(uwd) - 1; last >= 0 && windowOperandDims[last] == orank-1 && int(uwd[last]) == len(ushape)-1 {
		run = int(windowShape[last])
		windowShape = windowShape[:last]
	}
	full := make([]int64, orank)
	startBuf := make([]int64, nIdx)
	indexStrides := strides(indices.t.Shape)
	var ferr error
	err = ev.forEach(scatterShape, func(si []int64) {
		if ferr != nil {
			return
		}
		u0 := 0
		for j, d := range scatterDims {
			if si[j] >= indices.t.Shape[dimSkipping(j, ivd)] {
				ferr = invalidf("scatter index out of range")
				return
			}
			u0 += int(si[j]) * ust[d]
		}
		start := indexVector(startBuf, indices, indexStrides, si, ivd)
		clear(full)
		for i, d := range sdod {
			full[d] = start[i]
		}
		for i, d := range ibd {
			full[d] += si[batchDimOf(sibd[i], ivd)]
		}
		p0 := 0
		for d := 0; d < orank; d++ {
			if full[d] < 0 || full[d]+winSize[d] > shape[d] {
				return // the window does not fit: skipped
			}
			p0 += int(full[d]) * st[d]
		}
		walkIndex(windowShape, func(w []int64) bool {
			p, k := p0, u0
			for i, x := range w {
				p += int(x) * st[windowOperandDims[i]]
				k += int(x) * ust[uwd[i]]
			}
			if assign {
				copyRun(results[0], p, updates[0], k, run)
				return true
			}
			ferr = red.foldRun(results, p, updates, k, run)
			return ferr == nil
		})
	})
	if err != nil {
		return nil, err
	}
	if ferr != nil {
		return nil, ferr
	}
	return results, nil
}
