package stablehlo

import (
	"context"
	"fmt"
	"math"
	"math/cmplx"
	"strings"
	"testing"
)

// runPerturbedSolve runs tridiagonal_solve_perturbed_ffi on batch systems of
// n rows (dl, d, du: batch×n) and nrhs right-hand sides (b: batch×n×nrhs,
// row-major) of element type typ, and returns x as b is laid out.
func runPerturbedSolve(typ string, batch, n, nrhs int, dl, d, du, b []complex128) ([]complex128, error) {
	vec, mat := batchedType(batch, typ, n), batchedType(batch, typ, n, nrhs)
	flat := func(x []complex128) string { return fmt.Sprintf("tensor<%dx%s>", len(x), typ) }
	var src strings.Builder
	fmt.Fprintf(&src, "func.func @main() -> %s {\n", mat)
	for i, x := range [][]complex128{dl, d, du, b} {
		shape := vec
		if i == 3 {
			shape = mat
		}
		fmt.Fprintf(&src, "  %%c%d = stablehlo.constant dense<%s> : %s\n", i, denseLiteral(x, typ), flat(x))
		fmt.Fprintf(&src, "  %%a%d = stablehlo.reshape %%c%d : (%s) -> %s\n", i, i, flat(x), shape)
	}
	fmt.Fprintf(&src, "  %%x = stablehlo.custom_call @tridiagonal_solve_perturbed_ffi(%%a0, %%a1, %%a2, %%a3) : (%s, %s, %s, %s) -> %s\n", vec, vec, vec, mat, mat)
	fmt.Fprintf(&src, "  return %%x : %s\n}", mat)
	m, err := Parse([]byte(src.String()))
	if err != nil {
		return nil, err
	}
	out, err := m.Run(context.Background(), nil)
	if err != nil {
		return nil, err
	}
	return complexValues(out[0]), nil
}

// tridiagonalTimes returns A·x for each system of the batch (x laid out as
// runPerturbedSolve's b).
func tridiagonalTimes(batch, n, nrhs int, dl, d, du, x []complex128) []complex128 {
	out := make([]complex128, len(x))
	for s := range batch {
		for i := range n {
			for c := range nrhs {
				at := func(r int) complex128 { return x[(s*n+r)*nrhs+c] }
				v := d[s*n+i] * at(i)
				if i > 0 {
					v += dl[s*n+i] * at(i-1)
				}
				if i < n-1 {
					v += du[s*n+i] * at(i+1)
				}
				out[(s*n+i)*nrhs+c] = v
			}
		}
	}
	return out
}

func maxModulus(x []complex128) float64 {
	m := 0.0
	for _, v := range x {
		m = math.Max(m, cmplx.Abs(v))
	}
	return m
}

var perturbedSolveTypes = []struct {
	typ string
	tol float64 // relative residual allowed after rounding to typ
}{
	{"f64", 1e-13}, {"f32", 1e-6}, {"complex<f64>", 1e-13}, {"complex<f32>", 1e-6},
}

// A nonsingular system, batched, real and complex, whose zero first pivot
// makes the elimination exchange rows and whose zero subdiagonal element
// skips a step: x solves A x = b to the element type's precision.
func TestTridiagonalSolvePerturbedNonsingular(t *testing.T) {
	const batch, n, nrhs = 2, 7, 3
	for _, tc := range perturbedSolveTypes {
		t.Run(tc.typ, func(t *testing.T) {
			random := func(seed uint64, k int) []complex128 {
				x := randomComplex(seed, k)
				if !strings.HasPrefix(tc.typ, "complex") {
					realParts(x)
				}
				return x
			}
			dl, d, du, b := random(31, batch*n), random(32, batch*n), random(33, batch*n), random(34, batch*n*nrhs)
			for s := range batch {
				dl[s*n], du[s*n+n-1] = 0, 0
				d[s*n] = 0 // only exchanging the first two rows solves it
			}
			dl[4] = 0
			// What the element type holds: the residual is of these values.
			for _, v := range [][]complex128{dl, d, du, b} {
				roundTo(tc.typ, v)
			}
			x, err := runPerturbedSolve(tc.typ, batch, n, nrhs, dl, d, du, b)
			if err != nil {
				t.Fatal(err)
			}
			ax := tridiagonalTimes(batch, n, nrhs, dl, d, du, x)
			for i := range ax {
				ax[i] -= b[i]
			}
			scale := maxModulus(x)*(maxModulus(d)+maxModulus(dl)+maxModulus(du)) + maxModulus(b)
			if res := maxModulus(ax) / scale; !(res <= tc.tol) {
				t.Errorf("|A x - b| = %g of the scale %g, want at most %g", res, scale, tc.tol)
			}
		})
	}
}

// roundTo rounds x's parts to float32 when typ is a 32-bit type.
func roundTo(typ string, x []complex128) {
	if !strings.Contains(typ, "f32") {
		return
	}
	for i, v := range x {
		x[i] = complex(float64(float32(real(v))), float64(float32(imag(v))))
	}
}

// A singular system gives a finite answer: its right-hand side in A's range
// is solved exactly; one outside it gives a huge x whose direction is A's
// null vector, which is what inverse iteration wants. A 1×1 zero pivot is
// moved off zero by the element type's safe minimum, so that 2/pivot fits a
// float32 too.
func TestTridiagonalSolvePerturbedSingular(t *testing.T) {
	// [[0 1 0] [1 0 1] [0 1 0]]: null vector (1, 0, -1)/√2.
	dl, d, du := []complex128{0, 1, 1}, []complex128{0, 0, 0}, []complex128{1, 1, 0}
	for _, tc := range perturbedSolveTypes {
		t.Run(tc.typ, func(t *testing.T) {
			x, err := runPerturbedSolve(tc.typ, 1, 3, 1, dl, d, du, []complex128{1, 1, 1})
			if err != nil {
				t.Fatal(err)
			}
			if want := []complex128{1, 1, 0}; !cmplxClose(x, want, 0) {
				t.Errorf("consistent right-hand side: x = %v, want %v", x, want)
			}
			x, err = runPerturbedSolve(tc.typ, 1, 3, 1, dl, d, du, []complex128{1, 0, 0})
			if err != nil {
				t.Fatal(err)
			}
			norm := 0.0
			for _, v := range x {
				if cmplx.IsInf(v) || cmplx.IsNaN(v) {
					t.Fatalf("x = %v, want finite", x)
				}
				norm = math.Hypot(norm, cmplx.Abs(v))
			}
			if norm < 1e6 {
				t.Errorf("|x| = %g, want a huge x (a pivot of about eps)", norm)
			}
			for i := range x {
				x[i] /= complex(norm, 0)
			}
			if want := []complex128{complex(math.Sqrt2/2, 0), 0, complex(-math.Sqrt2/2, 0)}; !cmplxClose(x, want, 1e-6) {
				t.Errorf("x/|x| = %v, want the null vector %v", x, want)
			}

			x, err = runPerturbedSolve(tc.typ, 1, 1, 1, []complex128{0}, []complex128{0}, []complex128{0}, []complex128{2})
			if err != nil {
				t.Fatal(err)
			}
			want := 2 / (3 * 0x1p-1022) // the pivot takes safeMin, then 2·safeMin more
			if strings.Contains(tc.typ, "f32") {
				want = float64(float32(2 / (3 * 0x1p-126)))
			}
			if x[0] != complex(want, 0) {
				t.Errorf("1×1 zero pivot: x = %v, want %v", x[0], want)
			}
		})
	}
}

func cmplxClose(got, want []complex128, tol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !(cmplx.Abs(got[i]-want[i]) <= tol) {
			return false
		}
	}
	return true
}

// Operands of other element types than b's, diagonals that do not match b's
// rows, a result unlike b and types jaxlib's kernel does not take are
// INVALID_ARGUMENT.
func TestTridiagonalSolvePerturbedBadInput(t *testing.T) {
	for _, c := range []struct{ name, operands, result string }{
		{"element_types", "tensor<3xf64>, tensor<3xf32>, tensor<3xf32>, tensor<3x1xf32>", "tensor<3x1xf32>"},
		{"rows", "tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<3x1xf32>", "tensor<3x1xf32>"},
		{"result", "tensor<3xf32>, tensor<3xf32>, tensor<3xf32>, tensor<3x1xf32>", "tensor<3x2xf32>"},
		{"half_precision", "tensor<3xf16>, tensor<3xf16>, tensor<3xf16>, tensor<3x1xf16>", "tensor<3x1xf16>"},
	} {
		t.Run(c.name, func(t *testing.T) {
			types := strings.Split(c.operands, ", ")
			var src strings.Builder
			fmt.Fprintf(&src, "func.func @main() -> %s {\n", c.result)
			for i, typ := range types {
				fmt.Fprintf(&src, "  %%a%d = stablehlo.constant dense<1.0> : %s\n", i, typ)
			}
			fmt.Fprintf(&src, "  %%x = stablehlo.custom_call @tridiagonal_solve_perturbed_ffi(%%a0, %%a1, %%a2, %%a3) : (%s) -> %s\n  return %%x : %s\n}", c.operands, c.result, c.result)
			m, err := Parse([]byte(src.String()))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := m.Run(context.Background(), nil); errorCode(err) != InvalidArgument {
				t.Errorf("Run = %v, want InvalidArgument", err)
			}
		})
	}
}
