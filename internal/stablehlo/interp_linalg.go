package stablehlo

import "math"

// Dense linear algebra: stablehlo.triangular_solve and the LAPACK custom
// calls JAX's CPU lowering emits for jax.scipy.linalg.solve_triangular,
// jnp.linalg.cholesky and the LU-based jnp.linalg.solve/inv (trsm, potrf,
// getrf). Arrays are logical row-major [batch..., rows, cols]; the layouts
// the custom calls name only describe XLA's physical buffers. Arithmetic is
// done in float64, so f32 results can differ from LAPACK in the last bits.

// matrices views the trailing two dimensions of a float array as a batch
// of matrices holding float64 copies.
type matrices struct {
	batch, rows, cols int
	data              []float64
}

func toMatrices(a *array) (matrices, error) {
	rank := len(a.t.Shape)
	if rank < 2 || !a.t.Elem.isFloat() {
		return matrices{}, invalidf("expected a float matrix, got %s", a.t)
	}
	m := matrices{rows: int(a.t.Shape[rank-2]), cols: int(a.t.Shape[rank-1]), batch: 1}
	for _, d := range a.t.Shape[:rank-2] { // not size/(rows*cols): matrices may be empty
		m.batch *= int(d)
	}
	m.data = floatData(a)
	return m, nil
}

// floatData returns a float64 copy of a float array's elements.
func floatData(a *array) []float64 {
	out := make([]float64, a.size())
	if a.f64 != nil {
		copy(out, a.f64)
		return out
	}
	for i, x := range a.f32 {
		out[i] = float64(x)
	}
	return out
}

func (m matrices) at(b, i, j int) float64     { return m.data[(b*m.rows+i)*m.cols+j] }
func (m matrices) set(b, i, j int, v float64) { m.data[(b*m.rows+i)*m.cols+j] = v }

// toArray converts back to type t, rounding as t requires.
func (m matrices) toArray(t TensorType) *array {
	out := newArray(t)
	if out.f64 != nil {
		copy(out.f64, m.data)
		return out
	}
	for i, x := range m.data {
		out.f32[i] = float32(x)
	}
	roundNarrow(t.Elem, out.f32)
	return out
}

// triangularSolve solves op(a) x = b (leftSide) or x op(a) = b in place in
// b. Only the lower or upper triangle of a is read; unitDiag assumes ones
// on its diagonal; transpose applies op = transpose.
func triangularSolve(a, b matrices, leftSide, lower, unitDiag, transpose bool) error {
	n := a.rows
	if a.cols != n || a.batch != b.batch {
		return invalidf("triangular solve needs square matrices and matching batches")
	}
	if (leftSide && b.rows != n) || (!leftSide && b.cols != n) {
		return invalidf("triangular solve operand shapes do not match")
	}
	// op(a) is lower triangular when exactly one of lower/transpose holds.
	opLower := lower != transpose
	t := make([]float64, n*n)
	for bi := 0; bi < b.batch; bi++ {
		// t is op(a) restricted to the referenced triangle for a left
		// solve, its transpose for a right one: either way, row i of t holds
		// what the unknowns' row or element i is solved with, contiguous.
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				r, c := i, j
				if transpose != !leftSide {
					r, c = j, i
				}
				v := a.at(bi, r, c)
				switch {
				case r == c && unitDiag:
					v = 1
				case lower && r < c, !lower && r > c:
					v = 0
				}
				t[i*n+j] = v
			}
		}
		// Each unknown is its b less the known ones times their
		// coefficients, in ascending order of the known ones, then divided
		// by its diagonal coefficient; the unknowns are solved from the
		// first when op(a) is lower triangular (left) or upper (right).
		fromFirst := opLower == leftSide
		known := func(i, k int) bool { return (fromFirst && k < i) || (!fromFirst && k > i) }
		for step := 0; step < n; step++ {
			i := step
			if !fromFirst {
				i = n - 1 - step
			}
			ti := t[i*n : i*n+n]
			if leftSide { // op(a) x = b: row i of x from rows k of x
				xi := b.data[(bi*b.rows+i)*b.cols : (bi*b.rows+i+1)*b.cols]
				for k, tik := range ti {
					if known(i, k) {
						xk := b.data[(bi*b.rows+k)*b.cols : (bi*b.rows+k+1)*b.cols]
						for c := range xi {
							xi[c] -= tik * xk[c]
						}
					}
				}
				for c := range xi {
					xi[c] /= ti[i]
				}
				continue
			}
			for r := 0; r < b.rows; r++ { // x op(a) = b: element i of each row
				row := b.data[(bi*b.rows+r)*b.cols : (bi*b.rows+r+1)*b.cols]
				s := row[i]
				for k, tik := range ti {
					if known(i, k) {
						s -= row[k] * tik
					}
				}
				row[i] = s / ti[i]
			}
		}
	}
	return nil
}

func evalTriangularSolve(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	flag := func(name string) bool { v := op.attrs[name]; return v != nil && v.Kind == AttrBool && v.Bool }
	transpose := false
	if v := op.attrs["transpose_a"]; v != nil {
		switch enumWord(v) {
		case "TRANSPOSE", "ADJOINT": // adjoint equals transpose for real types
			transpose = true
		case "NO_TRANSPOSE", "":
		default:
			return nil, invalidf("bad transpose_a %q", v.Raw)
		}
	}
	if !in[1].t.Equal(op.resultTypes[0]) {
		return nil, invalidf("result type must equal b's type")
	}
	return solveTriangular(in[0], in[1], op.resultTypes[0], flag("left_side"), flag("lower"), flag("unit_diagonal"), transpose)
}

// solveTriangular is triangularSolve on arrays: it returns x of type t.
func solveTriangular(aIn, bIn *array, t TensorType, left, lower, unit, trans bool) ([]*array, error) {
	a, err := toMatrices(aIn)
	if err != nil {
		return nil, err
	}
	b, err := toMatrices(bIn)
	if err != nil {
		return nil, err
	}
	if err := triangularSolve(a, b, left, lower, unit, trans); err != nil {
		return nil, err
	}
	return []*array{b.toArray(t)}, nil
}

// lapackFlag reads a one-character LAPACK option such as uplo = 76 ('L').
func lapackFlag(op *operation, name string, def byte) byte {
	cfg := op.attrs["mhlo.backend_config"]
	if cfg == nil || cfg.Kind != AttrDict {
		return def
	}
	if v := cfg.Dict[name]; v != nil && v.Kind == AttrInt {
		return byte(v.Int)
	}
	return def
}

// evalLapackTrsm implements lapack_{s,d}trsm_ffi(a, b) with alpha = 1.
func evalLapackTrsm(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 2 || len(op.resultTypes) != 1 {
		return nil, invalidf("trsm takes a and b and returns x")
	}
	left := lapackFlag(op, "side", 'L') == 'L'
	lower := lapackFlag(op, "uplo", 'L') == 'L'
	unit := lapackFlag(op, "diag", 'N') == 'U'
	trans := lapackFlag(op, "trans_x", 'N') != 'N'
	return solveTriangular(in[0], in[1], op.resultTypes[0], left, lower, unit, trans)
}

// evalLapackPotrf implements lapack_{s,d}potrf_ffi(a) -> (factor, info):
// the Cholesky factor in the uplo triangle, the other triangle left as in
// a, and info > 0 naming the first leading minor that is not positive
// definite.
func evalLapackPotrf(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 || len(op.resultTypes) != 2 {
		return nil, invalidf("potrf takes a and returns the factor and info")
	}
	a, err := toMatrices(in[0])
	if err != nil {
		return nil, err
	}
	if a.rows != a.cols {
		return nil, invalidf("potrf needs square matrices")
	}
	lower := lapackFlag(op, "uplo", 'L') == 'L'
	n := a.rows
	info := newArray(op.resultTypes[1])
	if info.size() != a.batch {
		return nil, invalidf("potrf info must have one element per matrix")
	}
	// Work on the lower triangle; for 'U' read and write the transpose.
	get := func(b, i, j int) float64 {
		if lower {
			return a.at(b, i, j)
		}
		return a.at(b, j, i)
	}
	put := func(b, i, j int, v float64) {
		if lower {
			a.set(b, i, j, v)
		} else {
			a.set(b, j, i, v)
		}
	}
	for b := 0; b < a.batch; b++ {
		for j := 0; j < n; j++ {
			d := get(b, j, j)
			for k := 0; k < j; k++ {
				d -= get(b, j, k) * get(b, j, k)
			}
			if !(d > 0) {
				setInteger(info, b, int64(j+1))
				break
			}
			d = math.Sqrt(d)
			put(b, j, j, d)
			for i := j + 1; i < n; i++ {
				s := get(b, i, j)
				for k := 0; k < j; k++ {
					s -= get(b, i, k) * get(b, j, k)
				}
				put(b, i, j, s/d)
			}
		}
	}
	return []*array{a.toArray(op.resultTypes[0]), info}, nil
}

// evalLapackGetrf implements lapack_{s,d}getrf_ffi(a) -> (lu, pivots, info):
// LU factorization with partial pivoting as LAPACK computes it, pivots
// 1-based, info > 0 naming the first exactly-zero pivot.
func evalLapackGetrf(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 || len(op.resultTypes) != 3 {
		return nil, invalidf("getrf takes a and returns lu, pivots and info")
	}
	a, err := toMatrices(in[0])
	if err != nil {
		return nil, err
	}
	m, n := a.rows, a.cols
	k := min(m, n)
	pivots, info := newArray(op.resultTypes[1]), newArray(op.resultTypes[2])
	if pivots.size() != a.batch*k || info.size() != a.batch {
		return nil, invalidf("getrf pivot or info shapes do not match")
	}
	for b := 0; b < a.batch; b++ {
		row := func(i int) []float64 { return a.data[(b*m+i)*n : (b*m+i+1)*n] }
		for j := 0; j < k; j++ {
			p := j // first row with the largest magnitude, as LAPACK's i?amax
			for i := j + 1; i < m; i++ {
				if math.Abs(row(i)[j]) > math.Abs(row(p)[j]) {
					p = i
				}
			}
			setInteger(pivots, b*k+j, int64(p+1))
			rj := row(j)
			if p != j {
				rp := row(p)
				for c := range rj {
					rj[c], rp[c] = rp[c], rj[c]
				}
			}
			d := rj[j]
			if d == 0 {
				if info.intAt(b) == 0 {
					setInteger(info, b, int64(j+1))
				}
				continue
			}
			for i := j + 1; i < m; i++ {
				ri := row(i)
				l := ri[j] / d
				ri[j] = l
				for c := j + 1; c < n; c++ {
					ri[c] -= l * rj[c]
				}
			}
		}
	}
	return []*array{a.toArray(op.resultTypes[0]), pivots, info}, nil
}
