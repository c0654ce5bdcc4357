package stablehlo

// dot_general and dot. Operands are converted to the result element type,
// transposed to [batch, free, contract] and [batch, contract, free], then
// multiplied by a cache-friendly i-k-j loop over typed slices.

type dotDims struct {
	lhsBatch, rhsBatch, lhsContract, rhsContract []int64
}

func dotDimensions(op *operation) (dotDims, error) {
	var d dotDims
	if a := op.attrs["dot_dimension_numbers"]; a != nil {
		var err error
		for _, f := range []struct {
			name string
			dst  *[]int64
		}{
			{"lhs_batching_dimensions", &d.lhsBatch}, {"rhs_batching_dimensions", &d.rhsBatch},
			{"lhs_contracting_dimensions", &d.lhsContract}, {"rhs_contracting_dimensions", &d.rhsContract},
		} {
			if *f.dst, err = dialectInts(a, f.name); err != nil {
				return d, err
			}
		}
		return d, nil
	}
	pair := func(name string) ([]int64, []int64, error) {
		a := op.attrs[name]
		if a == nil {
			return nil, nil, nil
		}
		if a.Kind != AttrList || len(a.List) != 2 {
			return nil, nil, invalidf("%s must be \"[...] x [...]\"", name)
		}
		l, ok1 := a.List[0].Ints()
		r, ok2 := a.List[1].Ints()
		if !ok1 || !ok2 {
			return nil, nil, invalidf("%s must list integers", name)
		}
		return l, r, nil
	}
	var err error
	if d.lhsBatch, d.rhsBatch, err = pair("batching_dims"); err != nil {
		return d, err
	}
	d.lhsContract, d.rhsContract, err = pair("contracting_dims")
	return d, err
}

func evalDot(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 2 {
		return nil, invalidf("dot needs 2 operands")
	}
	lr := len(in[0].t.Shape)
	if lr < 1 || lr > 2 || len(in[1].t.Shape) < 1 || len(in[1].t.Shape) > 2 {
		return nil, invalidf("dot needs rank-1 or rank-2 operands")
	}
	d := dotDims{lhsContract: []int64{int64(lr - 1)}, rhsContract: []int64{0}}
	return dotGeneral(in[0], in[1], d, op.resultTypes[0])
}

func evalDotGeneral(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 2 {
		return nil, invalidf("dot_general needs 2 operands")
	}
	d, err := dotDimensions(op)
	if err != nil {
		return nil, err
	}
	return dotGeneral(in[0], in[1], d, op.resultTypes[0])
}

func dotGeneral(lhs, rhs *array, d dotDims, rt TensorType) ([]*array, error) {
	lrank, rrank := len(lhs.t.Shape), len(rhs.t.Shape)
	if len(d.lhsBatch) != len(d.rhsBatch) || len(d.lhsContract) != len(d.rhsContract) {
		return nil, invalidf("batching and contracting dimensions must pair up")
	}
	if err := checkAxes(append(append([]int64(nil), d.lhsBatch...), d.lhsContract...), lrank, "lhs dimensions"); err != nil {
		return nil, err
	}
	if err := checkAxes(append(append([]int64(nil), d.rhsBatch...), d.rhsContract...), rrank, "rhs dimensions"); err != nil {
		return nil, err
	}
	batch, contract := int64(1), int64(1)
	var outShape []int64
	for i := range d.lhsBatch {
		n := lhs.t.Shape[d.lhsBatch[i]]
		if n != rhs.t.Shape[d.rhsBatch[i]] {
			return nil, invalidf("batch dimension sizes differ")
		}
		batch *= n
		outShape = append(outShape, n)
	}
	for i := range d.lhsContract {
		n := lhs.t.Shape[d.lhsContract[i]]
		if n != rhs.t.Shape[d.rhsContract[i]] {
			return nil, invalidf("contracting dimension sizes differ")
		}
		contract *= n
	}
	lfree := freeDims(lrank, d.lhsBatch, d.lhsContract)
	rfree := freeDims(rrank, d.rhsBatch, d.rhsContract)
	m, n := int64(1), int64(1)
	for _, f := range lfree {
		m *= lhs.t.Shape[f]
		outShape = append(outShape, lhs.t.Shape[f])
	}
	for _, f := range rfree {
		n *= rhs.t.Shape[f]
		outShape = append(outShape, rhs.t.Shape[f])
	}
	if !shapesEqual(outShape, rt.Shape) {
		return nil, invalidf("result shape %v does not match %s", outShape, rt)
	}
	// Bring both operands to the result element type, then to the canonical
	// layouts; transposes are skipped when already in order.
	l := convertArray(lhs, TensorType{Elem: rt.Elem, Shape: lhs.t.Shape})
	r := convertArray(rhs, TensorType{Elem: rt.Elem, Shape: rhs.t.Shape})
	l = permuteIfNeeded(l, concatAxes(d.lhsBatch, lfree, d.lhsContract))
	r = permuteIfNeeded(r, concatAxes(d.rhsBatch, d.rhsContract, rfree))
	out := newArray(rt)
	B, M, N, K := int(batch), int(m), int(n), int(contract)
	switch rt.Elem.class() {
	case classF32:
		matmulF32(out.f32, l.f32, r.f32, B, M, N, K)
		roundNarrow(rt.Elem, out.f32)
	case classF64:
		matmul(out.f64, l.f64, r.f64, B, M, N, K)
	case classInt:
		matmul(out.i, l.i, r.i, B, M, N, K)
		out.normalize()
	case classUint:
		matmul(out.u, l.u, r.u, B, M, N, K)
		out.normalize()
	case classComplex:
		matmul(out.c, l.c, r.c, B, M, N, K)
		out.normalize()
	default:
		for b := 0; b < B; b++ {
			for i := 0; i < M; i++ {
				for j := 0; j < N; j++ {
					v := false
					for k := 0; k < K; k++ {
						v = v || (l.b[(b*M+i)*K+k] && r.b[(b*K+k)*N+j])
					}
					out.b[(b*M+i)*N+j] = v
				}
			}
		}
	}
	return []*array{out}, nil
}

// matmul computes out[b,i,j] = sum_k l[b,i,k] * r[b,k,j], splitting rows
// across goroutines when the product is large.
func matmul[T float32 | float64 | int64 | uint64 | complex128](out, l, r []T, B, M, N, K int) {
	forRowRanges(B*M, N*K, func(lo, hi int) { matmulRows(out, l, r, M, N, K, lo, hi) })
}

// forRowRanges runs f(lo, hi) over [0, rows) of a product costing
// perRow multiply-adds a row: at once when small, else split across
// goroutines in whole rows.
func forRowRanges(rows, perRow int, f func(lo, hi int)) {
	if rows*perRow < 1<<18 {
		f(0, rows)
		return
	}
	// parallelFor splits element ranges; scale so each chunk is whole rows.
	parallelFor(rows*parallelMin, func(lo, hi int) { f(lo/parallelMin, hi/parallelMin) })
}

// matmulRows computes output rows [lo, hi) of the flattened [B*M, N] result
// with an i-k-j loop, which streams through r and out contiguously.
func matmulRows[T float32 | float64 | int64 | uint64 | complex128](out, l, r []T, M, N, K, lo, hi int) {
	for row := lo; row < hi; row++ {
		b := row / M
		lrow := l[row*K : (row+1)*K]
		rb := r[b*K*N : (b+1)*K*N]
		orow := out[row*N : (row+1)*N]
		mulAddRows(orow, lrow, rb)
	}
}

// mulAddRows adds sum_k a[k] * r[k*N : (k+1)*N] to dst (N = len(dst)),
// adding the products to each element one k after another, as a loop over
// k would, but four rows of r per pass over dst. float32 rows go eight
// elements at a time where the processor can (mulAdd4F32), with the same
// roundings in the same order, so the same results.
func mulAddRows[T float32 | float64 | int64 | uint64 | complex128](dst, a, r []T) {
	N := len(dst)
	f, ok := any(dst).([]float32)
	if !ok || !haveAVX || N < 8 {
		mulAddStrided(dst, a, r, N)
		return
	}
	af, rf := any(a).([]float32), any(r).([]float32)
	quads, lanes := len(af)&^3, N&^7
	for k := 0; k < quads; k += 4 {
		w := [4]float32{af[k], af[k+1], af[k+2], af[k+3]}
		mulAdd4F32(&f[0], &rf[k*N], &rf[(k+1)*N], &rf[(k+2)*N], &rf[(k+3)*N], N, &w)
	}
	// The last N%8 elements of those rows, then the last len(a)%4 rows.
	if quads > 0 {
		mulAddStrided(f[lanes:], af[:quads], rf[lanes:], N)
	}
	mulAddStrided(f, af[quads:], rf[quads*N:], N)
}

// mulAddStrided adds sum_k a[k] * r[k*stride : k*stride+len(dst)] to dst,
// one k after another. The conversions round every product and sum, so a
// build that would fuse them into multiply-adds (GOAMD64=v3) gets the same
// bits as mulAdd4F32.
func mulAddStrided[T float32 | float64 | int64 | uint64 | complex128](dst, a, r []T, stride int) {
	n, k := len(dst), 0
	for ; k+4 <= len(a); k += 4 {
		a0, a1, a2, a3 := a[k], a[k+1], a[k+2], a[k+3]
		r0 := r[k*stride : k*stride+n]
		r1 := r[(k+1)*stride : (k+1)*stride+n]
		r2 := r[(k+2)*stride : (k+2)*stride+n]
		r3 := r[(k+3)*stride : (k+3)*stride+n]
		for j := range dst {
			v := dst[j]
			v = T(v + T(a0*r0[j]))
			v = T(v + T(a1*r1[j]))
			v = T(v + T(a2*r2[j]))
			v = T(v + T(a3*r3[j]))
			dst[j] = v
		}
	}
	for ; k < len(a); k++ {
		ak, rk := a[k], r[k*stride:k*stride+n]
		for j := range dst {
			dst[j] = T(dst[j] + T(ak*rk[j]))
		}
	}
}

// dotBlock is how many products matmulF32 sums in float32 before it adds
// them to a float64 total.
const dotBlock = 64

// matmulF32 sets out to the float32 product of l and r. A float32 running
// sum over K products drifts by about K ulps (1e-5 relative at K = 65,536,
// where XLA's blocked sums stay near 3e-7), so each run of dotBlock
// products is summed in float32 and the runs are added in float64. Over K
// <= dotBlock that is the plain float32 sum: float64 holds the one run's
// sum exactly.
func matmulF32(out, l, r []float32, B, M, N, K int) {
	forRowRanges(B*M, N*K, func(lo, hi int) { matmulF32Rows(out, l, r, M, N, K, lo, hi) })
}

// matmulF32Rows computes output rows [lo, hi) of matmulF32. Where the
// processor can, rows of one batch go four at a time and their first
// columns sixteen at a time, each 4×16 block summed over all of K in
// registers (runs4x16F32); panelColumns columns of r are done for every row
// before the next, so that they stay in cache. The other rows and columns
// go one row at a time (rowRuns). Both sum each run in the same order.
func matmulF32Rows(out, l, r []float32, M, N, K, lo, hi int) {
	const panelColumns = 64
	if lo >= hi { // no rows (M may be 0)
		return
	}
	var block [4 * 16]float64
	wide := make([]float64, N)
	part := make([]float32, N)
	for b := lo / M; b*M < hi; b++ {
		first, last := max(lo, b*M), min(hi, (b+1)*M)
		rb := r[b*K*N : (b+1)*K*N]
		quads, n16 := first, 0 // rows [first, quads) and columns [0, n16) go by blocks
		if haveAVX && K > 0 && N >= 16 {
			quads, n16 = first+(last-first)&^3, N&^15
		}
		for p := 0; p < n16; p += panelColumns {
			for row := first; row < quads; row += 4 {
				for j := p; j < min(p+panelColumns, n16); j += 16 {
					clear(block[:])
					runs4x16F32(&block[0], 16, &l[row*K], K, &rb[j], N, K)
					for i := range 4 {
						o := out[(row+i)*N+j : (row+i)*N+j+16]
						for c, x := range block[i*16 : i*16+16] {
							o[c] = float32(x)
						}
					}
				}
			}
		}
		for row := first; row < last; row++ {
			from := 0
			if row < quads {
				from = n16
			}
			if from < N {
				rowRuns(out[row*N+from:(row+1)*N], l[row*K:(row+1)*K], rb, N, from, wide, part)
			}
		}
	}
}

// rowRuns sets out to columns [from, N) of lrow's product with rb (rows N
// apart), as matmulF32 sums them; wide and part are scratch of N.
func rowRuns(out, lrow, rb []float32, N, from int, wide []float64, part []float32) {
	w, p := wide[:len(out)], part[:len(out)]
	clear(w)
	for k0 := 0; k0 < len(lrow); k0 += dotBlock {
		k1 := min(len(lrow), k0+dotBlock)
		clear(p)
		if from == 0 {
			mulAddRows(p, lrow[k0:k1], rb[k0*N:k1*N])
		} else {
			mulAddStrided(p, lrow[k0:k1], rb[k0*N+from:], N)
		}
		for j, v := range p {
			w[j] += float64(v)
		}
	}
	for j, x := range w {
		out[j] = float32(x)
	}
}

func freeDims(rank int, batch, contract []int64) []int64 {
	var out []int64
	for i := 0; i < rank; i++ {
		if !containsInt(batch, int64(i)) && !containsInt(contract, int64(i)) {
			out = append(out, int64(i))
		}
	}
	return out
}

func concatAxes(parts ...[]int64) []int64 {
	var out []int64
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func permuteIfNeeded(a *array, perm []int64) *array {
	for i, p := range perm {
		if p != int64(i) {
			return transposeArray(a, perm, a.t)
		}
	}
	return a
}
