package stablehlo

// Data-movement ops. Each computes, for every result element, the linear
// index of its source element and lets take copy the data.

func evalConstant(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if op.constant != nil {
		return ev.one(op.constant), nil
	}
	a := op.attrs["value"]
	if a == nil || a.Kind != AttrDense {
		return nil, unimplementedf("only dense constants are supported")
	}
	out, err := denseArray(a, op.resultTypes[0])
	if err != nil {
		return nil, err
	}
	return ev.one(out), nil
}

func evalIota(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	t := op.resultTypes[0]
	dim, err := op.int1("iota_dimension", "dim")
	if err != nil {
		return nil, err
	}
	if dim < 0 || int(dim) >= len(t.Shape) {
		return nil, invalidf("iota dimension %d out of range", dim)
	}
	out := newArray(t)
	inner, length := strides(t.Shape)[dim], int(t.Shape[dim])
	switch out.t.Elem.class() {
	case classInt:
		iotaFill(out.i, length, inner)
	case classUint:
		iotaFill(out.u, length, inner)
	case classF32:
		iotaFill(out.f32, length, inner)
	case classF64:
		iotaFill(out.f64, length, inner)
	default:
		for k := range out.size() {
			setInteger(out, k, int64((k/inner)%length))
		}
	}
	out.normalize()
	return ev.one(out), nil
}

// iotaFill sets dst, row-major, to the index along a dimension of length
// elements whose index steps every inner elements.
func iotaFill[T int64 | uint64 | float32 | float64](dst []T, length, inner int) {
	for k := 0; k < len(dst); {
		for d := range length {
			v := T(d)
			for j := range dst[k : k+inner] {
				dst[k+j] = v
			}
			k += inner
		}
	}
}

func evalBroadcastInDim(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	a, t := in[0], op.resultTypes[0]
	dims, err := op.ints("broadcast_dimensions", "dims")
	if err != nil {
		return nil, err
	}
	if len(dims) != len(a.t.Shape) {
		return nil, invalidf("broadcast_dimensions %v do not match operand rank %d", dims, len(a.t.Shape))
	}
	for i, d := range dims {
		if d < 0 || int(d) >= len(t.Shape) || (a.t.Shape[i] != 1 && a.t.Shape[i] != t.Shape[d]) {
			return nil, invalidf("cannot broadcast %s to %s with dims %v", a.t, t, dims)
		}
	}
	if a.t.Elem != t.Elem {
		return nil, invalidf("broadcast changes the element type")
	}
	if a.size() == 1 {
		return ev.one(broadcastScalar(a, t)), nil
	}
	if a.size() > 0 && trailingInOrder(dims, a.t.Shape, t.Shape) {
		// The operand is the result's innermost block: repeat it whole.
		return ev.one(repeatArray(a, t, int(t.NumElements())/a.size())), nil
	}
	src := strides(a.t.Shape)
	// step[d] is how far the source index moves when result dim d moves.
	step := make([]int, len(t.Shape))
	for i, d := range dims {
		if a.t.Shape[i] != 1 {
			step[d] = src[i]
		}
	}
	return ev.one(takeStrided(a, t, t.Shape, step, 0)), nil
}

// trailingInOrder reports whether the operand's dimensions are the result's
// last ones, in order and of the same sizes, so that the result is copies of
// the operand one after another.
func trailingInOrder(dims []int64, from, to []int64) bool {
	lead := len(to) - len(from)
	for i, d := range dims {
		if int(d) != lead+i || from[i] != to[d] {
			return false
		}
	}
	return true
}

// mapIndices returns, for every multi-index of shape in row-major order,
// base + sum(idx[d] * step[d]).
func mapIndices(shape []int64, step []int, base int) []int {
	n := 1
	for _, d := range shape {
		n *= int(d)
	}
	idx := make([]int, 0, n)
	forEachRun(shape, step, base, func(_, pos, n, s int) {
		for range n {
			idx = append(idx, pos)
			pos += s
		}
	})
	return idx
}

func evalReshape(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	t := op.resultTypes[0]
	if in[0].t.NumElements() != t.NumElements() || in[0].t.Elem != t.Elem {
		return nil, invalidf("cannot reshape %s to %s", in[0].t, t)
	}
	return ev.one(in[0].withType(t)), nil
}

func evalTranspose(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	a, t := in[0], op.resultTypes[0]
	perm, err := op.ints("permutation", "dims")
	if err != nil {
		return nil, err
	}
	if err := checkAxes(perm, len(a.t.Shape), "permutation"); err != nil || len(perm) != len(a.t.Shape) {
		return nil, invalidf("bad permutation %v", perm)
	}
	return ev.one(transposeArray(a, perm, t)), nil
}

func transposeArray(a *array, perm []int64, t TensorType) *array {
	src := strides(a.t.Shape)
	shape := make([]int64, len(perm))
	step := make([]int, len(perm))
	for i, p := range perm {
		shape[i] = a.t.Shape[p]
		step[i] = src[p]
	}
	t.Shape = shape
	return takeStrided(a, t, shape, step, 0)
}

func evalSlice(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	a, t := in[0], op.resultTypes[0]
	start, err := op.ints("start_indices")
	if err != nil {
		return nil, err
	}
	limit, err := op.ints("limit_indices")
	if err != nil {
		return nil, err
	}
	stride, err := op.optInts("strides")
	if err != nil {
		return nil, err
	}
	rank := len(a.t.Shape)
	if len(start) != rank || len(limit) != rank || (stride != nil && len(stride) != rank) {
		return nil, invalidf("slice bounds do not match rank %d", rank)
	}
	src := strides(a.t.Shape)
	shape := make([]int64, rank)
	step := make([]int, rank)
	base := 0
	for d := 0; d < rank; d++ {
		s := int64(1)
		if stride != nil {
			s = stride[d]
		}
		if s <= 0 || start[d] < 0 || limit[d] < start[d] || limit[d] > a.t.Shape[d] {
			return nil, invalidf("bad slice [%d:%d:%d] of dimension %d", start[d], limit[d], s, a.t.Shape[d])
		}
		shape[d] = (limit[d] - start[d] + s - 1) / s
		step[d] = src[d] * int(s)
		base += int(start[d]) * src[d]
	}
	if !shapesEqual(shape, t.Shape) {
		return nil, invalidf("slice result shape %v does not match %s", shape, t)
	}
	return ev.one(takeStrided(a, t, shape, step, base)), nil
}

func shapesEqual(a, b []int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// windowStart reads scalar start indices and clamps them so that a window
// of size sizes fits in shape, as dynamic_slice and dynamic_update_slice
// do. It returns shape's row-major strides and the flat index of the
// window's first element.
func windowStart(idx []*array, shape, sizes []int64) (stride []int, base int, err error) {
	if len(idx) != len(shape) {
		return nil, 0, invalidf("got %d start indices for rank %d", len(idx), len(shape))
	}
	stride = strides(shape)
	for d, a := range idx {
		if c := a.t.Elem.class(); a.size() != 1 || c == classF32 || c == classF64 || c == classComplex {
			return nil, 0, invalidf("start index %d must be an integer scalar", d)
		}
		if sizes[d] < 0 || sizes[d] > shape[d] {
			return nil, 0, invalidf("size %d exceeds dimension %d", sizes[d], shape[d])
		}
		base += int(min(max(a.intAt(0), 0), shape[d]-sizes[d])) * stride[d]
	}
	return stride, base, nil
}

func evalDynamicSlice(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	a, t := in[0], op.resultTypes[0]
	sizes, err := op.ints("slice_sizes", "sizes")
	if err != nil {
		return nil, err
	}
	if len(sizes) != len(a.t.Shape) || !shapesEqual(sizes, t.Shape) {
		return nil, invalidf("slice sizes %v do not match %s", sizes, t)
	}
	src, base, err := windowStart(in[1:], a.t.Shape, sizes)
	if err != nil {
		return nil, err
	}
	return ev.one(takeStrided(a, t, sizes, src, base)), nil
}

func evalDynamicUpdateSlice(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) < 2 {
		return nil, invalidf("dynamic_update_slice needs an operand and an update")
	}
	a, upd := in[0], in[1]
	if a.t.Elem != upd.t.Elem || len(upd.t.Shape) != len(a.t.Shape) {
		return nil, invalidf("update %s does not fit %s", upd.t, a.t)
	}
	src, base, err := windowStart(in[2:], a.t.Shape, upd.t.Shape)
	if err != nil {
		return nil, err
	}
	// Written in place when the operand dies here: a loop that fills a
	// buffer row by row would otherwise copy all of it every iteration.
	out := reusableOperand(op, in[:1])
	if out == nil {
		out = a.clone()
	}
	forEachRun(upd.t.Shape, src, base, func(k, pos, n, step int) {
		if step == 1 {
			copyRun(out, pos, upd, k, n)
			return
		}
		for j := range n {
			copyElem(out, pos+j*step, upd, k+j)
		}
	})
	return ev.one(out), nil
}

func evalConcatenate(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	dim, err := op.int1("dimension", "dim")
	if err != nil {
		return nil, err
	}
	out, err := concatArrays(in, dim, op.resultTypes[0])
	if err != nil {
		return nil, err
	}
	return ev.one(out), nil
}

// concatArrays joins parts along dim into a new array of type t.
func concatArrays(parts []*array, dim int64, t TensorType) (*array, error) {
	if len(parts) == 0 || dim < 0 || int(dim) >= len(t.Shape) {
		return nil, invalidf("bad concatenate dimension %d", dim)
	}
	// Every element is written below, or the operands do not fill t.
	out := newUninitializedArray(t)
	start := make([]int64, len(t.Shape))
	for _, a := range parts {
		if len(a.t.Shape) != len(t.Shape) || a.t.Elem != t.Elem {
			return nil, invalidf("operand %s does not fit %s", a.t, t)
		}
		for d := range t.Shape {
			if d != int(dim) && a.t.Shape[d] != t.Shape[d] {
				return nil, invalidf("operand %s does not fit %s", a.t, t)
			}
		}
		if start[dim]+a.t.Shape[dim] > t.Shape[dim] {
			return nil, invalidf("operands overflow %s", t)
		}
		placeBlock(out, start, a)
		start[dim] += a.t.Shape[dim]
	}
	if start[dim] != t.Shape[dim] {
		return nil, invalidf("operands do not fill %s", t)
	}
	return out, nil
}

// splitParts cuts a into n equal parts along dim, viewing a's storage when
// the parts are contiguous.
func splitParts(a *array, dim int64, n int) ([]*array, error) {
	shape := a.t.Shape
	if dim < 0 || int(dim) >= len(shape) || n <= 0 || shape[dim]%int64(n) != 0 {
		return nil, invalidf("dimension %d of %s does not split into %d parts", dim, a.t, n)
	}
	pt := TensorType{Elem: a.t.Elem, Shape: append([]int64(nil), shape...)}
	pt.Shape[dim] /= int64(n)
	contiguous := true
	for _, d := range shape[:dim] {
		contiguous = contiguous && d == 1
	}
	src := strides(shape)
	size := int(pt.NumElements())
	parts := make([]*array, n)
	for j := range parts {
		if contiguous {
			parts[j] = flat(a, j*size, (j+1)*size)
			parts[j].t = pt
			continue
		}
		parts[j] = takeStrided(a, pt, pt.Shape, src, j*int(pt.Shape[dim])*src[dim])
	}
	return parts, nil
}

// sliceBlock copies a[start:limit] (unit strides) into a new array.
func sliceBlock(a *array, start, limit []int64) *array {
	src := strides(a.t.Shape)
	t := TensorType{Elem: a.t.Elem, Shape: make([]int64, len(start))}
	base := 0
	for d := range start {
		t.Shape[d] = limit[d] - start[d]
		base += int(start[d]) * src[d]
	}
	out := newArray(t)
	forEachRow(t.Shape, src, base, func(at, k, n int) { copyRun(out, k, a, at, n) })
	return out
}

// placeBlock copies block into dst at start.
func placeBlock(dst *array, start []int64, block *array) {
	st := strides(dst.t.Shape)
	base := 0
	for d := range start {
		base += int(start[d]) * st[d]
	}
	forEachRow(block.t.Shape, st, base, func(at, k, n int) { copyRun(dst, at, block, k, n) })
}

// forEachRow walks a block of shape inside an array of strides st whose
// element base is the block's first: f gets each innermost row's first
// element in the array (at) and in the block (k), and its length n. Rows
// are contiguous in both, so block copies move whole rows.
func forEachRow(shape []int64, st []int, base int, f func(at, k, n int)) {
	rank := len(shape)
	if rank == 0 {
		f(base, 0, 1)
		return
	}
	n := int(shape[rank-1])
	rows := 1
	for _, d := range shape {
		rows *= int(d)
	}
	if rows == 0 {
		return
	}
	rows /= n
	cur := make([]int64, rank-1)
	at := base
	for k := 0; k < rows; k++ {
		f(at, k*n, n)
		for d := rank - 2; d >= 0; d-- {
			cur[d]++
			at += st[d]
			if cur[d] < shape[d] {
				break
			}
			at -= int(shape[d]) * st[d]
			cur[d] = 0
		}
	}
}

// copyRun sets dst[di:di+n] = src[si:si+n] (same element class).
func copyRun(dst *array, di int, src *array, si, n int) {
	switch dst.t.Elem.class() {
	case classF32:
		copyPreemptible(dst.f32[di:di+n], src.f32[si:si+n])
	case classF64:
		copyPreemptible(dst.f64[di:di+n], src.f64[si:si+n])
	case classInt:
		copyPreemptible(dst.i[di:di+n], src.i[si:si+n])
	case classUint:
		copyPreemptible(dst.u[di:di+n], src.u[si:si+n])
	case classComplex:
		copyPreemptible(dst.c[di:di+n], src.c[si:si+n])
	default:
		copyPreemptible(dst.b[di:di+n], src.b[si:si+n])
	}
}

func evalPad(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	a, pv, t := in[0], in[1], op.resultTypes[0]
	low, err := op.ints("edge_padding_low", "low")
	if err != nil {
		return nil, err
	}
	high, err := op.ints("edge_padding_high", "high")
	if err != nil {
		return nil, err
	}
	interior, err := op.ints("interior_padding", "interior")
	if err != nil {
		return nil, err
	}
	rank := len(a.t.Shape)
	if len(low) != rank || len(high) != rank || len(interior) != rank || pv.size() != 1 {
		return nil, invalidf("padding does not match rank %d", rank)
	}
	if a.t.Elem != t.Elem || pv.t.Elem != t.Elem {
		return nil, invalidf("pad of %s with %s to %s changes the element type", a.t, pv.t, t)
	}
	for d := 0; d < rank; d++ {
		n := a.t.Shape[d]
		want := low[d] + high[d] + n
		if n > 0 {
			want += (n - 1) * interior[d]
		}
		if interior[d] < 0 || d >= len(t.Shape) || want != t.Shape[d] {
			return nil, invalidf("padding does not produce %s", t)
		}
	}
	out := broadcastScalar(pv, t)
	block := true // the operand is one block of the result
	for d := range rank {
		block = block && interior[d] == 0 && low[d] >= 0 && high[d] >= 0
	}
	if block {
		placeBlock(out, low, a)
		return ev.one(out), nil
	}
	dst := strides(t.Shape)
	k := 0
	forEachIndex(a.t.Shape, func(idx []int64) {
		p := 0
		inside := true
		for d := range idx {
			c := low[d] + idx[d]*(interior[d]+1)
			if c < 0 || c >= t.Shape[d] {
				inside = false
				break
			}
			p += int(c) * dst[d]
		}
		if inside {
			copyElem(out, p, a, k)
		}
		k++
	})
	return ev.one(out), nil
}

func evalReverse(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	a := in[0]
	dims, err := op.ints("dimensions", "dims")
	if err != nil {
		return nil, err
	}
	if err := checkAxes(dims, len(a.t.Shape), "dimensions"); err != nil {
		return nil, err
	}
	src := strides(a.t.Shape)
	step := append([]int(nil), src...)
	base := 0
	for _, d := range dims {
		step[d] = -src[d]
		base += int(a.t.Shape[d]-1) * src[d]
	}
	return ev.one(takeStrided(a, a.t, a.t.Shape, step, base)), nil
}

func evalIdentity(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != len(op.resultTypes) {
		return nil, invalidf("%d operands for %d results", len(in), len(op.resultTypes))
	}
	return append([]*array(nil), in...), nil
}
