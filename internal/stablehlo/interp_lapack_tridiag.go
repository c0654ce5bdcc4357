package stablehlo

import "math"

// Real symmetric eigendecomposition by Householder reduction to tridiagonal
// form and the implicit QL method with Wilkinson shifts (EISPACK's tred2 and
// tql2): some 9n³ flops against Jacobi's 6n³ per sweep over several sweeps.
// Every pass walks rows: the reduction keeps the whole symmetric block (so a
// column of the lower triangle is read as a row), the transformations are
// accumulated as reflectors applied along rows, and the QL rotations turn
// rows of the transposed vectors. Eigenvalues are accurate to the matrix's
// norm times machine epsilon, as LAPACK's syevd's are.

// maxQLIterations bounds the QL steps for one eigenvalue; more means the
// matrix held NaN or Inf.
const maxQLIterations = 60

// tridiagonalEigen diagonalises the symmetric n×n s (row-major, both
// triangles) and returns the eigenvalues, unsorted, the eigenvector matrix
// (columns, row-major) and whether it converged.
func tridiagonalEigen(s []float64, n int) (w, v []float64, ok bool) {
	a := append([]float64(nil), s...)
	d, e := make([]float64, n), make([]float64, n)
	// hs[i] is the scale H of the reflector I - u uᵀ/H of step i, 0 when the
	// step has none; u is row i of a, columns 0..i-1.
	hs := make([]float64, n)
	p := make([]float64, n)
	for i := n - 1; i > 0; i-- {
		l := i - 1
		ai := a[i*n : i*n+i]
		scale := 0.0
		for _, x := range ai {
			scale += math.Abs(x)
		}
		if l == 0 || scale == 0 {
			e[i] = ai[l]
			continue
		}
		h := 0.0
		for k := range ai {
			ai[k] /= scale
			h += ai[k] * ai[k]
		}
		f := ai[l]
		g := -math.Copysign(math.Sqrt(h), f)
		e[i] = scale * g
		h -= f * g
		ai[l] = f - g
		// p = A u / H over the leading i×i block (whole rows: the block is
		// kept symmetric), then q = p - (uᵀp / 2H) u; A -= u qᵀ + q uᵀ.
		f = 0
		for j := 0; j < i; j++ {
			aj := a[j*n : j*n+i]
			g := 0.0
			for k, x := range aj {
				g += x * ai[k]
			}
			p[j] = g / h
			f += p[j] * ai[j]
		}
		hh := f / (h + h)
		for j := 0; j < i; j++ {
			p[j] -= hh * ai[j]
		}
		for j := 0; j < i; j++ {
			aj := a[j*n : j*n+i]
			uj, pj := ai[j], p[j]
			for k := range aj {
				aj[k] -= uj*p[k] + pj*ai[k]
			}
		}
		// u and H unscaled, for the accumulation (the reflector is the same).
		for k := range ai {
			ai[k] *= scale
		}
		hs[i] = h * (scale * scale)
	}
	for i := 0; i < n; i++ {
		d[i] = a[i*n+i]
	}
	// Q = H_{n-1} ··· H_2 (each H_i = I - u uᵀ/H on the leading i×i block),
	// accumulated from the identity with the smallest block first, each
	// applied along rows: w = uᵀQ/H, Q -= u w.
	q := make([]float64, n*n)
	for i := range n {
		q[i*n+i] = 1
	}
	wrow := make([]float64, n)
	for i := 2; i < n; i++ {
		if hs[i] == 0 {
			continue
		}
		u := a[i*n : i*n+i]
		clear(wrow[:i])
		for k, uk := range u {
			for j, x := range q[k*n : k*n+i] {
				wrow[j] += uk * x
			}
		}
		for j := range wrow[:i] {
			wrow[j] /= hs[i]
		}
		for k, uk := range u {
			row := q[k*n : k*n+i]
			for j := range row {
				row[j] -= uk * wrow[j]
			}
		}
	}
	// zt holds the eigenvectors as rows: the transpose of Q.
	zt := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			zt[j*n+i] = q[i*n+j]
		}
	}
	if !tql(d, e, zt, n) {
		return nil, nil, false
	}
	v = make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			v[i*n+j] = zt[j*n+i]
		}
	}
	return d, v, true
}

// tql diagonalises the symmetric tridiagonal matrix of diagonal d and
// subdiagonal e[1:] in place (d ends as the eigenvalues) by implicit QL
// steps, turning the rows of zt with each rotation, and reports whether it
// converged.
func tql(d, e, zt []float64, n int) bool {
	for i := 1; i < n; i++ {
		e[i-1] = e[i]
	}
	if n > 0 {
		e[n-1] = 0
	}
	for l := 0; l < n; l++ {
		for iter := 0; ; iter++ {
			m := l
			for ; m < n-1; m++ {
				dd := math.Abs(d[m]) + math.Abs(d[m+1])
				if math.Abs(e[m]) <= 0x1p-53*dd {
					break
				}
			}
			if m == l {
				break
			}
			if iter == maxQLIterations || math.IsNaN(e[l]) || math.IsInf(e[l], 0) {
				return false
			}
			g := (d[l+1] - d[l]) / (2 * e[l])
			r := math.Hypot(g, 1)
			g = d[m] - d[l] + e[l]/(g+math.Copysign(r, g))
			s, c, p := 1.0, 1.0, 0.0
			i := m - 1
			for ; i >= l; i-- {
				f, b := s*e[i], c*e[i]
				r = math.Hypot(f, g)
				e[i+1] = r
				if r == 0 {
					d[i+1] -= p
					e[m] = 0
					break
				}
				s, c = f/r, g/r
				g = d[i+1] - p
				r = (d[i]-g)*s + 2*c*b
				p = s * r
				d[i+1] = g + p
				g = c*r - b
				rotateRows(zt[i*n:i*n+n], zt[(i+1)*n:(i+1)*n+n], c, s)
			}
			if r == 0 && i >= l {
				continue
			}
			d[l] -= p
			e[l] = g
			e[m] = 0
		}
	}
	return true
}
