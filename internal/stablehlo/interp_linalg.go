package stablehlo

import (
	"math"
	"math/cmplx"
)

// Dense linear algebra: stablehlo.triangular_solve and the LAPACK custom
// calls JAX's CPU lowering emits for jax.scipy.linalg.solve_triangular,
// jnp.linalg.cholesky and the LU-based jnp.linalg.solve/inv (trsm, potrf,
// getrf), of real and complex matrices. Arrays are logical row-major
// [batch..., rows, cols]; the layouts the custom calls name only describe
// XLA's physical buffers. Arithmetic is done in float64 (complex128), so f32
// (complex64) results can differ from LAPACK in the last bits.

// scalar is the arithmetic of the linear algebra: float64 for real
// matrices, complex128 for complex ones.
type scalar interface{ float64 | complex128 }

// matBatch views the trailing two dimensions of an array as a batch of
// matrices holding float64 or complex128 copies.
type matBatch[T scalar] struct {
	batch, rows, cols int
	data              []T
}

// matrices is a batch of real matrices.
type matrices = matBatch[float64]

// toMatBatch copies a float array (T float64) or a complex one (complex128).
func toMatBatch[T scalar](a *array) (matBatch[T], error) {
	rank := len(a.t.Shape)
	var data []T
	ok := false
	switch d := any(&data).(type) {
	case *[]float64:
		if ok = a.t.Elem.isFloat(); ok {
			*d = floatData(a)
		}
	case *[]complex128:
		if ok = a.t.Elem.isComplex(); ok {
			*d = append([]complex128(nil), a.c...)
		}
	}
	if rank < 2 || !ok {
		return matBatch[T]{}, invalidf("expected a %s matrix, got %s", scalarKind[T](), a.t)
	}
	m := matBatch[T]{rows: int(a.t.Shape[rank-2]), cols: int(a.t.Shape[rank-1]), batch: 1, data: data}
	for _, d := range a.t.Shape[:rank-2] { // not size/(rows*cols): matrices may be empty
		m.batch *= int(d)
	}
	return m, nil
}

// scalarKind names T's matrices in messages.
func scalarKind[T scalar]() string {
	var z T
	if _, ok := any(z).(complex128); ok {
		return "complex"
	}
	return "float"
}

// vectorBatch reads a [batch..., k] array of T (the tau of QR, the diagonals
// of a tridiagonal matrix) as batch rows of k; what names it in messages.
func vectorBatch[T scalar](t *array, batch int, what string) (matBatch[T], error) {
	if len(t.t.Shape) < 1 {
		return matBatch[T]{}, invalidf("%s must be a vector per matrix, got %s", what, t.t)
	}
	k := int(t.t.Shape[len(t.t.Shape)-1])
	if t.size() != batch*k {
		return matBatch[T]{}, invalidf("%s %s does not match %d matrices", what, t.t, batch)
	}
	// Viewed as one matrix of rows k: toMatBatch checks the element type.
	view := *t
	view.t.Shape = []int64{int64(batch), int64(k)}
	m, err := toMatBatch[T](&view)
	if err != nil {
		return matBatch[T]{}, invalidf("%s must be a vector per matrix of the matrix's kind, got %s", what, t.t)
	}
	return matBatch[T]{batch: batch, rows: 1, cols: k, data: m.data}, nil
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

func (m matBatch[T]) at(b, i, j int) T     { return m.data[(b*m.rows+i)*m.cols+j] }
func (m matBatch[T]) set(b, i, j int, v T) { m.data[(b*m.rows+i)*m.cols+j] = v }

// toArray converts back to type t, rounding as t requires.
func (m matBatch[T]) toArray(t TensorType) *array {
	out := newArray(t)
	switch d := any(m.data).(type) {
	case []complex128:
		copy(out.c, d)
		out.normalize()
	case []float64:
		if out.f64 != nil {
			copy(out.f64, d)
			return out
		}
		for i, x := range d {
			out.f32[i] = float32(x)
		}
		roundNarrow(t.Elem, out.f32)
	}
	return out
}

// conj is x's complex conjugate; a real x itself.
func conj[T scalar](x T) T {
	if c, ok := any(x).(complex128); ok {
		return any(cmplx.Conj(c)).(T)
	}
	return x
}

// magnitude is |x|.
func magnitude[T scalar](x T) float64 {
	if c, ok := any(x).(complex128); ok {
		return cmplx.Abs(c)
	}
	return math.Abs(any(x).(float64))
}

// abs1 is |re| + |im|, the magnitude LAPACK's i?amax picks pivots by.
func abs1[T scalar](x T) float64 {
	switch v := any(x).(type) {
	case complex128:
		return math.Abs(real(v)) + math.Abs(imag(v))
	case float64:
		return math.Abs(v)
	}
	return 0
}

// realPart is x's real part, and fromReal the T equal to the real r.
func realPart[T scalar](x T) float64 {
	if c, ok := any(x).(complex128); ok {
		return real(c)
	}
	return any(x).(float64)
}

func fromReal[T scalar](r float64) T {
	var z T
	if _, ok := any(z).(complex128); ok {
		return any(complex(r, 0)).(T)
	}
	return any(r).(T)
}

// triangularSolve solves op(a) x = b (leftSide) or x op(a) = b in place in
// b. Only the lower or upper triangle of a is read; unitDiag assumes ones
// on its diagonal; transpose applies op = transpose, and conjugate
// conjugates a's elements as well (the adjoint, with transpose).
func triangularSolve[T scalar](a, b matBatch[T], leftSide, lower, unitDiag, transpose, conjugate bool) error {
	n := a.rows
	if a.cols != n || a.batch != b.batch {
		return invalidf("triangular solve needs square matrices and matching batches")
	}
	if (leftSide && b.rows != n) || (!leftSide && b.cols != n) {
		return invalidf("triangular solve operand shapes do not match")
	}
	// op(a) is lower triangular when exactly one of lower/transpose holds.
	opLower := lower != transpose
	t := make([]T, n*n)
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
				case conjugate:
					v = conj(v)
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
	transpose, adjoint := false, false
	if v := op.attrs["transpose_a"]; v != nil {
		switch enumWord(v) {
		case "TRANSPOSE":
			transpose = true
		case "ADJOINT":
			transpose, adjoint = true, true
		case "NO_TRANSPOSE", "":
		default:
			return nil, invalidf("bad transpose_a %q", v.Raw)
		}
	}
	if !in[1].t.Equal(op.resultTypes[0]) {
		return nil, invalidf("result type must equal b's type")
	}
	return solveTriangular(in[0], in[1], op.resultTypes[0], flag("left_side"), flag("lower"), flag("unit_diagonal"), transpose, adjoint)
}

// solveTriangular is triangularSolve on arrays, real or complex: it returns
// x of type t.
func solveTriangular(aIn, bIn *array, t TensorType, left, lower, unit, trans, conjugate bool) ([]*array, error) {
	if aIn.t.Elem.isComplex() {
		return solveTriangularOf[complex128](aIn, bIn, t, left, lower, unit, trans, conjugate)
	}
	return solveTriangularOf[float64](aIn, bIn, t, left, lower, unit, trans, false)
}

func solveTriangularOf[T scalar](aIn, bIn *array, t TensorType, left, lower, unit, trans, conjugate bool) ([]*array, error) {
	a, err := toMatBatch[T](aIn)
	if err != nil {
		return nil, err
	}
	b, err := toMatBatch[T](bIn)
	if err != nil {
		return nil, err
	}
	if err := triangularSolve(a, b, left, lower, unit, trans, conjugate); err != nil {
		return nil, err
	}
	return []*array{b.toArray(t)}, nil
}

// lapackFlag reads a one-character LAPACK option such as uplo = 76 ('L').
func lapackFlag(op *operation, name string, def byte) byte {
	return byte(lapackInt(op, name, int64(def)))
}

// lapackInt reads an integer option such as gehrd's low = 1.
func lapackInt(op *operation, name string, def int64) int64 {
	if v := backendOption(op, name); v != nil && v.Kind == AttrInt {
		return v.Int
	}
	return def
}

// lapackBool reads a boolean option such as ormqr's left = true, or an
// integer standing for one (CallLinalg's attributes, which a PJRT plugin's
// FFI call hands over as integers).
func lapackBool(op *operation, name string, def bool) bool {
	switch v := backendOption(op, name); {
	case v != nil && v.Kind == AttrBool:
		return v.Bool
	case v != nil && v.Kind == AttrInt:
		return v.Int != 0
	}
	return def
}

// backendOption is the option name of a custom call's mhlo.backend_config
// (LAPACK's options, ApproxTopK's settings), or nil.
func backendOption(op *operation, name string) *Attr {
	if cfg := op.attrs["mhlo.backend_config"]; cfg != nil && cfg.Kind == AttrDict {
		return cfg.Dict[name]
	}
	return nil
}

// evalLapackTrsm implements lapack_{s,d,c,z}trsm_ffi(a, b) with alpha = 1;
// trans_x 'C' is the conjugate transpose.
func evalLapackTrsm[T scalar](ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 2 || len(op.resultTypes) != 1 {
		return nil, invalidf("trsm takes a and b and returns x")
	}
	left := lapackFlag(op, "side", 'L') == 'L'
	lower := lapackFlag(op, "uplo", 'L') == 'L'
	unit := lapackFlag(op, "diag", 'N') == 'U'
	trans := lapackFlag(op, "trans_x", 'N')
	return solveTriangularOf[T](in[0], in[1], op.resultTypes[0], left, lower, unit, trans != 'N', trans == 'C')
}

// evalLapackPotrf implements lapack_{s,d,c,z}potrf_ffi(a) -> (factor, info):
// the Cholesky factor (a = L Lᴴ, or Uᴴ U) in the uplo triangle, the other
// triangle left as in a, and info > 0 naming the first leading minor that
// is not positive definite.
func evalLapackPotrf[T scalar](ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 || len(op.resultTypes) != 2 {
		return nil, invalidf("potrf takes a and returns the factor and info")
	}
	a, err := toMatBatch[T](in[0])
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
	// w is the lower triangle of the Hermitian matrix (for 'U' the adjoint
	// of the upper one), factored in place row by row: L[i][j] is a[i][j]
	// less the dot product of rows i and j of L so far, over L[j][j].
	w := make([]T, n*n)
	cj := make([]T, n) // row j of L, conjugated
	for b := 0; b < a.batch; b++ {
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				if lower {
					w[i*n+j] = a.at(b, i, j)
				} else {
					w[i*n+j] = conj(a.at(b, j, i))
				}
			}
		}
		for j := 0; j < n; j++ {
			rj := w[j*n : j*n+j]
			d := realPart(w[j*n+j])
			for k, v := range rj {
				cj[k] = conj(v)
				d -= realPart(v * cj[k])
			}
			if !(d > 0) {
				setInteger(info, b, int64(j+1))
				break
			}
			dj := fromReal[T](math.Sqrt(d))
			w[j*n+j] = dj
			for i := j + 1; i < n; i++ {
				ri := w[i*n : i*n+j]
				s := w[i*n+j]
				for k, v := range ri {
					s -= v * cj[k]
				}
				w[i*n+j] = s / dj
			}
		}
		for i := 0; i < n; i++ {
			for j := 0; j <= i; j++ {
				if lower {
					a.set(b, i, j, w[i*n+j])
				} else {
					a.set(b, j, i, conj(w[i*n+j]))
				}
			}
		}
	}
	return []*array{a.toArray(op.resultTypes[0]), info}, nil
}

// evalLapackGetrf implements lapack_{s,d,c,z}getrf_ffi(a) -> (lu, pivots,
// info): LU factorization with partial pivoting as LAPACK computes it,
// pivots 1-based, info > 0 naming the first exactly-zero pivot.
func evalLapackGetrf[T scalar](ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 || len(op.resultTypes) != 3 {
		return nil, invalidf("getrf takes a and returns lu, pivots and info")
	}
	a, err := toMatBatch[T](in[0])
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
		mat := a.data[b*m*n : (b+1)*m*n]
		row := func(i int) []T { return mat[i*n : (i+1)*n] }
		for j := 0; j < k; j++ {
			p, best := j, abs1(mat[j*n+j]) // the first largest, as LAPACK's i?amax
			for i := j + 1; i < m; i++ {
				if v := abs1(mat[i*n+j]); v > best {
					p, best = i, v
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
			tail := rj[j+1:]
			for i := j + 1; i < m; i++ {
				ri := row(i)
				l := ri[j] / d
				ri[j] = l
				rest := ri[j+1 : j+1+len(tail)]
				for c, v := range tail {
					rest[c] -= l * v
				}
			}
		}
	}
	return []*array{a.toArray(op.resultTypes[0]), pivots, info}, nil
}
