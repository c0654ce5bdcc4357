package stablehlo

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/openpathways/pathways/internal/golden"
)

// TestFma checks stablehlo.fma on operands whose exact a*b + c lies just off
// a tie of the result type, where rounding a*b + c twice (in float64, or for
// the 16-bit types in float32, then to the type) lands on the wrong side,
// and on the special values.
func TestFma(t *testing.T) {
	for _, tc := range []struct {
		name, typ, a, b, c string
		want               float64
	}{
		// (1+2⁻¹²)² = 1+2⁻¹¹+2⁻²⁴ is a float32 tie; ±2⁻⁶⁰ decides it.
		{"f32 above a tie", "f32", "0x3F800800", "0x3F800800", "0x21800000", 1 + 0x1p-11 + 0x1p-23},
		{"f32 below a tie", "f32", "0x3F800800", "0x3F800800", "0xA1800000", 1 + 0x1p-11},
		// (1+2⁻³⁰)(1−2⁻³⁰) − 1 = −2⁻⁶⁰, which a rounded product loses.
		{"f64 cancellation", "f64", "0x3FF0000000400000", "0x3FEFFFFFFF800000", "0xBFF0000000000000", -0x1p-60},
		// (1+2⁻⁴)² = 1+2⁻³+2⁻⁸ is a bfloat16 tie.
		{"bf16 above a tie", "bf16", "0x3F88", "0x3F88", "0x2B80", 1 + 0x1p-3 + 0x1p-7},
		{"bf16 below a tie", "bf16", "0x3F88", "0x3F88", "0xAB80", 1 + 0x1p-3},
		// (1+2⁻⁵)(1+2⁻⁶) = 1+2⁻⁵+2⁻⁶+2⁻¹¹ is a float16 tie; 2⁻²⁴ is also
		// half a float32 ulp there, so float32 rounding alone makes a tie.
		{"f16 above a tie", "f16", "0x3C20", "0x3C10", "0x0001", 1 + 0x1p-5 + 0x1p-6 + 0x1p-10},
		{"f32 infinity times zero", "f32", "0x7F800000", "0x00000000", "0x3F800000", math.NaN()},
		{"f32 infinite addend", "f32", "0x3F800000", "0x3F800000", "0xFF800000", math.Inf(-1)},
		{"bf16 overflow", "bf16", "0x7F7F", "0x7F7F", "0x0000", math.Inf(1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := mustParse(t, fmt.Sprintf(`func.func public @main() -> tensor<%[1]s> {
  %%a = stablehlo.constant dense<%[2]s> : tensor<%[1]s>
  %%b = stablehlo.constant dense<%[3]s> : tensor<%[1]s>
  %%c = stablehlo.constant dense<%[4]s> : tensor<%[1]s>
  %%r = stablehlo.fma %%a, %%b, %%c : tensor<%[1]s>
  return %%r : tensor<%[1]s>
}`, tc.typ, tc.a, tc.b, tc.c))
			out, err := runMain(t, m)
			if err != nil {
				t.Fatal(err)
			}
			r := decodeTensor(out[0])
			got := 0.0
			if r.f64 != nil {
				got = r.f64[0]
			} else {
				got = float64(r.f32[0])
			}
			if got != tc.want && !(math.IsNaN(got) && math.IsNaN(tc.want)) {
				t.Errorf("fma = %v (%x), want %v (%x)", got, got, tc.want, tc.want)
			}
		})
	}
}

// TestFmaRefuses checks that fma of mixed types or of integers is an
// invalid program, not a result.
func TestFmaRefuses(t *testing.T) {
	for _, tc := range []struct{ typ, lit, src string }{
		{"tensor<2xf32>", "[1.0, 2.0]", `func.func public @main(%a: tensor<2xf32>) -> tensor<2xf64> {
  %b = stablehlo.convert %a : (tensor<2xf32>) -> tensor<2xf64>
  %r = "stablehlo.fma"(%a, %b, %a) : (tensor<2xf32>, tensor<2xf64>, tensor<2xf32>) -> tensor<2xf64>
  return %r : tensor<2xf64>
}`},
		{"tensor<2xi32>", "[1, 2]", `func.func public @main(%a: tensor<2xi32>) -> tensor<2xi32> {
  %r = stablehlo.fma %a, %a, %a : tensor<2xi32>
  return %r : tensor<2xi32>
}`},
	} {
		m, err := Parse([]byte(tc.src))
		if err == nil {
			_, err = runMain(t, m, literal(t, tc.typ, tc.lit))
		}
		if errorCode(err) != InvalidArgument {
			t.Errorf("%s\n: error %v, want INVALID_ARGUMENT", tc.src, err)
		}
	}
}

// TestFmaBytecode runs jax.lax.fma as jax 0.12.1 serializes it at its
// current StableHLO version (testdata/bytecode/fma.mlirbc): vhlo.fma_v1 on
// float32, and on the operands converted to float64.
func TestFmaBytecode(t *testing.T) {
	m, err := Parse(golden.ReadFile(t, "testdata/bytecode/fma.mlirbc"))
	if err != nil {
		t.Fatal(err)
	}
	one := float32(1 + 0x1p-12)
	a := f32Tensor(t, one, 3, math.MaxFloat32)
	b := f32Tensor(t, one, 0.5, 2)
	c := f32Tensor(t, 0x1p-60, -1.5, -math.MaxFloat32)
	out, err := runMain(t, m, a, b, c)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := decodeTensor(out[0]).f32, []float32{1 + 0x1p-11 + 0x1p-23, 0, math.MaxFloat32}; !slices.Equal(got, want) {
		t.Errorf("float32 fma = %v, want %v", got, want)
	}
	if got, want := decodeTensor(out[1]).f64, []float64{1 + 0x1p-11 + 0x1p-24 + 0x1p-60, 0, math.MaxFloat32}; !slices.Equal(got, want) {
		t.Errorf("float64 fma = %v, want %v", got, want)
	}
}

// f32Tensor makes a rank-1 float32 tensor of vs.
func f32Tensor(t *testing.T, vs ...float32) *Tensor {
	t.Helper()
	data := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(data[4*i:], math.Float32bits(v))
	}
	x, err := NewTensor(TensorType{Elem: F32, Shape: []int64{int64(len(vs))}}, data)
	if err != nil {
		t.Fatal(err)
	}
	return x
}
