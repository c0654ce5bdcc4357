package stablehlo

// evalLapackGtsv implements lapack_{s,d,c,z}gtsv_ffi(dl, d, du, b) -> (dl,
// d, du, x, info), which JAX's CPU lowering emits for
// jax.lax.linalg.tridiagonal_solve: the solution of A x = b for the
// tridiagonal A with dl[i] = A[i, i-1] (dl[0] unused), d[i] = A[i, i] and
// du[i] = A[i, i+1] (du[m-1] unused), by Gaussian elimination with partial
// pivoting as LAPACK's ?gtsv does it, info > 0 naming the first exactly-zero
// pivot. JAX reads only x and info; the diagonals come back as the
// elimination left them.
func evalLapackGtsv[T scalar](ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 4 || len(op.resultTypes) != 5 {
		return nil, invalidf("gtsv takes dl, d, du and b and returns them and info")
	}
	b, diags, err := tridiagonalSystem[T]("gtsv", in)
	if err != nil {
		return nil, err
	}
	for k, name := range []string{"dl", "d", "du"} {
		if !in[k].t.Equal(op.resultTypes[k]) {
			return nil, invalidf("gtsv %s %s does not match its result %s", name, in[k].t, op.resultTypes[k])
		}
	}
	info := newArray(op.resultTypes[4])
	if !in[3].t.Equal(op.resultTypes[3]) || info.size() != b.batch {
		return nil, invalidf("gtsv results do not match b %s", in[3].t)
	}
	n, nrhs := b.rows, b.cols
	for bi := 0; bi < b.batch && n > 0; bi++ {
		// LAPACK's DL is dl[1:]; l[i] = A[i+1, i] and, after a row
		// exchange at step i, the fill-in A[i, i+2] of U.
		l := diags[0].data[bi*n+1 : bi*n+n]
		d := diags[1].data[bi*n : bi*n+n]
		u := diags[2].data[bi*n : bi*n+n]
		row := func(i int) []T { return b.data[(bi*n+i)*nrhs : (bi*n+i+1)*nrhs] }
		if j := gtsvEliminate(l, d, u, row, n); j > 0 {
			setInteger(info, bi, int64(j))
			continue
		}
		for c := 0; c < nrhs; c++ {
			x := func(i int) *T { return &b.data[(bi*n+i)*nrhs+c] }
			*x(n - 1) /= d[n-1]
			if n > 1 {
				*x(n - 2) = (*x(n - 2) - u[n-2]**x(n - 1)) / d[n-2]
			}
			for i := n - 3; i >= 0; i-- {
				*x(i) = (*x(i) - u[i]**x(i + 1) - l[i]**x(i + 2)) / d[i]
			}
		}
	}
	out := []*array{diags[0].toArray(op.resultTypes[0]), diags[1].toArray(op.resultTypes[1]), diags[2].toArray(op.resultTypes[2]), b.toArray(op.resultTypes[3]), info}
	return out, nil
}

// tridiagonalSystem reads the operands of a tridiagonal solve: b (in[3], a
// batch of right-hand sides) and the diagonals dl, d and du (in[0:3], a
// vector of b's rows per matrix).
func tridiagonalSystem[T scalar](what string, in []*array) (b matBatch[T], diags [3]matBatch[T], err error) {
	if b, err = toMatBatch[T](in[3]); err != nil {
		return b, diags, err
	}
	for k, name := range []string{"dl", "d", "du"} {
		if diags[k], err = vectorBatch[T](in[k], b.batch, name); err != nil {
			return b, diags, err
		}
		if diags[k].cols != b.rows {
			return b, diags, invalidf("%s %s %s does not match b %s", what, name, in[k].t, in[3].t)
		}
	}
	return b, diags, nil
}

// gtsvEliminate reduces the tridiagonal system to upper triangular form (d
// the diagonal, u the first superdiagonal, l the second where rows were
// exchanged), applying the same steps to the rows of b, and returns the
// 1-based index of the first zero pivot, or 0.
func gtsvEliminate[T scalar](l, d, u []T, row func(int) []T, n int) int {
	for i := 0; i < n-1; i++ {
		ri, rn := row(i), row(i+1)
		if abs1(d[i]) >= abs1(l[i]) {
			if d[i] == 0 {
				return i + 1
			}
			fact := l[i] / d[i]
			d[i+1] -= fact * u[i]
			for c := range rn {
				rn[c] -= fact * ri[c]
			}
			l[i] = 0
			continue
		}
		fact := d[i] / l[i]
		d[i] = l[i]
		tmp := d[i+1]
		d[i+1] = u[i] - fact*tmp
		if i < n-2 {
			l[i] = u[i+1]
			u[i+1] = -fact * l[i]
		}
		u[i] = tmp
		for c := range ri {
			ri[c], rn[c] = rn[c], ri[c]-fact*rn[c]
		}
	}
	if n > 0 && d[n-1] == 0 {
		return n
	}
	return 0
}
