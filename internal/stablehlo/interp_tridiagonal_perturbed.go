package stablehlo

import "math"

// evalTridiagonalSolvePerturbed implements jaxlib's
// tridiagonal_solve_perturbed_ffi(dl, d, du, b) -> x, which JAX's CPU
// lowering emits for jax.lax.linalg.tridiagonal_solve(..., perturb_singular=
// True) (jax.scipy.linalg.eigh_tridiagonal's inverse iteration for
// eigenvectors): the solution of A x = b for the tridiagonal A (dl[i] =
// A[i, i-1], d[i] = A[i, i], du[i] = A[i, i+1]) by Gaussian elimination with
// row pivoting, as LAPACK's xLAGTF factors and xLAGTS solves, where a tiny
// pivot of U is nudged (by about eps times U's largest element) instead of
// dividing by it, so that a numerically singular A gives a large but finite
// x. eps and the safe minimum are those of the operands' element type.
func evalTridiagonalSolvePerturbed(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 4 || len(op.resultTypes) != 1 {
		return nil, invalidf("tridiagonal_solve_perturbed takes dl, d, du and b and returns x")
	}
	switch in[3].t.Elem {
	case F32, F64:
		return tridiagonalSolvePerturbed[float64](op, in)
	case C64, C128:
		return tridiagonalSolvePerturbed[complex128](op, in)
	}
	return nil, invalidf("tridiagonal_solve_perturbed solves f32, f64, complex64 and complex128 systems, not %s", in[3].t)
}

func tridiagonalSolvePerturbed[T scalar](op *operation, in []*array) ([]*array, error) {
	for k, name := range []string{"dl", "d", "du"} {
		if in[k].t.Elem != in[3].t.Elem {
			return nil, invalidf("tridiagonal_solve_perturbed %s %s and b %s differ in element type", name, in[k].t, in[3].t)
		}
	}
	b, diags, err := tridiagonalSystem[T]("tridiagonal_solve_perturbed", in)
	if err != nil {
		return nil, err
	}
	if !in[3].t.Equal(op.resultTypes[0]) {
		return nil, invalidf("tridiagonal_solve_perturbed result %s does not match b %s", op.resultTypes[0], in[3].t)
	}
	lim := pivotLimitsOf(in[3].t.Elem)
	n, nrhs := b.rows, b.cols
	x := matBatch[T]{batch: b.batch, rows: n, cols: nrhs, data: make([]T, len(b.data))}
	for bi := range b.batch {
		at := func(m matBatch[T]) []T { size := m.rows * m.cols; return m.data[bi*size : (bi+1)*size] }
		solvePerturbed(lim, at(diags[0]), at(diags[1]), at(diags[2]), at(b), at(x), nrhs)
	}
	return []*array{x.toArray(op.resultTypes[0])}, nil
}

// pivotLimits are the constants of an element type that bound a pivot:
// its machine epsilon and LAPACK's safe minimum (xLAMCH's sfmin, the
// smallest number whose reciprocal does not overflow).
type pivotLimits struct{ eps, safeMin float64 }

func pivotLimitsOf(e ElemType) pivotLimits {
	if e == F32 || e == C64 {
		return pivotLimits{eps: 0x1p-23, safeMin: 0x1p-126}
	}
	return pivotLimits{eps: 0x1p-52, safeMin: 0x1p-1022}
}

// solvePerturbed solves one n×n system for the nrhs columns of rhs (rows of
// nrhs, as x). The elimination runs forward on x as it factors, keeping U's
// diagonal and two superdiagonals; back substitution perturbs tiny pivots.
func solvePerturbed[T scalar](lim pivotLimits, dl, d, du, rhs, x []T, nrhs int) {
	n := len(d)
	if n == 0 {
		return
	}
	row := func(m []T, i int) []T { return m[i*nrhs : (i+1)*nrhs] }
	work := make([]T, nrhs)
	if n == 1 {
		p := d[0]
		copy(work, row(rhs, 0))
		p = perturbPivot(lim, lim.eps*magnitude(p), p, work)
		for c := range work {
			row(x, 0)[c] = work[c] / p
		}
		return
	}
	// u[i] is row i of U: its diagonal, superdiagonal and second
	// superdiagonal (a row exchange fills the second in).
	u := make([][3]T, n)
	u[0][0], u[0][1] = d[0], du[0]
	maxU := math.Max(magnitude(u[0][0]), magnitude(u[0][1]))
	scale1 := magnitude(u[0][0]) + magnitude(u[0][1])
	copy(row(x, 0), row(rhs, 0))
	for k := 0; k < n-1; k++ {
		xk, xn, bn := row(x, k), row(x, k+1), row(rhs, k+1)
		u[k+1][0] = d[k+1]
		scale2 := magnitude(dl[k+1]) + magnitude(u[k+1][0])
		if k < n-2 {
			scale2 += magnitude(du[k+1])
		}
		switch {
		case dl[k+1] == 0: // nothing below the pivot: the next row as it is
			scale1 = scale2
			u[k+1][1] = du[k+1]
			u[k][2] = 0
			copy(xn, bn)
		case pivotRatio(u[k][0], scale1) >= magnitude(dl[k+1])/scale2: // no exchange
			scale1 = scale2
			f := dl[k+1] / u[k][0]
			u[k+1][0] -= f * u[k][1]
			u[k+1][1] = du[k+1]
			u[k][2] = 0
			for c := range xn {
				xn[c] = bn[c] - f*xk[c]
			}
		default: // rows k and k+1 exchanged
			f := u[k][0] / dl[k+1]
			above := u[k][1]
			u[k][0] = dl[k+1]
			u[k+1][0] = above - f*d[k+1]
			u[k][1] = d[k+1]
			if k < n-2 {
				u[k][2] = du[k+1]
				u[k+1][1] = -f * du[k+1]
			}
			for c := range xn {
				xn[c] = xk[c] - f*bn[c]
			}
			copy(xk, bn)
			scale1 = magnitude(u[k+1][0]) + magnitude(u[k+1][1])
		}
		if k < n-2 {
			maxU = max(maxU, magnitude(u[k][0]), magnitude(u[k][1]), magnitude(u[k][2]))
		}
	}
	maxU = math.Max(maxU, magnitude(u[n-1][0]))
	perturb := lim.eps * maxU
	for k := n - 1; k >= 0; k-- {
		copy(work, row(x, k))
		for j := 1; j <= 2 && k+j < n; j++ {
			xj := row(x, k+j)
			for c := range work {
				work[c] -= u[k][j] * xj[c]
			}
		}
		p := perturbPivot(lim, perturb, u[k][0], work)
		inv := 1 / p
		for c, v := range work {
			row(x, k)[c] = v * inv
		}
	}
}

// pivotRatio is |p|/scale, 0 for a zero pivot (whose scale may be 0 too).
func pivotRatio[T scalar](p T, scale float64) float64 {
	if p == 0 {
		return 0
	}
	return magnitude(p) / scale
}

// perturbPivot returns pivot, moved away from zero (by perturb, doubling,
// in pivot's direction) until dividing row by it cannot overflow, or scaled
// up with row where it is subnormal but row is small enough (xLAGTS's rule).
// A pivot of magnitude at least 1 is kept.
func perturbPivot[T scalar](lim pivotLimits, perturb float64, pivot T, row []T) T {
	abs := magnitude(pivot)
	if abs >= 1 {
		return pivot
	}
	perturb = math.Copysign(math.Max(math.Abs(perturb), lim.safeMin), realPart(pivot))
	big := 1 / lim.safeMin
	largest := 0.0
	for _, v := range row {
		largest = math.Max(largest, magnitude(v))
	}
	for abs < 1 {
		switch {
		case abs < lim.safeMin && (abs == 0 || largest*lim.safeMin > abs):
			pivot += fromReal[T](perturb)
			perturb *= 2
		case abs < lim.safeMin:
			pivot *= fromReal[T](big)
			for c := range row {
				row[c] *= fromReal[T](big)
			}
			return pivot
		case largest > abs*big:
			pivot += fromReal[T](perturb)
			perturb *= 2
		default:
			return pivot
		}
		abs = magnitude(pivot)
	}
	return pivot
}
