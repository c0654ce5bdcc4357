package stablehlo

import "math"

// Householder QR: the LAPACK custom calls JAX's CPU lowering emits for
// jnp.linalg.qr (and so jax.nn.initializers.orthogonal):
// lapack_{s,d,c,z}geqrf_ffi(a) -> (a, tau) and lapack_{s,d}orgqr_ffi /
// lapack_{c,z}ungqr_ffi(a, tau) -> q. The reflectors follow LAPACK's
// ?larfg convention, H = I - tau v vᴴ with v[0] = 1 and a real beta =
// -sign(re alpha) |(alpha, x)|, so R's signs (and phases) match LAPACK's for
// the same input; geqrf applies each Hᴴ to the columns right of its own.

// householder computes the reflector of column j of matrix b, rows j..m-1:
// it stores beta on the diagonal, v[1:] below it, and returns tau.
func householder[T scalar](a matBatch[T], b, j int) T {
	alpha := a.at(b, j, j)
	norm := 0.0
	for i := j + 1; i < a.rows; i++ {
		norm = math.Hypot(norm, magnitude(a.at(b, i, j)))
	}
	if norm == 0 && alpha == conj(alpha) {
		return 0
	}
	beta := fromReal[T](-math.Copysign(math.Hypot(magnitude(alpha), norm), realPart(alpha)))
	scale := 1 / (alpha - beta)
	for i := j + 1; i < a.rows; i++ {
		a.set(b, i, j, a.at(b, i, j)*scale)
	}
	a.set(b, j, j, beta)
	return (beta - alpha) / beta
}

// applyReflector applies H = I - tau v vᴴ, v = [1, refl[j+1:, j]], from the
// left to columns from..cols-1 of target rows j..m-1: w = tau vᴴ A, then
// A -= v w, both passes along rows, contiguous in memory.
func applyReflector[T scalar](refl matBatch[T], rb, j int, tau T, target matBatch[T], tb, from int) {
	if tau == 0 || from >= target.cols {
		return
	}
	v := make([]T, target.rows-j)
	v[0] = 1
	for i := 1; i < len(v); i++ {
		v[i] = refl.at(rb, j+i, j)
	}
	row := func(i int) []T {
		at := (tb*target.rows+j+i)*target.cols + from
		return target.data[at : at+target.cols-from]
	}
	w := make([]T, target.cols-from)
	for i, x := range v {
		cx := conj(x)
		for c, y := range row(i) {
			w[c] += cx * y
		}
	}
	for c := range w {
		w[c] *= tau
	}
	for i, x := range v {
		r := row(i)
		for c, wc := range w {
			r[c] -= wc * x
		}
	}
}

func evalLapackGeqrf[T scalar](ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 || len(op.resultTypes) != 2 {
		return nil, invalidf("geqrf takes a and returns a and tau")
	}
	if !op.resultTypes[0].Equal(in[0].t) || op.resultTypes[1].Elem != in[0].t.Elem {
		return nil, invalidf("geqrf results must be a's type and a tau of its element type")
	}
	a, err := toMatBatch[T](in[0])
	if err != nil {
		return nil, err
	}
	k := min(a.rows, a.cols)
	tau := matBatch[T]{batch: a.batch, rows: 1, cols: k, data: make([]T, a.batch*k)}
	if op.resultTypes[1].NumElements() != int64(len(tau.data)) {
		return nil, invalidf("geqrf tau must hold min(rows, cols) = %d elements per matrix", k)
	}
	for b := 0; b < a.batch; b++ {
		for j := 0; j < k; j++ {
			t := householder(a, b, j)
			tau.set(b, 0, j, t)
			applyReflector(a, b, j, conj(t), a, b, j+1)
		}
	}
	return []*array{a.toArray(op.resultTypes[0]), tau.toArray(op.resultTypes[1])}, nil
}

// evalLapackOrgqr forms the m×n matrix Q = H_0 ... H_{k-1} I[:, :n] from the
// reflectors in a's first k columns (m >= n >= k, as LAPACK requires): orgqr
// for real matrices, ungqr for complex ones.
func evalLapackOrgqr[T scalar](ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 2 || len(op.resultTypes) != 1 {
		return nil, invalidf("orgqr takes a and tau and returns q")
	}
	a, err := toMatBatch[T](in[0])
	if err != nil {
		return nil, err
	}
	tau, err := vectorBatch[T](in[1], a.batch, "tau")
	if err != nil {
		return nil, err
	}
	k := tau.cols
	if !op.resultTypes[0].Equal(in[0].t) || a.rows < a.cols || a.cols < k {
		return nil, invalidf("orgqr needs rows >= cols >= len(tau) and returns a's type")
	}
	q := matBatch[T]{batch: a.batch, rows: a.rows, cols: a.cols, data: make([]T, len(a.data))}
	for b := 0; b < a.batch; b++ {
		for i := 0; i < a.cols; i++ {
			q.set(b, i, i, 1)
		}
		for j := k - 1; j >= 0; j-- {
			applyReflector(a, b, j, tau.at(b, 0, j), q, b, j)
		}
	}
	return []*array{q.toArray(op.resultTypes[0])}, nil
}

// evalLapackGehrd implements lapack_{s,d,c,z}gehrd_ffi(a) -> (a, tau, info)
// (jax.scipy.linalg.hessenberg) as LAPACK's gehd2 does, with JAX's low = 1
// and high = n: reflector k, H = I - tau v vᴴ with v[0] = 1 in row k+1,
// takes column k below the subdiagonal to beta e₁ and is applied from the
// right to every row and then, conjugated, from the left to rows k+1.., so
// that a = Q h Qᴴ with Q = H_0 ... H_{n-2} (orgqr forms it from the stored
// reflectors). The result holds h on and above the subdiagonal and the
// reflectors below it.
func evalLapackGehrd[T scalar](ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 || len(op.resultTypes) != 3 {
		return nil, invalidf("gehrd takes a and returns a, tau and info")
	}
	a, err := toMatBatch[T](in[0])
	if err != nil {
		return nil, err
	}
	n := a.rows
	if low, high := lapackInt(op, "low", 1), lapackInt(op, "high", int64(n)); low != 1 || high != int64(n) {
		return nil, unimplementedf("gehrd of rows and columns %d to %d of a %d×%d matrix (only 1 to %d, as JAX asks)", low, high, n, n, n)
	}
	k := max(n-1, 0)
	tau := matBatch[T]{batch: a.batch, rows: 1, cols: k, data: make([]T, a.batch*k)}
	info := newArray(op.resultTypes[2])
	if a.cols != n || !op.resultTypes[0].Equal(in[0].t) || op.resultTypes[1].Elem != in[0].t.Elem || op.resultTypes[1].NumElements() != int64(len(tau.data)) || info.size() != a.batch {
		return nil, invalidf("gehrd needs square matrices and returns a's type, n-1 taus of its element type and an info each")
	}
	for b := 0; b < a.batch; b++ {
		if err := ev.ctx.Err(); err != nil {
			return nil, err
		}
		reduceHessenberg(a, b, tau.data[b*k:(b+1)*k])
	}
	return []*array{a.toArray(op.resultTypes[0]), tau.toArray(op.resultTypes[1]), info}, nil
}

// reduceHessenberg runs gehd2 on matrix b of a (n×n, n-1 taus).
func reduceHessenberg[T scalar](a matBatch[T], b int, tau []T) {
	n := a.rows
	// Rows 1.. of matrix b, so that reflector j's pivot a[j+1][j] is on
	// this view's diagonal, where householder and applyReflector expect it.
	below := matBatch[T]{batch: 1, rows: n - 1, cols: n, data: a.data[b*n*n+n : (b+1)*n*n]}
	for j := range tau {
		t := householder(below, 0, j)
		tau[j] = t
		applyReflectorRight(a, b, j+1, below, j, t)
		applyReflector(below, 0, j, conj(t), below, 0, j+1)
	}
}

// evalLapackSytrd implements lapack_{s,d}sytrd_ffi and lapack_{c,z}hetrd_ffi
// (a) -> (a, d, e, tau, info) (jax.lax.linalg.tridiagonal): the symmetric
// (Hermitian) matrix whose uplo triangle a holds is reduced to real
// tridiagonal t = Qᴴ a Q by the reflectors gehrd takes, which for such a
// matrix are LAPACK's sytd2 ones. With uplo 'L' the reflectors are stored
// below the subdiagonal, as gehrd's; with 'U' the matrix is read backwards
// (its upper triangle as a lower one), so that they come out above the
// superdiagonal and in the order LAPACK's upper variant leaves them. The
// other triangle of a is returned as it came.
func evalLapackSytrd[T scalar](ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 || len(op.resultTypes) != 5 {
		return nil, invalidf("sytrd takes a and returns a, d, e, tau and info")
	}
	a, err := toMatBatch[T](in[0])
	if err != nil {
		return nil, err
	}
	n, rt := a.rows, op.resultTypes
	k := max(n-1, 0)
	d := matrices{batch: a.batch, rows: 1, cols: n, data: make([]float64, a.batch*n)}
	e := matrices{batch: a.batch, rows: 1, cols: k, data: make([]float64, a.batch*k)}
	tau := matBatch[T]{batch: a.batch, rows: 1, cols: k, data: make([]T, a.batch*k)}
	info := newArray(rt[4])
	if a.cols != n || !rt[0].Equal(in[0].t) || !rt[1].Elem.isFloat() || !rt[2].Elem.isFloat() || rt[3].Elem != in[0].t.Elem ||
		rt[1].NumElements() != int64(len(d.data)) || rt[2].NumElements() != int64(len(e.data)) || rt[3].NumElements() != int64(len(tau.data)) || info.size() != a.batch {
		return nil, invalidf("sytrd needs square matrices and returns a's type, n diagonal, n-1 off-diagonal and n-1 tau entries and an info each")
	}
	lower := lapackFlag(op, "uplo", 'L') == 'L'
	// flip maps an index of the lower triangle's reading to a's: for 'U'
	// the matrix is read backwards.
	flip := func(i, size int) int {
		if lower {
			return i
		}
		return size - 1 - i
	}
	full := matBatch[T]{batch: 1, rows: n, cols: n, data: make([]T, n*n)}
	taus := make([]T, k)
	for b := 0; b < a.batch; b++ {
		if err := ev.ctx.Err(); err != nil {
			return nil, err
		}
		get := func(r, c int) T { return a.at(b, flip(r, n), flip(c, n)) }
		put := func(r, c int, x T) { a.set(b, flip(r, n), flip(c, n), x) }
		for r := 0; r < n; r++ {
			for c := 0; c < r; c++ {
				full.set(0, r, c, get(r, c))
				full.set(0, c, r, conj(get(r, c)))
			}
			full.set(0, r, r, fromReal[T](realPart(get(r, r))))
		}
		reduceHessenberg(full, 0, taus)
		for i := 0; i < n; i++ {
			di := realPart(full.at(0, i, i))
			d.data[b*n+flip(i, n)] = di
			put(i, i, fromReal[T](di))
			if i+1 == n {
				break
			}
			ei, j := realPart(full.at(0, i+1, i)), flip(i, k)
			e.data[b*k+j], tau.data[b*k+j] = ei, taus[i]
			put(i+1, i, fromReal[T](ei))
			for r := i + 2; r < n; r++ {
				put(r, i, full.at(0, r, i))
			}
		}
	}
	return []*array{a.toArray(rt[0]), d.toArray(rt[1]), e.toArray(rt[2]), tau.toArray(rt[3]), info}, nil
}

// applyReflectorRight multiplies columns from.. of every row of matrix tb
// of target by H = I - tau v vᴴ, v = [1, refl[j+1:, j]] (refl's rows j..
// standing for target's columns from..): row -= tau (row·v) vᴴ.
func applyReflectorRight[T scalar](target matBatch[T], tb, from int, refl matBatch[T], j int, tau T) {
	if tau == 0 {
		return
	}
	v := make([]T, target.cols-from)
	v[0] = 1
	for i := 1; i < len(v); i++ {
		v[i] = refl.at(0, j+i, j)
	}
	for r := 0; r < target.rows; r++ {
		row := target.data[(tb*target.rows+r)*target.cols+from : (tb*target.rows+r+1)*target.cols]
		var s T
		for i, x := range v {
			s += row[i] * x
		}
		s *= tau
		for i, x := range v {
			row[i] -= s * conj(x)
		}
	}
}

// evalLapackGeqp3 implements lapack_{s,d,c,z}geqp3_ffi(a, jpvt) -> (a, jpvt,
// tau) (jax.scipy.linalg.qr with pivoting=True) as LAPACK's geqp3 and
// laqp2 do: the columns jpvt marks (nonzero) move to the front and are
// factored as they stand; then each step takes the remaining column of
// largest norm below the rows done (the first of equal ones), reflects it
// as geqrf does and downdates the other columns' norms, recomputing one
// that has lost too many digits. jpvt comes back 1-based, as LAPACK's.
func evalLapackGeqp3[T scalar](ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 2 || len(op.resultTypes) != 3 {
		return nil, invalidf("geqp3 takes a and jpvt and returns a, jpvt and tau")
	}
	a, err := toMatBatch[T](in[0])
	if err != nil {
		return nil, err
	}
	m, n := a.rows, a.cols
	k := min(m, n)
	rt := op.resultTypes
	tau := matBatch[T]{batch: a.batch, rows: 1, cols: k, data: make([]T, a.batch*k)}
	jpvt := newArray(rt[1])
	if !rt[0].Equal(in[0].t) || in[1].t.Elem.class() != classInt || in[1].size() != a.batch*n || jpvt.size() != a.batch*n ||
		jpvt.t.Elem.class() != classInt || rt[2].Elem != in[0].t.Elem || rt[2].NumElements() != int64(len(tau.data)) {
		return nil, invalidf("geqp3 needs a jpvt of %d integers per matrix and returns a's type, jpvt and min(rows, cols) taus", n)
	}
	// Past this fraction of its digits lost, a downdated norm is
	// recomputed (laqp2's tol3z, the square root of float64's epsilon).
	const recompute = 0x1p-26
	for b := 0; b < a.batch; b++ {
		if err := ev.ctx.Err(); err != nil {
			return nil, err
		}
		perm := make([]int, n)
		for j := range perm {
			perm[j] = j
		}
		swap := func(i, j int) {
			for r := 0; r < m; r++ {
				x, y := a.at(b, r, i), a.at(b, r, j)
				a.set(b, r, i, y)
				a.set(b, r, j, x)
			}
			perm[i], perm[j] = perm[j], perm[i]
		}
		fixed := 0
		for j := 0; j < n; j++ {
			if in[1].i[b*n+j] != 0 {
				swap(j, fixed)
				fixed++
			}
		}
		reflect := func(i int) {
			t := householder(a, b, i)
			tau.set(b, 0, i, t)
			applyReflector(a, b, i, conj(t), a, b, i+1)
		}
		for i := 0; i < min(fixed, k); i++ {
			reflect(i)
		}
		below := func(j, from int) float64 {
			norm := 0.0
			for r := from; r < m; r++ {
				norm = math.Hypot(norm, magnitude(a.at(b, r, j)))
			}
			return norm
		}
		vn1, vn2 := make([]float64, n), make([]float64, n)
		for j := fixed; j < n; j++ {
			vn1[j] = below(j, fixed)
			vn2[j] = vn1[j]
		}
		for i := fixed; i < k; i++ {
			pvt := i
			for j := i + 1; j < n; j++ {
				if vn1[j] > vn1[pvt] {
					pvt = j
				}
			}
			if pvt != i {
				swap(pvt, i)
				vn1[pvt], vn2[pvt] = vn1[i], vn2[i]
			}
			reflect(i)
			for j := i + 1; j < n; j++ {
				if vn1[j] == 0 {
					continue
				}
				r := magnitude(a.at(b, i, j)) / vn1[j]
				left := max(1-r*r, 0)
				if ratio := vn1[j] / vn2[j]; left*ratio*ratio <= recompute {
					vn1[j] = below(j, i+1)
					vn2[j] = vn1[j]
				} else {
					vn1[j] *= math.Sqrt(left)
				}
			}
		}
		for j, p := range perm {
			jpvt.i[b*n+j] = int64(p + 1)
		}
	}
	jpvt.normalize()
	return []*array{a.toArray(rt[0]), jpvt, tau.toArray(rt[2])}, nil
}

// evalLapackOrmqr implements lapack_{s,d}ormqr_ffi and lapack_{c,z}unmqr_ffi
// (a, tau, c) -> c (jax.lax.linalg.ormqr): c times Q = H_0 ··· H_{k-1}, the
// product of geqrf's reflectors in a's first k columns, from the left or
// the right, Q itself or its (conjugate) transpose, as the left and
// transpose options say.
func evalLapackOrmqr[T scalar](ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 3 || len(op.resultTypes) != 1 {
		return nil, invalidf("ormqr takes a, tau and c and returns c")
	}
	a, err := toMatBatch[T](in[0])
	if err != nil {
		return nil, err
	}
	tau, err := vectorBatch[T](in[1], a.batch, "tau")
	if err != nil {
		return nil, err
	}
	c, err := toMatBatch[T](in[2])
	if err != nil {
		return nil, err
	}
	left, transpose := lapackBool(op, "left", true), lapackBool(op, "transpose", false)
	k, order := tau.cols, c.rows // Q is order × order
	if !left {
		order = c.cols
	}
	if !op.resultTypes[0].Equal(in[2].t) || c.batch != a.batch || a.rows != order || a.cols < k || k > order {
		return nil, invalidf("ormqr needs reflectors of %d rows (c's %s) and no more taus than columns, and returns c's type", order, map[bool]string{true: "rows", false: "columns"}[left])
	}
	for b := 0; b < a.batch; b++ {
		if err := ev.ctx.Err(); err != nil {
			return nil, err
		}
		// Q·c applies H_{k-1} first, Qᴴ·c H_0ᴴ first; c·Q applies H_0 first,
		// c·Qᴴ H_{k-1}ᴴ first.
		forward := left == transpose
		for s := 0; s < k; s++ {
			j := s
			if !forward {
				j = k - 1 - s
			}
			t := tau.at(b, 0, j)
			if transpose {
				t = conj(t)
			}
			if left {
				applyReflector(a, b, j, t, c, b, 0)
			} else {
				applyReflectorRight(c, b, j, matBatch[T]{batch: 1, rows: a.rows, cols: a.cols, data: a.data[b*a.rows*a.cols : (b+1)*a.rows*a.cols]}, j, t)
			}
		}
	}
	return []*array{c.toArray(op.resultTypes[0])}, nil
}
