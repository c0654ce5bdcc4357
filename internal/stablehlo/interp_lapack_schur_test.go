package stablehlo

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestLapackGeesComplex checks jax.scipy.linalg.schur(a, output="complex")'s
// custom call by its defining properties, batched and for both precisions:
// t upper triangular, z unitary, z·t·zᴴ = a, w the diagonal of t, sdim and
// info 0; and the eigenvalues of matrices whose spectrum is known.
func TestLapackGeesComplex(t *testing.T) {
	for _, c := range []struct {
		name  string
		batch int
		a     []complex128
		want  []complex128 // the eigenvalues, in any order, when known
	}{
		{"empty", 0, nil, nil},
		{"one_by_one", 0, []complex128{2 - 3i}, []complex128{2 - 3i}},
		{"rotation", 0, []complex128{0, -1, 1, 0}, []complex128{1i, -1i}},
		{"diagonal_complex", 0, []complex128{1i, 0, 0, 0, -2, 0, 0, 0, 3 + 1i}, []complex128{1i, -2, 3 + 1i}},
		{"zero", 0, make([]complex128, 9), []complex128{0, 0, 0}},
		{"jordan_block", 0, []complex128{2, 1, 0, 0, 2, 1, 0, 0, 2}, []complex128{2, 2, 2}},
		{"random_batched", 3, randomComplex(4, 3*5*5), nil},
		{"random_16", 0, randomComplex(5, 16*16), nil},
	} {
		for _, elem := range []string{"f32", "f64"} {
			t.Run(c.name+"_"+elem, func(t *testing.T) {
				b := max(c.batch, 1)
				n := int(math.Round(math.Sqrt(float64(len(c.a) / b))))
				target := map[string]string{"f32": "lapack_cgees_ffi", "f64": "lapack_zgees_ffi"}[elem]
				cplx := "complex<" + elem + ">"
				got := runMatrixCall(t, target, "mode = 86 : ui8, sort = 78 : ui8", c.batch, n, c.a, "complex<"+elem+">",
					batchedType(c.batch, cplx, n, n), batchedType(c.batch, cplx, n, n), batchedType(c.batch, cplx, n), batchedType(c.batch, "i32"), batchedType(c.batch, "i32"))
				checkClose(t, "sdim", integers(got[3]), make([]float64, b), 0)
				checkClose(t, "info", integers(got[4]), make([]float64, b), 0)
				tm, zm, w := decodeTensor(got[0]).c, decodeTensor(got[1]).c, decodeTensor(got[2]).c
				tol := tolFor(elem) * 100
				for bi := 0; bi < b; bi++ {
					a, tb, zb := c.a[bi*n*n:(bi+1)*n*n], tm[bi*n*n:(bi+1)*n*n], zm[bi*n*n:(bi+1)*n*n]
					checkSchur(t, a, tb, zb, n, true, tol)
					for i := 0; i < n; i++ {
						if w[bi*n+i] != tb[i*n+i] {
							t.Fatalf("w[%d] = %v, t's diagonal has %v", i, w[bi*n+i], tb[i*n+i])
						}
					}
					if c.want != nil {
						checkSpectrum(t, w[bi*n:(bi+1)*n], c.want, 1e-3)
					}
				}
			})
		}
	}
}

// TestLapackGeesReal checks jax.scipy.linalg.schur(a) of real matrices: z
// orthogonal, z·t·zᵀ = a, t quasi upper triangular with each 2×2 block in
// LAPACK's standard form (equal diagonal entries, off-diagonal entries of
// opposite signs) and wr ± i·wi its eigenvalues.
func TestLapackGeesReal(t *testing.T) {
	for _, c := range []struct {
		name string
		in   mat
		want []complex128
	}{
		{"rotation", mat{rows: 2, cols: 2, data: []float64{0, -1, 1, 0}}, []complex128{1i, -1i}},
		{"skewed_rotation", mat{rows: 2, cols: 2, data: []float64{1, -5, 2, 3}}, []complex128{2 + 3i, 2 - 3i}},
		{"triangular", mat{rows: 3, cols: 3, data: []float64{3, 1, 2, 0, -1, 5, 0, 0, 2}}, []complex128{3, -1, 2}},
		{"companion", companion(-6, 12, -12, 11, -6), []complex128{1i, -1i, 1, 2, 3}},
		{"random_batched", randomMat(11, 3, 7, 7), nil},
		{"random_12", randomMat(12, 0, 12, 12), nil},
	} {
		for _, elem := range []string{"f32", "f64"} {
			t.Run(c.name+"_"+elem, func(t *testing.T) {
				b, n := max(c.in.batch, 1), c.in.rows
				got := runCustomCall(t, lapackTarget(elem, "gees"), "mode = 86 : ui8, sort = 78 : ui8", c.in, elem,
					batchedType(c.in.batch, elem, n, n), batchedType(c.in.batch, elem, n, n), batchedType(c.in.batch, elem, n), batchedType(c.in.batch, elem, n),
					batchedType(c.in.batch, "i32"), batchedType(c.in.batch, "i32"))
				checkClose(t, "info", integers(got[5]), make([]float64, b), 0)
				tm, zm, wr, wi := floats(got[0]), floats(got[1]), floats(got[2]), floats(got[3])
				tol := tolFor(elem) * 100
				for bi := 0; bi < b; bi++ {
					a, tb, zb := toComplex(slice(c.in, bi)), toComplex(tm[bi*n*n:(bi+1)*n*n]), toComplex(zm[bi*n*n:(bi+1)*n*n])
					checkSchur(t, a, tb, zb, n, false, tol)
					w := make([]complex128, n)
					for j := range w {
						w[j] = complex(wr[bi*n+j], wi[bi*n+j])
						if wi[bi*n+j] == 0 && wr[bi*n+j] != real(tb[j*n+j]) {
							t.Fatalf("real eigenvalue %d is %v, t's diagonal has %v", j, wr[bi*n+j], tb[j*n+j])
						}
						if j > 0 && tb[j*n+j-1] != 0 { // a 2×2 block at j-1, j
							p, q, r, s := real(tb[(j-1)*n+j-1]), real(tb[(j-1)*n+j]), real(tb[j*n+j-1]), real(tb[j*n+j])
							if p != s || (q < 0) == (r < 0) {
								t.Fatalf("the 2×2 block at %d is not in standard form: [%v %v; %v %v]", j-1, p, q, r, s)
							}
							if math.Abs(wr[bi*n+j]-p) > tol || math.Abs(wi[bi*n+j-1]-math.Sqrt(-q*r)) > tol*math.Max(1, math.Abs(wi[bi*n+j-1])) || wi[bi*n+j] != -wi[bi*n+j-1] {
								t.Fatalf("block at %d [%v %v; %v %v] has eigenvalues %v", j-1, p, q, r, s, w[j-1:j+1])
							}
						}
					}
					if c.want != nil {
						checkSpectrum(t, w, c.want, 1e-3)
					}
				}
			})
		}
	}
}

// TestLapackGeevComplex checks jnp.linalg.eig of complex matrices: a·vⱼ =
// λⱼ·vⱼ and uⱼᴴ·a = λⱼ·uⱼᴴ, every vector of norm 1 with its largest
// component real, and the known spectra.
func TestLapackGeevComplex(t *testing.T) {
	for _, c := range []struct {
		name  string
		batch int
		a     []complex128
		want  []complex128
	}{
		{"one_by_one", 0, []complex128{2 - 3i}, []complex128{2 - 3i}},
		{"hermitian", 0, []complex128{2, 1i, -1i, 2}, []complex128{1, 3}},
		{"triangular", 0, []complex128{1, 2i, 3, 0, 1i, 4, 0, 0, -2}, []complex128{1, 1i, -2}},
		{"random_batched", 2, randomComplex(6, 2*6*6), nil},
		{"random_12", 0, randomComplex(7, 12*12), nil},
	} {
		for _, elem := range []string{"f32", "f64"} {
			t.Run(c.name+"_"+elem, func(t *testing.T) {
				b := max(c.batch, 1)
				n := int(math.Round(math.Sqrt(float64(len(c.a) / b))))
				target := map[string]string{"f32": "lapack_cgeev_ffi", "f64": "lapack_zgeev_ffi"}[elem]
				cplx := "complex<" + elem + ">"
				got := runMatrixCall(t, target, "compute_left = 86 : ui8, compute_right = 86 : ui8", c.batch, n, c.a, "complex<"+elem+">",
					batchedType(c.batch, cplx, n), batchedType(c.batch, cplx, n, n), batchedType(c.batch, cplx, n, n), batchedType(c.batch, "i32"))
				checkClose(t, "info", integers(got[3]), make([]float64, b), 0)
				w, vl, vr := decodeTensor(got[0]).c, decodeTensor(got[1]).c, decodeTensor(got[2]).c
				tol := tolFor(elem) * 100
				for bi := 0; bi < b; bi++ {
					a := c.a[bi*n*n : (bi+1)*n*n]
					wb := w[bi*n : (bi+1)*n]
					checkComplexEigenvectors(t, "right", a, wb, vr[bi*n*n:(bi+1)*n*n], n, false, tol)
					checkComplexEigenvectors(t, "left", a, wb, vl[bi*n*n:(bi+1)*n*n], n, true, tol)
					if c.want != nil {
						checkSpectrum(t, wb, c.want, tol)
					}
				}
			})
		}
	}
}

// TestLapackSchurBadInput: a non-finite matrix sets info (JAX then turns
// the results to NaN); results of the wrong shape or element type (gees,
// geev, gehrd, sytrd/hetrd) are INVALID_ARGUMENT, not an interpreter
// failure.
func TestLapackSchurBadInput(t *testing.T) {
	got := runMatrixCall(t, "lapack_zgees_ffi", "mode = 86 : ui8, sort = 78 : ui8", 0, 2, []complex128{1, cmplx.NaN(), 0, 1}, "complex<f64>",
		"tensor<2x2xcomplex<f64>>", "tensor<2x2xcomplex<f64>>", "tensor<2xcomplex<f64>>", "tensor<i32>", "tensor<i32>")
	if info := integers(got[4]); info[0] == 0 {
		t.Error("gees of a matrix with a NaN: info is 0")
	}
	got = runMatrixCall(t, "lapack_zgeev_ffi", "compute_left = 78 : ui8, compute_right = 86 : ui8", 0, 2, []complex128{1, cmplx.Inf(), 0, 1}, "complex<f64>",
		"tensor<2xcomplex<f64>>", "tensor<2x2xcomplex<f64>>", "tensor<2x2xcomplex<f64>>", "tensor<i32>")
	if info := integers(got[3]); info[0] == 0 {
		t.Error("geev of a matrix with an infinity: info is 0")
	}
	for _, c := range []struct{ target, results string }{
		{"lapack_zgees_ffi", "(tensor<2x2xcomplex<f64>>, tensor<2x2xcomplex<f64>>, tensor<3xcomplex<f64>>, tensor<i32>, tensor<i32>)"},
		{"lapack_zgees_ffi", "(tensor<2x2xcomplex<f64>>, tensor<2x2xcomplex<f64>>, tensor<2xcomplex<f64>>, tensor<i32>)"},
		{"lapack_zgeev_ffi", "(tensor<2xcomplex<f64>>, tensor<2x3xcomplex<f64>>, tensor<2x2xcomplex<f64>>, tensor<i32>)"},
		{"lapack_dgees_ffi", "(tensor<2x2xf64>, tensor<2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<2xi32>, tensor<i32>)"},
		{"lapack_dgees_ffi", "(tensor<2x2xcomplex<f64>>, tensor<2x2xf64>, tensor<2xf64>, tensor<2xf64>, tensor<i32>, tensor<i32>)"},
		{"lapack_dgees_ffi", "(tensor<2x2xf64>, tensor<2x2xf64>, tensor<2xi32>, tensor<2xf64>, tensor<i32>, tensor<i32>)"},
		{"lapack_zgeev_ffi", "(tensor<2xf64>, tensor<2x2xcomplex<f64>>, tensor<2x2xcomplex<f64>>, tensor<i32>)"},
		{"lapack_zgehrd_ffi", "(tensor<2x2xcomplex<f64>>, tensor<1xf64>, tensor<i32>)"},
		{"lapack_zhetrd_ffi", "(tensor<2x2xcomplex<f64>>, tensor<2xcomplex<f64>>, tensor<1xf64>, tensor<1xcomplex<f64>>, tensor<i32>)"},
		{"lapack_dsytrd_ffi", "(tensor<2x2xf64>, tensor<2xf64>, tensor<1xf64>, tensor<1xf32>, tensor<i32>)"},
	} {
		n := strings.Count(c.results, "tensor<")
		a := "tensor<2x2xcomplex<f64>>"
		if strings.HasPrefix(c.target, "lapack_d") {
			a = "tensor<2x2xf64>"
		}
		m := mustParse(t, fmt.Sprintf(`func.func @main(%%a: %s) -> tensor<i32> {
  %%r:%d = stablehlo.custom_call @%s(%%a) : (%s) -> %s
  %%z = stablehlo.constant dense<0> : tensor<i32>
  return %%z : tensor<i32>
}`, a, n, c.target, a, c.results))
		arg := &Tensor{Type: TensorType{Elem: C128, Shape: []int64{2, 2}}, Data: make([]byte, 64)}
		if strings.HasPrefix(c.target, "lapack_d") {
			arg = &Tensor{Type: TensorType{Elem: F64, Shape: []int64{2, 2}}, Data: make([]byte, 32)}
		}
		if _, err := m.Run(context.Background(), []*Tensor{arg}); errorCode(err) != InvalidArgument {
			t.Errorf("%s -> %s: %v, want INVALID_ARGUMENT", c.target, c.results, err)
		}
	}
}

func randomComplex(seed uint64, n int) []complex128 {
	r := rand.New(rand.NewPCG(seed, 2))
	out := make([]complex128, n)
	for i := range out {
		out[i] = complex(r.Float64()*2-1, r.Float64()*2-1)
	}
	return out
}

// realParts drops x's imaginary parts, in place.
func realParts(x []complex128) []complex128 {
	for i, v := range x {
		x[i] = complex(real(v), 0)
	}
	return x
}

func toComplex(x []float64) []complex128 {
	out := make([]complex128, len(x))
	for i, v := range x {
		out[i] = complex(v, 0)
	}
	return out
}

// runMatrixCall runs the custom call target on the batch of n×n matrices a
// (batch 0: one, unbatched) of element type typ (real types take a's real
// parts) and returns its results.
func runMatrixCall(t *testing.T, target, config string, batch, n int, a []complex128, typ string, results ...string) []*Tensor {
	t.Helper()
	in := batchedType(batch, typ, n, n)
	flat := fmt.Sprintf("tensor<%dx%s>", len(a), typ)
	src := fmt.Sprintf(`func.func @main() -> (%s) {
  %%c = stablehlo.constant dense<%s> : %s
  %%a = stablehlo.reshape %%c : (%s) -> %s
  %%r:%d = stablehlo.custom_call @%s(%%a) {mhlo.backend_config = {%s}} : (%s) -> (%s)
  return %s : %s
}`, strings.Join(results, ", "), denseLiteral(a, typ), flat, flat, in, len(results), target, config, in, strings.Join(results, ", "), resultList(len(results)), strings.Join(results, ", "))
	out, err := mustParse(t, src).Run(context.Background(), nil)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	return out
}

// denseLiteral writes x as a flat MLIR dense literal of element type typ
// (a real type takes the real parts); empty when x is.
func denseLiteral(x []complex128, typ string) string {
	if len(x) == 0 {
		return ""
	}
	parts := make([]string, len(x))
	for i, v := range x {
		parts[i] = strconvFloat(real(v))
		if strings.HasPrefix(typ, "complex") {
			parts[i] = fmt.Sprintf("(%s, %s)", parts[i], strconvFloat(imag(v)))
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func strconvFloat(x float64) string {
	if math.IsNaN(x) {
		return "0x7FF8000000000000"
	}
	if math.IsInf(x, 1) {
		return "0x7FF0000000000000"
	}
	return fmt.Sprintf("%.17g", x)
}

// checkSchur checks that t is upper triangular (quasi-triangular when not
// complex: a nonzero subdiagonal entry only between single ones), z
// unitary and z·t·zᴴ = a.
func checkSchur(t *testing.T, a, tm, z []complex128, n int, complexForm bool, tol float64) {
	t.Helper()
	scale := 1.0
	for _, x := range a {
		scale = max(scale, cmplx.Abs(x))
	}
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			if tm[i*n+j] == 0 {
				continue
			}
			if complexForm || j != i-1 || (i > 1 && tm[(i-1)*n+i-2] != 0) {
				t.Fatalf("t[%d][%d] = %v below the (quasi-)triangle", i, j, tm[i*n+j])
			}
		}
	}
	checkSchurProduct(t, a, tm, z, n, tol)
}

// checkSchurProduct checks that z is unitary and z·t·zᴴ = a.
func checkSchurProduct(t *testing.T, a, tm, z []complex128, n int, tol float64) {
	t.Helper()
	scale := 1.0
	for _, x := range a {
		scale = max(scale, cmplx.Abs(x))
	}
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			var zz, ztz complex128
			for k := 0; k < n; k++ {
				zz += cmplx.Conj(z[k*n+i]) * z[k*n+j]
				for l := 0; l < n; l++ {
					ztz += z[i*n+k] * tm[k*n+l] * cmplx.Conj(z[j*n+l])
				}
			}
			if want := complex(b2f(i == j), 0); cmplx.Abs(zz-want) > tol {
				t.Fatalf("(zᴴz)[%d][%d] = %v, want %v", i, j, zz, want)
			}
			if cmplx.Abs(ztz-a[i*n+j]) > tol*scale*float64(n) {
				t.Fatalf("(z t zᴴ)[%d][%d] = %v, a has %v", i, j, ztz, a[i*n+j])
			}
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// checkSpectrum checks that the eigenvalues got are want in some order.
func checkSpectrum(t *testing.T, got, want []complex128, tol float64) {
	t.Helper()
	left := append([]complex128(nil), want...)
	for _, g := range got {
		k := -1
		for i, w := range left {
			if cmplx.Abs(g-w) <= tol*max(1, cmplx.Abs(w)) {
				k = i
				break
			}
		}
		if k < 0 {
			t.Fatalf("eigenvalues %v, want %v in some order", got, want)
		}
		left = append(left[:k], left[k+1:]...)
	}
}

// checkComplexEigenvectors checks the columns of the row-major v against
// the complex a's eigenvalues w: a·vⱼ = wⱼ·vⱼ (or vⱼᴴ·a = wⱼ·vⱼᴴ when
// left), norm 1 and a largest component that is real.
func checkComplexEigenvectors(t *testing.T, side string, a, w, v []complex128, n int, left bool, tol float64) {
	t.Helper()
	scale := 1.0
	for _, x := range a {
		scale = max(scale, cmplx.Abs(x))
	}
	for j := 0; j < n; j++ {
		norm, big := 0.0, 0.0
		for i := 0; i < n; i++ {
			x := v[i*n+j]
			norm = math.Hypot(norm, cmplx.Abs(x))
			big = max(big, cmplx.Abs(x))
			var av complex128
			for l := 0; l < n; l++ {
				if left {
					av += cmplx.Conj(v[l*n+j]) * a[l*n+i]
				} else {
					av += a[i*n+l] * v[l*n+j]
				}
			}
			want := w[j] * x
			if left {
				want = w[j] * cmplx.Conj(x)
			}
			if cmplx.Abs(av-want) > tol*scale {
				t.Fatalf("%s eigenvector %d of eigenvalue %v: component %d is off by %g", side, j, w[j], i, cmplx.Abs(av-want))
			}
		}
		if math.Abs(norm-1) > tol {
			t.Fatalf("%s eigenvector %d has norm %g", side, j, norm)
		}
		real := false
		for i := 0; i < n; i++ {
			real = real || (imag(v[i*n+j]) == 0 && cmplx.Abs(v[i*n+j]) > big-tol)
		}
		if !real {
			t.Fatalf("%s eigenvector %d: its largest component is not real", side, j)
		}
	}
}

// TestLapackGehrd checks jax.scipy.linalg.hessenberg's custom call, real and
// complex, batched: h (the result on and above the subdiagonal) and Q
// formed from the stored reflectors by orgqr, as JAX forms it, give
// Q·h·Qᴴ = a with Q unitary; and the reflectors follow LAPACK's convention
// (v[0] = 1 implied, a real beta on the subdiagonal).
func TestLapackGehrd(t *testing.T) {
	for _, c := range []struct {
		name     string
		batch, n int
		complex  bool
	}{{"one", 0, 1, false}, {"real_5", 0, 5, false}, {"real_batched", 3, 6, false}, {"complex_4", 0, 4, true}, {"complex_batched", 2, 7, true}} {
		for _, elem := range []string{"f32", "f64"} {
			t.Run(c.name+"_"+elem, func(t *testing.T) {
				b, n := max(c.batch, 1), c.n
				a := randomComplex(uint64(n), b*n*n)
				typ, target, orgqr := elem, lapackTarget(elem, "gehrd"), lapackTarget(elem, "orgqr")
				if c.complex {
					typ = "complex<" + elem + ">"
					target = map[string]string{"f32": "lapack_cgehrd_ffi", "f64": "lapack_zgehrd_ffi"}[elem]
					orgqr = map[string]string{"f32": "lapack_cungqr_ffi", "f64": "lapack_zungqr_ffi"}[elem]
				} else {
					a = realParts(a)
				}
				in := batchedType(c.batch, typ, n, n)
				got := runMatrixCall(t, target, fmt.Sprintf("high = %d : i32, low = 1 : i32", n), c.batch, n, a, typ, in, batchedType(c.batch, typ, max(n-1, 0)), batchedType(c.batch, "i32"))
				h := complexValues(got[0])
				tau := complexValues(got[1])
				for bi := 0; bi < b; bi++ {
					m := h[bi*n*n : (bi+1)*n*n]
					// Q from the reflectors below the subdiagonal, as JAX
					// calls orgqr on them.
					q := make([]complex128, n*n)
					q[0] = 1
					if n > 1 {
						refl := make([]complex128, (n-1)*(n-1))
						for i := 1; i < n; i++ {
							for j := 0; j < n-1; j++ {
								refl[(i-1)*(n-1)+j] = m[i*n+j]
							}
						}
						sub := runTwoArgCall(t, orgqr, refl, tau[bi*(n-1):(bi+1)*(n-1)], n-1, elem, c.complex)
						for i := 1; i < n; i++ {
							for j := 1; j < n; j++ {
								q[i*n+j] = sub[(i-1)*(n-1)+j-1]
							}
						}
					}
					hess := append([]complex128(nil), m...)
					for i := 0; i < n; i++ {
						for j := 0; j < i-1; j++ {
							hess[i*n+j] = 0
						}
						if i > 0 && imag(hess[i*n+i-1]) != 0 {
							t.Fatalf("subdiagonal entry %d is %v, want a real beta", i, hess[i*n+i-1])
						}
					}
					checkSchurProduct(t, a[bi*n*n:(bi+1)*n*n], hess, q, n, tolFor(elem)*100)
				}
			})
		}
	}
}

func complexValues(t *Tensor) []complex128 {
	d := decodeTensor(t)
	if d.c != nil {
		return d.c
	}
	return toComplex(floatData(d))
}

// runTwoArgCall runs orgqr/ungqr on the n×n matrix a and its taus.
func runTwoArgCall(t *testing.T, target string, a, tau []complex128, n int, elem string, complexType bool) []complex128 {
	t.Helper()
	typ := elem
	if complexType {
		typ = "complex<" + elem + ">"
	}
	src := fmt.Sprintf(`func.func @main() -> tensor<%[1]dx%[1]dx%[2]s> {
  %%c = stablehlo.constant dense<%[3]s> : tensor<%[4]dx%[2]s>
  %%a = stablehlo.reshape %%c : (tensor<%[4]dx%[2]s>) -> tensor<%[1]dx%[1]dx%[2]s>
  %%t = stablehlo.constant dense<%[5]s> : tensor<%[1]dx%[2]s>
  %%q = stablehlo.custom_call @%[6]s(%%a, %%t) : (tensor<%[1]dx%[1]dx%[2]s>, tensor<%[1]dx%[2]s>) -> tensor<%[1]dx%[1]dx%[2]s>
  return %%q : tensor<%[1]dx%[1]dx%[2]s>
}`, n, typ, denseLiteral(a, typ), n*n, denseLiteral(tau, typ), target)
	out, err := mustParse(t, src).Run(context.Background(), nil)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	return complexValues(out[0])
}

// TestLapackGeqp3 checks QR with column pivoting (jax.scipy.linalg.qr with
// pivoting=True), real and complex: jpvt a 1-based permutation, R's
// diagonal non-increasing in magnitude, a[:, p] = Q·R with Q formed by
// orgqr; on a matrix whose columns' norms are 1, 3, 2 the pivots are 2, 3, 1;
// and columns jpvt marks on the way in come first, in their order.
func TestLapackGeqp3(t *testing.T) {
	for _, c := range []struct {
		name       string
		m, n       int
		a          []complex128 // random when nil
		fixed      []int64
		wantPivots []int64
		complex    bool
	}{
		{"norms", 3, 3, []complex128{1, 0, 0, 0, 3, 0, 0, 0, 2}, nil, []int64{2, 3, 1}, false},
		{"tall", 6, 4, nil, nil, nil, false},
		{"wide", 3, 5, nil, nil, nil, false},
		{"fixed", 4, 4, nil, []int64{0, 0, 1, 0}, nil, false},
		{"complex", 5, 5, nil, nil, nil, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, n, k := c.m, c.n, min(c.m, c.n)
			a := c.a
			if a == nil {
				a = randomComplex(uint64(m*n), m*n)
				if !c.complex {
					a = realParts(a)
				}
			}
			typ, target, orgqr := "f64", "lapack_dgeqp3_ffi", "lapack_dorgqr_ffi"
			if c.complex {
				typ, target, orgqr = "complex<f64>", "lapack_zgeqp3_ffi", "lapack_zungqr_ffi"
			}
			fixed := c.fixed
			if fixed == nil {
				fixed = make([]int64, n)
			}
			got := geqp3Call(t, target, typ, m, n, a, fixed)
			r, pivots, tau := complexValues(got[0]), integers(got[1]), complexValues(got[2])
			seen := make([]bool, n)
			p := make([]int, n)
			for j, v := range pivots {
				if v < 1 || v > float64(n) || seen[int(v)-1] {
					t.Fatalf("jpvt %v is not a 1-based permutation", pivots)
				}
				seen[int(v)-1], p[j] = true, int(v)-1
			}
			if c.wantPivots != nil {
				checkClose(t, "jpvt", pivots, int64sToFloats(c.wantPivots), 0)
			}
			for j, f := range fixed {
				if f != 0 && pivots[0] != float64(j+1) {
					t.Fatalf("fixed column %d is not first: jpvt %v", j, pivots)
				}
			}
			for i := 1; i < k; i++ {
				if cmplx.Abs(r[i*n+i]) > cmplx.Abs(r[(i-1)*n+i-1])*(1+1e-12) && c.fixed == nil {
					t.Fatalf("R's diagonal grows at %d: %v after %v", i, r[i*n+i], r[(i-1)*n+i-1])
				}
			}
			// Q (m×m) from the reflectors in the first k columns.
			refl := make([]complex128, m*m)
			for i := 0; i < m; i++ {
				for j := 0; j < k; j++ {
					refl[i*m+j] = r[i*n+j]
				}
			}
			taus := append(append([]complex128(nil), tau...), make([]complex128, m-k)...)
			q := runTwoArgCall(t, orgqr, refl, taus, m, "f64", c.complex)
			for i := 0; i < m; i++ {
				for j := 0; j < n; j++ {
					var qr complex128
					for l := 0; l <= min(j, m-1); l++ {
						qr += q[i*m+l] * r[l*n+j]
					}
					if want := a[i*n+p[j]]; cmplx.Abs(qr-want) > 1e-12 {
						t.Fatalf("(QR)[%d][%d] = %v, a[:, p] has %v", i, j, qr, want)
					}
				}
			}
		})
	}
}

func int64sToFloats(x []int64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(v)
	}
	return out
}

// geqp3Call runs geqp3 on the m×n a with jpvt fixed.
func geqp3Call(t *testing.T, target, typ string, m, n int, a []complex128, fixed []int64) []*Tensor {
	t.Helper()
	piv := make([]string, n)
	for i, f := range fixed {
		piv[i] = fmt.Sprint(f)
	}
	src := fmt.Sprintf(`func.func @main() -> (tensor<%[1]dx%[2]dx%[3]s>, tensor<%[2]dxi32>, tensor<%[4]dx%[3]s>) {
  %%c = stablehlo.constant dense<%[5]s> : tensor<%[6]dx%[3]s>
  %%a = stablehlo.reshape %%c : (tensor<%[6]dx%[3]s>) -> tensor<%[1]dx%[2]dx%[3]s>
  %%p = stablehlo.constant dense<[%[7]s]> : tensor<%[2]dxi32>
  %%r:3 = stablehlo.custom_call @%[8]s(%%a, %%p) : (tensor<%[1]dx%[2]dx%[3]s>, tensor<%[2]dxi32>) -> (tensor<%[1]dx%[2]dx%[3]s>, tensor<%[2]dxi32>, tensor<%[4]dx%[3]s>)
  return %%r#0, %%r#1, %%r#2 : tensor<%[1]dx%[2]dx%[3]s>, tensor<%[2]dxi32>, tensor<%[4]dx%[3]s>
}`, m, n, typ, min(m, n), denseLiteral(a, typ), m*n, strings.Join(piv, ", "), target)
	out, err := mustParse(t, src).Run(context.Background(), nil)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	return out
}

// TestLapackSytrd checks jax.lax.linalg.tridiagonal's custom call, real and
// complex, both triangles: Q built from the stored reflectors as LAPACK
// documents them (uplo 'L': Q = H(1)···H(n-1), v(i+1) = 1 and v(i+2:n) in
// a(i+2:n, i); 'U': Q = H(n-1)···H(1), v(i) = 1 and v(1:i-1) in
// a(1:i-1, i+1)) is unitary and Q·T·Qᴴ = a for the tridiagonal T of d and e,
// which also stand on a's diagonal and off-diagonal; the other triangle
// comes back as it went in.
func TestLapackSytrd(t *testing.T) {
	for _, c := range []struct {
		name    string
		n       int
		complex bool
	}{{"one", 1, false}, {"real_6", 6, false}, {"complex_5", 5, true}} {
		for _, lower := range []bool{true, false} {
			t.Run(fmt.Sprintf("%s_lower=%v", c.name, lower), func(t *testing.T) {
				n := c.n
				a := randomComplex(uint64(n)+7, n*n)
				for i := 0; i < n; i++ {
					a[i*n+i] = complex(real(a[i*n+i]), 0)
					for j := 0; j < i; j++ {
						if !c.complex {
							a[i*n+j] = complex(real(a[i*n+j]), 0)
						}
						a[j*n+i] = cmplx.Conj(a[i*n+j])
					}
				}
				typ, target := "f64", "lapack_dsytrd_ffi"
				if c.complex {
					typ, target = "complex<f64>", "lapack_zhetrd_ffi"
				}
				uplo := map[bool]int{true: 'L', false: 'U'}[lower]
				k := max(n-1, 0)
				got := runMatrixCall(t, target, fmt.Sprintf("uplo = %d : ui8", uplo), 0, n, a, typ,
					batchedType(0, typ, n, n), batchedType(0, "f64", n), batchedType(0, "f64", k), batchedType(0, typ, k), "tensor<i32>")
				out, d, e, tau := complexValues(got[0]), floats(got[1]), floats(got[2]), complexValues(got[3])
				tri := make([]complex128, n*n)
				for i := 0; i < n; i++ {
					tri[i*n+i] = complex(d[i], 0)
					if out[i*n+i] != tri[i*n+i] {
						t.Fatalf("a's diagonal %d is %v, d has %v", i, out[i*n+i], d[i])
					}
					if i+1 < n {
						tri[(i+1)*n+i], tri[i*n+i+1] = complex(e[i], 0), complex(e[i], 0)
						if off := map[bool]complex128{true: out[(i+1)*n+i], false: out[i*n+i+1]}[lower]; off != complex(e[i], 0) {
							t.Fatalf("a's off-diagonal %d is %v, e has %v", i, off, e[i])
						}
					}
				}
				q := make([]complex128, n*n)
				for i := 0; i < n; i++ {
					q[i*n+i] = 1
				}
				for step := 0; step < k; step++ {
					// The reflector applied step-th from the right of Q.
					i := step
					if !lower {
						i = k - 1 - step
					}
					v := make([]complex128, n)
					if lower {
						v[i+1] = 1
						for r := i + 2; r < n; r++ {
							v[r] = out[r*n+i]
						}
					} else {
						v[i] = 1
						for r := 0; r < i; r++ {
							v[r] = out[r*n+i+1]
						}
					}
					for r := 0; r < n; r++ { // q = q (I - tau v vᴴ)
						var s complex128
						for l := 0; l < n; l++ {
							s += q[r*n+l] * v[l]
						}
						for l := 0; l < n; l++ {
							q[r*n+l] -= tau[i] * s * cmplx.Conj(v[l])
						}
					}
				}
				checkSchurProduct(t, a, tri, q, n, 1e-12)
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						if (lower && j > i || !lower && j < i) && out[i*n+j] != a[i*n+j] {
							t.Fatalf("a[%d][%d] of the other triangle changed from %v to %v", i, j, a[i*n+j], out[i*n+j])
						}
					}
				}
			})
		}
	}
}

// TestLapackOrmqr checks jax.lax.linalg.ormqr's custom call, real and
// complex, from either side, with Q and with its (conjugate) transpose,
// against Q formed by orgqr from the same reflectors and multiplied out.
func TestLapackOrmqr(t *testing.T) {
	const m, k, p = 5, 3, 4 // Q is m×m from k reflectors; c is m×p or p×m
	for _, complexType := range []bool{false, true} {
		for _, left := range []bool{true, false} {
			for _, transpose := range []bool{false, true} {
				t.Run(fmt.Sprintf("complex=%v_left=%v_transpose=%v", complexType, left, transpose), func(t *testing.T) {
					typ, target, orgqr := "f64", "lapack_dormqr_ffi", "lapack_dorgqr_ffi"
					if complexType {
						typ, target, orgqr = "complex<f64>", "lapack_zunmqr_ffi", "lapack_zungqr_ffi"
					}
					random := func(seed uint64, n int) []complex128 {
						x := randomComplex(seed, n)
						if !complexType {
							realParts(x)
						}
						return x
					}
					a, tau := random(21, m*k), random(22, k)
					rows, cols := m, p
					if !left {
						rows, cols = p, m
					}
					c := random(23, rows*cols)
					square := make([]complex128, m*m)
					for i := 0; i < m; i++ {
						copy(square[i*m:i*m+k], a[i*k:i*k+k])
					}
					q := runTwoArgCall(t, orgqr, square, append(append([]complex128(nil), tau...), make([]complex128, m-k)...), m, "f64", complexType)
					if transpose {
						qt := make([]complex128, m*m)
						for i := 0; i < m; i++ {
							for j := 0; j < m; j++ {
								qt[i*m+j] = cmplx.Conj(q[j*m+i])
							}
						}
						q = qt
					}
					got := complexValues(ormqrCall(t, target, typ, a, tau, c, m, k, rows, cols, left, transpose))
					for i := 0; i < rows; i++ {
						for j := 0; j < cols; j++ {
							var want complex128
							for l := 0; l < m; l++ {
								if left {
									want += q[i*m+l] * c[l*cols+j]
								} else {
									want += c[i*cols+l] * q[l*m+j]
								}
							}
							if cmplx.Abs(got[i*cols+j]-want) > 1e-12 {
								t.Fatalf("element [%d][%d] is %v, want %v", i, j, got[i*cols+j], want)
							}
						}
					}
				})
			}
		}
	}
}

func ormqrCall(t *testing.T, target, typ string, a, tau, c []complex128, m, k, rows, cols int, left, transpose bool) *Tensor {
	t.Helper()
	src := fmt.Sprintf(`func.func @main() -> tensor<%[1]dx%[2]dx%[3]s> {
  %%af = stablehlo.constant dense<%[4]s> : tensor<%[5]dx%[3]s>
  %%a = stablehlo.reshape %%af : (tensor<%[5]dx%[3]s>) -> tensor<%[6]dx%[7]dx%[3]s>
  %%t = stablehlo.constant dense<%[8]s> : tensor<%[7]dx%[3]s>
  %%cf = stablehlo.constant dense<%[9]s> : tensor<%[10]dx%[3]s>
  %%c = stablehlo.reshape %%cf : (tensor<%[10]dx%[3]s>) -> tensor<%[1]dx%[2]dx%[3]s>
  %%r = stablehlo.custom_call @%[11]s(%%a, %%t, %%c) {mhlo.backend_config = {left = %[12]v, transpose = %[13]v}} : (tensor<%[6]dx%[7]dx%[3]s>, tensor<%[7]dx%[3]s>, tensor<%[1]dx%[2]dx%[3]s>) -> tensor<%[1]dx%[2]dx%[3]s>
  return %%r : tensor<%[1]dx%[2]dx%[3]s>
}`, rows, cols, typ, denseLiteral(a, typ), m*k, m, k, denseLiteral(tau, typ), denseLiteral(c, typ), rows*cols, target, left, transpose)
	out, err := mustParse(t, src).Run(context.Background(), nil)
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	return out[0]
}
