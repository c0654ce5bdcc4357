package stablehlo

import (
	"math"
	"math/cmplx"
	"sort"
)

// Symmetric (and Hermitian) eigendecomposition and SVD: the LAPACK custom
// calls JAX's CPU lowering emits for jnp.linalg.eigh
// (lapack_{s,d}syevd_ffi, lapack_{c,z}heevd_ffi) and jnp.linalg.svd
// (lapack_{s,d,c,z}gesdd_ffi). A real eigh is solved by tridiagonal QL
// (interp_lapack_tridiag.go), a complex eigh and the SVD by Jacobi
// rotations, in float64 (complex128), instead of LAPACK's divide and
// conquer: the results satisfy the same definitions (ascending eigenvalues,
// descending singular values, orthonormal vectors) but vectors can differ
// from LAPACK's in sign (phase), and within repeated eigen- or singular
// values in basis.

// maxJacobiSweeps bounds the rotations; Jacobi converges quadratically, so
// hitting it means the input held NaN or Inf. That is reported through info.
const maxJacobiSweeps = 64

// jacobiEigen diagonalises the symmetric (Hermitian) n×n s in place
// (row-major) and returns the eigenvector matrix (columns) and whether it
// converged.
//
// A rotation walks two columns of s and of the vectors. With rows of a
// power-of-two length every element of a column falls into the same few
// cache sets (n = 256 took five times n = 255), so s is worked on with rows
// of odd length, and the vectors as rows of their transpose.
func jacobiEigen[T scalar](s []T, n int) ([]T, bool) {
	ld := n | 1
	a := make([]T, n*ld)
	for i := 0; i < n; i++ {
		copy(a[i*ld:i*ld+n], s[i*n:i*n+n])
	}
	vt := make([]T, n*n)
	for i := 0; i < n; i++ {
		vt[i*n+i] = 1
	}
	ok := jacobiSweeps(a, vt, n, ld)
	for i := 0; i < n; i++ {
		copy(s[i*n:i*n+n], a[i*ld:i*ld+n])
	}
	v := make([]T, n*n)
	for i := 0; i < n; i++ {
		for k := 0; k < n; k++ {
			v[k*n+i] = vt[i*n+k]
		}
	}
	return v, ok
}

// jacobiSweeps rotates s (rows ld apart) to diagonal form, applying each
// rotation to the rows of vt, and reports whether it converged. A complex
// s_pq = r e^(iφ) is first made real by scaling column q of s by e^(-iφ)
// and row q by e^(iφ) (and row q of vt, the transposed vectors, by
// e^(-iφ)); the rotation that zeroes it is then the real one.
func jacobiSweeps[T scalar](s, vt []T, n, ld int) bool {
	for sweep := 0; sweep < maxJacobiSweeps; sweep++ {
		rotated := false
		for p := 0; p < n; p++ {
			for q := p + 1; q < n; q++ {
				spq := s[p*ld+q]
				r := magnitude(spq)
				app, aqq := realPart(s[p*ld+p]), realPart(s[q*ld+q])
				if r == 0 || r <= 1e-18*math.Sqrt(math.Abs(app*aqq)) {
					continue
				}
				if math.IsNaN(r) || math.IsInf(r, 0) {
					return false
				}
				rotated = true
				if spq != conj(spq) { // complex: make s_pq real
					ph := conj(spq) / fromReal[T](r)
					for k := 0; k < n; k++ {
						s[k*ld+q] *= ph
					}
					scaleRow(s[q*ld:q*ld+n], conj(ph))
					scaleRow(vt[q*n:q*n+n], ph)
					s[p*ld+q], s[q*ld+p] = fromReal[T](r), fromReal[T](r)
				} else {
					r = realPart(spq)
				}
				theta := (aqq - app) / (2 * r)
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Hypot(theta, 1))
				c := 1 / math.Hypot(t, 1)
				ct, st := fromReal[T](c), fromReal[T](t*c)
				for k := 0; k < n; k++ { // columns p, q of s
					kp, kq := s[k*ld+p], s[k*ld+q]
					s[k*ld+p], s[k*ld+q] = ct*kp-st*kq, st*kp+ct*kq
				}
				rotateRows(vt[p*n:p*n+n], vt[q*n:q*n+n], ct, st)
				rotateRows(s[p*ld:p*ld+n], s[q*ld:q*ld+n], ct, st)
			}
		}
		if !rotated {
			return true
		}
	}
	return false
}

// eigen returns the eigenvalues (unsorted) and eigenvectors (columns) of
// the symmetric or Hermitian n×n s, which it may overwrite: a real s by
// tridiagonal reduction and QL, a complex one by Jacobi rotations.
func eigen[T scalar](s []T, n int) ([]float64, []T, bool) {
	if r, ok := any(s).([]float64); ok {
		w, v, ok := tridiagonalEigen(r, n)
		return w, any(v).([]T), ok
	}
	v, ok := jacobiEigen(s, n)
	w := make([]float64, n)
	for i := range w {
		w[i] = realPart(s[i*n+i])
	}
	return w, v, ok
}

// rotateRows sets x, y = c·x − s·y, s·x + c·y.
func rotateRows[T scalar](x, y []T, c, s T) {
	y = y[:len(x)]
	for k, xk := range x {
		yk := y[k]
		x[k], y[k] = c*xk-s*yk, s*xk+c*yk
	}
}

// scaleRow multiplies x by f.
func scaleRow[T scalar](x []T, f T) {
	for k := range x {
		x[k] *= f
	}
}

// evalLapackSyevd implements syevd(a) -> (vectors, eigenvalues, info), and
// heevd for complex a, reading the uplo triangle of a (the imaginary part
// of its diagonal is ignored, as LAPACK does); eigenvalues (real) ascend and
// column j of vectors belongs to eigenvalue j.
func evalLapackSyevd[T scalar](ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 || len(op.resultTypes) != 3 {
		return nil, invalidf("syevd takes a and returns vectors, eigenvalues and info")
	}
	a, err := toMatBatch[T](in[0])
	if err != nil {
		return nil, err
	}
	n := a.rows
	if a.cols != n || !op.resultTypes[0].Equal(in[0].t) || !op.resultTypes[1].Elem.isFloat() {
		return nil, invalidf("syevd needs square matrices and returns their type")
	}
	w := matrices{batch: a.batch, rows: 1, cols: n, data: make([]float64, a.batch*n)}
	info := newArray(op.resultTypes[2])
	if op.resultTypes[1].NumElements() != int64(len(w.data)) || info.size() != a.batch {
		return nil, invalidf("syevd eigenvalue or info shapes do not match")
	}
	lower := lapackFlag(op, "uplo", 'L') == 'L'
	s := make([]T, n*n)
	for b := 0; b < a.batch; b++ {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				switch {
				case i == j:
					s[i*n+j] = fromReal[T](realPart(a.at(b, i, j)))
				case (lower && j > i) || (!lower && j < i):
					s[i*n+j] = conj(a.at(b, j, i))
				default:
					s[i*n+j] = a.at(b, i, j)
				}
			}
		}
		vals, v, ok := eigen(s, n)
		if !ok {
			setInteger(info, b, int64(1))
			continue
		}
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		sort.SliceStable(order, func(x, y int) bool { return vals[order[x]] < vals[order[y]] })
		for j, src := range order {
			w.set(b, 0, j, vals[src])
			for i := 0; i < n; i++ {
				a.set(b, i, j, v[i*n+src])
			}
		}
	}
	return []*array{a.toArray(op.resultTypes[0]), w.toArray(op.resultTypes[1]), info}, nil
}

// svdTall is a one-sided (Hestenes) Jacobi SVD of the m×n row-major w with
// m >= n: it returns u (m×m, orthonormal, its first n columns the left
// singular vectors), the n descending singular values, v (n×n, columns the
// right singular vectors, w = u Σ vᴴ) and whether it converged. For complex
// columns p and q whose product γ = w_pᴴ w_q = |γ| e^(iφ), column q (and
// column q of v) is first turned by e^(-iφ), making γ real; the rotation
// that makes them orthogonal is then the real one.
func svdTall[T scalar](w []T, m, n int) (u []T, sigma []float64, v []T, ok bool) {
	// The rotations walk columns of w and v: they are worked on as rows
	// of their transposes, contiguous in memory.
	wt := make([]T, n*m)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			wt[j*m+i] = w[i*n+j]
		}
	}
	vt := make([]T, n*n)
	for i := 0; i < n; i++ {
		vt[i*n+i] = 1
	}
	for sweep := 0; sweep < maxJacobiSweeps && !ok; sweep++ {
		ok = true
		for p := 0; p < n; p++ {
			wp := wt[p*m : p*m+m]
			for q := p + 1; q < n; q++ {
				wq := wt[q*m : q*m+m]
				alpha, beta, gamma := columnProducts(wp, wq)
				g := magnitude(gamma)
				if math.IsNaN(g) || math.IsInf(g, 0) {
					return nil, nil, nil, false
				}
				if g == 0 || g <= 0x1p-51*math.Sqrt(alpha*beta) {
					continue
				}
				ok = false
				if gamma != conj(gamma) { // complex: make γ real
					ph := conj(gamma) / fromReal[T](g)
					scaleRow(wq, ph)
					scaleRow(vt[q*n:q*n+n], ph)
				} else {
					g = realPart(gamma)
				}
				zeta := (beta - alpha) / (2 * g)
				t := math.Copysign(1, zeta) / (math.Abs(zeta) + math.Hypot(zeta, 1))
				c := 1 / math.Hypot(t, 1)
				ct, st := fromReal[T](c), fromReal[T](c*t)
				rotateRows(wp, wq, ct, st)
				rotateRows(vt[p*n:p*n+n], vt[q*n:q*n+n], ct, st)
			}
		}
	}
	norms := make([]float64, n)
	for j := range norms {
		for _, x := range wt[j*m : j*m+m] {
			norms[j] = math.Hypot(norms[j], magnitude(x))
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(x, y int) bool { return norms[order[x]] > norms[order[y]] })
	sigma = make([]float64, n)
	v = make([]T, n*n)
	u = make([]T, m*m)
	var basis [][]T // orthonormal columns of u found so far
	tol := 0.0
	if n > 0 {
		tol = float64(max(m, n)) * 0x1p-52 * norms[order[0]]
	}
	for j, src := range order {
		sigma[j] = norms[src]
		for i := 0; i < n; i++ {
			v[i*n+j] = vt[src*n+i]
		}
		if norms[src] > tol && norms[src] > 0 {
			col := make([]T, m)
			inv := fromReal[T](1 / norms[src])
			for i, x := range wt[src*m : src*m+m] {
				col[i] = x * inv
			}
			basis = append(basis, col)
		}
	}
	basis = completeBasis(basis, m)
	for j, col := range basis {
		for i, x := range col {
			u[i*m+j] = x
		}
	}
	return u, sigma, v, ok
}

// columnProducts returns |x|², |y|² and xᴴy, in one typed loop.
func columnProducts[T scalar](x, y []T) (xx, yy float64, xy T) {
	switch x := any(x).(type) {
	case []float64:
		y := any(y).([]float64)[:len(x)]
		var d float64
		for i, a := range x {
			b := y[i]
			xx, yy, d = xx+a*a, yy+b*b, d+a*b
		}
		return xx, yy, any(d).(T)
	case []complex128:
		y := any(y).([]complex128)[:len(x)]
		var d complex128
		for i, a := range x {
			b := y[i]
			xx += real(a)*real(a) + imag(a)*imag(a)
			yy += real(b)*real(b) + imag(b)*imag(b)
			d += cmplx.Conj(a) * b
		}
		return xx, yy, any(d).(T)
	}
	return 0, 0, 0
}

// completeBasis extends orthonormal vectors of length m to m of them,
// orthogonalising unit vectors against those found (twice, for accuracy).
func completeBasis[T scalar](basis [][]T, m int) [][]T {
	for e := 0; e < m && len(basis) < m; e++ {
		x := make([]T, m)
		x[e] = 1
		for range 2 {
			for _, b := range basis {
				var d T
				for i := range x {
					d += conj(b[i]) * x[i]
				}
				for i := range x {
					x[i] -= d * b[i]
				}
			}
		}
		norm := 0.0
		for _, xi := range x {
			norm = math.Hypot(norm, magnitude(xi))
		}
		// Some unit vector keeps at least 1/sqrt(m) of its length.
		if norm < 0.5/math.Sqrt(float64(m)) {
			continue
		}
		inv := fromReal[T](1 / norm)
		for i := range x {
			x[i] *= inv
		}
		basis = append(basis, x)
	}
	return basis
}

// evalLapackGesdd implements gesdd(a) -> (a, s, u, vt, info) for every
// mode ('A' full, 'S' reduced, 'N' values only): u takes the leading
// columns of the full left factor and vt the leading rows of the full
// right one that their result shapes ask for. gesvd (the QR algorithm,
// jax.lax.linalg.svd(algorithm=SvdAlgorithm.QR)) has the same signature
// and the same answer up to the vectors' signs, and runs here too.
func evalLapackGesdd[T scalar](ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 || len(op.resultTypes) != 5 {
		return nil, invalidf("gesdd takes a and returns a, s, u, vt and info")
	}
	a, err := toMatBatch[T](in[0])
	if err != nil {
		return nil, err
	}
	m, n := a.rows, a.cols
	k := min(m, n)
	rt := op.resultTypes
	uT, vtT := rt[2], rt[3]
	if !rt[0].Equal(in[0].t) || !rt[1].Elem.isFloat() || len(uT.Shape) < 2 || len(vtT.Shape) < 2 ||
		uT.Elem != in[0].t.Elem || vtT.Elem != in[0].t.Elem {
		return nil, invalidf("gesdd result types do not match a %s", in[0].t)
	}
	uRows, uCols := int(uT.Shape[len(uT.Shape)-2]), int(uT.Shape[len(uT.Shape)-1])
	vRows, vCols := int(vtT.Shape[len(vtT.Shape)-2]), int(vtT.Shape[len(vtT.Shape)-1])
	info := newArray(rt[4])
	if uRows != m || uCols > m || vCols != n || vRows > n || info.size() != a.batch ||
		rt[1].NumElements() != int64(a.batch*k) || uT.NumElements() != int64(a.batch*m*uCols) ||
		vtT.NumElements() != int64(a.batch*vRows*n) {
		return nil, invalidf("gesdd result shapes do not match a %s", in[0].t)
	}
	s := matrices{batch: a.batch, rows: 1, cols: k, data: make([]float64, a.batch*k)}
	u := matBatch[T]{batch: a.batch, rows: m, cols: uCols, data: make([]T, a.batch*m*uCols)}
	vt := matBatch[T]{batch: a.batch, rows: vRows, cols: n, data: make([]T, a.batch*vRows*n)}
	for b := 0; b < a.batch; b++ {
		// fullU (m×m) and fullV (n×n) hold singular vectors as columns.
		var fullU, fullV []T
		var sigma []float64
		var ok bool
		if m >= n {
			w := append([]T(nil), a.data[b*m*n:(b+1)*m*n]...)
			fullU, sigma, fullV, ok = svdTall(w, m, n)
		} else { // aᴴ = u' s v'ᴴ, so a = v' s u'ᴴ
			w := make([]T, n*m)
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					w[j*m+i] = conj(a.at(b, i, j))
				}
			}
			fullV, sigma, fullU, ok = svdTall(w, n, m)
		}
		if !ok {
			setInteger(info, b, int64(1))
			continue
		}
		for j := 0; j < k; j++ {
			s.set(b, 0, j, sigma[j])
		}
		for i := 0; i < m; i++ {
			for j := 0; j < uCols; j++ {
				u.set(b, i, j, fullU[i*m+j])
			}
		}
		for i := 0; i < vRows; i++ {
			for j := 0; j < n; j++ {
				vt.set(b, i, j, conj(fullV[j*n+i]))
			}
		}
	}
	return []*array{in[0], s.toArray(rt[1]), u.toArray(uT), vt.toArray(vtT), info}, nil
}
