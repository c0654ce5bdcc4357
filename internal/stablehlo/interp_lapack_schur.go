package stablehlo

import (
	"math"
	"math/cmplx"
)

// Schur decompositions and the complex eigenproblem: LAPACK's gees as
// JAX's CPU lowering calls it for jax.scipy.linalg.schur (and through it
// sqrtm and funm), lapack_{s,d}gees_ffi(a) -> (t, z, wr, wi, sdim, info) and
// lapack_{c,z}gees_ffi(a) -> (t, z, w, sdim, info), without sorting; and geev
// of complex matrices (jnp.linalg.eig), lapack_{c,z}geev_ffi(a) -> (w, vl,
// vr, info). A real matrix's Schur form is geev's (interp_lapack_geev.go). A
// complex matrix is reduced to upper Hessenberg form as gehrd reduces it
// and to upper triangular form by single-shift QR steps with
// Wilkinson's shift, as LAPACK's zlahqr does; its eigenvectors are the
// triangular factor's, found by back substitution and carried back. A
// Schur form is not unique: the eigenvalues stand on the diagonal in the
// order the iteration leaves them, which can differ from LAPACK's, and a
// real form's 2×2 blocks are turned to LAPACK's standard form (equal
// diagonal entries). Schur vectors are computed whatever the mode asks.

// evalLapackGeesReal implements gees for real matrices.
func evalLapackGeesReal(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 || len(op.resultTypes) != 6 {
		return nil, invalidf("gees of a real matrix takes a and returns t, z, wr, wi, sdim and info")
	}
	a, err := toMatBatch[float64](in[0])
	if err != nil {
		return nil, err
	}
	n, rt := a.rows, op.resultTypes
	t := matrices{batch: a.batch, rows: n, cols: n, data: make([]float64, a.batch*n*n)}
	z := matrices{batch: a.batch, rows: n, cols: n, data: make([]float64, a.batch*n*n)}
	wr := matrices{batch: a.batch, rows: 1, cols: n, data: make([]float64, a.batch*n)}
	wi := matrices{batch: a.batch, rows: 1, cols: n, data: make([]float64, a.batch*n)}
	sdim, info := newArray(rt[4]), newArray(rt[5])
	if a.cols != n || !rt[0].Equal(in[0].t) || !rt[1].Equal(in[0].t) || rt[2].Elem != in[0].t.Elem || rt[3].Elem != in[0].t.Elem ||
		!shapesMatch(rt[:4], t.data, z.data, wr.data, wi.data) || sdim.size() != a.batch || info.size() != a.batch {
		return nil, invalidf("gees result types do not match a %s", in[0].t)
	}
	for b := 0; b < a.batch; b++ {
		if err := ev.ctx.Err(); err != nil {
			return nil, err
		}
		h := t.data[b*n*n : (b+1)*n*n]
		copy(h, a.data[b*n*n:])
		if !finite(h) {
			setInteger(info, b, int64(1))
			continue
		}
		q := hessenberg(h, n)
		re, im := wr.data[b*n:(b+1)*n], wi.data[b*n:(b+1)*n]
		if !schurQR(h, q, re, im, n) {
			setInteger(info, b, int64(1))
			continue
		}
		standardizeBlocks(h, q, re, im, n)
		for i := range re {
			if im[i] == 0 { // a real eigenvalue is t's diagonal entry, as LAPACK reports it
				re[i] = h[i*n+i]
			}
		}
		copy(z.data[b*n*n:], q)
	}
	return []*array{t.toArray(rt[0]), z.toArray(rt[1]), wr.toArray(rt[2]), wi.toArray(rt[3]), sdim, info}, nil
}

// evalLapackGeesComplex implements gees for complex matrices.
func evalLapackGeesComplex(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 || len(op.resultTypes) != 5 {
		return nil, invalidf("gees of a complex matrix takes a and returns t, z, w, sdim and info")
	}
	a, err := toMatBatch[complex128](in[0])
	if err != nil {
		return nil, err
	}
	n, rt := a.rows, op.resultTypes
	t := matBatch[complex128]{batch: a.batch, rows: n, cols: n, data: make([]complex128, a.batch*n*n)}
	z := matBatch[complex128]{batch: a.batch, rows: n, cols: n, data: make([]complex128, a.batch*n*n)}
	w := matBatch[complex128]{batch: a.batch, rows: 1, cols: n, data: make([]complex128, a.batch*n)}
	sdim, info := newArray(rt[3]), newArray(rt[4])
	if a.cols != n || !rt[0].Equal(in[0].t) || !rt[1].Equal(in[0].t) || rt[2].Elem != in[0].t.Elem ||
		!shapesMatch(rt[:3], t.data, z.data, w.data) || sdim.size() != a.batch || info.size() != a.batch {
		return nil, invalidf("gees result types do not match a %s", in[0].t)
	}
	for b := 0; b < a.batch; b++ {
		if err := ev.ctx.Err(); err != nil {
			return nil, err
		}
		h := t.data[b*n*n : (b+1)*n*n]
		copy(h, a.data[b*n*n:])
		q, ok := complexSchur(h, n)
		if !ok {
			setInteger(info, b, int64(1))
			continue
		}
		copy(z.data[b*n*n:], q)
		for i := 0; i < n; i++ {
			w.data[b*n+i] = h[i*n+i]
		}
	}
	return []*array{t.toArray(rt[0]), z.toArray(rt[1]), w.toArray(rt[2]), sdim, info}, nil
}

// evalLapackGeevComplex implements geev for complex matrices.
func evalLapackGeevComplex(ev *evaluator, op *operation, in []*array) ([]*array, error) {
	if len(in) != 1 || len(op.resultTypes) != 4 {
		return nil, invalidf("geev of a complex matrix takes a and returns w, vl, vr and info")
	}
	a, err := toMatBatch[complex128](in[0])
	if err != nil {
		return nil, err
	}
	n, rt := a.rows, op.resultTypes
	w := matBatch[complex128]{batch: a.batch, rows: 1, cols: n, data: make([]complex128, a.batch*n)}
	vl := matBatch[complex128]{batch: a.batch, rows: n, cols: n, data: make([]complex128, a.batch*n*n)}
	vr := matBatch[complex128]{batch: a.batch, rows: n, cols: n, data: make([]complex128, a.batch*n*n)}
	info := newArray(rt[3])
	if a.cols != n || rt[0].Elem != in[0].t.Elem || !rt[1].Equal(in[0].t) || !rt[2].Equal(in[0].t) ||
		!shapesMatch(rt[:3], w.data, vl.data, vr.data) || info.size() != a.batch {
		return nil, invalidf("geev result types do not match a %s", in[0].t)
	}
	left, right := lapackFlag(op, "compute_left", 'N') == 'V', lapackFlag(op, "compute_right", 'V') == 'V'
	for b := 0; b < a.batch; b++ {
		if err := ev.ctx.Err(); err != nil {
			return nil, err
		}
		h := append([]complex128(nil), a.data[b*n*n:(b+1)*n*n]...)
		q, ok := complexSchur(h, n)
		if !ok {
			setInteger(info, b, int64(1))
			continue
		}
		for i := 0; i < n; i++ {
			w.data[b*n+i] = h[i*n+i]
		}
		if !left && !right {
			continue
		}
		vecs := triangularEigenvectors(h, q, n)
		normalizeEigenvectors(vecs, nil, n)
		if right {
			copy(vr.data[b*n*n:], vecs)
		}
		if left {
			u, ok := leftFromRight(vecs, nil, n)
			if !ok {
				setInteger(info, b, int64(1))
				continue
			}
			copy(vl.data[b*n*n:], u)
		}
	}
	return []*array{w.toArray(rt[0]), vl.toArray(rt[1]), vr.toArray(rt[2]), info}, nil
}

// shapesMatch reports whether each result type holds as many elements as
// the data computed for it.
func shapesMatch[T scalar](types []TensorType, data ...[]T) bool {
	for i, d := range data {
		if types[i].NumElements() != int64(len(d)) {
			return false
		}
	}
	return true
}

// finite reports whether no element of a is NaN or infinite.
func finite(a []float64) bool {
	for _, x := range a {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}

// complexSchur overwrites the n×n row-major a with its upper triangular
// Schur form t and returns the unitary z with a = z t zᴴ; ok is false when
// a value is not finite or the QR iteration does not converge.
func complexSchur(a []complex128, n int) (z []complex128, ok bool) {
	for _, x := range a {
		if cmplx.IsNaN(x) || cmplx.IsInf(x) {
			return nil, false
		}
	}
	z = hessenbergQ(a, n)
	if !complexSchurQR(a, z, n) {
		return nil, false
	}
	for i := 1; i < n; i++ {
		clear(a[i*n : i*n+i])
	}
	return z, true
}

// hessenbergQ reduces the n×n row-major a to upper Hessenberg form in
// place, as gehrd does (reduceHessenberg), and returns the unitary product
// of its reflectors, z with a_original = z h zᴴ, formed as orgqr forms Q;
// the reflectors' storage below the subdiagonal is cleared.
func hessenbergQ(a []complex128, n int) []complex128 {
	z := make([]complex128, n*n)
	for i := 0; i < n; i++ {
		z[i*n+i] = 1
	}
	if n < 2 {
		return z
	}
	tau := make([]complex128, n-1)
	reduceHessenberg(matBatch[complex128]{batch: 1, rows: n, cols: n, data: a}, 0, tau)
	// Rows 1.., where the reflectors act, as reduceHessenberg views a.
	below := matBatch[complex128]{batch: 1, rows: n - 1, cols: n, data: a[n:]}
	zBelow := matBatch[complex128]{batch: 1, rows: n - 1, cols: n, data: z[n:]}
	for j := n - 2; j >= 0; j-- {
		applyReflector(below, 0, j, tau[j], zBelow, 0, j+1)
	}
	for i := 2; i < n; i++ {
		clear(a[i*n : i*n+i-1])
	}
	return z
}

// complexSchurQR reduces the upper Hessenberg h to upper triangular form by
// implicit single-shift QR steps (Givens rotations), accumulating them into
// z. It reports false if an eigenvalue takes more than maxQRIterations
// steps.
func complexSchurQR(h, z []complex128, n int) bool {
	at := func(i, j int) *complex128 { return &h[i*n+j] }
	abs1 := func(x complex128) float64 { return math.Abs(real(x)) + math.Abs(imag(x)) }
	norm := 0.0
	for i := 0; i < n; i++ {
		for j := max(i-1, 0); j < n; j++ {
			norm += abs1(h[i*n+j])
		}
	}
	for hi := n - 1; hi > 0; {
		for its := 0; ; its++ {
			l := hi
			for ; l > 0; l-- {
				s := abs1(*at(l-1, l-1)) + abs1(*at(l, l))
				if s == 0 {
					s = norm
				}
				if sub := abs1(*at(l, l-1)); sub == 0 || sub < 0x1p-52*s {
					*at(l, l-1) = 0
					break
				}
			}
			if l == hi {
				hi--
				break
			}
			if its == maxQRIterations {
				return false
			}
			var mu complex128
			if its == 10 || its == 20 { // an exceptional shift, as zlahqr takes
				mu = *at(hi, hi) + complex(0.75*math.Abs(real(*at(hi, hi-1))), 0)
			} else { // Wilkinson's: the trailing 2×2 block's eigenvalue nearer its last entry
				p, q, r, d := *at(hi-1, hi-1), *at(hi-1, hi), *at(hi, hi-1), *at(hi, hi)
				half := (p - d) / 2
				root := cmplx.Sqrt(half*half + q*r)
				switch {
				case half+root == 0 && half-root == 0:
					mu = d
				case abs1(half-root) > abs1(half+root):
					mu = d - q*r/(half-root)
				default:
					mu = d - q*r/(half+root)
				}
			}
			x, y := *at(l, l)-mu, *at(l+1, l)
			for k := l; k < hi; k++ {
				from := l
				if k > l {
					x, y, from = *at(k, k-1), *at(k+1, k-1), k-1
				}
				c, s := complexGivens(x, y)
				for j := from; j < n; j++ { // rows k, k+1
					p, q := *at(k, j), *at(k+1, j)
					*at(k, j), *at(k+1, j) = complex(c, 0)*p+s*q, complex(c, 0)*q-cmplx.Conj(s)*p
				}
				if k > l {
					*at(k+1, k-1) = 0
				}
				rotateColumns(h, n, min(k+3, hi+1), k, c, s)
				rotateColumns(z, n, n, k, c, s)
			}
		}
	}
	return true
}

// rotateColumns multiplies columns k, k+1 of the first rows rows of the
// n-column row-major m by the conjugate transpose of [c s; -s̄ c].
func rotateColumns(m []complex128, n, rows, k int, c float64, s complex128) {
	for i := 0; i < rows; i++ {
		p, q := m[i*n+k], m[i*n+k+1]
		m[i*n+k], m[i*n+k+1] = complex(c, 0)*p+cmplx.Conj(s)*q, complex(c, 0)*q-s*p
	}
}

// complexGivens returns c (real) and s with [c s; -s̄ c]·[x; y] = [r; 0].
func complexGivens(x, y complex128) (c float64, s complex128) {
	switch {
	case y == 0:
		return 1, 0
	case x == 0:
		return 0, cmplx.Conj(y) / complex(cmplx.Abs(y), 0)
	}
	ax := cmplx.Abs(x)
	norm := math.Hypot(ax, cmplx.Abs(y))
	return ax / norm, x / complex(ax, 0) * cmplx.Conj(y) / complex(norm, 0)
}

// triangularEigenvectors returns z times the eigenvectors of the upper
// triangular t (both n×n row-major), column k for t's k-th diagonal entry,
// found by back substitution with LAPACK's (ztrevc) guard against dividing
// by a tiny difference of eigenvalues.
func triangularEigenvectors(t, z []complex128, n int) []complex128 {
	norm := 0.0
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			norm = math.Max(norm, cmplx.Abs(t[i*n+j]))
		}
	}
	small := math.Max(0x1p-52*norm, math.SmallestNonzeroFloat64*0x1p52)
	x := make([]complex128, n)
	out := make([]complex128, n*n)
	for k := 0; k < n; k++ {
		clear(x)
		x[k] = 1
		for i := k - 1; i >= 0; i-- {
			var s complex128
			for j := i + 1; j <= k; j++ {
				s += t[i*n+j] * x[j]
			}
			d := t[i*n+i] - t[k*n+k]
			if cmplx.Abs(d) < small {
				d = complex(small, 0)
			}
			x[i] = -s / d
		}
		for r := 0; r < n; r++ {
			var s complex128
			for j := 0; j <= k; j++ {
				s += z[r*n+j] * x[j]
			}
			out[r*n+k] = s
		}
	}
	return out
}

// standardizeBlocks turns each 2×2 block of complex eigenvalues of the real
// Schur form t into LAPACK's standard form (equal diagonal entries, the
// off-diagonal ones of opposite signs; dlanv2) by a rotation applied to all
// of t and accumulated into z, and zeroes what lies below the blocks.
func standardizeBlocks(t, z, re, im []float64, n int) {
	at := func(i, j int) *float64 { return &t[i*n+j] }
	for i := 1; i < n; i++ {
		clear(t[i*n : i*n+i-1])
		if im[i-1] <= 0 { // not the first of a complex pair
			*at(i, i-1) = 0
		}
	}
	for k := 0; k+1 < n; k++ {
		if im[k] <= 0 || *at(k+1, k) == 0 {
			continue
		}
		a, b, c, d := *at(k, k), *at(k, k+1), *at(k+1, k), *at(k+1, k+1)
		if a == d && (b < 0) != (c < 0) {
			k++
			continue
		}
		// The rotation that makes the diagonal entries equal (dlanv2).
		p := (a - d) / 2
		sigma := b + c
		tau := math.Hypot(sigma, a-d)
		cs := math.Sqrt((1 + math.Abs(sigma)/tau) / 2)
		sn := -p / (tau * cs)
		if sigma < 0 {
			sn = -sn
		}
		rotateRowsCols(t, z, n, k, cs, sn)
		mean := (*at(k, k) + *at(k+1, k+1)) / 2
		*at(k, k), *at(k+1, k+1) = mean, mean
		re[k], re[k+1] = mean, mean
		if bb, cc := *at(k, k+1), *at(k+1, k); bb != 0 && cc != 0 {
			v := math.Sqrt(math.Abs(bb)) * math.Sqrt(math.Abs(cc))
			im[k], im[k+1] = v, -v
		}
		k++
	}
}

// rotateRowsCols applies the rotation [cs sn; -sn cs] to rows k, k+1 of t
// from the left, its transpose to columns k, k+1 from the right, and the
// transpose to columns k, k+1 of z.
func rotateRowsCols(t, z []float64, n, k int, cs, sn float64) {
	for j := k; j < n; j++ {
		p, q := t[k*n+j], t[(k+1)*n+j]
		t[k*n+j], t[(k+1)*n+j] = cs*p+sn*q, cs*q-sn*p
	}
	for _, m := range []struct {
		a    []float64
		rows int
	}{{t, k + 2}, {z, n}} {
		for i := 0; i < m.rows; i++ {
			p, q := m.a[i*n+k], m.a[i*n+k+1]
			m.a[i*n+k], m.a[i*n+k+1] = cs*p+sn*q, cs*q-sn*p
		}
	}
}
