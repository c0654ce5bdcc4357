package stablehlo

import (
	"math"
	"math/cmplx"
)

// The real nonsymmetric eigenproblem (jnp.linalg.eig, eigvals): LAPACK's
// geev as JAX's CPU lowering calls it, lapack_{s,d}geev_ffi(a) -> (wr, wi,
// vl, vr, info), the eigenvectors complex. The matrix is reduced to upper
// Hessenberg form by Householder reflections, then to real Schur form by
// Francis's double-shift QR iteration (EISPACK's orthes and hqr2), whose
// transformations are kept; the eigenvectors of the quasi-triangular
// factor, found by back substitution, are carried back by them. As in
// LAPACK, the eigenvalues come in the order of the Schur form's diagonal,
// each complex pair together with the positive imaginary part first, and
// each eigenvector has norm 1 and its largest component real. The left
// eigenvectors are the columns of the inverse of the right eigenvector
// matrix, conjugate-transposed, normalized alike. LAPACK also balances the
// matrix first; this does not, so the results agree within the
// eigenproblem's conditioning rather than bit for bit.

// maxQRIterations bounds the QR sweeps spent on one eigenvalue, as
// EISPACK's hqr2 does (30).
const maxQRIterations = 30

// evalLapackGeev implements geev for real matrices (T float64).
func evalLapackGeev(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 || len(op.resultTypes) != 5 {
		return nil, invalidf("geev takes a and returns wr, wi, vl, vr and info")
	}
	a, err := toMatBatch[float64](in[0])
	if err != nil {
		return nil, err
	}
	n := a.rows
	rt := op.resultTypes
	if a.cols != n || !rt[0].Elem.isFloat() || !rt[1].Elem.isFloat() || !rt[2].Elem.isComplex() || !rt[3].Elem.isComplex() {
		return nil, invalidf("geev needs square real matrices and returns real eigenvalue parts and complex eigenvectors")
	}
	wr := matrices{batch: a.batch, rows: 1, cols: n, data: make([]float64, a.batch*n)}
	wi := matrices{batch: a.batch, rows: 1, cols: n, data: make([]float64, a.batch*n)}
	vl := matBatch[complex128]{batch: a.batch, rows: n, cols: n, data: make([]complex128, a.batch*n*n)}
	vr := matBatch[complex128]{batch: a.batch, rows: n, cols: n, data: make([]complex128, a.batch*n*n)}
	info := newArray(rt[4])
	if rt[0].NumElements() != int64(len(wr.data)) || rt[1].NumElements() != int64(len(wi.data)) ||
		rt[2].NumElements() != int64(len(vl.data)) || rt[3].NumElements() != int64(len(vr.data)) || info.size() != a.batch {
		return nil, invalidf("geev result shapes do not match a %s", in[0].t)
	}
	left, right := lapackFlag(op, "compute_left", 'N') == 'V', lapackFlag(op, "compute_right", 'V') == 'V'
	for b := 0; b < a.batch; b++ {
		if err := ev.ctx.Err(); err != nil {
			return nil, err
		}
		h := append([]float64(nil), a.data[b*n*n:(b+1)*n*n]...)
		re, im, v, ok := realEigen(h, n, left || right)
		if !ok {
			setInteger(info, b, int64(1))
			continue
		}
		copy(wr.data[b*n:], re)
		copy(wi.data[b*n:], im)
		if !left && !right {
			continue
		}
		vecs := complexEigenvectors(v, im, n)
		if right {
			copy(vr.data[b*n*n:], vecs)
		}
		if left {
			u, ok := leftFromRight(vecs, im, n)
			if !ok {
				setInteger(info, b, int64(1))
				continue
			}
			copy(vl.data[b*n*n:], u)
		}
	}
	return []*array{wr.toArray(rt[0]), wi.toArray(rt[1]), vl.toArray(rt[2]), vr.toArray(rt[3]), info}, nil
}

// realEigen returns the eigenvalues (real and imaginary parts) of the n×n
// row-major a, which it overwrites, and, with vectors, the real eigenvector
// matrix in LAPACK's packed form (a complex pair j, j+1 is columns j ± i
// column j+1), unnormalized. ok is false when the QR iteration does not
// converge or a value is not finite.
func realEigen(a []float64, n int, vectors bool) (re, im, v []float64, ok bool) {
	if !finite(a) {
		return nil, nil, nil, false
	}
	z := hessenberg(a, n)
	re, im = make([]float64, n), make([]float64, n)
	if !schurQR(a, z, re, im, n) {
		return nil, nil, nil, false
	}
	if vectors {
		schurVectors(a, z, re, im, n)
	}
	return re, im, z, true
}

// hessenberg reduces the n×n row-major a to upper Hessenberg form in place
// by Householder reflections and returns their product, the orthogonal z
// with a_original = z h zᵀ.
func hessenberg(a []float64, n int) []float64 {
	z := make([]float64, n*n)
	for i := 0; i < n; i++ {
		z[i*n+i] = 1
	}
	u := make([]float64, n)
	for m := 1; m < n-1; m++ {
		scale := 0.0
		for i := m; i < n; i++ {
			scale += math.Abs(a[i*n+m-1])
		}
		if scale == 0 {
			continue
		}
		h := 0.0
		for i := m; i < n; i++ {
			u[i] = a[i*n+m-1] / scale
			h += u[i] * u[i]
		}
		g := -math.Copysign(math.Sqrt(h), u[m])
		h -= u[m] * g
		u[m] -= g
		// a = (I - u uᵀ/h) a (I - u uᵀ/h) and z = z (I - u uᵀ/h).
		for j := m - 1; j < n; j++ {
			f := 0.0
			for i := m; i < n; i++ {
				f += u[i] * a[i*n+j]
			}
			f /= h
			for i := m; i < n; i++ {
				a[i*n+j] -= f * u[i]
			}
		}
		reflectRows(a, n, m, u, h)
		reflectRows(z, n, m, u, h)
		a[m*n+m-1] = scale * g
		for i := m + 1; i < n; i++ {
			a[i*n+m-1] = 0
		}
	}
	return z
}

// reflectRows sets the n×n row-major x to x (I - u uᵀ/h), where u is zero
// before from.
func reflectRows(x []float64, n, from int, u []float64, h float64) {
	for i := 0; i < n; i++ {
		row := x[i*n : i*n+n]
		f := 0.0
		for j := from; j < n; j++ {
			f += u[j] * row[j]
		}
		f /= h
		for j := from; j < n; j++ {
			row[j] -= f * u[j]
		}
	}
}

// schurQR reduces the upper Hessenberg h to real Schur form by implicit
// double-shift QR steps, accumulating them into z, and stores each
// eigenvalue where the Schur form's diagonal has it. It reports false if
// an eigenvalue takes more than maxQRIterations steps.
func schurQR(h, z, re, im []float64, n int) bool {
	at := func(i, j int) *float64 { return &h[i*n+j] }
	norm := 0.0
	for i := 0; i < n; i++ {
		for j := max(i-1, 0); j < n; j++ {
			norm += math.Abs(h[i*n+j])
		}
	}
	shift := 0.0 // exceptional shifts taken so far
	for hi := n - 1; hi >= 0; {
		its := 0
		for {
			// The lowest l at or below hi whose subdiagonal entry is negligible.
			l := hi
			for ; l > 0; l-- {
				s := math.Abs(*at(l-1, l-1)) + math.Abs(*at(l, l))
				if s == 0 {
					s = norm
				}
				if sub := math.Abs(*at(l, l-1)); sub == 0 || sub < 0x1p-52*s {
					*at(l, l-1) = 0
					break
				}
			}
			x := *at(hi, hi)
			if l == hi { // one eigenvalue
				*at(hi, hi) = x + shift
				re[hi], im[hi] = x+shift, 0
				hi--
				break
			}
			y := *at(hi-1, hi-1)
			w := *at(hi, hi-1) * *at(hi-1, hi)
			if l == hi-1 { // two eigenvalues
				p := (y - x) / 2
				q := p*p + w
				s := math.Sqrt(math.Abs(q))
				*at(hi, hi) = x + shift
				*at(hi-1, hi-1) = y + shift
				x += shift
				if q >= 0 { // a real pair: split the block
					s = p + math.Copysign(s, p)
					re[hi-1], re[hi] = x+s, x+s
					if s != 0 {
						re[hi] = x - w/s
					}
					im[hi-1], im[hi] = 0, 0
					x = *at(hi, hi-1)
					r := math.Hypot(x, s)
					c, sn := s/r, x/r
					for j := hi - 1; j < n; j++ {
						u := *at(hi-1, j)
						*at(hi-1, j) = c*u + sn**at(hi, j)
						*at(hi, j) = c**at(hi, j) - sn*u
					}
					for i := 0; i <= hi; i++ {
						u := *at(i, hi-1)
						*at(i, hi-1) = c*u + sn**at(i, hi)
						*at(i, hi) = c**at(i, hi) - sn*u
					}
					for i := 0; i < n; i++ {
						u := z[i*n+hi-1]
						z[i*n+hi-1] = c*u + sn*z[i*n+hi]
						z[i*n+hi] = c*z[i*n+hi] - sn*u
					}
				} else { // a complex pair
					re[hi-1], re[hi] = x+p, x+p
					im[hi-1], im[hi] = s, -s
				}
				hi -= 2
				break
			}
			if its == maxQRIterations {
				return false
			}
			if its == 10 || its == 20 { // an exceptional shift
				shift += x
				for i := 0; i <= hi; i++ {
					*at(i, i) -= x
				}
				s := math.Abs(*at(hi, hi-1)) + math.Abs(*at(hi-1, hi-2))
				x, y = 0.75*s, 0.75*s
				w = -0.4375 * s * s
			}
			its++
			// Where the trailing 2×2 block has real eigenvalues, shift
			// twice by the one nearer its last diagonal entry, as LAPACK's
			// dlahqr does.
			if half := (y - x) / 2; half*half+w > 0 {
				tr, d := (x+y)/2, math.Sqrt(half*half+w)
				r := tr + d
				if math.Abs(tr-d-x) < math.Abs(r-x) {
					r = tr - d
				}
				x, y, w = r, r, 0
			}
			doubleShiftStep(h, z, n, l, hi, x, y, w)
		}
	}
	return true
}

// doubleShiftStep is one implicit double-shift QR step on rows and
// columns l..hi of h (shifts the eigenvalues of the trailing 2×2 block,
// whose x = h[hi][hi], y = h[hi-1][hi-1], w = h[hi][hi-1]·h[hi-1][hi]),
// started where two consecutive subdiagonal entries are small enough,
// applied to all of h's rows and columns and accumulated into z.
func doubleShiftStep(h, z []float64, n, l, hi int, x, y, w float64) {
	at := func(i, j int) *float64 { return &h[i*n+j] }
	var m int
	var p, q, r float64
	for m = hi - 2; m >= l; m-- {
		zz := *at(m, m)
		rr, ss := x-zz, y-zz
		p = (rr*ss-w) / *at(m+1, m) + *at(m, m+1)
		q = *at(m+1, m+1) - zz - rr - ss
		r = *at(m+2, m+1)
		s := math.Abs(p) + math.Abs(q) + math.Abs(r)
		p, q, r = p/s, q/s, r/s
		if m == l {
			break
		}
		u := math.Abs(*at(m, m-1)) * (math.Abs(q) + math.Abs(r))
		v := math.Abs(p) * (math.Abs(*at(m-1, m-1)) + math.Abs(zz) + math.Abs(*at(m+1, m+1)))
		if u < 0x1p-52*v {
			break
		}
	}
	for i := m + 2; i <= hi; i++ {
		*at(i, i-2) = 0
		if i > m+2 {
			*at(i, i-3) = 0
		}
	}
	for k := m; k < hi; k++ {
		last := k == hi-1
		if k != m {
			p, q, r = *at(k, k-1), *at(k+1, k-1), 0
			if !last {
				r = *at(k+2, k-1)
			}
			x = math.Abs(p) + math.Abs(q) + math.Abs(r)
			if x == 0 {
				continue
			}
			p, q, r = p/x, q/x, r/x
		}
		s := math.Sqrt(p*p + q*q + r*r)
		if p < 0 {
			s = -s
		}
		if s == 0 {
			continue
		}
		if k != m {
			*at(k, k-1) = -s * x
		} else if l != m {
			*at(k, k-1) = -*at(k, k-1)
		}
		p += s
		x, y = p/s, q/s
		zz := r / s
		q, r = q/p, r/p
		for j := k; j < n; j++ { // rows k, k+1, k+2
			t := *at(k, j) + q**at(k+1, j)
			if !last {
				t += r * *at(k+2, j)
				*at(k+2, j) -= t * zz
			}
			*at(k+1, j) -= t * y
			*at(k, j) -= t * x
		}
		for i := 0; i <= min(hi, k+3); i++ { // columns k, k+1, k+2
			t := x**at(i, k) + y**at(i, k+1)
			if !last {
				t += zz * *at(i, k+2)
				*at(i, k+2) -= t * r
			}
			*at(i, k+1) -= t * q
			*at(i, k) -= t
		}
		for i := 0; i < n; i++ {
			row := z[i*n : i*n+n]
			t := x*row[k] + y*row[k+1]
			if !last {
				t += zz * row[k+2]
				row[k+2] -= t * r
			}
			row[k+1] -= t * q
			row[k] -= t
		}
	}
}

// schurVectors turns z into the eigenvectors in LAPACK's packed form: the
// eigenvectors of the quasi-triangular t (in place of t's upper triangle)
// by back substitution, each carried back by z.
func schurVectors(t, z, re, im []float64, n int) {
	at := func(i, j int) *float64 { return &t[i*n+j] }
	norm := 0.0
	for i := 0; i < n; i++ {
		for j := max(i-1, 0); j < n; j++ {
			norm += math.Abs(t[i*n+j])
		}
	}
	if norm == 0 {
		return
	}
	const eps = 0x1p-52
	var zz, r, s float64 // the row below, saved for a 2×2 block
	for en := n - 1; en >= 0; en-- {
		p, q := re[en], im[en]
		switch {
		case q == 0: // a real eigenvector
			m := en
			*at(en, en) = 1
			for i := en - 1; i >= 0; i-- {
				w := *at(i, i) - p
				ra := 0.0
				for j := m; j <= en; j++ {
					ra += *at(i, j) * *at(j, en)
				}
				if im[i] < 0 {
					zz, s = w, ra
					continue
				}
				m = i
				if im[i] == 0 {
					d := w
					if d == 0 {
						d = eps * norm
					}
					*at(i, en) = -ra / d
				} else {
					x, y := *at(i, i+1), *at(i+1, i)
					den := (re[i]-p)*(re[i]-p) + im[i]*im[i]
					v := (x*s - zz*ra) / den
					*at(i, en) = v
					if math.Abs(x) > math.Abs(zz) {
						*at(i+1, en) = (-ra - w*v) / x
					} else {
						*at(i+1, en) = (-s - y*v) / zz
					}
				}
				if big := math.Abs(*at(i, en)); eps*big*big > 1 {
					for j := i; j <= en; j++ {
						*at(j, en) /= big
					}
				}
			}
		case q < 0: // the pair en-1, en: columns en-1 (real part) and en
			na := en - 1
			m := na
			if math.Abs(*at(en, na)) > math.Abs(*at(na, en)) {
				*at(na, na) = q / *at(en, na)
				*at(na, en) = -(*at(en, en) - p) / *at(en, na)
			} else {
				c := complex(0, -*at(na, en)) / complex(*at(na, na)-p, q)
				*at(na, na), *at(na, en) = real(c), imag(c)
			}
			*at(en, na), *at(en, en) = 0, 1
			for i := na - 1; i >= 0; i-- {
				w := *at(i, i) - p
				ra, sa := 0.0, 0.0
				for j := m; j <= en; j++ {
					ra += *at(i, j) * *at(j, na)
					sa += *at(i, j) * *at(j, en)
				}
				if im[i] < 0 {
					zz, r, s = w, ra, sa
					continue
				}
				m = i
				if im[i] == 0 {
					c := complex(-ra, -sa) / complex(w, q)
					*at(i, na), *at(i, en) = real(c), imag(c)
				} else {
					x, y := *at(i, i+1), *at(i+1, i)
					vr := (re[i]-p)*(re[i]-p) + im[i]*im[i] - q*q
					vi := (re[i] - p) * 2 * q
					if vr == 0 && vi == 0 {
						vr = eps * norm * (math.Abs(w) + math.Abs(q) + math.Abs(x) + math.Abs(y) + math.Abs(zz))
					}
					c := complex(x*r-zz*ra+q*sa, x*s-zz*sa-q*ra) / complex(vr, vi)
					*at(i, na), *at(i, en) = real(c), imag(c)
					if math.Abs(x) > math.Abs(zz)+math.Abs(q) {
						*at(i+1, na) = (-ra - w**at(i, na) + q**at(i, en)) / x
						*at(i+1, en) = (-sa - w**at(i, en) - q**at(i, na)) / x
					} else {
						c := complex(-r-y**at(i, na), -s-y**at(i, en)) / complex(zz, q)
						*at(i+1, na), *at(i+1, en) = real(c), imag(c)
					}
				}
				if big := max(math.Abs(*at(i, na)), math.Abs(*at(i, en))); eps*big*big > 1 {
					for j := i; j <= en; j++ {
						*at(j, na) /= big
						*at(j, en) /= big
					}
				}
			}
		}
	}
	// z = z · (t's upper triangle of eigenvectors), column by column from
	// the right: column j uses z's columns 0..j, not yet overwritten.
	col := make([]float64, n)
	for j := n - 1; j >= 0; j-- {
		for i := 0; i < n; i++ {
			sum := 0.0
			for k := 0; k <= j; k++ {
				sum += z[i*n+k] * *at(k, j)
			}
			col[i] = sum
		}
		for i := 0; i < n; i++ {
			z[i*n+j] = col[i]
		}
	}
}

// complexEigenvectors unpacks LAPACK's real eigenvector matrix v (a pair
// j, j+1 is columns j ± i column j+1) into complex columns, normalized as
// geev does (unitLargestReal).
func complexEigenvectors(v, im []float64, n int) []complex128 {
	out := make([]complex128, n*n)
	for j := 0; j < n; j++ {
		for i := 0; i < n; i++ {
			switch {
			case im[j] == 0:
				out[i*n+j] = complex(v[i*n+j], 0)
			case im[j] > 0 && j+1 < n:
				out[i*n+j] = complex(v[i*n+j], v[i*n+j+1])
			}
		}
	}
	normalizeEigenvectors(out, im, n)
	return out
}

// normalizeEigenvectors gives each column of the n×n row-major u norm 1
// and its largest component real (unitLargestReal), and makes the second
// column of each complex pair (im[j] > 0 at its first) the first's
// conjugate. im is nil for a complex matrix's vectors, which pair nothing.
func normalizeEigenvectors(u []complex128, im []float64, n int) {
	for j := 0; j < n; j++ {
		if im == nil || im[j] >= 0 {
			unitLargestReal(u, n, j)
		}
		if im != nil && im[j] > 0 && j+1 < n {
			for i := 0; i < n; i++ {
				u[i*n+j+1] = cmplx.Conj(u[i*n+j])
			}
		}
	}
}

// unitLargestReal scales column j of the n×n row-major u to norm 1 and
// turns it so that its largest component (the first of the largest) is
// real, as geev does; a real column keeps its sign.
func unitLargestReal(u []complex128, n, j int) {
	norm, k, best := 0.0, 0, -1.0
	for i := 0; i < n; i++ {
		x := u[i*n+j]
		norm = math.Hypot(norm, math.Hypot(real(x), imag(x)))
		if m := real(x)*real(x) + imag(x)*imag(x); m > best {
			k, best = i, m
		}
	}
	phase := largestReal(real(u[k*n+j]), imag(u[k*n+j]))
	for i := 0; i < n; i++ {
		x := complex(real(u[i*n+j])/norm, imag(u[i*n+j])/norm)
		if phase != 1 {
			x *= phase
		}
		if i == k {
			x = complex(real(x), 0)
		}
		u[i*n+j] = x
	}
}

// largestReal is the unit factor that makes f + ig real with the sign of
// f, as LAPACK's dlartg rotation does (positive when f is 0).
func largestReal(f, g float64) complex128 {
	d := math.Hypot(f, g)
	if d == 0 {
		return 1
	}
	r := math.Copysign(d, f)
	if f == 0 {
		r = d
	}
	return complex(f/r, -g/r)
}

// leftFromRight returns the left eigenvectors (uⱼᴴ a = λⱼ uⱼᴴ) from the
// right ones: the columns of (v⁻¹)ᴴ, real for a real matrix's real
// eigenvalue (im[j] = 0; im is nil for a complex matrix), normalized as the
// right ones are. ok is false when v is singular (a defective matrix).
func leftFromRight(v []complex128, im []float64, n int) ([]complex128, bool) {
	inv, ok := invertComplex(v, n)
	if !ok {
		return nil, false
	}
	u := make([]complex128, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			u[i*n+j] = cmplx.Conj(inv[j*n+i])
			if im != nil && im[j] == 0 {
				u[i*n+j] = complex(real(u[i*n+j]), 0)
			}
		}
	}
	normalizeEigenvectors(u, im, n)
	return u, true
}

// invertComplex inverts the n×n row-major a by Gauss-Jordan elimination
// with partial pivoting; ok is false when a is singular.
func invertComplex(a []complex128, n int) ([]complex128, bool) {
	m := append([]complex128(nil), a...)
	inv := make([]complex128, n*n)
	for i := 0; i < n; i++ {
		inv[i*n+i] = 1
	}
	for c := 0; c < n; c++ {
		p := c
		for i := c + 1; i < n; i++ {
			if cmplx.Abs(m[i*n+c]) > cmplx.Abs(m[p*n+c]) {
				p = i
			}
		}
		if m[p*n+c] == 0 {
			return nil, false
		}
		for j := 0; j < n; j++ {
			m[c*n+j], m[p*n+j] = m[p*n+j], m[c*n+j]
			inv[c*n+j], inv[p*n+j] = inv[p*n+j], inv[c*n+j]
		}
		d := 1 / m[c*n+c]
		for j := 0; j < n; j++ {
			m[c*n+j] *= d
			inv[c*n+j] *= d
		}
		for i := 0; i < n; i++ {
			if f := m[i*n+c]; i != c && f != 0 {
				for j := 0; j < n; j++ {
					m[i*n+j] -= f * m[c*n+j]
					inv[i*n+j] -= f * inv[c*n+j]
				}
			}
		}
	}
	return inv, true
}
