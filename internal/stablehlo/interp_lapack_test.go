package stablehlo

import (
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"
	"strings"
	"testing"
)

// The QR, eigh and SVD custom calls are checked by their defining
// properties (the vectors are unique only up to sign), on random, rank-
// deficient and repeated-eigenvalue inputs; the golden corpus compares the
// same calls with LAPACK's results through JAX.

// mat is a batch of row-major float64 matrices used to build inputs and
// read results.
type mat struct {
	batch, rows, cols int
	data              []float64
}

func (m mat) at(b, i, j int) float64 { return m.data[(b*m.rows+i)*m.cols+j] }

func (m mat) tensorType(elem string) string { return batchedType(m.batch, elem, m.rows, m.cols) }

// literalText writes m as an MLIR dense literal.
func (m mat) literalText() string {
	var sb strings.Builder
	row := func(b, i int) {
		sb.WriteByte('[')
		for j := 0; j < m.cols; j++ {
			if j > 0 {
				sb.WriteString(", ")
			}
			fmt.Fprintf(&sb, "%.17e", m.at(b, i, j))
		}
		sb.WriteByte(']')
	}
	one := func(b int) {
		sb.WriteByte('[')
		for i := 0; i < m.rows; i++ {
			if i > 0 {
				sb.WriteString(", ")
			}
			row(b, i)
		}
		sb.WriteByte(']')
	}
	if m.batch == 0 {
		one(0)
		return sb.String()
	}
	sb.WriteByte('[')
	for b := 0; b < m.batch; b++ {
		if b > 0 {
			sb.WriteString(", ")
		}
		one(b)
	}
	sb.WriteByte(']')
	return sb.String()
}

// floats returns a tensor's elements as float64.
func floats(t *Tensor) []float64 {
	a := decodeTensor(t)
	if a.f64 != nil {
		return a.f64
	}
	out := make([]float64, len(a.f32))
	for i, x := range a.f32 {
		out[i] = float64(x)
	}
	return out
}

func randomMat(seed uint64, batch, rows, cols int) mat {
	r := rand.New(rand.NewPCG(seed, 1))
	m := mat{batch: batch, rows: rows, cols: cols, data: make([]float64, max(batch, 1)*rows*cols)}
	for i := range m.data {
		m.data[i] = r.Float64()*2 - 1
	}
	return m
}

// runCustomCall runs one custom call on input and returns its results.
func runCustomCall(t *testing.T, target, config string, input mat, elem string, results ...string) []*Tensor {
	t.Helper()
	in := input.tensorType(elem)
	res := strings.Join(results, ", ")
	src := fmt.Sprintf(`func.func @main() -> (%s) {
  %%a = stablehlo.constant dense<%s> : %s
  %%r:%d = stablehlo.custom_call @%s(%%a) {mhlo.backend_config = {%s}} : (%s) -> (%s)
  return %s : %s
}`, res, input.literalText(), in, len(results), target, config, in, res, resultList(len(results)), res)
	got, err := runMain(t, mustParse(t, src))
	if err != nil {
		t.Fatalf("%s: %v", target, err)
	}
	return got
}

func resultList(n int) string {
	parts := make([]string, n)
	for i := range parts {
		parts[i] = fmt.Sprintf("%%r#%d", i)
	}
	return strings.Join(parts, ", ")
}

// checkClose fails when got and want differ by more than tol anywhere.
func checkClose(t *testing.T, what string, got, want []float64, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d elements, want %d", what, len(got), len(want))
	}
	for i := range got {
		if !(math.Abs(got[i]-want[i]) <= tol) {
			t.Fatalf("%s: element %d = %g, want %g (tol %g)", what, i, got[i], want[i], tol)
		}
	}
}

// product returns x·y (or xᵀ·y) for one batch element of each.
func product(x, y mat, b int, transposeX bool) []float64 {
	r, inner := x.rows, x.cols
	if transposeX {
		r, inner = x.cols, x.rows
	}
	out := make([]float64, r*y.cols)
	for i := 0; i < r; i++ {
		for j := 0; j < y.cols; j++ {
			s := 0.0
			for k := 0; k < inner; k++ {
				xv := x.at(b, i, k)
				if transposeX {
					xv = x.at(b, k, i)
				}
				s += xv * y.at(b, k, j)
			}
			out[i*y.cols+j] = s
		}
	}
	return out
}

func identity(n int) []float64 {
	out := make([]float64, n*n)
	for i := 0; i < n; i++ {
		out[i*n+i] = 1
	}
	return out
}

func slice(m mat, b int) []float64 {
	n := m.rows * m.cols
	return m.data[b*n : (b+1)*n]
}

// lapackTarget names JAX's FFI target for routine, e.g. lapack_sgeqrf_ffi.
func lapackTarget(elem, routine string) string {
	return "lapack_" + map[string]string{"f32": "s", "f64": "d"}[elem] + routine + "_ffi"
}

func tolFor(elem string) float64 {
	if elem == "f32" {
		return 2e-5
	}
	return 1e-12
}

func asMat(t *Tensor, batch, rows, cols int) mat {
	return mat{batch: batch, rows: rows, cols: cols, data: floats(t)}
}

func rankOne(rows, cols int) mat {
	m := mat{rows: rows, cols: cols, data: make([]float64, rows*cols)}
	for i := 0; i < rows; i++ {
		for j := 0; j < cols; j++ {
			m.data[i*cols+j] = float64(i+1) * float64(j-1)
		}
	}
	return m
}

func TestLapackQR(t *testing.T) {
	for _, c := range []struct {
		name string
		in   mat
	}{
		{"tall_batched", randomMat(1, 2, 5, 3)},
		{"wide", randomMat(2, 0, 3, 5)},
		{"square", randomMat(3, 0, 4, 4)},
		{"rank_one", rankOne(4, 3)},
		{"zeros", mat{rows: 3, cols: 2, data: make([]float64, 6)}},
	} {
		for _, elem := range []string{"f32", "f64"} {
			t.Run(c.name+"_"+elem, func(t *testing.T) {
				b, m, n := max(c.in.batch, 1), c.in.rows, c.in.cols
				k := min(m, n)
				tauType := fmt.Sprintf("tensor<%dx%s>", k, elem)
				if c.in.batch > 0 {
					tauType = fmt.Sprintf("tensor<%dx%dx%s>", c.in.batch, k, elem)
				}
				got := runCustomCall(t, lapackTarget(elem, "geqrf"), "", c.in, elem,
					c.in.tensorType(elem), tauType)
				factored := asMat(got[0], c.in.batch, m, n)
				// Q from the reflectors: orgqr on the full m×m matrix (JAX pads
				// a with zero columns for mode="complete").
				padded := mat{batch: c.in.batch, rows: m, cols: m, data: make([]float64, b*m*m)}
				for bi := 0; bi < b; bi++ {
					for i := 0; i < m; i++ {
						for j := 0; j < min(n, m); j++ {
							padded.data[(bi*m+i)*m+j] = factored.at(bi, i, j)
						}
					}
				}
				q := runOrgqr(t, elem, padded, floats(got[1]), tauType)
				tol := tolFor(elem)
				for bi := 0; bi < b; bi++ {
					checkClose(t, "QᵀQ", product(q, q, bi, true), identity(m), tol)
					r := mat{rows: m, cols: n, data: make([]float64, m*n)}
					for i := 0; i < m; i++ {
						for j := i; j < n; j++ {
							r.data[i*n+j] = factored.at(bi, i, j)
						}
					}
					qb := mat{rows: m, cols: m, data: slice(q, bi)}
					checkClose(t, "QR", product(qb, r, 0, false), slice(c.in, bi), tol*float64(m))
				}
			})
		}
	}
}

func runOrgqr(t *testing.T, elem string, a mat, tau []float64, tauType string) mat {
	t.Helper()
	aType := a.tensorType(elem)
	tauLit := make([]string, len(tau))
	for i, x := range tau {
		tauLit[i] = fmt.Sprintf("%.17e", x)
	}
	lit := "[" + strings.Join(tauLit, ", ") + "]"
	if a.batch > 0 {
		k := len(tau) / a.batch
		var rows []string
		for b := 0; b < a.batch; b++ {
			rows = append(rows, "["+strings.Join(tauLit[b*k:(b+1)*k], ", ")+"]")
		}
		lit = "[" + strings.Join(rows, ", ") + "]"
	}
	src := fmt.Sprintf(`func.func @main() -> %[1]s {
  %%a = stablehlo.constant dense<%[2]s> : %[1]s
  %%t = stablehlo.constant dense<%[3]s> : %[4]s
  %%q = stablehlo.custom_call @%[5]s(%%a, %%t) {mhlo.backend_config = {}} : (%[1]s, %[4]s) -> %[1]s
  return %%q : %[1]s
}`, aType, a.literalText(), lit, tauType, lapackTarget(elem, "orgqr"))
	got, err := runMain(t, mustParse(t, src))
	if err != nil {
		t.Fatalf("orgqr: %v", err)
	}
	return asMat(got[0], a.batch, a.rows, a.cols)
}

func diagMat(vals ...float64) mat {
	n := len(vals)
	m := mat{rows: n, cols: n, data: make([]float64, n*n)}
	for i, v := range vals {
		m.data[i*n+i] = v
	}
	return m
}

// symmetric returns (m + mᵀ) / 2 for every batch element.
func symmetric(m mat) mat {
	out := mat{batch: m.batch, rows: m.rows, cols: m.cols, data: make([]float64, len(m.data))}
	n := m.rows
	for b := 0; b < max(m.batch, 1); b++ {
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				out.data[(b*n+i)*n+j] = (m.at(b, i, j) + m.at(b, j, i)) / 2
			}
		}
	}
	return out
}

func batchedType(batch int, elem string, dims ...int) string {
	var sb strings.Builder
	sb.WriteString("tensor<")
	if batch > 0 {
		fmt.Fprintf(&sb, "%dx", batch)
	}
	for _, d := range dims {
		fmt.Fprintf(&sb, "%dx", d)
	}
	sb.WriteString(elem + ">")
	return sb.String()
}

// TestJacobiHermitian diagonalises complex Hermitian matrices (heevd), one
// with a repeated eigenvalue, and checks V diag(w) Vᴴ = H and Vᴴ V = I.
func TestJacobiHermitian(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const n = 7
	random := make([]complex128, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j <= i; j++ {
			v := complex(rng.NormFloat64(), rng.NormFloat64())
			if i == j {
				v = complex(real(v), 0)
			}
			random[i*n+j], random[j*n+i] = v, cmplx.Conj(v)
		}
	}
	// I + u uᴴ for a complex u: eigenvalue 1 six times and 1 + |u|² once.
	repeated := make([]complex128, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			ui, uj := complex(float64(i), 1), complex(float64(j), 1)
			repeated[i*n+j] = ui * cmplx.Conj(uj)
			if i == j {
				repeated[i*n+j] = complex(1+real(ui*cmplx.Conj(uj)), 0)
			}
		}
	}
	for name, h := range map[string][]complex128{"random": random, "repeated": repeated} {
		s := append([]complex128(nil), h...)
		v, ok := jacobiEigen(s, n)
		if !ok {
			t.Fatalf("%s: no convergence", name)
		}
		worst := 0.0
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var x, g complex128
				for k := 0; k < n; k++ {
					x += v[i*n+k] * complex(real(s[k*n+k]), 0) * cmplx.Conj(v[j*n+k])
					g += cmplx.Conj(v[k*n+i]) * v[k*n+j]
				}
				if i == j {
					g--
				}
				worst = max(worst, cmplx.Abs(x-h[i*n+j]), cmplx.Abs(g))
			}
		}
		if worst > 1e-12 {
			t.Errorf("%s: V diag(w) Vᴴ or Vᴴ V is off by %g", name, worst)
		}
	}
}

// TestTridiagonalEigen checks the real eigh (Householder tridiagonal
// reduction and QL) on random, zero, diagonal with repeated values and rank-one
// matrices from 1×1 to 300×300: V diag(w) Vᵀ = A and VᵀV = I.
func TestTridiagonalEigen(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 3, 17, 300} {
		for _, kind := range []string{"random", "zero", "diag", "lowrank"} {
			a := make([]float64, n*n)
			for i := 0; i < n; i++ {
				for j := 0; j <= i; j++ {
					x := 0.0
					switch kind {
					case "random":
						x = rng.NormFloat64()
					case "diag":
						if i == j {
							x = float64(i % 3)
						}
					}
					a[i*n+j], a[j*n+i] = x, x
				}
			}
			if kind == "lowrank" {
				u := make([]float64, n)
				for i := range u {
					u[i] = rng.NormFloat64()
				}
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						a[i*n+j] = u[i] * u[j]
					}
				}
			}
			s := append([]float64(nil), a...)
			w, v, ok := tridiagonalEigen(s, n)
			worst, orth := 0.0, 0.0
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					x, g := 0.0, 0.0
					for k := 0; k < n; k++ {
						x += v[i*n+k] * w[k] * v[j*n+k]
						g += v[k*n+i] * v[k*n+j]
					}
					if i == j {
						g--
					}
					worst = max(worst, math.Abs(x-a[i*n+j]))
					orth = max(orth, math.Abs(g))
				}
			}
			if !ok || worst > 1e-11*float64(n) || orth > 1e-12*float64(n) {
				t.Errorf("n=%d %s ok=%v recon %g orth %g", n, kind, ok, worst, orth)
			}
		}
	}
}

func TestLapackSyevd(t *testing.T) {
	for _, c := range []struct {
		name string
		in   mat
		want []float64 // eigenvalues, when known exactly
	}{
		{"known", mat{rows: 2, cols: 2, data: []float64{2, 1, 1, 2}}, []float64{1, 3}},
		{"repeated", diagMat(2, 1, 1, -4), []float64{-4, 1, 1, 2}},
		{"random_batched", symmetric(randomMat(4, 3, 5, 5)), nil},
		{"one_by_one", diagMat(-7), []float64{-7}},
	} {
		for _, elem := range []string{"f32", "f64"} {
			for _, uplo := range []byte{'L', 'U'} {
				t.Run(fmt.Sprintf("%s_%s_%c", c.name, elem, uplo), func(t *testing.T) {
					b, n := max(c.in.batch, 1), c.in.rows
					// Spoil the triangle syevd must not read.
					in := mat{batch: c.in.batch, rows: n, cols: n, data: append([]float64(nil), c.in.data...)}
					for bi := 0; bi < b; bi++ {
						for i := 0; i < n; i++ {
							for j := 0; j < n; j++ {
								if (uplo == 'L' && j > i) || (uplo == 'U' && j < i) {
									in.data[(bi*n+i)*n+j] = 100
								}
							}
						}
					}
					got := runCustomCall(t, lapackTarget(elem, "syevd"), fmt.Sprintf("mode = 86 : ui8, uplo = %d : ui8", uplo),
						in, elem, in.tensorType(elem), batchedType(c.in.batch, elem, n), batchedType(c.in.batch, "i32"))
					v, w := asMat(got[0], c.in.batch, n, n), floats(got[1])
					tol := tolFor(elem) * 10
					if c.want != nil {
						checkClose(t, "eigenvalues", w, c.want, tol)
					}
					checkClose(t, "info", integers(got[2]), make([]float64, b), 0)
					for bi := 0; bi < b; bi++ {
						ws := w[bi*n : (bi+1)*n]
						for j := 1; j < n; j++ {
							if ws[j] < ws[j-1] {
								t.Fatalf("eigenvalues not ascending: %v", ws)
							}
						}
						checkClose(t, "VᵀV", product(v, v, bi, true), identity(n), tol)
						vw := mat{rows: n, cols: n, data: make([]float64, n*n)}
						for i := 0; i < n; i++ {
							for j := 0; j < n; j++ {
								vw.data[i*n+j] = v.at(bi, i, j) * ws[j]
							}
						}
						vb := mat{rows: n, cols: n, data: slice(v, bi)}
						recon := make([]float64, n*n)
						for i := 0; i < n; i++ {
							for j := 0; j < n; j++ {
								for k := 0; k < n; k++ {
									recon[i*n+j] += vw.data[i*n+k] * vb.data[j*n+k]
								}
							}
						}
						checkClose(t, "V diag(w) Vᵀ", recon, slice(c.in, bi), tol*4)
					}
				})
			}
		}
	}
}

// integers reads an integer tensor's elements as float64.
func integers(t *Tensor) []float64 {
	a := decodeTensor(t)
	out := make([]float64, a.size())
	for i := range out {
		out[i] = float64(a.intAt(i))
	}
	return out
}

func TestLapackGesdd(t *testing.T) {
	for _, c := range []struct {
		name string
		in   mat
		want []float64 // singular values, when known exactly
	}{
		{"diag", diagMat(-1, 3, 2), []float64{3, 2, 1}},
		{"tall_batched", randomMat(5, 2, 5, 3), nil},
		{"wide", randomMat(6, 0, 2, 4), nil},
		{"rank_one", rankOne(4, 3), []float64{math.Sqrt(30) * math.Sqrt(2), 0, 0}},
		{"zeros_wide", mat{rows: 2, cols: 3, data: make([]float64, 6)}, []float64{0, 0}},
	} {
		for _, elem := range []string{"f32", "f64"} {
			for _, full := range []bool{true, false} {
				// gesvd (the QR algorithm's target) answers as gesdd.
				routine := map[bool]string{true: "gesdd", false: "gesvd"}[elem == "f32"]
				t.Run(fmt.Sprintf("%s_%s_%s_full=%v", c.name, routine, elem, full), func(t *testing.T) {
					b, m, n := max(c.in.batch, 1), c.in.rows, c.in.cols
					k := min(m, n)
					uCols, vRows, mode := k, k, 'S'
					if full {
						uCols, vRows, mode = m, n, 'A'
					}
					got := runCustomCall(t, lapackTarget(elem, routine), fmt.Sprintf("mode = %d : ui8", mode), c.in, elem,
						c.in.tensorType(elem), batchedType(c.in.batch, elem, k), batchedType(c.in.batch, elem, m, uCols),
						batchedType(c.in.batch, elem, vRows, n), batchedType(c.in.batch, "i32"))
					s := floats(got[1])
					u, vt := asMat(got[2], c.in.batch, m, uCols), asMat(got[3], c.in.batch, vRows, n)
					tol := tolFor(elem) * 10
					if c.want != nil {
						checkClose(t, "singular values", s, c.want, tol)
					}
					checkClose(t, "info", integers(got[4]), make([]float64, b), 0)
					for bi := 0; bi < b; bi++ {
						ss := s[bi*k : (bi+1)*k]
						for j := range ss {
							if ss[j] < 0 || (j > 0 && ss[j] > ss[j-1]) {
								t.Fatalf("singular values not descending and non-negative: %v", ss)
							}
						}
						checkClose(t, "UᵀU", product(u, u, bi, true), identity(uCols), tol)
						vtT := mat{rows: n, cols: vRows, data: make([]float64, n*vRows)}
						for i := 0; i < vRows; i++ {
							for j := 0; j < n; j++ {
								vtT.data[j*vRows+i] = vt.at(bi, i, j)
							}
						}
						checkClose(t, "V Vᵀ rows", product(vtT, vtT, 0, true), identity(vRows), tol)
						us := mat{rows: m, cols: k, data: make([]float64, m*k)}
						for i := 0; i < m; i++ {
							for j := 0; j < k; j++ {
								us.data[i*k+j] = u.at(bi, i, j) * ss[j]
							}
						}
						vtk := mat{rows: k, cols: n, data: slice(vt, bi)[:k*n]}
						checkClose(t, "U S Vᵀ", product(us, vtk, 0, false), slice(c.in, bi), tol*4)
					}
				})
			}
		}
	}
}

func TestLapackNonFiniteInfo(t *testing.T) {
	// 0/0 makes the NaN matrix.
	src := `func.func @main() -> (tensor<i32>, tensor<i32>, tensor<i32>) {
  %z = stablehlo.constant dense<0.0> : tensor<2x2xf64>
  %a = stablehlo.divide %z, %z : tensor<2x2xf64>
  %e:3 = stablehlo.custom_call @lapack_dsyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<2xf64>, tensor<i32>)
  %s:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%a) {mhlo.backend_config = {mode = 65 : ui8}} : (tensor<2x2xf64>) -> (tensor<2x2xf64>, tensor<2xf64>, tensor<2x2xf64>, tensor<2x2xf64>, tensor<i32>)
  %g:5 = stablehlo.custom_call @lapack_dgeev_ffi(%a) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}} : (tensor<2x2xf64>) -> (tensor<2xf64>, tensor<2xf64>, tensor<2x2xcomplex<f64>>, tensor<2x2xcomplex<f64>>, tensor<i32>)
  return %e#2, %s#4, %g#4 : tensor<i32>, tensor<i32>, tensor<i32>
}`
	got, err := runMain(t, mustParse(t, src))
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	for i, name := range []string{"syevd", "gesdd", "geev"} {
		if info := integers(got[i]); info[0] == 0 {
			t.Errorf("%s info = 0 for a NaN matrix, want a failure code", name)
		}
	}
}

func TestLapackBadShapes(t *testing.T) {
	call := func(target, config, operands, types string) string {
		name := "%r"
		if n := strings.Count(types[strings.Index(types, "->"):], "tensor<"); n > 1 {
			name = fmt.Sprintf("%%r:%d", n)
		}
		return `  ` + name + ` = stablehlo.custom_call @` + target + `(` + operands + `) {mhlo.backend_config = {` + config + `}} : ` + types
	}
	for _, c := range []struct{ name, body, ret string }{
		{"geqrf_int", call("lapack_sgeqrf_ffi", "", "%i", "(tensor<2x2xi32>) -> (tensor<2x2xi32>, tensor<2xi32>)"), "%r#0 : tensor<2x2xi32>"},
		{"geqrf_vector", call("lapack_sgeqrf_ffi", "", "%v", "(tensor<4xf32>) -> (tensor<4xf32>, tensor<1xf32>)"), "%r#0 : tensor<4xf32>"},
		{"geqrf_tau_size", call("lapack_sgeqrf_ffi", "", "%a", "(tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3xf32>)"), "%r#0 : tensor<3x2xf32>"},
		{"geqrf_one_result", call("lapack_sgeqrf_ffi", "", "%a", "(tensor<3x2xf32>) -> tensor<3x2xf32>"), "%r : tensor<3x2xf32>"},
		{"orgqr_wide", call("lapack_sorgqr_ffi", "", "%w, %t", "(tensor<2x3xf32>, tensor<2xf32>) -> tensor<2x3xf32>"), "%r : tensor<2x3xf32>"},
		{"orgqr_tau_long", call("lapack_sorgqr_ffi", "", "%a, %v", "(tensor<3x2xf32>, tensor<4xf32>) -> tensor<3x2xf32>"), "%r : tensor<3x2xf32>"},
		{"syevd_not_square", call("lapack_ssyevd_ffi", "", "%a", "(tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3xf32>, tensor<i32>)"), "%r#2 : tensor<i32>"},
		{"syevd_info_shape", call("lapack_ssyevd_ffi", "", "%s", "(tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2xf32>, tensor<3xi32>)"), "%r#2 : tensor<3xi32>"},
		{"gesdd_u_shape", call("lapack_sgesdd_ffi", "mode = 65 : ui8", "%a", "(tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<i32>)"), "%r#4 : tensor<i32>"},
		{"gesdd_u_too_wide", call("lapack_sgesdd_ffi", "mode = 65 : ui8", "%a", "(tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>, tensor<3x4xf32>, tensor<2x2xf32>, tensor<i32>)"), "%r#4 : tensor<i32>"},
		{"gesdd_u_type", call("lapack_sgesdd_ffi", "mode = 65 : ui8", "%a", "(tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<2xf32>, tensor<3x3xf64>, tensor<2x2xf32>, tensor<i32>)"), "%r#4 : tensor<i32>"},
		{"geev_not_square", call("lapack_sgeev_ffi", "", "%a", "(tensor<3x2xf32>) -> (tensor<3xf32>, tensor<3xf32>, tensor<3x3xcomplex<f32>>, tensor<3x3xcomplex<f32>>, tensor<i32>)"), "%r#4 : tensor<i32>"},
		{"geev_real_vectors", call("lapack_sgeev_ffi", "", "%s", "(tensor<2x2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2x2xf32>, tensor<2x2xf32>, tensor<i32>)"), "%r#4 : tensor<i32>"},
		{"geev_vector_shape", call("lapack_sgeev_ffi", "", "%s", "(tensor<2x2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2x3xcomplex<f32>>, tensor<2x2xcomplex<f32>>, tensor<i32>)"), "%r#4 : tensor<i32>"},
		{"gesdd_s_size", call("lapack_sgesdd_ffi", "mode = 65 : ui8", "%a", "(tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<2x2xf32>, tensor<i32>)"), "%r#4 : tensor<i32>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			retType := c.ret[strings.Index(c.ret, ":")+2:]
			src := `func.func @main() -> ` + retType + ` {
  %i = stablehlo.constant dense<1> : tensor<2x2xi32>
  %v = stablehlo.constant dense<1.0> : tensor<4xf32>
  %a = stablehlo.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %w = stablehlo.constant dense<1.0> : tensor<2x3xf32>
  %t = stablehlo.constant dense<1.0> : tensor<2xf32>
  %s = stablehlo.constant dense<1.0> : tensor<2x2xf32>
` + c.body + `
  return ` + c.ret + `
}`
			_, err := runMain(t, mustParse(t, src))
			if errorCode(err) != InvalidArgument {
				t.Fatalf("error = %v, want InvalidArgument\n%s", err, src)
			}
		})
	}
}
