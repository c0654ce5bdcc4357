package stablehlo

import (
	"math/cmplx"
	"slices"
	"testing"
)

// TestLapackGeev checks jnp.linalg.eig's custom call by its defining
// properties, for both precisions: A·vⱼ = λⱼ·vⱼ and uⱼᴴ·A = λⱼ·uⱼᴴ, every
// vector of norm 1 with its largest component real, complex eigenvalues in
// conjugate pairs (positive imaginary part first, conjugate vectors), and
// the eigenvalues of matrices whose spectrum is known.
func TestLapackGeev(t *testing.T) {
	for _, c := range []struct {
		name string
		in   mat
		want []complex128 // the eigenvalues in order, when known
	}{
		{"rotation", mat{rows: 2, cols: 2, data: []float64{0, -1, 1, 0}}, []complex128{1i, -1i}},
		{"triangular", mat{rows: 3, cols: 3, data: []float64{3, 1, 2, 0, -1, 5, 0, 0, 2}}, []complex128{3, -1, 2}},
		{"zero", mat{rows: 3, cols: 3, data: make([]float64, 9)}, []complex128{0, 0, 0}},
		{"one_by_one", mat{rows: 1, cols: 1, data: []float64{-4}}, []complex128{-4}},
		// (x-1)(x-2)(x-3)(x²+1) as a companion matrix.
		{"companion", companion(-6, 12, -12, 11, -6), nil},
		{"random_batched", randomMat(9, 3, 6, 6), nil},
		{"random_12", randomMat(10, 0, 12, 12), nil},
	} {
		for _, elem := range []string{"f32", "f64"} {
			t.Run(c.name+"_"+elem, func(t *testing.T) {
				b, n := max(c.in.batch, 1), c.in.rows
				cplx := "complex<" + elem + ">"
				got := runCustomCall(t, lapackTarget(elem, "geev"), "compute_left = 86 : ui8, compute_right = 86 : ui8", c.in, elem,
					batchedType(c.in.batch, elem, n), batchedType(c.in.batch, elem, n),
					batchedType(c.in.batch, cplx, n, n), batchedType(c.in.batch, cplx, n, n), batchedType(c.in.batch, "i32"))
				checkClose(t, "info", integers(got[4]), make([]float64, b), 0)
				re, im := floats(got[0]), floats(got[1])
				vl, vr := decodeTensor(got[2]).c, decodeTensor(got[3]).c
				tol := tolFor(elem) * 100
				for bi := 0; bi < b; bi++ {
					a := slice(c.in, bi)
					w := make([]complex128, n)
					for j := range w {
						w[j] = complex(re[bi*n+j], im[bi*n+j])
					}
					if c.want != nil {
						for j := range w {
							if cmplx.Abs(w[j]-c.want[j]) > tol {
								t.Fatalf("eigenvalues %v, want %v", w, c.want)
							}
						}
					}
					checkEigenvectors(t, "right", a, w, vr[bi*n*n:(bi+1)*n*n], n, false, tol)
					checkEigenvectors(t, "left", a, w, vl[bi*n*n:(bi+1)*n*n], n, true, tol)
				}
			})
		}
	}
	// Known spectrum in any order: the companion matrix's roots.
	got := runCustomCall(t, "lapack_dgeev_ffi", "compute_left = 78 : ui8, compute_right = 78 : ui8", companion(-6, 12, -12, 11, -6), "f64",
		"tensor<5xf64>", "tensor<5xf64>", "tensor<5x5xcomplex<f64>>", "tensor<5x5xcomplex<f64>>", "tensor<i32>")
	re, im := floats(got[0]), floats(got[1])
	w := make([]complex128, 5)
	for j := range w {
		w[j] = complex(re[j], im[j])
	}
	slices.SortFunc(w, func(x, y complex128) int {
		return cmp2(real(x), real(y))*2 + cmp2(imag(x), imag(y))
	})
	for j, want := range []complex128{-1i, 1i, 1, 2, 3} {
		if cmplx.Abs(w[j]-want) > 1e-12 {
			t.Fatalf("companion eigenvalues %v, want the roots -i, i, 1, 2, 3", w)
		}
	}
	if vecs := decodeTensor(got[3]).c; slices.ContainsFunc(vecs, func(x complex128) bool { return x != 0 }) {
		t.Error("eigenvalues only: the right eigenvectors are not left zero")
	}
}

func cmp2(x, y float64) int {
	switch {
	case x < y-1e-9:
		return -1
	case x > y+1e-9:
		return 1
	}
	return 0
}

// companion is the companion matrix of the monic xⁿ + c[0]xⁿ⁻¹ + ... +
// c[n-1]: its eigenvalues are the polynomial's roots.
func companion(c ...float64) mat {
	n := len(c)
	m := mat{rows: n, cols: n, data: make([]float64, n*n)}
	for j, x := range c {
		m.data[j] = -x
	}
	for i := 1; i < n; i++ {
		m.data[i*n+i-1] = 1
	}
	return m
}

// checkEigenvectors checks the columns of the row-major v against the real
// a's eigenvalues w as checkComplexEigenvectors does, and that conjugate
// pairs of eigenvalues have conjugate columns.
func checkEigenvectors(t *testing.T, side string, a []float64, w, v []complex128, n int, left bool, tol float64) {
	t.Helper()
	checkComplexEigenvectors(t, side, toComplex(a), w, v, n, left, tol)
	for j := 0; j < n; j++ {
		if imag(w[j]) > 0 {
			if j+1 >= n || w[j+1] != cmplx.Conj(w[j]) {
				t.Fatalf("eigenvalue %d (%v) is not followed by its conjugate: %v", j, w[j], w)
			}
			for i := 0; i < n; i++ {
				if v[i*n+j+1] != cmplx.Conj(v[i*n+j]) {
					t.Fatalf("%s eigenvectors %d and %d are not conjugate", side, j, j+1)
				}
			}
		}
	}
}
